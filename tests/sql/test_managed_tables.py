"""Managed tables: saveAsTable's modes, insertInto, reading by name (spark.table, SQL, catalog),
views hiding tables, and a warehouse directory left by another application."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import AnalysisException


@pytest.fixture
def warehouse(spark: SparkSession, tmp_path: Path) -> Path:
    spark.conf.set("spark.sql.warehouse.dir", str(tmp_path / "warehouse"))
    return tmp_path / "warehouse"


def _name() -> str:
    return f"t_{uuid.uuid4().hex[:8]}"  # the catalog belongs to the (shared) SparkContext


def test_save_modes_append_and_reading_by_name(spark: SparkSession, warehouse: Path) -> None:
    name = _name()
    spark.range(3).withColumn("s", F.col("id").cast("string")).write.saveAsTable(name)
    assert (warehouse / name).is_dir()
    assert sorted(tuple(r) for r in spark.table(name).collect()) == [(0, "0"), (1, "1"), (2, "2")]
    assert spark.sql(f"SELECT sum(id) AS t FROM {name}").first().t == 3
    assert spark.catalog.tableExists(name) and name in [t.name for t in spark.catalog.listTables()]
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_ALREADY_EXISTS"):
        spark.range(1).write.saveAsTable(name)
    spark.range(1).write.mode("ignore").saveAsTable(name)
    assert spark.table(name).count() == 3
    # append matches columns by name, whatever their order
    spark.createDataFrame([("9", 9)], "s string, id long").write.mode("append").saveAsTable(name)
    assert sorted(r.id for r in spark.table(name).collect()) == [0, 1, 2, 9]
    with pytest.raises(AnalysisException, match="CANNOT_FIND_DATA"):
        spark.range(1).write.mode("append").saveAsTable(name)
    spark.createDataFrame([(7,)], "x int").write.mode("overwrite").saveAsTable(name)
    assert [tuple(r) for r in spark.table(name).collect()] == [(7,)]


def test_insert_into_by_position_and_views_hide_tables(spark: SparkSession, warehouse: Path) -> None:
    name = _name()
    spark.createDataFrame([(1, "a")], "n long, s string").write.saveAsTable(name)
    spark.createDataFrame([("b", 2)], "x string, y int").select("y", "x").write.insertInto(name)
    assert sorted(tuple(r) for r in spark.table(name).collect()) == [(1, "a"), (2, "b")]
    spark.table(name).filter("n = 2").write.insertInto(name, overwrite=True)  # reads the table it replaces
    assert [tuple(r) for r in spark.table(name).collect()] == [(2, "b")]
    with pytest.raises(AnalysisException, match="INSERT_COLUMN_ARITY_MISMATCH"):
        spark.range(1).write.insertInto(name)
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_NOT_FOUND"):
        spark.range(1).write.insertInto(_name())
    spark.range(5).createOrReplaceTempView(name)
    try:
        assert spark.table(name).count() == 5  # a temporary view hides the table
    finally:
        spark.catalog.dropTempView(name)
    assert spark.table(name).count() == 1


def test_a_directory_without_a_table_is_refused_unless_overwritten(spark: SparkSession, warehouse: Path) -> None:
    name = _name()
    (warehouse / name).mkdir(parents=True)
    (warehouse / name / "stale.txt").write_text("left by another application")
    with pytest.raises(AnalysisException, match="LOCATION_ALREADY_EXISTS"):
        spark.range(2).write.saveAsTable(name)
    spark.range(2).write.mode("overwrite").format("json").saveAsTable(name)
    assert sorted(r.id for r in spark.table(name).collect()) == [0, 1]
    assert not (warehouse / name / "stale.txt").exists()
    with pytest.raises(AnalysisException, match="INVALID_TABLE_NAME"):
        spark.range(1).write.saveAsTable("other_db.x")

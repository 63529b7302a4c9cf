"""Managed tables: saveAsTable's modes, insertInto, writeTo (v2), reading by name (spark.table,
SQL, catalog), views hiding tables, a warehouse directory left by another application, and
DataFrame.transpose, scalar and exists."""

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


def test_write_to_v2_actions(spark: SparkSession, warehouse: Path) -> None:
    name = _name()
    rows = spark.createDataFrame([("x", 1), ("y", 2)], "k string, v long")
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_NOT_FOUND"):
        rows.writeTo(name).append()
    from dstream.sql import DataFrameWriterV2  # PySpark exports it from pyspark.sql and its readwriter
    from dstream.sql.readwriter import DataFrameWriterV2 as InReadwriter

    assert isinstance(rows.writeTo(name), DataFrameWriterV2) and InReadwriter is DataFrameWriterV2
    rows.writeTo(name).partitionedBy("k").create()
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_ALREADY_EXISTS"):
        rows.writeTo(name).create()
    assert [c.isPartition for c in spark.catalog.listColumns(name)] == [False, True]
    spark.createDataFrame([("x", 10)], "k string, v long").writeTo(name).overwritePartitions()
    assert sorted((r.k, r.v) for r in spark.table(name).collect()) == [("x", 10), ("y", 2)]
    spark.createDataFrame([(3, "z")], "v long, k string").writeTo(name).append()  # by name
    spark.createDataFrame([("q", 7)], "k string, v long").writeTo(name).overwrite(F.col("v") > 5)
    assert sorted((r.k, r.v) for r in spark.table(name).collect()) == [("q", 7), ("y", 2), ("z", 3)]
    spark.range(2).writeTo(name).using("json").createOrReplace()
    assert sorted(r.id for r in spark.table(name).collect()) == [0, 1]
    spark.range(1).writeTo(name).replace()
    assert spark.table(name).count() == 1
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_NOT_FOUND"):
        spark.range(1).writeTo(_name()).replace()


def test_transpose_turns_columns_into_rows(spark: SparkSession) -> None:
    df = spark.createDataFrame([("y", 3, 4), ("x", 1, 2)], "k string, a int, b long")
    assert [tuple(r) for r in df.transpose().collect()] == [("a", 1, 3), ("b", 2, 4)]  # index values sorted
    assert df.transpose().columns == ["key", "x", "y"]
    assert df.transpose().schema["x"].dataType.simpleString() == "bigint"  # int and long meet at long
    by_a = df.select("a", "b").transpose(F.col("a"))
    assert by_a.columns == ["key", "1", "3"] and [tuple(r) for r in by_a.collect()] == [("b", 2, 4)]


def test_scalar_and_exists_subquery_columns(spark: SparkSession) -> None:
    df = spark.range(5)
    average = spark.range(5).selectExpr("avg(id)").scalar()
    assert [r.id for r in df.where(df.id > average).collect()] == [3, 4]
    assert df.select(spark.range(0).selectExpr("max(id)").scalar()).first()[0] is None  # no row: null
    assert df.where(spark.range(3).where("id > 5").exists()).count() == 0
    assert df.where(spark.range(3).exists()).count() == 5
    with pytest.raises(Exception, match="SCALAR_SUBQUERY_TOO_MANY_ROWS"):
        spark.range(3).scalar()
    with pytest.raises(AnalysisException, match="MORE_THAN_ONE_OUTPUT_COLUMN"):
        spark.range(1).selectExpr("id", "id AS j").scalar()

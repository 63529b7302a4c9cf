"""SQL statements real PySpark 4.0.1 programs run and dstreams rejected: INSERT ... VALUES and
CREATE TABLE with a column list. Expected values are PySpark 4.0.1's."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from dstream.sql import Row, SparkSession
from dstream.sql.errors import AnalysisException


@pytest.fixture
def warehouse(spark: SparkSession, tmp_path: Path) -> Path:
    spark.conf.set("spark.sql.warehouse.dir", str(tmp_path / "warehouse"))
    return tmp_path / "warehouse"


def _name() -> str:
    return f"t_{uuid.uuid4().hex[:8]}"  # the catalog belongs to the (shared) SparkContext


def _table(spark: SparkSession, name: str, rows: list[tuple], schema: str) -> None:
    spark.createDataFrame(rows, schema).write.saveAsTable(name)


def test_insert_values_by_position_cast_to_the_table_types(spark: SparkSession, warehouse: Path) -> None:
    name = _name()
    _table(spark, name, [], "id int, name string")
    assert spark.sql(f"INSERT INTO {name} VALUES (1, 'a'), (2.7, 'b'), (NULL, NULL)").collect() == []
    spark.sql(f"INSERT INTO TABLE {name} VALUES (3, 'c')")
    assert sorted(spark.table(name).collect(), key=lambda r: (r.id is None, r.id)) == [
        Row(id=1, name="a"), Row(id=2, name="b"), Row(id=3, name="c"), Row(id=None, name=None)]
    assert spark.table(name).schema.simpleString() == "struct<id:int,name:string>"
    with pytest.raises(AnalysisException, match="INSERT_COLUMN_ARITY_MISMATCH"):
        spark.sql(f"INSERT INTO {name} VALUES (1)")


def test_insert_values_with_a_column_list_and_overwrite(spark: SparkSession, warehouse: Path) -> None:
    name = _name()
    _table(spark, name, [(0, "z", "x")], "id int, name string, d string")
    spark.sql(f"INSERT INTO {name} (name, id, d) VALUES ('c', 3, 'z')")
    spark.sql(f"INSERT INTO {name} (name, id) VALUES ('e', 4)")  # d left out: NULL
    assert sorted(spark.table(name).collect()) == [Row(id=0, name="z", d="x"), Row(id=3, name="c", d="z"),
                                                   Row(id=4, name="e", d=None)]
    spark.sql(f"INSERT OVERWRITE {name} VALUES (9, 'q', 'x')")
    assert spark.table(name).collect() == [Row(id=9, name="q", d="x")]
    with pytest.raises(AnalysisException, match="nope"):
        spark.sql(f"INSERT INTO {name} (nope) VALUES (1)")


def test_create_table_with_columns_is_an_empty_managed_table(spark: SparkSession, warehouse: Path) -> None:
    name = _name()
    assert spark.sql(f"CREATE TABLE {name} (id INT, name STRING) USING parquet").collect() == []
    assert spark.table(name).count() == 0
    assert spark.table(name).schema.simpleString() == "struct<id:int,name:string>"
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_ALREADY_EXISTS"):
        spark.sql(f"CREATE TABLE {name} (id INT)")
    spark.sql(f"CREATE TABLE IF NOT EXISTS {name} (other INT)")
    assert spark.table(name).columns == ["id", "name"]
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a')")
    assert spark.sql(f"SELECT * FROM {name}").collect() == [Row(id=1, name="a")]


def test_create_table_partitioned_by(spark: SparkSession, warehouse: Path) -> None:
    name = _name()
    spark.sql(f"CREATE TABLE {name} (d STRING, id INT) USING parquet PARTITIONED BY (d)")
    assert spark.table(name).columns == ["id", "d"]  # partition columns last, as Spark keeps them
    assert [c.name for c in spark.catalog.listColumns(name) if c.isPartition] == ["d"]
    spark.sql(f"INSERT INTO {name} VALUES (1, 'x')")
    assert spark.table(name).collect() == [Row(id=1, d="x")]
    assert (warehouse / name / "d=x").is_dir()
    with pytest.raises(AnalysisException, match="nope"):
        spark.sql(f"CREATE TABLE {_name()} (id INT) PARTITIONED BY (nope)")

"""SQL statements real PySpark 4.0.1 programs run and dstreams rejected: INSERT ... VALUES,
CREATE TABLE with a column list, DESCRIBE, SHOW COLUMNS, CACHE/UNCACHE/CLEAR CACHE, SET and
EXPLAIN. Expected values are PySpark 4.0.1's."""

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


def test_describe_and_show_columns(spark: SparkSession, warehouse: Path) -> None:
    name = _name()
    spark.sql(f"CREATE TABLE {name} (id INT COMMENT 'the id', m MAP<STRING,INT>, d STRING) PARTITIONED BY (d)")
    expected = [Row(col_name="id", data_type="int", comment="the id"),
                Row(col_name="m", data_type="map<string,int>", comment=None),
                Row(col_name="d", data_type="string", comment=None),
                Row(col_name="# Partition Information", data_type="", comment=""),
                Row(col_name="# col_name", data_type="data_type", comment="comment"),
                Row(col_name="d", data_type="string", comment=None)]
    assert spark.sql(f"DESCRIBE {name}").collect() == expected
    assert spark.sql(f"DESCRIBE TABLE {name}").collect() == expected
    assert spark.sql(f"SHOW COLUMNS IN {name}").collect() == [Row(col_name="id"), Row(col_name="m"),
                                                             Row(col_name="d")]
    assert spark.sql(f"SHOW COLUMNS FROM {name} IN default").count() == 3
    spark.range(1).createOrReplaceTempView("ddl_v")
    assert spark.sql("DESC ddl_v").collect() == [Row(col_name="id", data_type="bigint", comment=None)]
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_NOT_FOUND"):
        spark.sql("DESCRIBE no_such_table")


def test_cache_uncache_and_clear_cache(spark: SparkSession) -> None:
    spark.range(3).createOrReplaceTempView("ddl_c")
    assert spark.sql("CACHE TABLE ddl_c").collect() == []
    assert spark.catalog.isCached("ddl_c")
    spark.sql("UNCACHE TABLE ddl_c")
    assert not spark.catalog.isCached("ddl_c")
    spark.sql("CACHE LAZY TABLE ddl_c2 AS SELECT 1 AS x")
    assert spark.catalog.isCached("ddl_c2") and spark.table("ddl_c2").collect() == [Row(x=1)]
    spark.sql("CLEAR CACHE")
    assert not spark.catalog.isCached("ddl_c2")
    spark.sql("UNCACHE TABLE IF EXISTS no_such_view")
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_NOT_FOUND"):
        spark.sql("UNCACHE TABLE no_such_view")


def test_set_and_explain(spark: SparkSession) -> None:
    assert spark.sql("SET spark.sql.shuffle.partitions=4").collect() == [
        Row(key="spark.sql.shuffle.partitions", value="4")]
    assert spark.conf.get("spark.sql.shuffle.partitions") == "4"
    assert spark.sql("SET ddl.test.key").collect() == [Row(key="ddl.test.key", value="<undefined>")]
    spark.sql("SET ddl.test.key = hello world ")
    assert spark.sql("SET ddl.test.key").collect() == [Row(key="ddl.test.key", value="hello world")]
    plan = spark.sql("EXPLAIN SELECT 1")
    assert plan.columns == ["plan"] and plan.first().plan.startswith("== Physical Plan ==\n")
    assert "== Analyzed Logical Plan ==" in spark.sql("EXPLAIN EXTENDED SELECT 1").first().plan

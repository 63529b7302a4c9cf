"""spark.sql's statements (views, tables, INSERT, SHOW TABLES) and its parameters (args markers,
kwargs formatting), as PySpark's spark.sql runs them."""

from __future__ import annotations

import datetime as dt
import decimal
import uuid
from pathlib import Path

import pytest

from dstream.sql import SparkSession
from dstream.sql.errors import AnalysisException


@pytest.fixture
def warehouse(spark: SparkSession, tmp_path: Path) -> Path:
    spark.conf.set("spark.sql.warehouse.dir", str(tmp_path / "warehouse"))
    return tmp_path / "warehouse"


def test_views_tables_inserts_and_show_tables(spark: SparkSession, warehouse: Path) -> None:
    table = f"t_{uuid.uuid4().hex[:8]}"
    assert spark.sql("CREATE TEMPORARY VIEW nums AS SELECT id, id * 2 AS twice FROM range(4)").columns == []
    with pytest.raises(AnalysisException, match="ALREADY_EXISTS"):
        spark.sql("CREATE TEMP VIEW nums AS SELECT 1")
    spark.sql("CREATE OR REPLACE TEMP VIEW nums AS SELECT id, id * 2 AS twice FROM range(5)")
    spark.sql(f"CREATE TABLE {table} USING json AS SELECT * FROM nums WHERE id < 2")
    assert [tuple(r) for r in spark.table(table).collect()] == [(0, 0), (1, 2)]  # the columns keep their order
    spark.sql(f"CREATE TABLE IF NOT EXISTS {table} AS SELECT 9, 9")  # exists: nothing happens
    spark.sql(f"INSERT INTO {table} SELECT 7, 14")
    spark.sql(f"INSERT INTO TABLE {table} SELECT * FROM nums WHERE id = 4")
    assert sorted(r.id for r in spark.table(table).collect()) == [0, 1, 4, 7]
    spark.sql(f"INSERT OVERWRITE TABLE {table} SELECT * FROM nums WHERE id = 3")
    assert [tuple(r) for r in spark.table(table).collect()] == [(3, 6)]
    shown = {(r.tableName, r.isTemporary) for r in spark.sql("SHOW TABLES").collect()}
    assert {("nums", True), (table, False)} <= shown
    spark.sql(f"CREATE OR REPLACE TABLE {table} AS SELECT 'x' AS s")
    assert [tuple(r) for r in spark.table(table).collect()] == [("x",)]
    spark.sql(f"DROP TABLE {table}")
    assert not (warehouse / table).exists() and not spark.catalog.tableExists(table)
    spark.sql(f"DROP TABLE IF EXISTS {table}")
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_NOT_FOUND"):
        spark.sql(f"DROP TABLE {table}")
    spark.sql("CREATE GLOBAL TEMP VIEW shared AS SELECT 1 AS one")
    assert spark.sql("SELECT one FROM global_temp.shared").first().one == 1
    spark.sql("DROP VIEW global_temp.shared")
    spark.sql("DROP VIEW nums")
    with pytest.raises(AnalysisException, match="DROP VIEW IF EXISTS"):
        spark.sql("DROP VIEW nums")


def test_parameter_markers_bind_literals(spark: SparkSession) -> None:
    spark.range(6).createOrReplaceTempView("numbers")
    assert [r.id for r in spark.sql("SELECT id FROM numbers WHERE id > :lo AND id < :hi",
                                    args={"lo": 1, "hi": 4}).collect()] == [2, 3]
    assert [r.id for r in spark.sql("SELECT id FROM numbers WHERE id IN (?, ?)", args=[0, 5]).collect()] == [0, 5]
    row = spark.sql("SELECT :s AS s, :f AS f, :d AS d, :t AS t, :b AS b, :n AS n, :m AS m, ':s' AS kept, "
                    "`:s` AS q -- :s in a comment\nFROM (SELECT 1 AS `:s`)",
                    args={"s": "it's a \\ test", "f": 1.5, "d": dt.date(2024, 1, 2),
                          "t": dt.datetime(2024, 1, 2, 3, 4, 5), "b": True, "n": None,
                          "m": decimal.Decimal("1.25")}).first()
    assert tuple(row) == ("it's a \\ test", 1.5, dt.date(2024, 1, 2), dt.datetime(2024, 1, 2, 3, 4, 5), True, None,
                          decimal.Decimal("1.25"), ":s", 1)
    with pytest.raises(AnalysisException, match="UNBOUND_SQL_PARAMETER"):
        spark.sql("SELECT :missing", args={"other": 1})
    with pytest.raises(AnalysisException, match="more \\? markers"):
        spark.sql("SELECT ?, ?", args=[1])


def test_kwargs_format_dataframes_columns_and_values(spark: SparkSession) -> None:
    df = spark.range(5)
    before = {t.name for t in spark.catalog.listTables()}
    got = spark.sql("SELECT {col} FROM {frame} WHERE id IN {ids}", col=df.id, frame=df, ids=(1, 3)).collect()
    assert [r.id for r in got] == [1, 3]
    assert {t.name for t in spark.catalog.listTables()} == before  # the DataFrame's view lived for the query only

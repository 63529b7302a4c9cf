"""SHOW FUNCTIONS / DATABASES / TABLES and DESCRIBE [EXTENDED], as PySpark 4.0.1 answers them.

Expected schemas and rows are PySpark's output for the same statements over the same views.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from dstream.sql import SparkSession


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local[1]").appName("sql-show-tests").getOrCreate()
    session.createDataFrame([(1, "a", 2.5)], "id bigint, s string, d double").createOrReplaceTempView("t")
    session.range(3).createOrReplaceTempView("t2")
    yield session
    session.stop()


def answer(spark: SparkSession, query: str) -> tuple[str, list[tuple[Any, ...]]]:
    df = spark.sql(query)
    return df.schema.simpleString(), [tuple(r) for r in df.collect()]


def test_show_functions(spark: SparkSession) -> None:
    for query in ("SHOW FUNCTIONS LIKE 'year'", "SHOW FUNCTIONS 'year'", "SHOW SYSTEM FUNCTIONS LIKE 'year'",
                  "SHOW ALL FUNCTIONS LIKE 'ye*'"):
        assert answer(spark, query) == ("struct<function:string>", [("year",)])
    assert answer(spark, "SHOW FUNCTIONS LIKE 'date*'")[1] == [
        ("date",), ("date_add",), ("date_diff",), ("date_format",), ("date_from_unix_date",), ("date_part",),
        ("date_sub",), ("date_trunc",), ("dateadd",), ("datediff",), ("datepart",)]
    assert answer(spark, "SHOW FUNCTIONS LIKE 'nope'") == ("struct<function:string>", [])
    assert answer(spark, "SHOW USER FUNCTIONS") == ("struct<function:string>", [])
    names = [r[0] for r in spark.sql("SHOW FUNCTIONS").collect()]
    # PySpark's list starts with the operators, then the functions, sorted.
    assert names[:24] == ["!", "!=", "%", "&", "*", "+", "-", "/", "<", "<<", "<=", "<=>", "<>", "=", "==", ">",
                          ">=", ">>", ">>>", "^", "abs", "acos", "acosh", "add_months"]
    assert names == sorted(names) and names[-3:] == ["|", "||", "~"]
    assert {"case", "if", "mod", "ceiling", "substr", "std", "count", "between"} <= set(names)
    assert not {"col", "lit", "create_map", "count_distinct", "udf"} & set(names)  # PySpark-only names


def test_show_functions_lists_registered_udfs_as_user_functions(spark: SparkSession) -> None:
    spark.udf.register("myUdf", lambda x: x, "int")
    assert answer(spark, "SHOW USER FUNCTIONS")[1] == [("myudf",)]
    assert answer(spark, "SHOW FUNCTIONS LIKE 'my*'")[1] == [("myudf",)]
    assert answer(spark, "SHOW FUNCTIONS LIKE 'MYUDF'")[1] == [("myudf",)]
    assert answer(spark, "SHOW SYSTEM FUNCTIONS LIKE 'my*'")[1] == []
    assert answer(spark, "SHOW FUNCTIONS LIKE ' year | month '")[1] == []  # no trimming of the alternatives


def test_show_databases_namespaces_schemas(spark: SparkSession) -> None:
    for query in ("SHOW DATABASES", "SHOW NAMESPACES", "SHOW SCHEMAS", "SHOW DATABASES LIKE 'def*'"):
        assert answer(spark, query) == ("struct<namespace:string>", [("default",)])


def test_show_tables(spark: SparkSession) -> None:
    schema = "struct<namespace:string,tableName:string,isTemporary:boolean>"
    for query in ("SHOW TABLES", "SHOW TABLES IN default", "SHOW TABLES LIKE 't*'"):
        got = answer(spark, query)
        assert got[0] == schema and {("", "t", True), ("", "t2", True)} <= set(got[1])
    assert answer(spark, "SHOW TABLES LIKE 't2'") == (schema, [("", "t2", True)])


def test_describe_and_describe_extended_of_a_view(spark: SparkSession) -> None:
    expected = ("struct<col_name:string,data_type:string,comment:string>",
                [("id", "bigint", None), ("s", "string", None), ("d", "double", None)])
    for query in ("DESCRIBE t", "DESC t", "DESCRIBE TABLE t", "DESCRIBE EXTENDED t", "DESC EXTENDED t",
                  "DESCRIBE TABLE EXTENDED t", "DESCRIBE FORMATTED t"):
        assert answer(spark, query) == expected
    assert answer(spark, "DESCRIBE EXTENDED t2")[1] == [("id", "bigint", None)]

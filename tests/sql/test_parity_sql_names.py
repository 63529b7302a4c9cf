"""Generated column names of function calls, as PySpark 4.0.1 prints them (its output, verbatim).

Spark names some aliases as called (``ceiling(x)``, ``pow(2, 3)`` in SQL) and others by the
function they call (``ceil`` is ``CEIL(x)``); it fills in default arguments
(``to_unix_timestamp(ts, yyyy-MM-dd HH:mm:ss)``) and names SQL forms its own way
(``between(v, lo, hi)``, ``(IF(c, a, b))``, ``(1 << 2)``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from dstream.sql import DataFrame, SparkSession
from dstream.sql import functions as F

# (SQL expression, PySpark's column name), each the same through F.expr and spark.sql.
SQL_NAMES = [
    ("ifnull(NULL, 1)", "ifnull(NULL, 1)"), ("nvl(NULL, 1)", "nvl(NULL, 1)"), ("ceiling(1.2)", "ceiling(1.2)"),
    ("ceil(1.2)", "CEIL(1.2)"), ("pow(2,3)", "pow(2, 3)"), ("power(2,3)", "POWER(2, 3)"), ("sign(-1)", "sign(-1)"),
    ("signum(-1)", "SIGNUM(-1)"), ("mod(5,2)", "mod(5, 2)"), ("5 % 2", "(5 % 2)"), ("char(65)", "char(65)"),
    ("chr(65)", "chr(65)"), ("cardinality(arr)", "cardinality(arr)"), ("size(arr)", "size(arr)"),
    ("mean(id)", "mean(id)"), ("avg(id)", "avg(id)"), ("any(id > 0)", "any((id > 0))"),
    ("some(id > 0)", "some((id > 0))"), ("bool_or(id > 0)", "bool_or((id > 0))"),
    ("current_database()", "current_schema()"), ("1 << 2", "(1 << 2)"), ("1 >> 2", "(1 >> 2)"),
    ("1 >>> 2", "(1 >>> 2)"), ("shiftleft(1, 2)", "shiftleft(1, 2)"), ("+id", "(+ id)"), ("-id", "(- id)"),
    ("s rlike 'a'", "RLIKE(s, a)"), ("s regexp 'a'", "RLIKE(s, a)"), ("regexp_like(s, 'a')", "REGEXP_LIKE(s, a)"),
    ("id between 0 and 2", "between(id, 0, 2)"), ("id not between 0 and 2", "(NOT between(id, 0, 2))"),
    ("if(id > 0, 1, 2)", "(IF((id > 0), 1, 2))"), ("date_part('year', dt)", "date_part(year, dt)"),
    ("extract(year from dt)", "extract(year FROM dt)"), ("datepart('year', dt)", "datepart(year FROM dt)"),
    ("date_part('MONTH', dt)", "date_part(MONTH, dt)"),
    ("to_unix_timestamp(ts)", "to_unix_timestamp(ts, yyyy-MM-dd HH:mm:ss)"),
    ("str_to_map('a:1')", "str_to_map(a:1, ,, :)"), ("substring('abc' FROM 2 FOR 1)", "substring(abc, 2, 1)"),
    ("substr(s from 1 for 1)", "substring(s, 1, 1)"),
    ("substring(s from 2)", "substring(s, 2, 2147483647)"),
    ("date_diff(dt, dt)", "date_diff(dt, dt)"), ("datediff(dt, dt)", "datediff(dt, dt)"),
    ("transform(arr, x -> x + 1)",
     "transform(arr, lambdafunction((namedlambdavariable() + 1), namedlambdavariable()))"),
    ("aggregate(arr, 0, (a, x) -> a + x)", "aggregate(arr, 0, lambdafunction((namedlambdavariable() + "
     "namedlambdavariable()), namedlambdavariable(), namedlambdavariable()), "
     "lambdafunction(namedlambdavariable(), namedlambdavariable()))"),
    ("mod(id, 2) + 1", "(mod(id, 2) + 1)"), ("ceiling(id) + 1", "(ceiling(id) + 1)"),
    ("mean(id) + 1", "(mean(id) + 1)"),
    ("ifnull(id, 2) + 1", "(ifnull(id, 2) + 1)"), ("if(id > 0, 'a', 'b') = 'a'", "((IF((id > 0), a, b)) = a)"),
    ("substr('abc', 2)", "substr(abc, 2, 2147483647)"), ("position('b', 'abc')", "position(b, abc, 1)"),
    ("std(id)", "std(id)"), ("lcase('A')", "lcase(A)"), ("char_length('ab')", "char_length(ab)"),
]


@pytest.fixture(scope="module")
def df() -> Iterator[DataFrame]:
    session = SparkSession.builder.master("local[1]").appName("sql-name-tests").getOrCreate()
    frame = session.createDataFrame(
        [(1, "ab", [1, 2])], "id int, s string, arr array<int>").selectExpr(
        "*", "DATE '2024-01-02' AS dt", "TIMESTAMP '2024-01-02 03:04:05' AS ts")
    frame.createOrReplaceTempView("names_t")
    yield frame
    session.stop()


@pytest.mark.parametrize("text, name", SQL_NAMES)
def test_sql_calls_are_named_as_spark_names_them(df: DataFrame, text: str, name: str) -> None:
    assert df.select(F.expr(text)).columns == [name]
    assert df.sparkSession.sql(f"SELECT {text} FROM names_t").columns == [name]


def test_python_functions_are_named_as_pyspark_names_them(df: DataFrame) -> None:
    got = df.select(df.s.rlike("a"), F.ceiling("id"), F.pow("id", 2), F.sign("id"), F.char(F.lit(65)),
                    F.cardinality("arr"), F.ifnull("id", F.lit(1)), F.current_database(),
                    F.to_unix_timestamp(F.lit("2024-01-01")), F.str_to_map(F.lit("a:1")),
                    F.date_part(F.lit("year"), "dt"), F.extract(F.lit("year"), "dt"), F.datepart(F.lit("year"), "dt"),
                    F.transform("arr", lambda x: x + 1)).columns
    assert got == ["RLIKE(s, a)", "ceiling(id)", "POWER(id, 2)", "sign(id)", "char(65)", "cardinality(arr)",
                   "ifnull(id, 1)", "current_schema()", "to_unix_timestamp(2024-01-01, yyyy-MM-dd HH:mm:ss)",
                   "str_to_map(a:1, ,, :)", "date_part(year, dt)", "extract(year FROM dt)", "datepart(year FROM dt)",
                   "transform(arr, lambdafunction((namedlambdavariable() + 1), namedlambdavariable()))"]
    assert df.select(F.mean("id")).columns == ["avg(id)"]


def test_renamed_calls_compute_the_same_values(df: DataFrame) -> None:
    row = df.selectExpr("ceiling(1.2)", "pow(2, 3)", "mod(5, 2)", "if(id > 0, 'a', 'b')", "id between 0 and 2",
                        "1 << 2", "+id", "cardinality(arr)", "ifnull(NULL, 1)", "extract(year FROM dt)").first()
    assert tuple(row) == (2, 8.0, 1, "a", True, 4, 1, 2, 1, 2024)


def test_sql_rand_without_a_seed_is_named_without_it(spark: SparkSession) -> None:
    # PySpark 4.0.1: ['rand()', 'randn()', 'rand()', 'rand(5)']; F.rand() shows the seed it drew.
    got = spark.sql("SELECT rand(), randn(), random(), random(5)").columns
    assert got == ["rand()", "randn()", "rand()", "rand(5)"]
    assert spark.sql("SELECT rand() < 2 AS x").first().x is True
    assert re.fullmatch(r"rand\(-?\d+\)", spark.range(1).select(F.rand()).columns[0])

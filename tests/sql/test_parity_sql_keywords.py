"""Keywords as names in SQL text, as PySpark 4.0.1 reads them; expected values are its output.

Spark's default (spark.sql.ansi.enforceReservedKeywords=false) reserves no keyword: a word
where an operand starts is a column, a keyword with nothing after it is an alias, and only
the join keywords (LEFT, JOIN, ON, UNION, ...) cannot alias a table.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from dstream.sql import SparkSession
from dstream.sql import functions as F
from dstream.sql.errors import AnalysisException, ParseException


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local[1]").appName("sql-keyword-tests").getOrCreate()
    session.createDataFrame([(1, "2024-01-01", 3, 4, 5)], ["year", "date", "order", "user", "value"]) \
        .createOrReplaceTempView("kw_t")
    session.createDataFrame([(1, 2, 3, 8, 9, 10)], ["interval", "table", "left", "end", "case", "from"]) \
        .createOrReplaceTempView("kw_u")
    yield session
    session.stop()


def rows(spark: SparkSession, query: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    df = spark.sql(query)
    return df.columns, [tuple(r) for r in df.collect()]


def test_keywords_name_columns_in_every_clause(spark: SparkSession) -> None:
    assert rows(spark, "SELECT year, date, order FROM kw_t") == (["year", "date", "order"], [(1, "2024-01-01", 3)])
    assert rows(spark, "SELECT order + 1 AS x FROM kw_t WHERE order > 0") == (["x"], [(4,)])
    assert spark.sql("SELECT order FROM kw_t ORDER BY order").columns == ["order"]
    assert spark.sql("SELECT order, count(*) FROM kw_t GROUP BY order").columns == ["order", "count(1)"]
    assert spark.sql("SELECT kw_t.user, value FROM kw_t").columns == ["user", "value"]
    assert spark.table("kw_t").select(F.expr("order")).columns == ["order"]


def test_reserved_words_name_columns_too(spark: SparkSession) -> None:
    assert rows(spark, "SELECT end, case, from FROM kw_u") == (["end", "case", "from"], [(8, 9, 10)])
    assert rows(spark, "SELECT interval FROM kw_u") == (["interval"], [(1,)])
    assert rows(spark, "SELECT interval + 1 AS x, case + 1 AS y FROM kw_u") == (["x", "y"], [(2, 10)])
    assert rows(spark, "SELECT 1 AS x FROM kw_u WHERE end > 0 AND from > 0") == (["x"], [(1,)])
    assert spark.table("kw_u").selectExpr("from AS k", "end").columns == ["k", "end"]
    # CASE and INTERVAL still start their forms when one follows.
    assert rows(spark, "SELECT CASE WHEN end > 0 THEN 'y' END AS c, INTERVAL 1 DAY AS i FROM kw_u")[1][0][0] == "y"


def test_keywords_as_aliases(spark: SparkSession) -> None:
    assert spark.sql("SELECT 1 AS order, 2 order").columns == ["order", "order"]
    assert spark.sql("SELECT 1 AS from").columns == ["from"]
    for word in ("from", "left", "end", "case", "as", "and", "in", "not", "all", "union", "limit"):
        assert spark.sql(f"SELECT 1 {word}").columns == [word]
    assert spark.sql("SELECT case END FROM kw_u").columns == ["END"]


def test_keywords_as_table_names_and_aliases(spark: SparkSession) -> None:
    assert spark.sql("SELECT order.year FROM kw_t order").columns == ["year"]
    assert spark.sql("SELECT where.table FROM kw_u AS where").columns == ["table"]
    spark.table("kw_u").createOrReplaceTempView("end")
    assert rows(spark, "SELECT count(*) FROM end") == (["count(1)"], [(1,)])
    for alias in ("FROM kw_u left", "FROM kw_u AS left", "FROM kw_u AS join"):
        with pytest.raises(ParseException):
            spark.sql(f"SELECT left.table {alias}")


def test_select_all_and_distinct_before_a_comma_are_columns(spark: SparkSession) -> None:
    with pytest.raises(AnalysisException, match="`all` cannot be resolved"):
        spark.sql("SELECT all, 1 AS z FROM kw_u")
    with pytest.raises(AnalysisException, match="`FROM` cannot be resolved"):
        spark.sql("SELECT distinct FROM kw_u")  # the quantifier, then a column FROM named kw_u


def test_not_before_an_operator_is_a_column(spark: SparkSession) -> None:
    with pytest.raises(AnalysisException, match="`not` cannot be resolved"):
        spark.sql("SELECT 1 AS x FROM kw_u WHERE not > 0")
    assert rows(spark, "SELECT NOT (end > 100) AS n FROM kw_u") == (["n"], [(True,)])


def test_trailing_comma_before_from(spark: SparkSession) -> None:
    with pytest.raises(AnalysisException) as info:
        spark.sql("SELECT year, FROM kw_t")
    assert info.value.getCondition() == "TRAILING_COMMA_IN_SELECT"


@pytest.mark.parametrize("query, columns, expected", [
    ("WITH order AS (SELECT * FROM kw_v) SELECT order FROM order", ["order"], [(1,), (1,)]),
    ("SELECT order, sum(left) OVER (PARTITION BY order ORDER BY left) AS s FROM kw_v", ["order", "s"],
     [(1, 2), (1, 5)]),
    ("SELECT user, rank() OVER (ORDER BY end DESC) AS r FROM kw_v", ["user", "r"], [("x", 2), ("y", 1)]),
    ("SELECT x.order FROM (SELECT named_struct('order', 1, 'end', 2) AS x)", ["order"], [(1,)]),
    ("SELECT order, e FROM kw_v LATERAL VIEW explode(array(1, 2)) end AS e WHERE left = 2", ["order", "e"],
     [(1, 1), (1, 2)]),
    ("SELECT max(end) AS max, min(end) min FROM kw_v", ["max", "min"], [(6, 5)]),
    ("SELECT cast(order AS string) AS string, order::double AS double FROM kw_v WHERE user IN ('x')",
     ["string", "double"], [("1", 1.0)]),
    ("SELECT CASE order WHEN 1 THEN 'a' END AS case FROM kw_v", ["case"], [("a",), ("a",)]),
    ("SELECT left(user, 1) AS left, right(user, 1) AS right FROM kw_v", ["left", "right"], [("x", "x"), ("y", "y")]),
    ("SELECT first(order) AS first, last(end) AS last FROM kw_v", ["first", "last"], [(1, 6)]),
    ("SELECT 1 AS x FROM kw_v WHERE order IS NOT NULL AND NOT left = 3", ["x"], [(1,)]),
    ("SELECT * FROM (VALUES (1, 2)) AS v(order, end)", ["order", "end"], [(1, 2)]),
    ("SELECT date, timestamp FROM (SELECT 1 AS date, 2 AS timestamp) ORDER BY date", ["date", "timestamp"], [(1, 2)]),
])
def test_keywords_in_ctes_windows_fields_lateral_views_and_values(spark: SparkSession, query: str,
                                                                  columns: list[str],
                                                                  expected: list[tuple[Any, ...]]) -> None:
    spark.createDataFrame([(1, 2, "x", 5), (1, 3, "y", 6)], ["order", "left", "user", "end"]) \
        .createOrReplaceTempView("kw_v")
    df = spark.sql(query)
    assert (df.columns, sorted((tuple(r) for r in df.collect()), key=str)) == (columns, expected)

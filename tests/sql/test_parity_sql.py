"""SQL found to differ from PySpark 4.0.1; expected values are what PySpark printed.

Each test runs a query a differential QA run sent to both engines and checks the rows
and the result column names against PySpark 4.0.1's output.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from typing import Any

import pytest

from dstream.sql import SparkSession
from dstream.sql import functions as F
from dstream.sql.errors import AnalysisException, ParseException


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local[1]").appName("sql-parity-tests").getOrCreate()
    # emp: id 0..4, dept 'eng' for ids 0 and 1, 'ops' for the others.
    session.range(5).selectExpr("id", "CASE WHEN id < 2 THEN 'eng' ELSE 'ops' END AS dept",
                                "'  ab ' AS s").createOrReplaceTempView("emp")
    yield session
    session.stop()


def result(spark: SparkSession, query: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    """The column names and the rows (as tuples) of ``query``."""
    df = spark.sql(query)
    return df.columns, [tuple(r) for r in df.collect()]


# -- LIMIT ... OFFSET ------------------------------------------------------------------

def test_offset_skips_rows_before_limit_counts(spark: SparkSession) -> None:
    assert result(spark, "SELECT id FROM range(5) ORDER BY id LIMIT 2 OFFSET 1") == (["id"], [(1,), (2,)])


def test_offset_without_limit(spark: SparkSession) -> None:
    assert result(spark, "SELECT id FROM range(5) ORDER BY id OFFSET 3") == (["id"], [(3,), (4,)])
    assert result(spark, "SELECT id FROM range(5) ORDER BY id OFFSET 0")[1] == [(0,), (1,), (2,), (3,), (4,)]


def test_offset_after_a_union_applies_to_the_union(spark: SparkSession) -> None:
    query = "SELECT id FROM range(5) UNION ALL SELECT id FROM range(2) ORDER BY id LIMIT 3 OFFSET 2"
    assert result(spark, query) == (["id"], [(1,), (1,), (2,)])


def test_offset_of_an_aggregation(spark: SparkSession) -> None:
    query = ("SELECT id % 2 AS k, count(*) AS c FROM range(5) GROUP BY id % 2 ORDER BY k DESC "
             "LIMIT 1 OFFSET 1")
    assert result(spark, query) == (["k", "c"], [(0, 3)])


def test_negative_offset_is_spark_s_error(spark: SparkSession) -> None:
    with pytest.raises(AnalysisException) as info:
        spark.sql("SELECT id FROM range(5) ORDER BY id LIMIT 2 OFFSET -1")
    assert info.value.getErrorClass() == "INVALID_LIMIT_LIKE_EXPRESSION.IS_NEGATIVE"


def test_offset_before_limit_is_a_syntax_error(spark: SparkSession) -> None:
    with pytest.raises(ParseException) as info:
        spark.sql("SELECT id FROM range(5) OFFSET 1 LIMIT 2")
    assert info.value.getErrorClass() == "PARSE_SYNTAX_ERROR"


# -- aggregate FILTER (WHERE ...) --------------------------------------------------------

def test_aggregate_filter_counts_and_sums_only_the_kept_rows(spark: SparkSession) -> None:
    query = "SELECT count(*) FILTER (WHERE id > 2), sum(id) FILTER (WHERE id % 2 = 0) FROM range(5)"
    assert result(spark, query) == (
        ["count(1) FILTER (WHERE (id > 2))", "sum(id) FILTER (WHERE ((id % 2) = 0))"], [(2, 6)])
    assert result(spark, "SELECT count(*) FILTER (WHERE id > 2) AS c FROM range(5)") == (["c"], [(2,)])


def test_aggregate_filter_with_distinct_and_grouping(spark: SparkSession) -> None:
    query = ("SELECT count(DISTINCT id) FILTER (WHERE id > 1), avg(id) FILTER (WHERE id < 3), "
             "max(id) FILTER (WHERE id < 3) FROM range(5)")
    assert result(spark, query) == (
        ["count(DISTINCT id) FILTER (WHERE (id > 1))", "avg(id) FILTER (WHERE (id < 3))",
         "max(id) FILTER (WHERE (id < 3))"], [(3, 1.0, 2)])
    query = "SELECT id % 2 AS k, count(id) FILTER (WHERE id > 0) FROM range(5) GROUP BY id % 2 ORDER BY k"
    assert result(spark, query) == (["k", "count(id) FILTER (WHERE (id > 0))"], [(0, 2), (1, 2)])


def test_aggregate_filter_of_first_keeps_a_kept_row_s_null(spark: SparkSession) -> None:
    # first() does not skip nulls: the first kept row (id 2) has a null value.
    query = ("SELECT first(CASE WHEN id = 2 THEN NULL ELSE id END) FILTER (WHERE id > 1), "
             "last(id) FILTER (WHERE id < 3), sum(1) FILTER (WHERE id > 2), sum(id) FILTER (WHERE id > 9) "
             "FROM range(5)")
    assert result(spark, query)[1] == [(None, 2, 2, None)]


def test_aggregate_filter_in_having_and_expression_strings(spark: SparkSession) -> None:
    query = ("SELECT dept, sum(id) FILTER (WHERE id > 0) + 1 AS s FROM emp GROUP BY dept "
             "HAVING count(*) FILTER (WHERE id > 0) > 0 ORDER BY dept")
    assert result(spark, query) == (["dept", "s"], [("eng", 2), ("ops", 10)])
    df = spark.range(5).selectExpr("count(*) FILTER (WHERE id > 2)")
    assert df.columns == ["count(1) FILTER (WHERE (id > 2))"] and df.collect()[0][0] == 2


def test_filter_on_a_non_aggregate_or_window_is_spark_s_error(spark: SparkSession) -> None:
    with pytest.raises(AnalysisException) as info:
        spark.sql("SELECT upper('a') FILTER (WHERE true) FROM range(5)")
    assert info.value.getErrorClass() == "INVALID_SQL_SYNTAX.FUNCTION_WITH_UNSUPPORTED_SYNTAX"
    with pytest.raises(AnalysisException, match="Window aggregate function with filter predicate"):
        spark.sql("SELECT id, sum(id) FILTER (WHERE id > 1) OVER (ORDER BY id) FROM range(3)")


# -- GROUP BY ALL / ORDER BY ALL -------------------------------------------------------

def test_group_by_all_groups_by_the_items_without_aggregates(spark: SparkSession) -> None:
    query = "SELECT id % 2 AS k, count(*) FROM range(5) GROUP BY ALL ORDER BY k"
    assert result(spark, query) == (["k", "count(1)"], [(0, 3), (1, 2)])
    assert result(spark, "SELECT count(*) FROM range(5) GROUP BY ALL") == (["count(1)"], [(5,)])
    assert result(spark, "SELECT 1 FROM range(3) GROUP BY ALL") == (["1"], [(1,)])  # one group of all rows
    query = "SELECT id % 2 AS k, 1 AS one, count(*) FROM range(5) GROUP BY ALL ORDER BY 1"
    assert result(spark, query) == (["k", "one", "count(1)"], [(0, 1, 3), (1, 1, 2)])


def test_order_by_all_sorts_by_every_item(spark: SparkSession) -> None:
    query = "SELECT id % 2 AS k, id % 3, sum(id) + 1 AS s FROM range(6) GROUP BY ALL ORDER BY ALL DESC"
    assert result(spark, query) == (
        ["k", "(id % 3)", "s"], [(1, 2, 6), (1, 1, 2), (1, 0, 4), (0, 2, 3), (0, 1, 5), (0, 0, 1)])
    assert result(spark, "SELECT dept, count(*) FROM emp GROUP BY ALL ORDER BY ALL") == (
        ["dept", "count(1)"], [("eng", 2), ("ops", 3)])
    assert result(spark, "SELECT id, id * 2 AS d FROM range(3) ORDER BY ALL DESC") == (
        ["id", "d"], [(2, 4), (1, 2), (0, 0)])


def test_order_by_all_after_a_union(spark: SparkSession) -> None:
    query = "SELECT id FROM range(3) UNION ALL SELECT id FROM range(2) ORDER BY ALL DESC"
    assert result(spark, query)[1] == [(2,), (1,), (1,), (0,), (0,)]


def test_order_by_all_with_a_star_sorts_by_every_output_column(spark: SparkSession) -> None:
    # PySpark 4.0.1's answers: the star's columns, then the other items, in the direction given.
    rows = [("a", 2), ("b", 1), ("a", 1), (None, 3)]
    spark.createDataFrame(rows, "k string, n int").createOrReplaceTempView("pairs")
    assert result(spark, "SELECT * FROM pairs ORDER BY ALL")[1] == [(None, 3), ("a", 1), ("a", 2), ("b", 1)]
    assert result(spark, "SELECT * FROM pairs ORDER BY ALL DESC NULLS FIRST")[1] == [
        (None, 3), ("b", 1), ("a", 2), ("a", 1)]
    assert result(spark, "SELECT *, n + 1 AS m FROM pairs ORDER BY ALL DESC") == (
        ["k", "n", "m"], [("b", 1, 2), ("a", 2, 3), ("a", 1, 2), (None, 3, 4)])
    assert result(spark, "SELECT * FROM (SELECT n FROM pairs UNION SELECT 0) ORDER BY ALL")[1] == [
        (0,), (1,), (2,), (3,)]


def test_group_by_all_with_a_star_is_refused_clearly(spark: SparkSession) -> None:
    # Spark expands the star first; here the columns are unknown to the parser: a clear error, not wrong rows.
    with pytest.raises(ParseException, match="with SELECT \\* is not supported"):
        spark.sql("SELECT * FROM emp GROUP BY ALL")


# -- a div b -----------------------------------------------------------------------------

def test_div_is_integral_division(spark: SparkSession) -> None:
    assert result(spark, "SELECT 7 div 2") == (["(7 div 2)"], [(3,)])
    assert spark.sql("SELECT 7 div 2").schema.simpleString() == "struct<(7 div 2):bigint>"
    query = "SELECT -7 div 2, 7 div -2, 7.5 div 2, 7 div 2.5, id div 2 FROM range(3) ORDER BY id"
    assert result(spark, query) == (
        ["(-7 div 2)", "(7 div -2)", "(7.5 div 2)", "(7 div 2.5)", "(id div 2)"],
        [(-3, -3, 3, 2, 0), (-3, -3, 3, 2, 0), (-3, -3, 3, 2, 1)])
    assert result(spark, "SELECT CAST(7 AS TINYINT) div CAST(2 AS TINYINT)") == (
        ["(CAST(7 AS TINYINT) div CAST(2 AS TINYINT))"], [(3,)])


def test_div_by_zero_is_spark_s_error(spark: SparkSession) -> None:
    with pytest.raises(Exception, match="DIVIDE_BY_ZERO"):
        spark.sql("SELECT 7 div 0").collect()
    with pytest.raises(Exception, match="DIVIDE_BY_ZERO"):
        spark.sql("SELECT 7 div 0.0").collect()


# -- TRIM(... FROM ...), OVERLAY(... PLACING ...), POSITION(... IN ...) -------------------

def test_trim_with_a_side_and_characters(spark: SparkSession) -> None:
    query = "SELECT trim(BOTH 'x' FROM 'xxaxx'), trim(LEADING 'x' FROM 'xxaxx'), trim(TRAILING 'x' FROM 'xxaxx')"
    assert result(spark, query) == (
        ["TRIM(BOTH x FROM xxaxx)", "TRIM(LEADING x FROM xxaxx)", "TRIM(TRAILING x FROM xxaxx)"],
        [("a", "axx", "xxa")])
    query = ("SELECT trim(BOTH FROM '  a  '), trim(LEADING FROM '  a  '), trim(TRAILING FROM '  a  '), "
             "trim('xy' FROM 'yxaxy')")
    assert result(spark, query) == (
        ["trim(  a  )", "ltrim(  a  )", "rtrim(  a  )", "TRIM(BOTH xy FROM yxaxy)"], [("a", "a  ", "  a", "a")])
    query = "SELECT trim(LEADING 'x' FROM s), trim(BOTH FROM s), trim(FROM s), trim(s) FROM emp LIMIT 1"
    assert result(spark, query) == (
        ["TRIM(LEADING x FROM s)", "trim(s)", "trim(s)", "trim(s)"], [("  ab ", "ab", "ab", "ab")])


def test_sql_trim_function_takes_the_characters_first(spark: SparkSession) -> None:
    # Spark's SQL trim(a, b) is TRIM(a FROM b): 'x' stripped of the characters of 'xxaxx'.
    query = "SELECT trim('xxaxx', 'x'), ltrim('xxaxx', 'x'), rtrim('xxaxx', 'x')"
    assert result(spark, query) == (
        ["TRIM(BOTH xxaxx FROM x)", "TRIM(LEADING xxaxx FROM x)", "TRIM(TRAILING xxaxx FROM x)"], [("", "", "")])


def test_python_trim_with_characters_has_spark_s_name(spark: SparkSession) -> None:
    from dstream.sql import functions as F  # noqa: N812 - PySpark's spelling

    df = spark.range(1).select(F.lit("xxaxx").alias("s"))
    out = df.select(F.trim("s", F.lit("x")), F.ltrim("s", F.lit("x")), F.rtrim("s", F.lit("x")))
    assert out.columns == ["TRIM(BOTH x FROM s)", "TRIM(LEADING x FROM s)", "TRIM(TRAILING x FROM s)"]
    assert tuple(out.collect()[0]) == ("a", "axx", "xxa")


def test_overlay_placing_from_for(spark: SparkSession) -> None:
    query = ("SELECT overlay('abc' PLACING 'x' FROM 2), overlay('abcdef' PLACING 'xy' FROM 2 FOR 3), "
             "overlay('abc', 'x', 2)")
    assert result(spark, query) == (
        ["overlay(abc, x, 2, -1)", "overlay(abcdef, xy, 2, 3)", "overlay(abc, x, 2, -1)"], [("axc", "axyef", "axc")])


def test_position_in_is_named_locate(spark: SparkSession) -> None:
    query = "SELECT position('b' IN 'abc'), position('b', 'abc'), position('b' IN s) FROM emp LIMIT 1"
    assert result(spark, query) == (["locate(b, abc, 1)", "position(b, abc, 1)", "locate(b, s, 1)"], [(2, 2, 4)])


# -- LIKE ANY / ALL ----------------------------------------------------------------------

def test_like_any_and_all(spark: SparkSession) -> None:
    query = ("SELECT 'abc' LIKE ANY ('a%', 'z%'), 'abc' LIKE ALL ('a%', 'z%'), 'abc' NOT LIKE ANY ('a%', 'z%'), "
             "'abc' NOT LIKE ALL ('x%', 'z%')")
    assert result(spark, query) == (
        ["likeany(abc)", "likeall(abc)", "notlikeany(abc)", "notlikeall(abc)"], [(True, False, True, True)])
    query = "SELECT 'abc' LIKE SOME ('a%', 'z%'), 'abc' ILIKE ANY ('A%'), 'ABC' ILIKE ALL ('a%', '%c')"
    assert result(spark, query) == (
        ["likeany(abc)", "likeany(lower(abc))", "likeall(lower(ABC))"], [(True, True, True)])


def test_like_any_with_null_or_column_patterns_is_the_expanded_form(spark: SparkSession) -> None:
    query = ("SELECT 'abc' LIKE ANY ('z%', NULL), 'abc' LIKE ALL ('a%', NULL), dept LIKE ANY ('e%', 'x%') "
             "FROM emp ORDER BY id LIMIT 1")
    assert result(spark, query) == (
        ["(abc LIKE z% OR abc LIKE NULL)", "(abc LIKE a% AND abc LIKE NULL)", "likeany(dept)"], [(None, None, True)])
    query = "SELECT s LIKE ANY (dept, 'x'), s NOT LIKE ALL ('%a%', '%q%') FROM emp LIMIT 1"
    assert result(spark, query) == (["(s LIKE dept OR s LIKE x)", "notlikeall(s)"], [(False, False)])


# -- PIVOT ---------------------------------------------------------------------------------

def test_pivot_groups_by_the_columns_nothing_else_reads(spark: SparkSession) -> None:
    query = "SELECT * FROM (SELECT dept, id FROM emp) PIVOT (count(id) FOR dept IN ('eng', 'ops'))"
    assert result(spark, query) == (["eng", "ops"], [(2, 3)])
    query = ("SELECT * FROM (SELECT dept, id, id % 2 AS k FROM emp) PIVOT (sum(id) FOR dept IN ('eng', 'ops')) "
             "ORDER BY k")
    assert result(spark, query) == (["k", "eng", "ops"], [(0, 0, 6), (1, 1, 3)])


def test_pivot_names_value_and_aggregate_aliases(spark: SparkSession) -> None:
    query = ("SELECT * FROM (SELECT dept, id, id % 2 AS k FROM emp) "
             "PIVOT (sum(id) AS s, count(*) AS c FOR dept IN ('eng' AS e, 'ops')) ORDER BY k")
    assert result(spark, query) == (["k", "e_s", "e_c", "ops_s", "ops_c"], [(0, 0, 1, 6, 2), (1, 1, 1, 3, 1)])
    query = "SELECT * FROM (SELECT dept, id FROM emp) PIVOT (sum(id), count(id) FOR dept IN ('eng', 'ops' AS o))"
    assert result(spark, query) == (["eng_sum(id)", "eng_count(id)", "o_sum(id)", "o_count(id)"], [(1, 2, 9, 3)])


def test_pivot_values_must_be_literals(spark: SparkSession) -> None:
    with pytest.raises(AnalysisException) as info:
        spark.sql("SELECT * FROM (SELECT dept, id FROM emp) PIVOT (sum(id) FOR dept IN (dept))")
    assert info.value.getErrorClass() == "NON_LITERAL_PIVOT_VALUES"


# -- TABLESAMPLE -----------------------------------------------------------------------------

def test_tablesample_percent_and_rows(spark: SparkSession) -> None:
    assert len(result(spark, "SELECT * FROM emp TABLESAMPLE (100 PERCENT)")[1]) == 5
    assert result(spark, "SELECT * FROM emp TABLESAMPLE (0 PERCENT)") == (["id", "dept", "s"], [])
    assert result(spark, "SELECT id FROM emp TABLESAMPLE (2 ROWS)") == (["id"], [(0,), (1,)])
    query = "SELECT e.id FROM emp TABLESAMPLE (100 PERCENT) REPEATABLE (3) AS e ORDER BY e.id"
    assert result(spark, query) == (["id"], [(0,), (1,), (2,), (3,), (4,)])


def test_tablesample_of_a_subquery_samples_about_the_fraction(spark: SparkSession) -> None:
    query = "SELECT count(*) FROM (SELECT * FROM range(1000)) TABLESAMPLE (10 PERCENT) REPEATABLE (7) t"
    assert 50 < result(spark, query)[1][0][0] < 200


def test_tablesample_out_of_range_is_a_parse_error(spark: SparkSession) -> None:
    with pytest.raises(ParseException, match="Sampling fraction"):
        spark.sql("SELECT * FROM emp TABLESAMPLE (150 PERCENT)")


# -- IN (subquery) / EXISTS among the select items ---------------------------------------

@pytest.fixture(scope="module")
def in_views(spark: SparkSession) -> SparkSession:
    spark.createDataFrame([(1, 10), (2, 20), (None, 30)], "k int, v int").createOrReplaceTempView("sq_a")
    spark.createDataFrame([(1, "x"), (3, None)], "k int, s string").createOrReplaceTempView("sq_b")
    spark.createDataFrame([(1,), (None,)], "k int").createOrReplaceTempView("sq_bn")
    spark.createDataFrame([], "k int").createOrReplaceTempView("sq_be")
    return spark


def sorted_result(spark: SparkSession, query: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    columns, found = result(spark, query)
    return columns, sorted(found, key=str)


def test_exists_as_a_select_item(in_views: SparkSession) -> None:
    assert result(in_views, "SELECT EXISTS(SELECT 1 FROM sq_b WHERE k = 1) AS e") == (["e"], [(True,)])
    assert result(in_views, "SELECT EXISTS(SELECT 1 FROM sq_b WHERE k = 1)") == (["exists()"], [(True,)])
    query = ("SELECT k, EXISTS(SELECT 1 FROM sq_b WHERE sq_b.k = sq_a.k) AS e, "
             "NOT EXISTS(SELECT 1 FROM sq_b WHERE sq_b.k = sq_a.k) AS ne FROM sq_a")
    assert sorted_result(in_views, query) == (["k", "e", "ne"], [(1, True, False), (2, False, True),
                                                                 (None, False, True)])
    query = "SELECT k, EXISTS(SELECT 1 FROM sq_b WHERE sq_b.k = sq_a.k) FROM sq_a"
    assert sorted_result(in_views, query) == (["k", "exists(k)"], [(1, True), (2, False), (None, False)])


def test_in_subquery_as_a_select_item_has_spark_s_two_values(in_views: SparkSession) -> None:
    # Spark's existence join: IN is true only on a match; NOT IN is false when a null compares.
    assert sorted_result(in_views, "SELECT k IN (SELECT k FROM sq_b) FROM sq_a") == (
        ["(k IN (listquery()))"], [(False,), (False,), (True,)])
    template = "SELECT k, k IN (SELECT k FROM {0}) AS i, k NOT IN (SELECT k FROM {0}) AS n FROM sq_a"
    assert sorted_result(in_views, template.format("sq_b")) == (
        ["k", "i", "n"], [(1, True, False), (2, False, True), (None, False, False)])
    assert sorted_result(in_views, template.format("sq_bn")) == (
        ["k", "i", "n"], [(1, True, False), (2, False, False), (None, False, False)])
    assert sorted_result(in_views, template.format("sq_be")) == (
        ["k", "i", "n"], [(1, False, True), (2, False, True), (None, False, True)])
    query = "SELECT k, CASE WHEN k IN (SELECT k FROM sq_b) THEN 'in' ELSE 'out' END AS c FROM sq_a"
    assert sorted_result(in_views, query) == (["k", "c"], [(1, "in"), (2, "out"), (None, "out")])


def test_not_over_an_in_subquery_is_not_in_and_in_has_no_null(in_views: SparkSession) -> None:
    # Spark pushes NOT down to the IN (null-aware NOT IN), and its IN is never null.
    assert sorted_result(in_views, "SELECT k, NOT (k IN (SELECT k FROM sq_bn)) AS n FROM sq_a") == (
        ["k", "n"], [(1, False), (2, False), (None, False)])
    assert sorted_result(in_views, "SELECT k, NOT (k IN (SELECT k FROM sq_b)) AS n FROM sq_a") == (
        ["k", "n"], [(1, False), (2, True), (None, False)])
    assert sorted_result(in_views, "SELECT k, (k IN (SELECT k FROM sq_bn)) OR v > 25 AS o FROM sq_a") == (
        ["k", "o"], [(1, True), (2, False), (None, True)])
    assert result(in_views, "SELECT k FROM sq_a WHERE NOT (k IN (SELECT k FROM sq_bn) OR v > 100)") == (["k"], [])
    assert result(in_views, "SELECT k FROM sq_a WHERE NOT (k IN (SELECT k FROM sq_b) OR v > 100)") == (["k"], [(2,)])
    assert result(in_views, "SELECT k FROM sq_a WHERE (k IN (SELECT k FROM sq_bn)) IS NULL") == (["k"], [])
    assert sorted_result(in_views, "SELECT k, (k IN (SELECT k FROM sq_bn)) IS NULL AS isn FROM sq_a") == (
        ["k", "isn"], [(1, False), (2, False), (None, False)])


def test_in_subquery_in_group_by_having_and_aggregate_filters(in_views: SparkSession) -> None:
    assert sorted_result(in_views, "SELECT count(*) AS c FROM sq_a GROUP BY k IN (SELECT k FROM sq_b)") == (
        ["c"], [(1,), (2,)])
    assert sorted_result(in_views, "SELECT k IN (SELECT k FROM sq_b) AS i, count(*) AS c FROM sq_a GROUP BY 1") == (
        ["i", "c"], [(False, 2), (True, 1)])
    assert result(in_views, "SELECT sum(v) FILTER (WHERE k IN (SELECT k FROM sq_b)) AS s FROM sq_a") == (
        ["s"], [(10,)])
    assert result(in_views, "SELECT k FROM sq_a GROUP BY k HAVING k IN (SELECT k FROM sq_b)") == (["k"], [(1,)])


# -- names of typed literals ---------------------------------------------------------------

def test_typed_literals_are_named_as_spark_names_them(spark: SparkSession) -> None:
    df = spark.sql("SELECT DATE '2024-01-01', TIMESTAMP '2024-01-01 00:00:00', X'0A', 1.5D, INTERVAL 1 DAY")
    assert df.columns == ["DATE '2024-01-01'", "TIMESTAMP '2024-01-01 00:00:00'", "X'0A'", "1.5", "INTERVAL '1' DAY"]
    assert tuple(df.collect()[0])[:3] == (datetime.date(2024, 1, 1), datetime.datetime(2024, 1, 1), b"\n")
    df = spark.sql("SELECT TIMESTAMP_NTZ '2024-01-01 00:00:00', TIMESTAMP_LTZ '2024-01-01 00:00:00', X'0a1B', "
                   "1L, 2S, 3Y, 1.5F, day(date'2024-01-02')")
    assert df.columns == ["TIMESTAMP_NTZ '2024-01-01 00:00:00'", "TIMESTAMP '2024-01-01 00:00:00'", "X'0A1B'",
                          "1", "2", "3", "1.5", "day(DATE '2024-01-02')"]
    assert [f.dataType.simpleString() for f in df.schema.fields][3:7] == ["bigint", "smallint", "tinyint", "float"]
    assert tuple(df.collect()[0])[3:] == (1, 2, 3, 1.5, 2)


def test_python_date_time_and_bytes_literals_are_named_as_spark_names_them(spark: SparkSession) -> None:
    df = spark.range(1).select(F.lit(datetime.date(2024, 1, 2)), F.lit(datetime.datetime(2024, 1, 2, 3, 4, 5)),
                               F.lit(b"\n"))
    assert df.columns == ["DATE '2024-01-02'", "TIMESTAMP '2024-01-02 03:04:05'", "X'0A'"]


# -- SELECT without FROM ---------------------------------------------------------------------

def test_select_without_from_reads_one_row_of_no_columns(spark: SparkSession) -> None:
    # PySpark: SELECT id has no id to read (no hidden range column); SELECT * gives [Row()].
    with pytest.raises(AnalysisException) as info:
        spark.sql("SELECT id")
    assert str(info.value) == ("[UNRESOLVED_COLUMN.WITHOUT_SUGGESTION] A column, variable, or function parameter "
                               "with name `id` cannot be resolved.  SQLSTATE: 42703")
    assert result(spark, "SELECT *") == ([], [()])
    assert result(spark, "SELECT 1 AS x, *") == (["x"], [(1,)])
    assert result(spark, "SELECT count(*)") == (["count(1)"], [(1,)])


# -- SELECT * ... ORDER BY <ordinal> ---------------------------------------------------

def test_select_star_order_by_ordinal_sorts_by_output_position(spark: SparkSession) -> None:
    # PySpark sorts by the first output column; here ordinal 1 was refused as "not in select list".
    assert result(spark, "SELECT * FROM range(3) ORDER BY 1 DESC") == (["id"], [(2,), (1,), (0,)])
    assert result(spark, "SELECT * FROM emp ORDER BY 2 DESC, 1 LIMIT 2") == (["id", "dept", "s"],
                                                                             [(2, "ops", "  ab "), (3, "ops", "  ab ")])


@pytest.mark.parametrize("name", ["bitwise_not", "count_distinct", "create_map", "listagg_distinct", "negate",
                                  "product", "string_agg_distinct", "sum_distinct", "timestamp_add",
                                  "timestamp_diff"])
def test_pyspark_functions_that_spark_sql_does_not_resolve(spark: SparkSession, name: str) -> None:
    # Each is in pyspark.sql.functions but unknown to PySpark 4.0.1's SQL (checked there by
    # calling every name of pyspark.sql.functions.__all__ in spark.sql).
    assert callable(getattr(F, name))
    with pytest.raises(AnalysisException, match="UNRESOLVED_ROUTINE"):
        spark.sql(f"SELECT {name}(1)")

"""Scalar functions, aggregates and SQL text whose behaviour was found to differ from PySpark 4.0.1.

Each test pins a case a differential run against PySpark 4.0.1 found; the expected values
(results and generated column names) are what PySpark printed for the same call.
"""

from __future__ import annotations

import datetime
import decimal
from typing import Any

import pytest

from dstream.sql import DataFrame, SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import AnalysisException, IllegalArgumentException, SparkRuntimeException
from dstream.sql.kernels import strings

# ------------------------------------------------------------------------------------------ split

#: (pattern, limit, string, PySpark's result) for patterns that can match an empty string.
SPLIT_CASES = [
    ("", -1, "ab", ["a", "b"]),
    ("", 0, "abc", ["a", "b", "c"]),
    ("", 1, "ab", ["a"]),
    ("", 2, "abc", ["a", "b"]),
    ("", -1, "", [""]),
    ("x*", -1, "ab", ["a", "b", ""]),
    ("x*", 1, "ab", ["ab"]),
    ("x*", 2, "abc", ["a", "bc"]),
    ("x*", 3, "aXbXc", ["a", "X", "bXc"]),
    ("(?=b)", -1, "bab", ["ba", "b"]),
    ("(?=b)", 2, "abc", ["a", "bc"]),
    ("(?<=a)", 0, "aaa", ["a", "a", "a", ""]),
    ("b*", -1, "bab", ["", "", "a", "", ""]),
    ("b*", 3, "bab", ["", "", "ab"]),
    ("a|", -1, "ab", ["", "", "b", ""]),
    ("a|", 3, "aaa", ["", "", "a"]),
    ("a*?", 2, "bab", ["b", "ab"]),
    ("^", -1, "ab", ["ab"]),
    ("$", -1, "ab", ["ab", ""]),
    ("\\b", 0, "ab", ["ab", ""]),
    ("(?=a)", -1, "bab", ["b", "ab"]),
    # Groups are not part of the result (Python's re.split would add them).
    ("(a)", -1, "aaa", ["", "", "", ""]),
    ("(a)", 3, "aaa", ["", "", "a"]),
]


@pytest.mark.timeout(20, method="thread")  # an endless loop in C++ ignores signals
@pytest.mark.parametrize(("pattern", "limit", "value", "expected"), SPLIT_CASES)
def test_split_patterns_matching_empty_follow_java(pattern: str, limit: int, value: str,
                                                   expected: list[str]) -> None:
    import pyarrow as pa

    got = strings.split(pa.array([value, None]), pattern, limit).to_pylist()
    assert got == [expected, None]


@pytest.mark.timeout(60)
def test_split_on_an_empty_pattern_returns(spark: SparkSession) -> None:
    df = spark.createDataFrame([("ab",)], ["s"])
    out = df.select(F.split("s", ""), F.split(F.lit("ab"), "x*").alias("x"))
    assert out.columns == ["split(s, , -1)", "x"]
    assert [tuple(r) for r in out.collect()] == [(["a", "b"], ["a", "b", ""])]


# ------------------------------------------------------------------- column positions and patterns

def test_substring_and_regexp_replace_take_columns(spark: SparkSession) -> None:
    df = spark.createDataFrame([("hello", 2, 3, "l+", "_"), ("world", -3, 2, "o", "$0$0"), ("x", None, 1, None, "a")],
                               "s string, a int, b int, p string, r string")
    out = df.select(F.substring("s", F.col("a"), F.col("b")), F.col("s").substr(F.col("a"), F.col("b")),
                    F.regexp_replace("s", F.col("p"), F.lit("_")), F.regexp_replace("s", F.col("p"), F.col("r")))
    assert out.columns == ["substring(s, a, b)", "substr(s, a, b)", "regexp_replace(s, p, _, 1)",
                           "regexp_replace(s, p, r, 1)"]
    assert [tuple(r) for r in out.collect()] == [("ell", "ell", "he_o", "he_o"), ("rl", "rl", "w_rld", "woorld"),
                                                 (None, None, None, None)]


# ------------------------------------------------------------------------------ substr in SQL text

def test_two_argument_substr_runs_to_the_end(spark: SparkSession) -> None:
    out = spark.sql("SELECT substr('hello', 2), substring('hello', -3), substr('hello', 2) AS a")
    assert out.columns == ["substr(hello, 2, 2147483647)", "substring(hello, -3, 2147483647)", "a"]
    assert [tuple(r) for r in out.collect()] == [("ello", "llo", "ello")]
    df = spark.createDataFrame([("hello",)], "s string")
    out = df.select(F.expr("substring(s, 2)"), F.expr("substr(s, -5)"))
    assert out.columns == ["substring(s, 2, 2147483647)", "substr(s, -5, 2147483647)"]
    assert [tuple(r) for r in out.collect()] == [("ello", "hello")]


@pytest.mark.parametrize("query", ["SELECT substr()", "SELECT substr('a', 1, 2, 3)"])
def test_substr_with_a_wrong_number_of_arguments_is_an_analysis_error(spark: SparkSession, query: str) -> None:
    with pytest.raises(AnalysisException) as info:
        spark.sql(query)
    assert info.value.getCondition() == "WRONG_NUM_ARGS.WITHOUT_SUGGESTION"
    assert "requires [2, 3] parameters" in str(info.value)


# ------------------------------------------------------------------- PySpark 4's other functions

@pytest.fixture
def one_row(spark: SparkSession) -> DataFrame:
    return spark.createDataFrame(
        [("hello", 2, 3, "l+", "_", 5, None, "[1,2,3]", '{"a":1,"b":{"c":2}}', datetime.date(2024, 3, 5), 7.5)],
        "s string, a int, b int, p string, r string, i int, n int, ja string, jo string, d date, f double")


def _rows(df: DataFrame) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in df.collect()]


def test_string_and_date_aliases(one_row: DataFrame) -> None:
    out = one_row.select(F.replace("s", F.lit("l")), F.replace("s", F.lit("l"), F.lit("L")),
                         F.replace(F.col("s"), F.col("r"), F.col("p")), F.substr("s", F.lit(2)),
                         F.substr("s", F.lit(2), F.lit(3)), F.substr("s", "a", "b"), F.day("d"),
                         F.isnotnull("n"), F.isnotnull("s"))
    assert out.columns == ["replace(s, l, )", "replace(s, l, L)", "replace(s, r, p)", "substr(s, 2, 2147483647)",
                           "substr(s, 2, 3)", "substr(s, a, b)", "day(d)", "(n IS NOT NULL)", "(s IS NOT NULL)"]
    assert _rows(out) == [("heo", "heLLo", "hello", "ello", "ell", "ell", 5, False, True)]
    now = one_row.select(F.now(), F.curdate())
    assert now.columns == ["now()", "current_date()"]
    assert _rows(one_row.select(F.now().cast("date") == F.current_date(), F.curdate() == F.current_date())) == [
        (True, True)]


def test_aggregate_aliases(one_row: DataFrame) -> None:
    out = one_row.agg(F.std("f"), F.array_agg("s"), F.sumDistinct("i"), F.approxCountDistinct("i"),
                      F.approxCountDistinct("i", 0.1))
    assert out.columns == ["std(f)", "collect_list(s)", "sum(DISTINCT i)", "approx_count_distinct(i)",
                           "approx_count_distinct(i)"]
    assert _rows(out) == [(None, ["hello"], 5, 1, 1)]


def test_sort_functions(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1,), (None,), (3,)], "x int")
    assert str(F.asc_nulls_first("x")) == "Column<'x ASC NULLS FIRST'>"
    assert str(F.desc_nulls_last("x")) == "Column<'x DESC NULLS LAST'>"
    orders = [F.desc_nulls_first("x"), F.asc_nulls_last("x"), F.asc_nulls_first("x"), F.desc_nulls_last("x")]
    assert [[r.x for r in df.orderBy(o).collect()] for o in orders] == [
        [None, 3, 1], [1, 3, None], [None, 1, 3], [3, 1, None]]


def test_number_functions(one_row: DataFrame) -> None:
    out = one_row.select(F.try_mod("i", F.lit(2)), F.try_mod("i", F.lit(0)), F.try_mod("f", F.lit(2)),
                         F.try_mod(F.lit(-7), F.lit(3)), F.bit_count("i"), F.bit_get("i", F.lit(0)),
                         F.getbit("i", F.lit(1)), F.bit_count(F.lit(-1)), F.bit_count(F.lit(True)))
    assert out.columns == ["try_mod(i, 2)", "try_mod(i, 0)", "try_mod(f, 2)", "try_mod(-7, 3)", "bit_count(i)",
                           "bit_get(i, 0)", "getbit(i, 1)", "bit_count(-1)", "bit_count(true)"]
    assert out.schema.simpleString() == ("struct<try_mod(i, 2):int,try_mod(i, 0):int,try_mod(f, 2):double,"
                                         "try_mod(-7, 3):int,bit_count(i):int,bit_get(i, 0):tinyint,"
                                         "getbit(i, 1):tinyint,bit_count(-1):int,bit_count(true):int>")
    assert _rows(out) == [(1, None, 1.5, -1, 2, 1, 0, 64, 1)]
    with pytest.raises(IllegalArgumentException) as info:
        one_row.select(F.bit_get("i", F.lit(40))).collect()
    assert info.value.getCondition() == "INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE"
    assert "expects an integer value in [0, 32), but got 40" in str(info.value)


def test_json_shuffle_and_timestamp_functions(one_row: DataFrame) -> None:
    out = one_row.select(F.json_array_length("ja"), F.json_object_keys("jo"), F.json_array_length(F.lit("x")),
                         F.json_object_keys(F.lit("[1]")), F.json_array_length(F.lit('[1,[2,3],{"a":1}]')),
                         F.shuffle(F.array(F.lit(1))), F.shuffle(F.array(F.lit(1)), F.lit(3)))
    assert out.columns == ["json_array_length(ja)", "json_object_keys(jo)", "json_array_length(x)",
                           "json_object_keys([1])", 'json_array_length([1,[2,3],{"a":1}])', "shuffle(array(1))",
                           "shuffle(array(1))"]
    assert _rows(out) == [(3, ["a", "b"], None, None, 3, [1], [1])]
    ts = one_row.select(F.to_timestamp_ntz(F.lit("2024-03-05 10:11:12")),
                        F.to_timestamp_ltz(F.lit("2024-03-05 10:11:12")),
                        F.to_timestamp_ntz(F.lit("2024/03/05"), F.lit("yyyy/MM/dd")))
    assert ts.schema.simpleString() == ("struct<to_timestamp_ntz(2024-03-05 10:11:12):timestamp_ntz,"
                                        "to_timestamp_ltz(2024-03-05 10:11:12):timestamp,"
                                        "to_timestamp_ntz(2024/03/05, yyyy/MM/dd):timestamp_ntz>")
    assert _rows(ts) == [(datetime.datetime(2024, 3, 5, 10, 11, 12), datetime.datetime(2024, 3, 5, 10, 11, 12),
                          datetime.datetime(2024, 3, 5))]


def test_sql_functions(spark: SparkSession) -> None:
    out = spark.sql("SELECT len('abc'), replace('abcb', 'b', 'x'), replace('abc', 'b'), space(3), isnotnull(1), "
                    "try_mod(7, 0), try_mod(7, 3), bit_count(7), json_array_length('[1]'), "
                    "json_object_keys('{\"k\":1}')")
    assert out.columns == ["len(abc)", "replace(abcb, b, x)", "replace(abc, b, )", "space(3)", "(1 IS NOT NULL)",
                           "try_mod(7, 0)", "try_mod(7, 3)", "bit_count(7)", "json_array_length([1])",
                           'json_object_keys({"k":1})']
    assert _rows(out) == [(3, "axcx", "ac", "   ", True, None, 1, 3, 1, ["k"])]


# ------------------------------------------------------------------------------------ crashes

def test_comparisons_with_null_literals_are_null(spark: SparkSession) -> None:
    out = spark.sql("SELECT null = null, null = 1, 1 = null, null < null")
    assert out.columns == ["(NULL = NULL)", "(NULL = 1)", "(1 = NULL)", "(NULL < NULL)"]
    assert _rows(out) == [(None, None, None, None)]


def test_a_map_cast_to_string(spark: SparkSession) -> None:
    out = spark.sql("SELECT cast(map('a', 1) as string), cast(map(1, array(2, 3), 2, NULL) as string), "
                    "cast(map() as string)")
    assert out.columns == ["CAST(map(a, 1) AS STRING)", "CAST(map(1, array(2, 3), 2, NULL) AS STRING)",
                           "CAST(map() AS STRING)"]
    assert _rows(out) == [("{a -> 1}", "{1 -> [2, 3], 2 -> null}", "{}")]


def test_max_by_and_min_by_of_constants(spark: SparkSession) -> None:
    out = spark.range(3).agg(F.max_by(F.lit(1), F.lit(2)), F.min_by(F.lit("x"), F.lit(2)))
    assert out.schema.simpleString() == "struct<max_by(1, 2):int,min_by(x, 2):string>"
    assert _rows(out) == [(1, "x")]


# ------------------------------------------------------------------------------------------ rand / randn


def test_rand_and_randn_are_sparks_xorshift_numbers(spark: SparkSession) -> None:
    # Were Python's generator: same distribution, other numbers. PySpark 4.0.1's values:
    one = spark.range(0, 5, 1, 1).select(F.rand(42).alias("r"), F.randn(42).alias("n")).collect()
    assert [(r.r, r.n) for r in one] == [
        (0.619189370225301, 2.384479054241165), (0.5096018842446481, 0.1920934041293524),
        (0.8325259388871524, 0.7337336533286575), (0.26322809041172357, -0.5224480195716871),
        (0.6702867696264135, 2.060084179317831)]
    # Each partition draws from seed + its index.
    two = spark.range(0, 6, 1, 2).select(F.rand(7).alias("r"), F.randn(-3).alias("n")).collect()
    assert [(r.r, r.n) for r in two] == [
        (0.28188121484885875, 1.5348754337490433), (0.45998819035056326, -0.3559077005386685),
        (0.7690971666031955, -0.8533337163217665), (0.4836508543933039, 0.3491727383734497),
        (0.734216416644485, -2.4095937675604877), (0.25330679322428096, 1.1770426493881299)]
    # SQL without FROM is one row in partition 0, as Spark's one-row relation.
    assert list(spark.sql("SELECT random(0) r, rand(1) a, randn(0) b").first()) == [
        0.7604953758285915, 0.6363787615254752, 1.6034991609278433]
    assert spark.sql("SELECT spark_partition_id() p").first().p == 0
    assert spark.sql("SELECT 1").rdd.getNumPartitions() == 1


def test_uniform_and_randstr(spark: SparkSession) -> None:
    # Were UNRESOLVED_ROUTINE; PySpark 4.0.1's values, types and names:
    df = spark.sql("SELECT uniform(10, 20, 0), uniform(5.5, 10.0, 123), uniform(CAST(1 AS BIGINT), 100, 7), "
                   "uniform(0, 1.5D, 3), uniform(20, 10, 0), uniform(NULL, 1, 0)")
    assert df.columns == ["uniform(10, 20, 0)", "uniform(5.5, 10.0, 123)", "uniform(CAST(1 AS BIGINT), 100, 7)",
                          "uniform(0, 1.5, 3)", "uniform(20, 10, 0)", "uniform(NULL, 1, 0)"]
    assert [f.dataType.simpleString() for f in df.schema.fields] == [
        "int", "decimal(3,1)", "bigint", "double", "int", "double"]
    assert list(df.first()) == [17, decimal.Decimal("6.2"), 28, 0.3860721525894343, 12, None]
    rows = spark.range(0, 4, 1, 1).selectExpr("uniform(0, 100, 42) u", "uniform(0.0, 1.0, 42) d").collect()
    assert [(r.u, str(r.d)) for r in rows] == [(61, "0.6"), (50, "0.5"), (83, "0.8"), (26, "0.3")]
    text = spark.sql("SELECT randstr(5, 0), randstr(10, 42), randstr(0, 1)")
    assert text.columns == ["randstr(5, 0)", "randstr(10, 42)", "randstr(0, 1)"]
    assert list(text.first()) == ["ceV0P", "pll6YOIJNn", ""]
    assert [r.s for r in spark.range(0, 3, 1, 1).selectExpr("randstr(8, 42) s").collect()] == [
        "pll6YOIJ", "NnI2NS5b", "EWFXkbQp"]
    assert len(spark.sql("SELECT randstr(3)").first()[0]) == 3
    assert spark.sql("SELECT uniform(1, 2)").columns == ["uniform(1, 2)"]
    py = spark.range(0, 2, 1, 1).select(F.uniform(F.lit(1), F.lit(10), F.lit(5)), F.randstr(F.lit(4), F.lit(5)))
    assert py.columns == ["uniform(1, 10, 5)", "randstr(4, 5)"]
    assert [tuple(r) for r in py.collect()] == [(1, "R0Tm"), (1, "gfhb")]
    assert tuple(spark.range(0, 1, 1, 1).select(F.uniform(1, 10, 5), F.randstr(4, 5)).first()) == (1, "R0Tm")


@pytest.mark.parametrize(("sql", "condition", "text"), [
    ("SELECT uniform('a', 2, 0)", "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
     'The first parameter requires the "NUMERIC" type, however "a" has the type "STRING"'),
    ("SELECT uniform(id, 2, 0) FROM range(1)", "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT",
     'the input `min` should be a foldable integer or floating-point expression; however, got "id"'),
])
def test_uniform_errors(spark: SparkSession, sql: str, condition: str, text: str) -> None:
    with pytest.raises(AnalysisException) as info:
        spark.sql(sql).collect()
    assert info.value.getCondition() == condition and text in str(info.value)


def test_randstr_negative_length(spark: SparkSession) -> None:
    with pytest.raises(SparkRuntimeException) as info:
        spark.sql("SELECT randstr(-1, 0)").collect()
    assert info.value.getCondition() == "INVALID_PARAMETER_VALUE.LENGTH"
    assert "Expects `length` greater than or equal to 0, but got -1." in str(info.value)

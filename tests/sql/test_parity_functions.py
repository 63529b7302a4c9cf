"""Scalar functions, aggregates and SQL text whose behaviour was found to differ from PySpark 4.0.1.

Each test pins a case a differential run against PySpark 4.0.1 found; the expected values
(results and generated column names) are what PySpark printed for the same call.
"""

from __future__ import annotations

import pytest

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import AnalysisException
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

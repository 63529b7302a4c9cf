"""Regular-expression and datetime behaviours found to differ from PySpark 4.0.1.

Each test pins a case a differential run against PySpark 4.0.1 found; the expected values
are what PySpark printed for the same call (Spark runs ``java.util.regex`` patterns and
``Matcher.appendReplacement`` replacements).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest

from dstream.sql import Column, SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import (
    ArithmeticException,
    DateTimeException,
    IllegalArgumentException,
    SparkRuntimeException,
)


def one(spark: SparkSession, *cols: Column) -> tuple[Any, ...]:
    return tuple(spark.range(1).select(*cols).collect()[0])


def sql_one(spark: SparkSession, text: str) -> tuple[Any, ...]:
    return tuple(spark.sql(text).collect()[0])


# ------------------------------------------------------------------------------- Java regex syntax

#: (string, Java pattern, PySpark's regexp_extract(s, pattern, 0)).
CLASS_CASES = [
    ("abc123", r"\p{Alpha}+", "abc"),
    ("héllo1", r"\p{L}+", "héllo"),
    ("héllo1", r"\p{IsAlphabetic}+", "héllo"),
    ("héllo1", r"\p{Alpha}+", "h"),  # POSIX classes are ASCII in Java
    ("aÉb", r"\p{Lu}", "É"),
    ("aÉb", r"\pL+", "aÉb"),
    ("ab 12", r"\p{Digit}+", "12"),
    ("aB c", r"\p{Upper}", "B"),
    ("aB", r"\p{Lower}", "a"),
    ("a b", r"\p{Space}", " "),
    ("ab!?c", r"\p{Punct}+", "!?"),
    ("zz0fAg", r"\p{XDigit}+", "0fA"),
    ("ab1_c", r"[\p{Alpha}\d]+", "ab1"),
    ("12ab", r"\P{Alpha}+", "12"),
    ("ab12", r"[^\p{Alpha}]+", "12"),
    ("a\tb", r"\p{Blank}", "\t"),
    ("a\u0001", r"\p{Cntrl}", "\u0001"),
    (" ~a", r"\p{Graph}+", "~a"),
    ("é~ a", r"\p{Print}+", "~ a"),
    ("éa~", r"\p{ASCII}+", "a~"),
    ("x٣y", r"\d", ""),  # \d is ASCII in Java
]


@pytest.mark.parametrize(("text", "pattern", "expected"), CLASS_CASES)
def test_java_character_classes(spark: SparkSession, text: str, pattern: str, expected: str) -> None:
    assert one(spark, F.regexp_extract(F.lit(text), pattern, 0)) == (expected,)


def test_named_groups(spark: SparkSession) -> None:
    assert one(spark, F.regexp_extract(F.lit("k=v"), r"(?<key>\w)=(\w)", 2),
               F.regexp_extract(F.lit("k=v"), r"(?<key>\w)=(\w)", 1)) == ("v", "k")
    assert sql_one(spark, r"SELECT regexp_extract_all('k=v,x=y', '(?<k>\\w)=(\\w)', 2)") == (["v", "y"],)


def test_quoting_and_other_classes(spark: SparkSession) -> None:
    assert sql_one(spark, r"SELECT 'a.*b' rlike '\\Qa.*\\E', 'axxb' rlike '\\Qa.*\\E', split('a(b(c', '\\Q(\\E'), "
                          r"regexp_replace('a+b', '\\Q+\\E', '-'), 'A' rlike '\\x{41}', 'A' rlike '\\u0041'") \
        == (True, False, ["a", "b", "c"], "a-b", True, True)
    assert sql_one(spark, r"SELECT split('a,b;c', '\\p{Punct}'), regexp_count('a1b22', '\\p{Digit}+'), "
                          r"regexp_instr('ab1', '\\p{Digit}'), 'é' rlike '\\w', 'ab' rlike 'b\\z'") \
        == (["a", "b", "c"], 2, 3, False, True)
    assert sql_one(spark, r"SELECT str_to_map('a=1;b=2', '\\p{Punct}', '=')") \
        == ({"a": None, "1": None, "b": None, "2": None},)


@pytest.mark.parametrize(("function", "sql"), [
    ("regexp_replace", "regexp_replace('x', '(', 'y')"),
    ("rlike", "'x' rlike '('"),
    ("regexp_like", "regexp_like('x', '(')"),
    ("regexp_extract", "regexp_extract('x', '(', 0)"),
    ("regexp_extract_all", "regexp_extract_all('x', '(', 0)"),
    ("regexp_extract_all", "regexp_count('x', '(')"),
    ("regexp_extract", "regexp_substr('x', '(')"),
    ("regexp_instr", "regexp_instr('x', '(')"),
])
def test_invalid_pattern_is_sparks_error(spark: SparkSession, function: str, sql: str) -> None:
    with pytest.raises(SparkRuntimeException) as info:
        spark.sql(f"SELECT {sql}").collect()
    assert info.value.getCondition() == "INVALID_PARAMETER_VALUE.PATTERN"
    assert info.value.getMessageParameters() == {"parameter": "`regexp`", "functionName": f"`{function}`",
                                                 "value": "'('"}


def test_invalid_split_pattern_is_an_illegal_argument(spark: SparkSession) -> None:
    for sql in ("split('x', '(')", "str_to_map('a:1', '(', ':')"):
        with pytest.raises(IllegalArgumentException) as info:
            spark.sql(f"SELECT {sql}").collect()
        assert info.value.getCondition() is None


# ------------------------------------------------------------------------------- replacement syntax

#: (pattern, replacement, string, PySpark's regexp_replace result).
REPLACE_CASES = [
    ("(a)", "$1x", "ab", "axb"),
    ("(a)", r"\$1x", "ab", "$1xb"),
    ("(?<n>a)", "${n}!", "ab", "a!b"),
    ("(a)", "$12", "ab", "a2b"),  # $1 then "2": Java takes the digits that still name a group
    ("a", "$0$0", "ab", "aab"),
    ("(a)", "\\\\", "ab", "\\b"),
    ("(a)", r"\q", "ab", "qb"),
    ("(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)(k)", "$11|$10|$111", "abcdefghijk", "k|j|k1"),
    ("(a)", "${1}x", "zz", "zz"),  # a bad replacement is only read when something matches
]


@pytest.mark.parametrize(("pattern", "replacement", "text", "expected"), REPLACE_CASES)
def test_java_replacement(spark: SparkSession, pattern: str, replacement: str, text: str, expected: str) -> None:
    assert one(spark, F.regexp_replace(F.lit(text), pattern, replacement)) == (expected,)


@pytest.mark.parametrize(("pattern", "replacement"), [
    ("(a)", "${1}x"), ("(a)", "${zz}"), ("(a)", "${}"), ("(a)", "${n"), ("(a)", "$2"), ("a", "$1"),
    ("(a)", "$"), ("(a)", "x$"), ("(a)", "$x"), ("(?<n>a)", "${n1}"), ("a", "x\\"),
])
def test_bad_replacement_raises(spark: SparkSession, pattern: str, replacement: str) -> None:
    with pytest.raises(SparkRuntimeException) as info:
        one(spark, F.regexp_replace(F.lit("ab"), pattern, replacement))
    assert info.value.getCondition() == "INVALID_REGEXP_REPLACE"
    assert info.value.getMessageParameters() == {"source": "ab", "pattern": pattern, "replacement": replacement,
                                                 "position": "1"}


# ------------------------------------------------------------------------------- numbers as timestamps

def test_to_timestamp_of_numbers_is_seconds_since_the_epoch(spark: SparkSession) -> None:
    got = spark.range(1).select(F.to_timestamp(F.lit(1704067200)).cast("string"),
                                F.to_timestamp(F.lit(1.5)).cast("string"),
                                F.to_timestamp(F.lit(-1.5)).cast("string"),
                                F.to_timestamp(F.lit(1.5).cast("decimal(3,1)")).cast("string"),
                                F.try_to_timestamp(F.lit(1704067200)).cast("string"))
    assert tuple(got.collect()[0]) == ("2024-01-01 00:00:00", "1970-01-01 00:00:01.5", "1969-12-31 23:59:58.5",
                                       "1970-01-01 00:00:01.5", "2024-01-01 00:00:00")
    assert spark.range(1).select(F.to_timestamp(F.lit(1704067200)), F.to_timestamp(F.lit(1.5))).columns \
        == ["to_timestamp(1704067200)", "to_timestamp(1.5)"]


def test_to_timestamp_of_bad_numbers(spark: SparkSession) -> None:
    with pytest.raises(ArithmeticException) as overflow:
        one(spark, F.to_timestamp(F.lit(1e20)))
    assert overflow.value.getCondition() == "CAST_OVERFLOW"
    with pytest.raises(DateTimeException) as nan:
        one(spark, F.to_timestamp(F.lit(float("nan"))))
    assert nan.value.getCondition() == "CAST_INVALID_INPUT"
    # to_date reads a number as text, as Spark does: '1' is not a date.
    with pytest.raises(DateTimeException) as text:
        one(spark, F.to_date(F.lit(1)))
    assert text.value.getCondition() == "CAST_INVALID_INPUT"


# ------------------------------------------------------------------------------- extract SECOND

def test_extract_second_keeps_the_fraction(spark: SparkSession) -> None:
    df = spark.sql("SELECT extract(SECOND FROM timestamp'2024-05-17 10:11:12.5') AS a, "
                   "date_part('SECOND', timestamp'2024-05-17 10:11:12.5') AS b, "
                   "extract(SECOND FROM timestamp_ntz'2024-05-17 10:11:12.123456') AS c, "
                   "date_part('S', timestamp'2024-05-17 10:11:12.5') AS d, extract(sec FROM date'2024-01-01') AS e, "
                   "extract(MINUTE FROM timestamp'2024-05-17 10:11:12.5') AS f")
    assert df.dtypes == [("a", "decimal(8,6)"), ("b", "decimal(8,6)"), ("c", "decimal(8,6)"),
                         ("d", "decimal(8,6)"), ("e", "decimal(8,6)"), ("f", "int")]
    assert tuple(df.collect()[0]) == (Decimal("12.500000"), Decimal("12.500000"), Decimal("12.123456"),
                                      Decimal("12.500000"), Decimal("0.000000"), 11)
    ts = F.lit("2024-05-17 10:11:12.5").cast("timestamp")
    assert one(spark, F.extract(F.lit("SECOND"), ts), F.date_part(F.lit("second"), ts)) \
        == (Decimal("12.500000"), Decimal("12.500000"))


# ------------------------------------------------------------------------------- daylight-saving gap

@pytest.fixture
def los_angeles(sc: Any) -> Iterator[SparkSession]:
    session = SparkSession(sc, [("spark.sql.session.timeZone", "America/Los_Angeles")])
    try:
        yield session
    finally:
        session.stop()


def test_wall_time_in_a_gap_moves_forward(los_angeles: SparkSession) -> None:
    # 2024-03-10 02:00-03:00 does not exist in Los Angeles: Java (atZone) moves 02:30 to 03:30 PDT.
    df = los_angeles.createDataFrame([("2024-03-10 02:30:00",)], ["s"])
    got = df.select(F.to_timestamp("s").cast("string"), F.unix_timestamp("s"),
                    F.col("s").cast("timestamp").cast("long"), F.to_timestamp("s", "yyyy-MM-dd HH:mm:ss").cast("long"))
    assert tuple(got.collect()[0]) == ("2024-03-10 03:30:00", 1710066600, 1710066600, 1710066600)
    assert sql_one(los_angeles, "SELECT cast(timestamp'2024-03-10 02:30:00' as long), "
                                "cast(make_timestamp(2024, 3, 10, 2, 30, 0) as long), "
                                "cast(cast(timestamp_ntz'2024-03-10 02:30:00' as timestamp) as long), "
                                "cast(to_utc_timestamp(timestamp_ntz'2024-03-10 02:30:00', 'America/Los_Angeles') "
                                "as long)") == (1710066600, 1710066600, 1710066600, 1710091800)


def test_wall_time_in_an_overlap_is_the_earlier_instant(los_angeles: SparkSession) -> None:
    assert sql_one(los_angeles, "SELECT cast(timestamp'2024-11-03 01:30:00' as long), "
                                "unix_timestamp('2024-11-03 01:30:00')") == (1730622600, 1730622600)


# ------------------------------------------------------------------------------- negative zero

def test_rounding_never_gives_negative_zero(spark: SparkSession) -> None:
    got = sql_one(spark, "SELECT round(-0.4d), bround(-0.5d), round(-0.0d), round(-4.0d, -1), round(-1.6d), "
                         "round(cast(-0.4 as float))")
    assert got == (0.0, 0.0, 0.0, 0.0, -2.0, 0.0)
    assert all(math.copysign(1.0, v) == 1.0 for v in got[:4] + got[5:])
    df = spark.createDataFrame([(-0.5,)], "x double")
    assert math.copysign(1.0, df.select(F.bround("x")).collect()[0][0]) == 1.0

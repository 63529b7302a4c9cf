"""format_string and printf against Java's String.format.

Two models: a table of what Java prints (``String.format(Locale.US, ...)``) for the
conversions and flags programs use, and, for integers, Python's own formatting with
Java's rules stated on top (two's complement hex, grouping, parentheses).
"""

from __future__ import annotations

import doctest
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession, functions_text
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import SparkRuntimeException

PROPERTY = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

# (format, value, Spark type of the value, what Java prints)
JAVA = [
    ("%.2f", 2.675, "double", "2.68"),
    ("%.1f", 0.25, "double", "0.3"),
    ("%.0f", -2.5, "double", "-3"),
    ("%#.0f", 2.0, "double", "2."),
    ("%08.3f", -3.14159, "double", "-003.142"),
    ("%,.2f", 1234567.891, "double", "1,234,567.89"),
    ("%e", 12345.678, "double", "1.234568e+04"),
    ("%E", 12345.678, "double", "1.234568E+04"),
    ("%.2e", 0.000123, "double", "1.23e-04"),
    ("%g", 0.0001, "double", "0.000100000"),
    ("%g", 123456789.0, "double", "1.23457e+08"),
    ("%g", 0.0, "double", "0.00000"),
    ("%f", math.nan, "double", "NaN"),
    ("%+f", math.inf, "double", "+Infinity"),
    ("%f", -math.inf, "double", "-Infinity"),
    ("%s", 1e20, "double", "1.0E20"),
    ("%s", 0.1, "double", "0.1"),
    ("%,d", 1234567, "int", "1,234,567"),
    ("%(d", -5, "int", "(5)"),
    ("%05d", -42, "int", "-0042"),
    ("% d", 42, "int", " 42"),
    ("%+d", 42, "bigint", "+42"),
    ("%x", -1, "int", "ffffffff"),
    ("%x", -1, "bigint", "ffffffffffffffff"),
    ("%x", -1, "tinyint", "ff"),
    ("%X", 255, "int", "FF"),
    ("%#x", 255, "int", "0xff"),
    ("%#X", 255, "int", "0XFF"),
    ("%o", 8, "int", "10"),
    ("%#o", 8, "int", "010"),
    ("%c", 65, "int", "A"),
    ("%10s|", "abc", "string", "       abc|"),
    ("%-10s|", "abc", "string", "abc       |"),
    ("%.2s", "abcdef", "string", "ab"),
    ("%S", "abc", "string", "ABC"),
    ("%s", None, "string", "null"),
    ("%d", None, "int", "null"),
    ("%b", None, "string", "false"),
    ("%b", "x", "string", "true"),
    ("%B", False, "boolean", "FALSE"),
    ("%s", True, "boolean", "true"),
    ("100%% %n", 1, "int", "100% \n"),
    # Spark formats its internal values: a date is its day number, a timestamp microseconds.
    ("%s", "2020-01-02", "date", "18263"),
    ("%d", "1970-01-01 00:00:01", "timestamp", "1000000"),
]


@pytest.mark.parametrize(("fmt", "value", "dtype", "java"), JAVA, ids=[f"{f}-{t}" for f, _, t, _ in JAVA])
def test_what_java_prints(spark: SparkSession, fmt: str, value: Any, dtype: str, java: str) -> None:
    if dtype in ("date", "timestamp"):
        df = spark.sql(f"SELECT CAST('{value}' AS {dtype}) AS v")
    else:
        df = spark.createDataFrame([(value,)], f"v {dtype}")
    assert df.select(F.format_string(fmt, "v").alias("r")).first().r == java


def _java_int(value: int, conv: str, flags: str, width: int | None, bits: int) -> str:
    if conv == "d":
        body = f"{abs(value):,}" if "," in flags else str(abs(value))
        negative = value < 0
    else:
        body = format(value + (1 << bits) if value < 0 else value, "x" if conv == "x" else "o")
        negative = False
    text = f"({body})" if negative and "(" in flags else ("-" + body if negative else
                                                          ("+" + body if "+" in flags else body))
    if width is not None and len(text) < width:
        if "-" in flags:
            text = text.ljust(width)
        elif "0" in flags:
            sign = text[0] if text[0] in "+-(" else ""
            text = sign + text[len(sign):].rjust(width - len(sign), "0")
        else:
            text = text.rjust(width)
    return text


@given(value=st.integers(-(2 ** 31), 2 ** 31 - 1), conv=st.sampled_from("dxo"),
       flags=st.sampled_from(["", "-", "0", ",", "+", "(", "+,", "0,"]), width=st.one_of(st.none(), st.integers(1, 14)))
@PROPERTY
def test_integers_as_java_formats_them(spark: SparkSession, value: int, conv: str, flags: str,
                                       width: int | None) -> None:
    if conv != "d" and any(f in flags for f in ",+"):
        flags = flags.replace(",", "").replace("+", "")  # Java refuses those flags for %x and %o
    if "-" in flags or "0" in flags:
        width = width or 5  # both need a width
    fmt = f"%{flags}{'' if width is None else width}{conv}"
    got = spark.createDataFrame([(value,)], "v int").select(F.format_string(fmt, "v").alias("r")).first().r
    assert got == _java_int(value, conv, flags, width, 32), fmt


def test_arguments_by_index_columns_as_formats_and_sql(spark: SparkSession) -> None:
    df = spark.createDataFrame([("a", "b", "%2$s-%1$s")], "x string, y string, f string")
    assert df.select(F.format_string("%2$s %1$s", "x", "y").alias("r")).first().r == "b a"
    assert df.select(F.printf("f", "x", "y").alias("r")).first().r == "b-a"
    df.createOrReplaceTempView("fs")
    row = spark.sql("SELECT format_string('%s/%s', x, y) AS a, printf(f, x, y) AS b FROM fs").first()
    assert (row.a, row.b) == ("a/b", "b-a")
    assert df.select(F.format_string("%s", "x")).columns == ["format_string(%s, x)"]


@pytest.mark.parametrize(("fmt", "dtype", "error"), [
    ("%d", "double", "IllegalFormatConversionException: d != java.lang.Double"),
    ("%f", "int", "IllegalFormatConversionException: f != java.lang.Integer"),
    ("%f", "decimal(5,2)", "f != org.apache.spark.sql.types.Decimal"),
    ("%d %d", "int", "MissingFormatArgumentException: Format specifier '%d'"),
    ("%q", "int", "UnknownFormatConversionException: Conversion = 'q'"),
    ("%-d", "int", "MissingFormatWidthException"),
    ("%#d", "int", "FormatFlagsConversionMismatchException"),
])
def test_what_java_refuses(spark: SparkSession, fmt: str, dtype: str, error: str) -> None:
    if dtype.startswith("decimal"):
        df = spark.sql(f"SELECT CAST(1.5 AS {dtype}) AS v")
    else:
        df = spark.createDataFrame([(1.0 if dtype == "double" else 1,)], f"v {dtype}")
    with pytest.raises(SparkRuntimeException, match=error.replace("$", r"\$")):
        df.select(F.format_string(fmt, "v")).collect()


def test_docstring_examples(spark: SparkSession) -> None:
    result = doctest.testmod(functions_text, extraglobs={"spark": spark, "lit": F.lit},
                             optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 7 and result.failed == 0, result


def test_sql_aliases_name_their_columns_after_themselves(spark: SparkSession) -> None:
    df = spark.createDataFrame([("Ab",)], "s string")
    got = df.select(F.lcase("s"), F.ucase("s"), F.char_length("s"), F.character_length("s"), F.lower("s"))
    assert got.columns == ["lcase(s)", "ucase(s)", "char_length(s)", "character_length(s)", "lower(s)"]
    assert list(got.first()) == ["ab", "AB", 2, 2, "ab"]
    df.createOrReplaceTempView("aliases")
    assert spark.sql("SELECT lcase(s), char_length(s), length(s) FROM aliases").columns == [
        "lcase(s)", "char_length(s)", "length(s)"]

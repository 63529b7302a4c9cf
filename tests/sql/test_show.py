"""show_string and format_value against PySpark 4's documented output, written out literally.

Java's Double/Float.toString are checked on known values and, with Hypothesis, for
round-trip, shortest digits and the plain/scientific thresholds.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import struct
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dstream.sql.formatting import format_value, java_double_str, java_float_str
from dstream.sql.show import display_width, show_string
from dstream.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    MapType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)


def schema(*fields: tuple[str, object]) -> StructType:
    return StructType([StructField(name, t, True) for name, t in fields])


def printed(rows: list[tuple], sch: StructType, n: int = 20, truncate: int | bool = True, vertical: bool = False,
            capsys: pytest.CaptureFixture[str] | None = None) -> str:
    """What PySpark's df.show prints: print() of the show string."""
    assert capsys is not None
    print(show_string(rows, sch, n, truncate, vertical, "UTC"))
    return capsys.readouterr().out


# --------------------------------------------------------------------------------------- tables

SCALARS = schema(("id", LongType()), ("name", StringType()), ("score", DoubleType()), ("flag", BooleanType()),
                 ("d", DateType()))
SCALAR_ROWS = [
    (1, "alice", 1.23456789e7, True, dt.date(2025, 1, 31)),
    (None, None, 1.0e-4, False, dt.date(2000, 2, 29)),
    (-3, "bob", float("nan"), None, None),
]


def test_scalar_table_prints_as_pyspark_with_blank_line_after(capsys: pytest.CaptureFixture[str]) -> None:
    assert printed(SCALAR_ROWS, SCALARS, capsys=capsys) == (
        "+----+-----+------------+-----+----------+\n"
        "|  id| name|       score| flag|         d|\n"
        "+----+-----+------------+-----+----------+\n"
        "|   1|alice|1.23456789E7| true|2025-01-31|\n"
        "|NULL| NULL|      1.0E-4|false|2000-02-29|\n"
        "|  -3|  bob|         NaN| NULL|      NULL|\n"
        "+----+-----+------------+-----+----------+\n"
        "\n"
    )


NESTED = schema(
    ("ts", TimestampType()),
    ("arr", ArrayType(IntegerType())),
    ("st", StructType([StructField("x", IntegerType()), StructField("y", StringType())])),
    ("m", MapType(StringType(), IntegerType())),
    ("bin", BinaryType()),
    ("f", FloatType()),
    ("dec", DecimalType(10, 2)),
)
NESTED_ROWS = [
    (dt.datetime(2025, 1, 31, 12, 0, 0), [1, 2, None], (1, "a"), {"k1": 1, "k2": None}, b"\x0a\xff",
     struct.unpack("<f", struct.pack("<f", 1.1))[0], Decimal("1.5")),
    (dt.datetime(2025, 1, 31, 12, 0, 0, 500000), [], (None, "b"), {}, b"", 3.4028234663852886e38, Decimal("-0.00")),
    (None, None, None, None, None, None, None),
]


def test_nested_types_full_width_left_aligned() -> None:
    assert show_string(NESTED_ROWS, NESTED, 20, 0, False, "UTC") == (
        "+---------------------+------------+---------+---------------------+-------+------------+----+\n"
        "|ts                   |arr         |st       |m                    |bin    |f           |dec |\n"
        "+---------------------+------------+---------+---------------------+-------+------------+----+\n"
        "|2025-01-31 12:00:00  |[1, 2, NULL]|{1, a}   |{k1 -> 1, k2 -> NULL}|[0A FF]|1.1         |1.50|\n"
        "|2025-01-31 12:00:00.5|[]          |{NULL, b}|{}                   |[]     |3.4028235E38|0.00|\n"
        "|NULL                 |NULL        |NULL     |NULL                 |NULL   |NULL        |NULL|\n"
        "+---------------------+------------+---------+---------------------+-------+------------+----+\n"
    )


def test_nested_types_truncated_at_twenty_right_aligned() -> None:
    assert show_string(NESTED_ROWS, NESTED, 20, 20, False, "UTC") == (
        "+--------------------+------------+---------+--------------------+-------+------------+----+\n"
        "|                  ts|         arr|       st|                   m|    bin|           f| dec|\n"
        "+--------------------+------------+---------+--------------------+-------+------------+----+\n"
        "| 2025-01-31 12:00:00|[1, 2, NULL]|   {1, a}|{k1 -> 1, k2 -> N...|[0A FF]|         1.1|1.50|\n"
        "|2025-01-31 12:00:...|          []|{NULL, b}|                  {}|     []|3.4028235E38|0.00|\n"
        "|                NULL|        NULL|     NULL|                NULL|   NULL|        NULL|NULL|\n"
        "+--------------------+------------+---------+--------------------+-------+------------+----+\n"
    )


KS = schema(("k", LongType()), ("s", StringType()))
LONG = "a string that is definitely longer than twenty"
KS_ROWS = [(1, "short"), (2, LONG)]


def test_long_string_truncated_by_default() -> None:
    assert show_string(KS_ROWS, KS, 20, True, False, "UTC") == (
        "+---+--------------------+\n"
        "|  k|                   s|\n"
        "+---+--------------------+\n"
        "|  1|               short|\n"
        "|  2|a string that is ...|\n"
        "+---+--------------------+\n"
    )


def test_long_string_in_full_when_truncate_off() -> None:
    assert show_string(KS_ROWS, KS, 20, False, False, "UTC") == (
        "+---+----------------------------------------------+\n"
        "|k  |s                                             |\n"
        "+---+----------------------------------------------+\n"
        "|1  |short                                         |\n"
        "|2  |a string that is definitely longer than twenty|\n"
        "+---+----------------------------------------------+\n"
    )


def test_truncate_five_keeps_two_characters_and_ellipsis() -> None:
    assert show_string(KS_ROWS, KS, 20, 5, False, "UTC") == (
        "+---+-----+\n"
        "|  k|    s|\n"
        "+---+-----+\n"
        "|  1|short|\n"
        "|  2|a ...|\n"
        "+---+-----+\n"
    )


def test_truncate_below_four_cuts_without_ellipsis() -> None:
    assert show_string(KS_ROWS, KS, 20, 3, False, "UTC") == (
        "+---+---+\n"
        "|  k|  s|\n"
        "+---+---+\n"
        "|  1|sho|\n"
        "|  2|a s|\n"
        "+---+---+\n"
    )


def test_header_is_never_truncated() -> None:
    sch = schema(("a_rather_long_column_name", LongType()))
    assert show_string([(7,)], sch, 20, 5, False, "UTC") == (
        "+-------------------------+\n"
        "|a_rather_long_column_name|\n"
        "+-------------------------+\n"
        "|                        7|\n"
        "+-------------------------+\n"
    )


def test_more_rows_than_n_prints_footer_and_no_blank_line(capsys: pytest.CaptureFixture[str]) -> None:
    rows = [(1, "x"), (2, "y"), (3, "z")]
    assert printed(rows, KS, n=2, capsys=capsys) == (
        "+---+---+\n"
        "|  k|  s|\n"
        "+---+---+\n"
        "|  1|  x|\n"
        "|  2|  y|\n"
        "+---+---+\n"
        "only showing top 2 rows\n"
    )


def test_footer_singular_for_one_row() -> None:
    assert show_string([(1, "x"), (2, "y")], KS, 1, 20, False, "UTC") == (
        "+---+---+\n"
        "|  k|  s|\n"
        "+---+---+\n"
        "|  1|  x|\n"
        "+---+---+\n"
        "only showing top 1 row"
    )


def test_exactly_n_rows_has_no_footer_and_zero_rows_has_one() -> None:
    two = show_string([(1, "x"), (2, "y")], KS, 2, 20, False, "UTC")
    assert "only showing" not in two
    assert show_string([(1, "x")], KS, 0, 20, False, "UTC") == (
        "+---+---+\n"
        "|  k|  s|\n"
        "+---+---+\n"
        "+---+---+\n"
        "only showing top 0 rows"
    )
    assert show_string([], KS, -5, 20, False, "UTC") == "+---+---+\n|  k|  s|\n+---+---+\n+---+---+\n"


# ------------------------------------------------------------------------------------- vertical

def test_vertical_with_truncation() -> None:
    assert show_string(KS_ROWS, KS, 20, 20, True, "UTC") == "\n".join([
        "-RECORD 0-------------------",
        " k   | 1                    ",
        " s   | short                ",
        "-RECORD 1-------------------",
        " k   | 2                    ",
        " s   | a string that is ... ",
        "",
    ])


def test_vertical_untruncated_widens_and_footer() -> None:
    sch = schema(("key", LongType()), ("value", StringType()))
    assert show_string([(1, "a\tb"), (2, LONG)], sch, 1, 0, True, "UTC") == "\n".join([
        "-RECORD 0-----",
        " key   | 1    ",
        " value | a\\tb ",
        "only showing top 1 row",
    ])


def test_vertical_empty_prints_zero_rows(capsys: pytest.CaptureFixture[str]) -> None:
    assert printed([], KS, vertical=True, capsys=capsys) == "(0 rows)\n\n"


# ------------------------------------------------------------------------------ width, escapes

def test_east_asian_wide_characters_take_two_columns() -> None:
    sch = schema(("name", StringType()), ("v", LongType()))
    rows = [("日本語", 1), ("ab", 22), ("ｶﾀｶﾅ", 3), ("全角ＡＢ", 4)]
    assert show_string(rows, sch, 20, 20, False, "UTC") == (
        "+--------+---+\n"
        "|    name|  v|\n"
        "+--------+---+\n"
        "|  日本語|  1|\n"
        "|      ab| 22|\n"
        "|    ｶﾀｶﾅ|  3|\n"
        "|全角ＡＢ|  4|\n"
        "+--------+---+\n"
    )
    assert show_string(rows[:2], sch, 20, 0, False, "UTC") == (
        "+------+---+\n"
        "|name  |v  |\n"
        "+------+---+\n"
        "|日本語|1  |\n"
        "|ab    |22 |\n"
        "+------+---+\n"
    )


def test_wide_characters_truncate_by_characters_not_columns() -> None:
    sch = schema(("s", StringType()))
    text = "漢字" * 11  # 22 characters, 44 columns
    cell = "漢字" * 8 + "漢..."  # first 17 characters
    assert display_width(cell) == 37
    assert show_string([(text,)], sch, 20, 20, False, "UTC") == (
        "+" + "-" * 37 + "+\n"
        "|" + " " * 36 + "s|\n"
        "+" + "-" * 37 + "+\n"
        "|" + cell + "|\n"
        "+" + "-" * 37 + "+\n"
    )


def test_meta_characters_escaped_in_cells_and_header() -> None:
    sch = schema(("a\nb", StringType()))
    rows = [("tab\there",), ("line1\nline2\r\n",)]
    assert show_string(rows, sch, 20, 0, False, "UTC") == (
        "+----------------+\n"
        "|a\\nb            |\n"
        "+----------------+\n"
        "|tab\\there       |\n"
        "|line1\\nline2\\r\\n|\n"
        "+----------------+\n"
    )


def test_display_width_model() -> None:
    assert display_width("abc") == 3
    assert display_width("日本") == 4
    assert display_width("ｶ") == 1  # halfwidth katakana
    assert display_width("😀") == 2
    assert display_width("é") == 1


# ------------------------------------------------------------------------------- format_value

@pytest.mark.parametrize(("value", "dtype", "text"), [
    (None, StringType(), "NULL"),
    (True, BooleanType(), "true"),
    (0, LongType(), "0"),
    (-(2**63), LongType(), "-9223372036854775808"),
    (100.0, DoubleType(), "100.0"),
    (-0.0, DoubleType(), "-0.0"),
    (float("inf"), DoubleType(), "Infinity"),
    (float("-inf"), DoubleType(), "-Infinity"),
    (1.0e10, DoubleType(), "1.0E10"),
    (0.1, FloatType(), "0.1"),
    (Decimal("1.5"), DecimalType(10, 2), "1.50"),
    (Decimal("12345678901234567890123456789.123456789"), DecimalType(38, 9), "12345678901234567890123456789.123456789"),
    (Decimal("7"), DecimalType(10, 0), "7"),
    (dt.date(1, 1, 1), DateType(), "0001-01-01"),
    (dt.datetime(999, 3, 4, 5, 6, 7, 120), TimestampType(), "0999-03-04 05:06:07.00012"),
    (dt.datetime(2025, 1, 31, 12, 0, tzinfo=dt.timezone.utc), TimestampType(), "2025-01-31 21:00:00"),
    (bytearray(b"\x00\x10"), BinaryType(), "[00 10]"),
    ([[1], None, []], ArrayType(ArrayType(IntegerType())), "[[1], NULL, []]"),
    ([b"\x01", None], ArrayType(BinaryType()), "[[01], NULL]"),
    ([("k", 1.5)], MapType(StringType(), DoubleType()), "{k -> 1.5}"),
    ({"a": [1, None]}, MapType(StringType(), ArrayType(LongType())), "{a -> [1, NULL]}"),
    ({"x": None, "y": "s"}, StructType([StructField("x", LongType()), StructField("y", StringType())]), "{NULL, s}"),
    ((), StructType([]), "{}"),
])
def test_format_value(value: object, dtype: object, text: str) -> None:
    assert format_value(value, dtype, "Asia/Tokyo") == text


def test_aware_timestamp_with_offset_zone() -> None:
    value = dt.datetime(2025, 1, 31, 12, 0, tzinfo=dt.timezone.utc)
    assert format_value(value, TimestampType(), "-05:30") == "2025-01-31 06:30:00"


# ------------------------------------------------------------------------------- Java doubles

@pytest.mark.parametrize(("x", "text"), [
    (1.0, "1.0"), (100.0, "100.0"), (1.23456789e7, "1.23456789E7"), (1.0e-4, "1.0E-4"), (0.001, "0.001"),
    (9.99e-4, "9.99E-4"), (1.0e7, "1.0E7"), (9999999.0, "9999999.0"), (0.5, "0.5"), (-2.5e-5, "-2.5E-5"),
    (123456.789, "123456.789"), (2.0**63, "9.223372036854776E18"), (1.7976931348623157e308, "1.7976931348623157E308"),
    (5e-324, "4.9E-324"), (1e-323, "9.9E-324"), (1e23, "1.0E23"), (0.1 + 0.2, "0.30000000000000004"),
    (float("nan"), "NaN"),
])
def test_java_double_known_values(x: float, text: str) -> None:
    assert java_double_str(x) == text


@pytest.mark.parametrize(("x", "text"), [
    (1.1, "1.1"), (0.1, "0.1"), (3.4028234663852886e38, "3.4028235E38"), (1.401298464324817e-45, "1.4E-45"),
    (1.0e7, "1.0E7"), (16777216.0, "1.6777216E7"), (3.14159, "3.14159"), (1.0e-5, "1.0E-5"), (100.0, "100.0"),
    (1.0e39, "Infinity"), (-1.0e39, "-Infinity"), (-0.0, "-0.0"), (0.3, "0.3"), (1.0 / 3.0, "0.33333334"),
])
def test_java_float_known_values(x: float, text: str) -> None:
    assert java_float_str(x) == text


JAVA_SCI = re.compile(r"-?([1-9])\.(\d+)E(-?\d+)")
JAVA_PLAIN = re.compile(r"-?(\d+)\.(\d+)")
finite = st.floats(allow_nan=False, allow_infinity=False)


def significant_digits(text: str) -> str:
    """The significant digits of a Java or Python numeral, without leading or trailing zeros."""
    mantissa = re.split("[eE]", text.lstrip("-"))[0]
    return mantissa.replace(".", "").lstrip("0").rstrip("0") or "0"


@given(finite)
def test_java_double_round_trips(x: float) -> None:
    assert float(java_double_str(x)) == x
    assert math.copysign(1.0, float(java_double_str(x))) == math.copysign(1.0, x)


@given(finite)
def test_java_double_notation_thresholds(x: float) -> None:
    text = java_double_str(x)
    if x == 0 or 1e-3 <= abs(x) < 1e7:
        m = JAVA_PLAIN.fullmatch(text)
        assert m is not None, text
        assert m.group(1) == "0" or not m.group(1).startswith("0")
        assert m.group(2) == "0" or not m.group(2).endswith("0")
    else:
        m = JAVA_SCI.fullmatch(text)
        assert m is not None, text
        assert m.group(2) == "0" or not m.group(2).endswith("0")
        # Exact rationals: 10 ** 309 does not fit a float (the comparison would overflow).
        exp, slack = int(m.group(3)), 1 + Fraction(1, 10**15)
        assert Fraction(10) ** exp <= Fraction(abs(x)) * slack < Fraction(10) ** (exp + 1) * slack


@given(finite.filter(lambda x: x != 0))
def test_java_double_digits_are_pythons_shortest(x: float) -> None:
    ours = significant_digits(java_double_str(x))
    shortest = significant_digits(repr(x))
    if len(shortest) > 1:
        assert ours == shortest
    else:
        # Java weighs two-digit decimals too when one digit suffices: it keeps the closer.
        assert len(ours) <= 2
        assert abs(Decimal(java_double_str(x).replace("E", "e")) - Decimal(x)) <= abs(Decimal(repr(x)) - Decimal(x))


def to_float32(x: float) -> float:
    return float(struct.unpack("<f", struct.pack("<f", x))[0])


float32s = st.floats(width=32, allow_nan=False, allow_infinity=False)


@given(float32s)
def test_java_float_round_trips_and_is_shortest(f: float) -> None:
    text = java_float_str(f)
    assert to_float32(float(text)) == f
    if f != 0:
        digits = significant_digits(text)
        for n in range(1, len(digits)):
            # One digit may round-trip while Java prints two: it weighs both lengths then.
            if not (n == 1 and len(digits) == 2):
                assert to_float32(float(f"{f:.{n - 1}e}")) != f, (f, text, n)


@given(float32s)
def test_java_float_notation_thresholds(f: float) -> None:
    text = java_float_str(f)
    sci = JAVA_SCI.fullmatch(text) is not None
    assert sci == (f != 0 and not 1e-3 <= abs(float(text)) < 1e7)
    assert sci or JAVA_PLAIN.fullmatch(text) is not None

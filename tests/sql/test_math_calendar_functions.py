"""The elementary math functions and the calendar functions against plain Python.

Models: ``math`` (what ``java.lang.Math`` computes, NaN outside a domain), Spark's month
arithmetic stated with ``datetime`` and ``calendar``, and ``months_between``'s rule as
Spark's ``DateTimeUtils`` states it. Names are checked against Spark's generated names.
"""

from __future__ import annotations

import calendar
import datetime as dt
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import DateTimeException, IllegalArgumentException

PROPERTY = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
doubles = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False) | st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.5])
dates = st.dates(min_value=dt.date(1, 1, 1), max_value=dt.date(9999, 12, 31))


def _math_or_nan(fn: Any, *args: float) -> float:
    try:
        return float(fn(*args))
    except (ValueError, ZeroDivisionError):
        return math.nan


def _same(got: float | None, want: float | None) -> bool:
    if got is None or want is None:
        return got is want
    if math.isnan(want):
        return math.isnan(got)
    return math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-300) or (math.isinf(want) and got == want)


def java_div(a: float, b: float) -> float:
    """``a / b`` as Java divides doubles: a zero divisor gives a signed infinity."""
    if b == 0:
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def beyond(fn: Any, x: float, overflow: float) -> float:
    """``fn(x)``, or ``overflow`` (an infinity) where Python raises and Java gives the infinity."""
    try:
        return float(fn(x))
    except OverflowError:
        return overflow


def jlog(v: float) -> float:
    """``Math.log``: -Infinity at 0, NaN below."""
    return -math.inf if v == 0 else math.nan if v < 0 or math.isnan(v) else math.log(v)


def jlog1p(v: float) -> float:
    return jlog(1.0 + v) if v <= -1 else math.log1p(v)


UNARY = {
    "sin": math.sin, "cos": math.cos, "tan": math.tan, "asin": math.asin, "acos": math.acos, "atan": math.atan,
    "sinh": lambda x: beyond(math.sinh, x, math.copysign(math.inf, x)),
    "cosh": lambda x: beyond(math.cosh, x, math.inf), "tanh": math.tanh,
    # Spark's own definitions of the inverse hyperbolic functions:
    "asinh": lambda x: jlog(x + math.sqrt(x * x + 1.0)),
    "acosh": lambda x: jlog(x + math.sqrt(x * x - 1.0)) if x * x >= 1 else math.nan,
    "atanh": lambda x: 0.5 * (jlog1p(x) - jlog1p(-x)), "degrees": math.degrees, "radians": math.radians,
    "expm1": lambda x: beyond(math.expm1, x, math.inf),
    "cbrt": lambda x: math.copysign(abs(x) ** (1 / 3), x),
    "signum": lambda x: math.copysign(1.0, x) if x else x,
    "rint": lambda x: float(round(x)),  # Python's round is half to even, as Math.rint
    "cot": lambda x: java_div(1.0, math.tan(x)), "sec": lambda x: java_div(1.0, math.cos(x)),
    "csc": lambda x: java_div(1.0, math.sin(x)),
}


@given(values=st.lists(doubles, min_size=1, max_size=8))
@PROPERTY
def test_unary_math_functions_match_math(spark: SparkSession, values: list[float]) -> None:
    df = spark.createDataFrame([(v,) for v in values] + [(None,)], "x double")
    rows = df.select(*[getattr(F, name)("x").alias(name) for name in UNARY]).collect()
    for value, row in zip([*values, None], rows):
        for name, fn in UNARY.items():
            want = None if value is None else _math_or_nan(fn, value)
            if name == "cbrt" and want is not None:
                assert math.isclose(row[name], want, rel_tol=1e-12, abs_tol=1e-12), (name, value, row[name])
            else:
                assert _same(row[name], want), (name, value, row[name], want)


@given(pairs=st.lists(st.tuples(doubles, doubles), min_size=1, max_size=8))
@PROPERTY
def test_binary_math_functions_match_math(spark: SparkSession, pairs: list[tuple[float, float]]) -> None:
    df = spark.createDataFrame(pairs, "y double, x double")
    rows = df.select(F.atan2("y", "x").alias("a"), F.hypot("y", "x").alias("h"), F.log1p("y").alias("l")).collect()
    for (y, x), row in zip(pairs, rows):
        assert _same(row.a, math.atan2(y + 0.0, x + 0.0))
        assert _same(row.h, math.hypot(y, x))
        assert _same(row.l, math.log1p(y) if y > -1 else None)


def test_math_names_and_special_values(spark: SparkSession) -> None:
    df = spark.createDataFrame([(float("nan"), 2.0, -7, 3)], "n double, d double, a int, b int")
    row = df.select(F.sin("d"), F.rint("d"), F.nanvl("n", "d"), F.pmod("a", "b"), F.negate("a"), F.factorial("b"),
                    F.factorial(F.lit(21)), F.e(), F.pi(), F.sign(F.lit(-2.5))).first()
    assert list(row.asDict()) == ["SIN(d)", "rint(d)", "nanvl(n, d)", "pmod(a, b)", "negative(a)", "factorial(b)",
                                  "factorial(21)", "E()", "PI()", "sign(-2.5)"]
    assert list(row) == [math.sin(2.0), 2.0, 2.0, 2, 7, 6, None, math.e, math.pi, -1.0]
    sql = spark.sql("SELECT atan2(0, -1) AS a, cot(0) AS c, acosh(0.5) AS h, degrees(pi()) AS d").first()
    assert (sql.a, sql.c, math.isnan(sql.h), sql.d) == (math.pi, math.inf, True, 180.0)


# ------------------------------------------------------------------ calendar


def add_months_model(day: dt.date, months: int) -> dt.date | None:
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    if not 1 <= year <= 9999:
        return None  # outside what the model (datetime) can state
    return dt.date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


def months_between_model(a: dt.datetime, b: dt.datetime, round_off: bool) -> float:
    months = (a.year - b.year) * 12 + a.month - b.month
    last_a = a.day == calendar.monthrange(a.year, a.month)[1]
    last_b = b.day == calendar.monthrange(b.year, b.month)[1]
    if a.day == b.day or (last_a and last_b):
        return float(months)
    seconds = lambda t: t.hour * 3600 + t.minute * 60 + t.second  # noqa: E731 - one line of the rule
    diff = months + ((a.day - b.day) * 86400 + seconds(a) - seconds(b)) / (31 * 86400)
    return math.floor(diff * 1e8 + 0.5) / 1e8 if round_off else diff


@given(rows=st.lists(st.tuples(dates, st.integers(-3000, 3000)), min_size=1, max_size=8))
@PROPERTY
def test_add_months_and_last_day(spark: SparkSession, rows: list[tuple[dt.date, int]]) -> None:
    rows = [(day, n) for day, n in rows if add_months_model(day, n) is not None]  # Python's dates end at 9999
    df = spark.createDataFrame(rows, "d date, n int")
    got = df.select(F.add_months("d", F.col("n")).alias("a"), F.last_day("d").alias("l")).collect()
    for (day, n), row in zip(rows, got):
        assert row.a == add_months_model(day, n), (day, n)
        assert row.l == day.replace(day=calendar.monthrange(day.year, day.month)[1])


@given(days=st.lists(dates.filter(lambda d: d.year < 9999), min_size=1, max_size=8),
       name=st.sampled_from(["MO", "tue", "Wednesday", "THU", "fr", "SAT", "sunday"]))
@PROPERTY
def test_next_day(spark: SparkSession, days: list[dt.date], name: str) -> None:
    target = ["mo", "tu", "we", "th", "fr", "sa", "su"].index(name[:2].lower())
    got = spark.createDataFrame([(d,) for d in days], "d date").select(F.next_day("d", name)).collect()
    for day, (value,) in zip(days, got):
        assert value.weekday() == target and 1 <= (value - day).days <= 7


@given(pairs=st.lists(st.tuples(st.datetimes(dt.datetime(1900, 1, 1), dt.datetime(2100, 1, 1)),
                                st.datetimes(dt.datetime(1900, 1, 1), dt.datetime(2100, 1, 1))),
                      min_size=1, max_size=8),
       round_off=st.booleans())
@PROPERTY
def test_months_between(spark: SparkSession, pairs: list[tuple[dt.datetime, dt.datetime]], round_off: bool) -> None:
    pairs = [(a.replace(microsecond=0), b.replace(microsecond=0)) for a, b in pairs]
    df = spark.createDataFrame(pairs, "a timestamp, b timestamp")
    got = df.select(F.months_between("a", "b", round_off)).collect()
    for (a, b), (value,) in zip(pairs, got):
        assert value == pytest.approx(months_between_model(a, b, round_off), rel=1e-12, abs=1e-12), (a, b)


def test_calendar_examples_names_and_errors(spark: SparkSession) -> None:
    row = spark.sql("SELECT add_months(date'2016-08-31', 1) AS a, last_day(date'2009-01-12') AS l, "
                    "next_day(date'2015-01-14', 'TU') AS n, make_date(2013, 7, 15) AS m, "
                    "months_between(timestamp'1997-02-28 10:30:00', timestamp'1996-10-30 00:00:00') AS b").first()
    assert tuple(row) == (dt.date(2016, 9, 30), dt.date(2009, 1, 31), dt.date(2015, 1, 20), dt.date(2013, 7, 15),
                          3.94959677)
    df = spark.createDataFrame([(dt.date(2020, 1, 1), dt.date(2020, 1, 2))], "a date, b date")
    names = df.select(F.add_months("a", 1), F.months_between("a", "b"), F.next_day("a", "Mon"), F.last_day("a"),
                      F.make_date(F.lit(2020), F.lit(1), F.lit(2))).columns
    assert names == ["add_months(a, 1)", "months_between(a, b, true)", "next_day(a, Mon)", "last_day(a)",
                     "make_date(2020, 1, 2)"]
    with pytest.raises(DateTimeException, match=r"DATETIME_FIELD_OUT_OF_BOUNDS.*DayOfMonth \(valid values 1 - 28\)"):
        spark.sql("SELECT make_date(2023, 2, 29)").collect()
    with pytest.raises(IllegalArgumentException, match="ILLEGAL_DAY_OF_WEEK.*xx"):
        spark.sql("SELECT next_day(date'2015-01-14', 'xx')").collect()
    spark.conf.set("spark.sql.ansi.enabled", "false")
    assert tuple(spark.sql("SELECT make_date(2023, 2, 29), next_day(date'2015-01-14', 'xx')").first()) == (None, None)

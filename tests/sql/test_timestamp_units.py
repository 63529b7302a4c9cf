"""timestamp_diff / timestamp_add (SQL's TIMESTAMPDIFF, DATEDIFF(unit, ...), TIMESTAMPADD,
DATEADD(unit, ...)) against plain-Python models of java.time's rules: exact durations up to
HOUR, calendar units of the wall times from DAY on."""

from __future__ import annotations

import calendar
import datetime as dt
import math
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import SparkRuntimeException

PROPERTY = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
STAMPS = st.datetimes(dt.datetime(1900, 1, 1), dt.datetime(2100, 12, 31))
MICROS = {"MICROSECOND": 1, "MILLISECOND": 1_000, "SECOND": 10**6, "MINUTE": 60 * 10**6, "HOUR": 3600 * 10**6}


def end_day(a: dt.datetime, b: dt.datetime) -> dt.date:
    """b's date, a day back when b is later but earlier in its day than a (ahead when earlier):
    java.time counts only days whose time of day is reached."""
    if b.date() > a.date() and b.time() < a.time():
        return b.date() - dt.timedelta(days=1)
    if b.date() < a.date() and b.time() > a.time():
        return b.date() + dt.timedelta(days=1)
    return b.date()


def whole_days(a: dt.datetime, b: dt.datetime) -> int:
    return (end_day(a, b) - a.date()).days


def whole_months(a: dt.datetime, b: dt.datetime) -> int:
    """Months from a to b: a month counts once b's day (as above) reaches a's day of month."""
    end = end_day(a, b)
    k = (end.year - a.year) * 12 + end.month - a.month
    if end >= a.date() and end.day < a.day:
        k -= 1
    elif end < a.date() and end.day > a.day:
        k += 1
    return k


def diff_model(unit: str, a: dt.datetime, b: dt.datetime) -> int:
    if unit in MICROS:
        return math.trunc(Fraction((b - a) // dt.timedelta(microseconds=1), MICROS[unit]))
    if unit in ("DAY", "WEEK"):
        return math.trunc(Fraction(whole_days(a, b), 1 if unit == "DAY" else 7))
    return math.trunc(Fraction(whole_months(a, b), {"MONTH": 1, "QUARTER": 3, "YEAR": 12}[unit]))


def add_model(unit: str, q: int, t: dt.datetime) -> dt.datetime:
    if unit in MICROS:
        return t + dt.timedelta(microseconds=q * MICROS[unit])
    if unit in ("DAY", "WEEK"):
        return t + dt.timedelta(days=q * (7 if unit == "WEEK" else 1))
    months = t.month - 1 + q * {"MONTH": 1, "QUARTER": 3, "YEAR": 12}[unit]
    year, month = t.year + months // 12, months % 12 + 1
    return t.replace(year=year, month=month, day=min(t.day, calendar.monthrange(year, month)[1]))


UNITS = ["MICROSECOND", "MILLISECOND", "SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "QUARTER", "YEAR"]


@given(rows=st.lists(st.tuples(STAMPS, STAMPS, st.integers(-40, 40)), min_size=1, max_size=6))
@PROPERTY
def test_diff_and_add_match_the_models_in_utc(spark: SparkSession, rows: list[tuple[Any, Any, int]]) -> None:
    df = spark.createDataFrame(rows, "a timestamp, b timestamp, q int")
    diffs = df.select(*[F.timestamp_diff(u, "a", "b") for u in UNITS]).collect()
    adds = df.select(*[F.timestamp_add(u, "q", "a") for u in UNITS]).collect()
    for (a, b, q), diff, add in zip(rows, diffs, adds):
        assert list(diff) == [diff_model(u, a, b) for u in UNITS], (a, b)
        assert list(add) == [add_model(u, q, a) for u in UNITS], (a, q)


def test_calendar_units_follow_the_wall_clock_of_the_session_zone(spark: SparkSession) -> None:
    spark.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
    try:
        row = spark.sql(
            "SELECT CAST(timestampadd(DAY, 1, timestamp'2024-03-09 12:00') AS STRING) AS day, "
            "CAST(timestampadd(HOUR, 24, timestamp'2024-03-09 12:00') AS STRING) AS hours, "
            "timestampdiff(DAY, timestamp'2024-03-09 12:00', timestamp'2024-03-10 12:00') AS days, "
            "timestampdiff(HOUR, timestamp'2024-03-09 12:00', timestamp'2024-03-10 12:00') AS hour_count, "
            "datediff(MONTH, timestamp'2024-01-31', timestamp'2024-02-29') AS months, "
            "CAST(dateadd(MONTH, 1, timestamp'2024-01-31 08:00') AS STRING) AS next_month").first()
    finally:
        spark.conf.set("spark.sql.session.timeZone", "UTC")
    # A day across the spring change is 23 hours of elapsed time: adding 24 hours lands an hour
    # later on the wall clock. timestampdiff measures between the local date-times, in every
    # unit, so the same day is 24 HOURs (PySpark 4.0.1's answers).
    # (Shown as strings: the session zone's wall clock; collect() would give the machine's.)
    assert tuple(row) == ("2024-03-10 12:00:00", "2024-03-10 13:00:00", 1, 24, 0, "2024-02-29 08:00:00")


def test_names_and_a_bad_unit(spark: SparkSession) -> None:
    df = spark.createDataFrame([(dt.datetime(2024, 1, 1), dt.datetime(2024, 1, 2))], "a timestamp, b timestamp")
    assert df.select(F.timestamp_diff("hour", "a", "b")).columns == ["timestampdiff(HOUR, a, b)"]
    with pytest.raises(SparkRuntimeException, match="DATETIME_UNIT"):
        df.select(F.timestamp_diff("FORTNIGHT", "a", "b")).collect()

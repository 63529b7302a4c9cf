"""``date_trunc`` and ``trunc`` against a plain-Python model, and constants folded in the session zone.

The model is Spark's rule: a timestamp is truncated as a wall time of the session time zone;
below a day the value keeps its own UTC offset, from a day up the truncated wall time is
placed in the zone again (the earlier instant when it occurs twice). ``collect()`` gives the
resulting instant as a naive wall time of the machine's zone, as PySpark does (UTC: the
suite pins TZ).
"""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name

UTC = dt.timezone.utc
ZONES = ["UTC", "America/New_York", "Asia/Kolkata"]
UNITS = ["year", "quarter", "month", "week", "day", "hour", "minute", "second"]


def truncate_wall(wall: dt.datetime, unit: str) -> dt.datetime:
    """``wall`` (naive) truncated to ``unit``, weeks from Monday."""
    if unit == "week":
        day = wall - dt.timedelta(days=wall.weekday())
        return day.replace(hour=0, minute=0, second=0, microsecond=0)
    if unit == "quarter":
        return wall.replace(month=(wall.month - 1) // 3 * 3 + 1, day=1, hour=0, minute=0, second=0, microsecond=0)
    fields = ["year", "month", "day", "hour", "minute", "second"]
    keep = fields.index(unit) + 1
    parts = [wall.year, wall.month, wall.day, wall.hour, wall.minute, wall.second][:keep]
    return dt.datetime(*(parts + [1] * (3 - len(parts)) if len(parts) < 3 else parts))


def machine_wall(wall: dt.datetime, zone: str) -> dt.datetime:
    """A wall time of ``zone`` as ``collect()`` gives it: the same instant's UTC wall time."""
    return wall.replace(tzinfo=ZoneInfo(zone)).astimezone(UTC).replace(tzinfo=None)


def model(instant: dt.datetime, unit: str, zone: str) -> dt.datetime:
    """What ``date_trunc(unit, t)`` collects with the session in ``zone`` (a UTC wall time)."""
    tz = ZoneInfo(zone)
    local = instant.astimezone(tz)
    wall = local.replace(tzinfo=None)
    if unit in ("hour", "minute", "second"):
        offset = local.utcoffset()
        assert offset is not None
        result = (truncate_wall(wall, unit) - offset).replace(tzinfo=UTC)
    else:
        result = truncate_wall(wall, unit).replace(tzinfo=tz)  # fold 0: the earlier of two
    return result.astimezone(UTC).replace(tzinfo=None)


#: Up to 2037: Arrow's zone rules stop at the tz database's last listed transition (daylight
#: saving is not extended past 2037), while Python's zoneinfo extends it as Java does.
INSTANTS = st.datetimes(min_value=dt.datetime(1971, 1, 1), max_value=dt.datetime(2037, 10, 1)).map(
    lambda d: d.replace(tzinfo=UTC))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(instants=st.lists(INSTANTS, min_size=1, max_size=10), zone=st.sampled_from(ZONES))
def test_date_trunc_is_the_model(spark: SparkSession, instants: list[dt.datetime], zone: str) -> None:
    spark.conf.set("spark.sql.session.timeZone", zone)
    df = spark.createDataFrame([(t,) for t in instants], "t timestamp")
    got = df.select(*[F.date_trunc(u, "t").alias(u) for u in UNITS]).collect()
    assert [tuple(r) for r in got] == [tuple(model(t, u, zone) for u in UNITS) for t in instants]


def test_the_repeated_hour_of_a_fall_back_night_keeps_its_offset(spark: SparkSession) -> None:
    spark.conf.set("spark.sql.session.timeZone", "America/New_York")
    second_one_thirty = dt.datetime(2024, 11, 3, 6, 30, tzinfo=UTC)  # 01:30 EST, after 01:30 EDT
    df = spark.createDataFrame([(second_one_thirty,)], "t timestamp")
    got = df.select(F.date_trunc("hour", "t").cast("long"), F.date_trunc("day", "t")).first()
    assert got[0] == int(dt.datetime(2024, 11, 3, 6, 0, tzinfo=UTC).timestamp())
    assert got[1] == dt.datetime(2024, 11, 3, 4)  # midnight EDT


def test_trunc_of_dates_and_unknown_units(spark: SparkSession) -> None:
    df = spark.createDataFrame([(dt.date(2024, 5, 17),)], "d date")
    row = df.select(F.trunc("d", "year"), F.trunc("d", "MM"), F.trunc("d", "quarter"), F.trunc("d", "week"),
                    F.trunc("d", "day"), F.date_trunc("fortnight", "d")).first()
    assert tuple(row) == (dt.date(2024, 1, 1), dt.date(2024, 5, 1), dt.date(2024, 4, 1), dt.date(2024, 5, 13),
                          None, None)


@pytest.mark.parametrize("zone", ZONES)
def test_constants_fold_in_the_session_time_zone(spark: SparkSession, zone: str) -> None:
    # A literal timestamp and the same text in a column are the same wall time of the session zone.
    spark.conf.set("spark.sql.session.timeZone", zone)
    text = "2024-01-01 10:15:00"
    folded = spark.sql(f"SELECT timestamp'{text}' AS a, to_timestamp('{text}') AS b, "
                       f"date_trunc('HOUR', timestamp'{text}') AS c, cast(timestamp'{text}' AS long) AS d").first()
    column = spark.createDataFrame([(text,)], "s string").select(F.to_timestamp("s").cast("long")).first()[0]
    assert tuple(folded)[:3] == (machine_wall(dt.datetime(2024, 1, 1, 10, 15), zone),
                                 machine_wall(dt.datetime(2024, 1, 1, 10, 15), zone),
                                 machine_wall(dt.datetime(2024, 1, 1, 10, 0), zone))
    assert folded.d == column == int(dt.datetime(2024, 1, 1, 10, 15, tzinfo=ZoneInfo(zone)).timestamp())

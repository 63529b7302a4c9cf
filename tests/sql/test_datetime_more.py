"""try_to_timestamp, convert_timezone and localtimestamp against plain-Python models."""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name

PROPERTY = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
ZONES = ["UTC", "America/Los_Angeles", "Europe/Brussels", "Asia/Kathmandu", "Australia/Lord_Howe"]
WALLS = st.datetimes(dt.datetime(1950, 1, 1), dt.datetime(2060, 1, 1)).map(lambda t: t.replace(microsecond=0))


@given(rows=st.lists(st.one_of(WALLS.map(lambda t: t.strftime("%Y-%m-%d %H:%M:%S")),
                               st.text("0123456789-: x", max_size=12)), min_size=1, max_size=10))
@PROPERTY
def test_try_to_timestamp_parses_or_gives_null(spark: SparkSession, rows: list[str]) -> None:
    def model(text: str) -> dt.datetime | None:
        try:
            parsed = dt.datetime.strptime(text, "%Y-%m-%d %H:%M:%S")
        except ValueError:
            return None
        return parsed if text == parsed.strftime("%Y-%m-%d %H:%M:%S") else None

    df = spark.createDataFrame([(r,) for r in rows], "s string")
    got = df.select(F.try_to_timestamp("s", F.lit("yyyy-MM-dd HH:mm:ss"))).collect()
    assert [r[0] for r in got] == [model(r) for r in rows]


@given(rows=st.lists(st.tuples(WALLS, st.sampled_from(ZONES), st.sampled_from(ZONES)), min_size=1, max_size=8))
@PROPERTY
def test_convert_timezone_moves_a_wall_time_between_zones(spark: SparkSession,
                                                          rows: list[tuple[Any, str, str]]) -> None:
    df = spark.createDataFrame(rows, "t timestamp_ntz, a string, b string")
    got = df.select(F.convert_timezone(F.col("a"), F.col("b"), "t"),
                    F.convert_timezone(None, F.col("b"), "t")).collect()

    def moved(wall: dt.datetime, zone: str, target: str) -> dt.datetime:
        return wall.replace(tzinfo=ZoneInfo(zone)).astimezone(ZoneInfo(target)).replace(tzinfo=None)

    for (wall, source, target), row in zip(rows, got):
        assert tuple(row) == (moved(wall, source, target), moved(wall, "UTC", target))  # the session's zone is UTC


def test_sparks_examples_and_localtimestamp(spark: SparkSession) -> None:
    row = spark.sql("SELECT convert_timezone('Europe/Brussels', 'America/Los_Angeles', "
                    "timestamp_ntz'2021-12-06 00:00:00') AS a, try_to_timestamp('2016-12-31', 'yyyy-MM-dd') AS b, "
                    "try_to_timestamp('foo', 'yyyy-MM-dd') AS c").first()
    assert tuple(row) == (dt.datetime(2021, 12, 5, 15), dt.datetime(2016, 12, 31), None)
    spark.conf.set("spark.sql.session.timeZone", "Asia/Kathmandu")
    try:
        now = spark.sql("SELECT localtimestamp() AS l, current_timestamp() AS c, typeof(localtimestamp()) AS t").first()
    finally:
        spark.conf.set("spark.sql.session.timeZone", "UTC")
    # localtimestamp is the session zone's wall time; current_timestamp collects as the machine's (UTC).
    assert now.t == "timestamp_ntz" and now.l - now.c == dt.timedelta(hours=5, minutes=45)
    with pytest.raises(Exception, match="CANNOT_PARSE_TIMESTAMP"):
        spark.sql("SELECT to_timestamp('foo', 'yyyy-MM-dd')").collect()

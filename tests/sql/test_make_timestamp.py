"""make_timestamp, make_timestamp_ltz, make_timestamp_ntz and try_make_timestamp: Spark's
documented examples, a model over random fields, and the out-of-range rules."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import DateTimeException

PROPERTY = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
ZONES = ["UTC", "America/Los_Angeles", "Europe/Paris", "Asia/Kolkata"]


def test_sparks_documented_examples(spark: SparkSession) -> None:
    row = spark.sql(
        "SELECT make_timestamp(2014, 12, 28, 6, 30, 45.887) AS a, make_timestamp(2014, 12, 28, 6, 30, 45.887, 'CET') "
        "AS b, make_timestamp(2019, 6, 30, 23, 59, 60) AS c, make_timestamp(null, 7, 22, 15, 30, 0) AS d, "
        "make_timestamp_ntz(2014, 12, 28, 6, 30, 45.887) AS e, try_make_timestamp(2019, 6, 30, 23, 59, 60.5) AS f, "
        "make_timestamp_ltz(2014, 12, 28, 6, 30, 45.887) AS g").first()
    assert tuple(row) == (dt.datetime(2014, 12, 28, 6, 30, 45, 887000), dt.datetime(2014, 12, 28, 5, 30, 45, 887000),
                          dt.datetime(2019, 7, 1), None, dt.datetime(2014, 12, 28, 6, 30, 45, 887000), None,
                          dt.datetime(2014, 12, 28, 6, 30, 45, 887000))
    types = spark.sql("SELECT typeof(make_timestamp(1, 1, 1, 0, 0, 0)) AS a, "
                      "typeof(make_timestamp_ntz(1, 1, 1, 0, 0, 0)) AS b").first()
    assert tuple(types) == ("timestamp", "timestamp_ntz")


FIELDS = st.tuples(st.integers(1, 9999), st.integers(1, 12), st.integers(1, 31), st.integers(0, 23),
                   st.integers(0, 59), st.integers(0, 59_999_999), st.sampled_from(ZONES))


@given(rows=st.lists(FIELDS, min_size=1, max_size=10))
@PROPERTY
def test_fields_in_a_zone_give_that_wall_times_instant(spark: SparkSession, rows: list[tuple[Any, ...]]) -> None:
    data = [(y, mo, d, h, mi, Decimal(us) / 1_000_000, z) for y, mo, d, h, mi, us, z in rows]
    df = spark.createDataFrame(data, "y int, mo int, d int, h int, mi int, s decimal(16,6), z string")
    got = df.select(F.try_make_timestamp("y", "mo", "d", "h", "mi", "s", "z"),
                    F.try_make_timestamp("y", "mo", "d", "h", "mi", "s")).collect()
    for (y, mo, d, h, mi, us, z), row in zip(rows, got):
        try:
            wall = dt.datetime(y, mo, d, h, mi) + dt.timedelta(microseconds=us)
        except ValueError:  # no such day: null without ANSI's error
            assert tuple(row) == (None, None)
            continue
        instant = wall.replace(tzinfo=ZoneInfo(z)).astimezone(dt.timezone.utc).replace(tzinfo=None)
        assert tuple(row) == (instant, wall)  # the session's zone is UTC


@pytest.mark.parametrize("fields", [(2024, 13, 1, 0, 0, 0), (2024, 4, 31, 0, 0, 0), (2024, 1, 1, 24, 0, 0),
                                    (2024, 1, 1, 0, 60, 0), (2024, 1, 1, 0, 0, 60.5), (2024, 1, 1, 0, 0, -1)])
def test_a_field_out_of_range_raises_under_ansi_and_try_gives_null(spark: SparkSession,
                                                                   fields: tuple[Any, ...]) -> None:
    df = spark.createDataFrame([(*fields[:5], float(fields[5]))], "y int, mo int, d int, h int, mi int, s double")
    args = ["y", "mo", "d", "h", "mi", "s"]
    assert df.select(F.try_make_timestamp(*args)).first()[0] is None
    with pytest.raises(DateTimeException, match="DATETIME_FIELD_OUT_OF_BOUNDS"):
        df.select(F.make_timestamp(*args)).collect()
    spark.conf.set("spark.sql.ansi.enabled", "false")
    try:
        assert df.select(F.make_timestamp_ntz(*args)).first()[0] is None
    finally:
        spark.conf.unset("spark.sql.ansi.enabled")


@given(fields=st.lists(st.tuples(st.integers(-400, 400), st.integers(-30, 30), st.integers(-70, 70),
                                 st.integers(-10**8, 10**8)), min_size=1, max_size=8))
@PROPERTY
def test_make_dt_interval_sums_its_fields(spark: SparkSession, fields: list[tuple[int, int, int, int]]) -> None:
    data = [(d, h, m, Decimal(us) / 1_000_000) for d, h, m, us in fields]
    df = spark.createDataFrame(data, "d int, h int, m int, s decimal(18,6)")
    got = df.select(F.make_dt_interval("d", "h", "m", "s")).collect()
    assert [r[0] for r in got] == [dt.timedelta(days=d, hours=h, minutes=m, microseconds=us) for d, h, m, us in fields]
    assert spark.range(1).select(F.make_dt_interval()).first()[0] == dt.timedelta(0)
    assert spark.sql("SELECT timestamp'2024-01-01 00:00' + make_dt_interval(0, 1) AS t").first().t == \
        dt.datetime(2024, 1, 1, 1)

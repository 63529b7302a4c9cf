"""Epoch and time-zone functions against plain-Python models (``datetime`` and ``zoneinfo``).

The models: ``timestamp_seconds/millis/micros`` add that many units to the epoch (a
fraction below a microsecond dropped toward zero); ``unix_seconds/millis/micros`` are the
floor of the difference; ``unix_date``/``date_from_unix_date`` count days;
``from_utc_timestamp(t, z)`` is the wall time zone ``z`` shows at instant ``t``, read as
UTC, and ``to_utc_timestamp`` its inverse away from daylight-saving transitions.
"""

from __future__ import annotations

import datetime
import math
import zoneinfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import PySparkValueError

EPOCH = datetime.datetime(1970, 1, 1)
ZONES = ["Asia/Seoul", "America/New_York", "Europe/London", "+05:30", "UTC"]


@pytest.fixture
def utc_session(spark: SparkSession):
    before = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    yield spark
    spark.conf.set("spark.sql.session.timeZone", before)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seconds=st.lists(st.one_of(st.none(), st.integers(-4_000_000_000, 4_000_000_000)), min_size=1, max_size=6),
       fractions=st.lists(st.floats(-1e9, 1e9, allow_nan=False), min_size=1, max_size=6))
def test_epoch_conversions_match_the_model(utc_session: SparkSession, seconds: list[int | None],
                                           fractions: list[float]) -> None:
    spark = utc_session
    df = spark.createDataFrame([(s,) for s in seconds], "s long")
    got = df.select(F.timestamp_seconds("s").alias("t"), F.timestamp_millis("s").alias("ms"),
                    F.timestamp_micros("s").alias("us")).collect()
    for s, row in zip(seconds, got):
        if s is None:
            assert tuple(row) == (None, None, None)
            continue
        assert row.t == EPOCH + datetime.timedelta(seconds=s)
        assert row.ms == EPOCH + datetime.timedelta(milliseconds=s)
        assert row.us == EPOCH + datetime.timedelta(microseconds=s)
    floats = spark.createDataFrame([(f,) for f in fractions], "f double")
    back = floats.select(F.timestamp_seconds("f").alias("t")).select(
        "t", F.unix_seconds("t").alias("s"), F.unix_millis("t").alias("ms"), F.unix_micros("t").alias("us")).collect()
    for f, row in zip(fractions, back):
        micros = int(f * 1_000_000)  # truncated toward zero, as Spark's conversion to a long
        assert row.t == EPOCH + datetime.timedelta(microseconds=micros)
        assert (row.s, row.ms, row.us) == (math.floor(micros / 1e6) if abs(micros) < 2**52 else micros // 10**6,
                                           micros // 1000, micros)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(instants=st.lists(st.datetimes(datetime.datetime(1990, 1, 1), datetime.datetime(2037, 1, 1)), min_size=1,
                         max_size=6), zone=st.sampled_from(ZONES))
def test_zone_shifts_match_the_model(utc_session: SparkSession, instants: list[datetime.datetime], zone: str) -> None:
    spark = utc_session
    tz = (datetime.timezone(datetime.timedelta(hours=5, minutes=30)) if zone == "+05:30"
          else zoneinfo.ZoneInfo(zone))
    df = spark.createDataFrame([(t, zone) for t in instants], "t timestamp, z string")
    got = df.select(F.from_utc_timestamp("t", F.col("z")).alias("f"), F.to_utc_timestamp("t", zone).alias("u"),
                    F.to_utc_timestamp(F.from_utc_timestamp("t", zone), zone).alias("round")).collect()
    for t, row in zip(instants, got):
        wall = t.replace(tzinfo=datetime.timezone.utc).astimezone(tz).replace(tzinfo=None)
        assert row.f == wall
        assert row.round == t
        offsets = {t.replace(tzinfo=tz, fold=fold).utcoffset() for fold in (0, 1)}
        if len(offsets) == 1:  # a wall time the zone shows once (not in a gap nor an overlap)
            assert row.u == t - offsets.pop()


def test_days_sql_and_names(utc_session: SparkSession) -> None:
    spark = utc_session
    [row] = spark.sql("SELECT unix_date(DATE'2000-01-01') AS d, date_from_unix_date(-1) AS back, "
                      "from_utc_timestamp(TIMESTAMP'2017-07-14 02:40:00', 'Asia/Seoul') AS seoul, "
                      "timestamp_seconds(CAST(1.25 AS DECIMAL(3,2))) AS exact").collect()
    assert row.asDict() == {"d": 10957, "back": datetime.date(1969, 12, 31),
                            "seoul": datetime.datetime(2017, 7, 14, 11, 40),
                            "exact": datetime.datetime(1970, 1, 1, 0, 0, 1, 250000)}
    df = spark.createDataFrame([(1,)], "s long")
    assert df.select(F.timestamp_seconds("s"), F.from_utc_timestamp(F.timestamp_seconds("s"), "UTC")).columns == [
        "timestamp_seconds(s)", "from_utc_timestamp(timestamp_seconds(s), UTC)"]


def test_bad_zones_and_types_are_named(utc_session: SparkSession) -> None:
    df = utc_session.createDataFrame([(1, "x")], "s long, w string")
    with pytest.raises(PySparkValueError, match="'Mars/Base' of the time zone is not a valid zone id"):
        df.select(F.from_utc_timestamp(F.timestamp_seconds("s"), "Mars/Base")).collect()
    with pytest.raises(Exception, match="numeric"):
        df.select(F.timestamp_seconds("w")).collect()

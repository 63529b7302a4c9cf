"""to_timestamp, date_format, unix_timestamp, from_unixtime, from_json, to_json through the DataFrame API."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

import pytest

from dstream.sql import SparkSession
from dstream.sql import functions as F
from dstream.sql.errors import DateTimeException


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local").getOrCreate()
    session.conf.set("spark.sql.session.timeZone", "UTC")
    yield session
    session.stop()


def test_parse_and_format_in_session_zone(spark: SparkSession) -> None:
    df = spark.createDataFrame([("2020-01-02 03:04:05", 0), (None, None)], ["t", "n"])
    query = df.select(F.date_format(F.to_timestamp(F.col("t"), "yyyy-MM-dd HH:mm:ss"), "dd/MM/yyyy HH:mm XXX")
                      .alias("f"), F.unix_timestamp("t").alias("u"), F.from_unixtime("n").alias("fu"),
                      F.to_date("t", "yyyy-MM-dd HH:mm:ss").alias("d"))
    try:
        assert [tuple(r) for r in query.collect()] == [
            ("02/01/2020 03:04 Z", 1577934245, "1970-01-01 00:00:00", dt.date(2020, 1, 2)), (None, None, None, None)]
        spark.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
        # The wall time is now Los Angeles time: the instant moves, its text in the same zone does not.
        assert [tuple(r) for r in query.collect()][0] == (
            "02/01/2020 03:04 -08:00", 1577934245 + 8 * 3600, "1969-12-31 16:00:00", dt.date(2020, 1, 2))
    finally:
        spark.conf.set("spark.sql.session.timeZone", "UTC")


def test_unparseable_timestamp_raises_under_ansi(spark: SparkSession) -> None:
    df = spark.createDataFrame([("nope",)], ["t"])
    expected = r"\[CANNOT_PARSE_TIMESTAMP\] Text 'nope' could not be parsed at index 0"
    with pytest.raises(DateTimeException, match=expected):
        df.select(F.to_timestamp(F.col("t"), "yyyy-MM-dd")).collect()
    spark.conf.set("spark.sql.ansi.enabled", "false")
    try:
        assert df.select(F.to_timestamp(F.col("t"), "yyyy-MM-dd").alias("x")).collect()[0].x is None
    finally:
        spark.conf.set("spark.sql.ansi.enabled", "true")


def test_from_json_and_to_json(spark: SparkSession) -> None:
    df = spark.createDataFrame([('{"a": 1, "b": "x"}', 7), ("{bad", None)], ["s", "n"])
    parsed = df.select(F.from_json(F.col("s"), "a INT, b STRING").alias("j"))
    assert [r.j.asDict() if r.j is not None else None for r in parsed.collect()] == [
        {"a": 1, "b": "x"}, {"a": None, "b": None}]
    texts = df.select(F.to_json(F.struct(F.col("n"), F.col("s"))).alias("t")).collect()
    assert [r.t for r in texts] == ['{"n":7,"s":"{\\"a\\": 1, \\"b\\": \\"x\\"}"}', '{"s":"{bad"}']


def test_to_json_timestamps_follow_session_zone(spark: SparkSession) -> None:
    df = spark.createDataFrame([("2026-01-01 00:00:00",)], ["t"])
    query = df.select(F.to_json(F.struct(F.to_timestamp("t").alias("ts"))).alias("j"))
    assert query.collect()[0].j == '{"ts":"2026-01-01T00:00:00.000Z"}'
    spark.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
    try:
        assert query.collect()[0].j == '{"ts":"2026-01-01T00:00:00.000-08:00"}'
    finally:
        spark.conf.set("spark.sql.session.timeZone", "UTC")

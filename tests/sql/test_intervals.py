"""Day-time intervals: ``INTERVAL`` literals, ``DayTimeIntervalType`` columns and datetime arithmetic.

The literal forms and the display strings are Spark's (``INTERVAL '01:30' HOUR TO MINUTE``);
the arithmetic is checked against Python's own ``datetime`` arithmetic, which moves a
naive datetime by exactly a ``timedelta``'s microseconds as Spark moves a timestamp.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import AnalysisException, ArithmeticException, ParseException
from dstream.sql.formatting import format_day_time_interval
from dstream.sql.kernels.interval_text import parse_interval_text
from dstream.sql.types import DataType, DateType, DayTimeIntervalType, StructType, TimestampType

HOUR = dt.timedelta(hours=1)


@pytest.mark.parametrize(("text", "value", "name"), [
    ("INTERVAL 1 HOUR", HOUR, "INTERVAL '01' HOUR"),
    ("interval 1 hour 30 minutes", dt.timedelta(minutes=90), "INTERVAL '01:30' HOUR TO MINUTE"),
    ("interval 2 days 3 seconds", dt.timedelta(days=2, seconds=3), "INTERVAL '2 00:00:03' DAY TO SECOND"),
    ("interval '10' minute", dt.timedelta(minutes=10), "INTERVAL '10' MINUTE"),
    ("interval -5 seconds", dt.timedelta(seconds=-5), "INTERVAL '-05' SECOND"),
    ("interval 1.5 seconds", dt.timedelta(seconds=1.5), "INTERVAL '01.5' SECOND"),
    ("interval 2 weeks 250 milliseconds", dt.timedelta(days=14, milliseconds=250),
     "INTERVAL '14 00:00:00.25' DAY TO SECOND"),
    ("INTERVAL '1 02:03:04.5' DAY TO SECOND", dt.timedelta(days=1, hours=2, minutes=3, seconds=4.5),
     "INTERVAL '1 02:03:04.5' DAY TO SECOND"),
    ("interval '-02:30' hour to minute", -dt.timedelta(hours=2, minutes=30), "INTERVAL '-02:30' HOUR TO MINUTE"),
    ("interval '26:00' hour to minute", dt.timedelta(hours=26), "INTERVAL '26:00' HOUR TO MINUTE"),
    ("interval '1 day 2 hours'", dt.timedelta(days=1, hours=2), "INTERVAL '1 02' DAY TO HOUR"),
])
def test_interval_literals_have_sparks_values_and_names(spark: SparkSession, text: str, value: dt.timedelta,
                                                        name: str) -> None:
    df = spark.range(1).select(F.expr(text))
    assert df.columns == [name]
    assert df.collect()[0][0] == value
    assert isinstance(df.schema.fields[0].dataType, DayTimeIntervalType)


@pytest.mark.parametrize(("text", "says"), [
    ("interval 1 year 2 days", "Cannot mix year-month and day-time fields"),
    ("interval 1.5 hours", "hours cannot have a fractional part"),
    ("interval 0.0000001 seconds", "finer than a microsecond"),
    ("interval 5", "INTERVAL needs a value and a unit"),
    ("interval '1 25:00' day to minute", "hour 25 is out of range [0, 23]"),
    ("interval '1:2:3' day to second", "does not match the form of INTERVAL DAY TO SECOND"),
])
def test_bad_interval_literals_say_what_is_wrong(spark: SparkSession, text: str, says: str) -> None:
    with pytest.raises(ParseException, match=None) as caught:
        spark.range(1).select(F.expr(text)).collect()
    assert says in str(caught.value)


def test_timedelta_values_are_day_time_intervals_as_in_pyspark(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, dt.timedelta(hours=1, seconds=3)), (2, None)], ["a", "d"])
    assert df.schema["d"].dataType == DayTimeIntervalType(0, 3)
    assert df.collect()[0]["d"] == dt.timedelta(seconds=3603)
    assert df.select(F.lit(dt.timedelta(minutes=-90)).alias("m")).first()["m"] == dt.timedelta(minutes=-90)
    shown = df._show_string(5, 0)
    assert "|1  |INTERVAL '0 01:00:03' DAY TO SECOND|" in shown and "|2  |NULL" in shown
    assert DayTimeIntervalType().simpleString() == "interval day to second"
    assert DayTimeIntervalType(1, 1).simpleString() == "interval hour"
    assert DataType.fromJson("interval minute to second") == DayTimeIntervalType(2, 3)
    schema = StructType.fromDDL("a interval day to second, b interval hour")
    assert [f.dataType for f in schema.fields] == [DayTimeIntervalType(), DayTimeIntervalType(1, 1)]


def test_casts_of_intervals(spark: SparkSession) -> None:
    df = spark.createDataFrame([(dt.timedelta(minutes=-90, seconds=-30),), (dt.timedelta(days=1, seconds=59),)],
                               ["d"])
    rows = df.select(F.col("d").cast("interval hour").alias("h"), F.col("d").cast("string").alias("s")).collect()
    # Narrowing drops the units below the end field, toward zero.
    assert [r["h"] for r in rows] == [dt.timedelta(hours=-1), dt.timedelta(hours=24)]
    assert [r["s"] for r in rows] == ["INTERVAL '-0 01:30:30' DAY TO SECOND", "INTERVAL '1 00:00:59' DAY TO SECOND"]


@pytest.mark.parametrize(("micros", "start", "end", "text"), [
    (0, 0, 3, "INTERVAL '0 00:00:00' DAY TO SECOND"),
    (90_061_000_001, 0, 3, "INTERVAL '1 01:01:01.000001' DAY TO SECOND"),
    (-3_600_000_000, 1, 1, "INTERVAL '-01' HOUR"),
    (100 * 3_600_000_000, 1, 3, "INTERVAL '100:00:00' HOUR TO SECOND"),
    (75 * 60_000_000, 2, 2, "INTERVAL '75' MINUTE"),
    (12_500_000, 3, 3, "INTERVAL '12.5' SECOND"),
    (2 * 86_400_000_000, 0, 0, "INTERVAL '2' DAY"),
])
def test_interval_strings_are_sparks(micros: int, start: int, end: int, text: str) -> None:
    assert format_day_time_interval(micros, start, end) == text


TIMES = st.datetimes(min_value=dt.datetime(1900, 1, 1), max_value=dt.datetime(2200, 1, 1))
SPANS = st.timedeltas(min_value=dt.timedelta(days=-20_000), max_value=dt.timedelta(days=20_000))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.tuples(TIMES, TIMES, SPANS, SPANS), min_size=1, max_size=12))
def test_timestamp_arithmetic_equals_pythons(spark: SparkSession, rows: list[tuple[dt.datetime, dt.datetime,
                                                                                      dt.timedelta, dt.timedelta]]
                                             ) -> None:
    df = spark.createDataFrame(rows, "t timestamp, u timestamp, i interval day to second, j interval day to second")
    got = df.selectExpr("t + i", "i + t", "t - i", "t - u", "i + j", "i - j", "-i", "t + interval 1 hour").collect()
    want = [(t + i, i + t, t - i, t - u, i + j, i - j, -i, t + HOUR) for t, u, i, j in rows]
    assert [tuple(r) for r in got] == want


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(dates=st.lists(st.dates(min_value=dt.date(1900, 1, 1), max_value=dt.date(2200, 1, 1)), min_size=1, max_size=8),
       days=st.integers(-10_000, 10_000))
def test_date_arithmetic_equals_pythons(spark: SparkSession, dates: list[dt.date], days: int) -> None:
    df = spark.createDataFrame([(d,) for d in dates], "d date")
    out = df.selectExpr(f"d + interval {days} days AS plus", f"d - interval {days} days AS minus",
                        "d + interval 36 hours AS later", "d - date'2000-01-01' AS since")
    types = [f.dataType for f in out.schema.fields]
    assert types == [DateType(), DateType(), TimestampType(), DayTimeIntervalType(0, 0)]
    want = [(d + dt.timedelta(days=days), d - dt.timedelta(days=days),
             dt.datetime.combine(d, dt.time()) + dt.timedelta(hours=36), d - dt.date(2000, 1, 1)) for d in dates]
    assert [tuple(r) for r in out.collect()] == want


def test_wrong_operands_and_overflow_are_clear_errors(spark: SparkSession) -> None:
    df = spark.createDataFrame([(dt.datetime(2024, 1, 1),)], "t timestamp")
    for text in ("interval 1 hour - t", "1 + interval 1 hour", "t * interval 1 hour"):
        with pytest.raises(AnalysisException, match="DATATYPE_MISMATCH"):
            df.selectExpr(text).collect()
    with pytest.raises(ArithmeticException, match="ARITHMETIC_OVERFLOW"):
        df.selectExpr("t + interval 106751990 days").collect()


def test_intervals_compare_group_and_aggregate(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, dt.timedelta(hours=1)), (2, dt.timedelta(hours=1)), (3, dt.timedelta(minutes=5)),
                                (4, None)], "a long, d interval day to second")
    # INTERVAL '10' MINUTE meets a DAY TO SECOND column at the span of both.
    assert [r.a for r in df.where(F.col("d") > F.expr("interval 10 minutes")).orderBy("a").collect()] == [1, 2]
    assert df.groupBy("d").count().orderBy("d").collect() == [
        (None, 1), (dt.timedelta(minutes=5), 1), (dt.timedelta(hours=1), 2)]
    row = df.agg(F.min("d"), F.max("d"), F.collect_list("d"), F.count_distinct("d")).first()
    assert tuple(row) == (dt.timedelta(minutes=5), HOUR, [HOUR, HOUR, dt.timedelta(minutes=5)], 2)
    by_parity = df.groupBy((F.col("a") % 2).alias("g")).agg(F.max("d").alias("m")).orderBy("g").collect()
    assert [r.m for r in by_parity] == [HOUR, HOUR]


@pytest.mark.parametrize("fmt", ["parquet", "json", "csv"])
def test_interval_columns_round_trip_through_files(spark: SparkSession, tmp_path: Path, fmt: str) -> None:
    rows = [(1, dt.timedelta(hours=1)), (2, dt.timedelta(days=-1, microseconds=5)), (3, None)]
    df = spark.createDataFrame(rows, "a long, d interval day to second")
    getattr(df.write, fmt)(str(tmp_path / "out"))
    back = getattr(spark.read.schema(df.schema), fmt)(str(tmp_path / "out")).orderBy("a").collect()
    assert [tuple(r) for r in back] == rows
    if fmt == "json":
        text = "".join(p.read_text() for p in sorted((tmp_path / "out").glob("part-*")))
        assert "\"d\":\"INTERVAL '-0 23:59:59.999995' DAY TO SECOND\"" in text  # Spark's form, not a number


def test_interval_text_in_csv_reads_as_spark_writes_it(spark: SparkSession, tmp_path: Path) -> None:
    path = tmp_path / "in.csv"
    path.write_text("INTERVAL '05' HOUR\n1 02:00:00\nnot an interval\nINTERVAL '1 02:00:00' DAY TO SECOND\n")
    # PySpark 4.0.1's rows: a text is read as the schema's own fields, anything else is null.
    got = [r.d for r in spark.read.schema("d interval day to second").csv(str(path)).collect()]
    assert got == [None, dt.timedelta(days=1, hours=2), None, dt.timedelta(days=1, hours=2)]
    got = [r.d for r in spark.read.schema("d interval hour").csv(str(path)).collect()]
    assert got == [dt.timedelta(hours=5), None, None, None]


UNIT_MICROS = (86_400_000_000, 3_600_000_000, 60_000_000, 1)


@given(value=st.integers(-(2**63) + 1, 2**63 - 1), fields=st.tuples(st.integers(0, 3), st.integers(0, 3)))
def test_the_written_form_reads_back(value: int, fields: tuple[int, int]) -> None:
    start, end = min(fields), max(fields)
    unit = UNIT_MICROS[end]
    micros = abs(value) // unit * unit * (1 if value >= 0 else -1)  # whole units of the end field, toward zero
    text = format_day_time_interval(micros, start, end)
    assert parse_interval_text(text) == micros, text

"""Naive Python datetimes against PySpark 4.0.1 when the session zone is not the machine's.

PySpark converts between Python datetimes and Spark's instants with Python's local time
(the machine's zone), both ways: ``createDataFrame`` rows, ``collect()``, ``.rdd``, Python
UDFs. The session zone governs SQL: casts, ``hour()``, ``show()``, ``toPandas()``, and
typed literals. Each expected value below is what PySpark printed for the same program
run with ``TZ=Asia/Tokyo`` and ``spark.sql.session.timeZone=America/Los_Angeles``.
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Iterator

import pandas as pd
import pytest

from rdd import SparkContext

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom
from dstream.sql.types import IntegerType, TimestampType

NOON = datetime.datetime(2024, 1, 1, 12, 0)


@pytest.fixture
def spark(sc: SparkContext, monkeypatch: pytest.MonkeyPatch) -> Iterator[SparkSession]:
    # The machine's zone comes from TZ (tzset makes Python's own local time follow it); the
    # context is `local`, so its tasks run in this process and see it too.
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    session = SparkSession(sc, [("spark.sql.session.timeZone", "America/Los_Angeles")])
    try:
        yield session
    finally:
        session.stop()
        monkeypatch.undo()
        time.tzset()


def test_created_rows_are_machine_wall_times_shown_in_the_session_zone(spark: SparkSession) -> None:
    df = spark.createDataFrame([(NOON, NOON.date())], ["t", "d"])
    # 12:00 in Tokyo is 19:00 the day before in Los Angeles.
    assert df.selectExpr("CAST(t AS STRING)", "hour(t)", "CAST(d AS STRING)").collect()[0] == \
        ("2023-12-31 19:00:00", 19, "2024-01-01")
    assert df.collect()[0].t == NOON
    assert df._show_string().splitlines()[3] == "|2023-12-31 19:00:00|2024-01-01|"
    assert str(df.toPandas().t[0]) == "2023-12-31 19:00:00"
    assert df.rdd.map(lambda r: r.t.hour).collect() == [12]


def test_literals_and_sql_timestamps_collect_as_machine_wall_times(spark: SparkSession) -> None:
    lit = spark.range(1).select(F.lit(NOON).alias("l"))
    assert lit.selectExpr("CAST(l AS STRING)").collect()[0][0] == "2023-12-31 19:00:00"
    assert lit.collect()[0].l == NOON
    row = spark.sql("SELECT TIMESTAMP '2024-01-01 12:00:00' AS s, TIMESTAMP_NTZ '2024-01-01 12:00:00' AS n").first()
    # The literal is 12:00 in Los Angeles, 05:00 the next day in Tokyo; NTZ values never move.
    assert (row.s, row.n) == (datetime.datetime(2024, 1, 2, 5, 0), NOON)


def test_python_udfs_see_and_return_machine_wall_times(spark: SparkSession) -> None:
    df = spark.createDataFrame([(NOON,)], ["t"])
    hour = F.udf(lambda t: t.hour, IntegerType())
    assert df.select(hour("t")).collect()[0][0] == 12
    noon = F.udf(lambda t: NOON, TimestampType())
    assert df.select(noon("t").alias("u")).selectExpr("CAST(u AS STRING)").collect()[0][0] == "2023-12-31 19:00:00"


def test_pandas_frames_follow_pyspark_per_path(spark: SparkSession) -> None:
    frame = pd.DataFrame({"t": [pd.Timestamp("2024-01-01 12:00")]})
    # Without Arrow and without types, PySpark goes through Python datetimes: the machine's zone.
    assert spark.createDataFrame(frame).selectExpr("CAST(t AS STRING)").collect()[0][0] == "2023-12-31 19:00:00"
    # With the types given, or with Arrow, the naive values are the session zone's wall times.
    assert spark.createDataFrame(frame, "t timestamp").selectExpr("CAST(t AS STRING)").collect()[0][0] == \
        "2024-01-01 12:00:00"
    spark.conf.set("spark.sql.execution.arrow.pyspark.enabled", "true")
    arrow = spark.createDataFrame(frame)
    assert arrow.selectExpr("CAST(t AS STRING)").collect()[0][0] == "2024-01-01 12:00:00"
    assert arrow.collect()[0].t == datetime.datetime(2024, 1, 2, 5, 0)
    assert str(spark.createDataFrame([(NOON,)], ["t"]).toPandas().t[0]) == "2023-12-31 19:00:00"

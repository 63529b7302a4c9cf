"""``spark.read.orc`` / ``df.write.orc``: missing until compared with PySpark 4.0.1.

PySpark 4.0.1 wrote the rows below (``partitionBy("p")``) as ``p=3/part-00000-<uuid>.c000.zstd.orc``
files whose ``ts`` column is an ORC timestamp holding the UTC wall time (pyarrow reads it as
``timestamp[ns]``), and read them back as the same rows; it also read the files dstreams
writes (with ``zstd`` and with ``snappy``) as these rows, in UTC and in America/Los_Angeles.
"""

from __future__ import annotations

import datetime
import decimal
import os
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.orc as orc
import pytest

from dstream.sql import Row, SparkSession

_SCHEMA = ("i long, s string, d double, dt date, ts timestamp, dec decimal(10,2), arr array<int>, "
           "m map<string,int>, st struct<x:int,y:string>, b boolean, bin binary, p int")
_ROWS = [(1, "a", 1.5, datetime.date(2024, 1, 2), datetime.datetime(2024, 1, 2, 3, 4, 5, 123456),
          decimal.Decimal("12.34"), [1, 2], {"k": 1}, (7, "s"), True, b"xy", 3),
         (2, None, None, None, None, None, None, None, None, None, None, 4)]
#: What PySpark 4.0.1 printed for spark.read.orc of those files.
_SHOWN_SCHEMA = ("struct<i:bigint,s:string,d:double,dt:date,ts:timestamp,dec:decimal(10,2),arr:array<int>,"
                 "m:map<string,int>,st:struct<x:int,y:string>,b:boolean,bin:binary,p:int>")
_READ = [Row(i=1, s="a", d=1.5, dt=datetime.date(2024, 1, 2), ts=datetime.datetime(2024, 1, 2, 3, 4, 5, 123456),
             dec=decimal.Decimal("12.34"), arr=[1, 2], m={"k": 1}, st=Row(x=7, y="s"), b=True, bin=bytearray(b"xy"),
             p=3),
         Row(i=2, s=None, d=None, dt=None, ts=None, dec=None, arr=None, m=None, st=None, b=None, bin=None, p=4)]


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = (SparkSession.builder.master("local[1]").appName("parity-orc")
               .config("spark.sql.session.timeZone", "UTC").getOrCreate())
    yield session
    session.stop()


def test_orc_round_trip_partitioned(spark: SparkSession, tmp_path: Path) -> None:
    # Was: AttributeError (no DataFrameWriter.orc / DataFrameReader.orc), DATA_SOURCE_NOT_FOUND for format("orc").
    out = str(tmp_path / "o")
    spark.createDataFrame(_ROWS, _SCHEMA).write.partitionBy("p").orc(out)
    names = os.listdir(os.path.join(out, "p=3"))
    assert len(names) == 1 and names[0].startswith("part-00000-") and names[0].endswith(".zstd.orc")
    back = spark.read.orc(out)
    assert back.schema.simpleString() == _SHOWN_SCHEMA
    assert sorted(back.collect(), key=lambda r: r.i) == _READ
    assert spark.read.format("orc").load(out).where("p = 3").select("s", "p").collect() == [Row(s="a", p=3)]


def test_orc_writes_timestamps_as_utc_wall_time_and_the_codec_asked(spark: SparkSession, tmp_path: Path) -> None:
    out = str(tmp_path / "o")
    spark.createDataFrame(_ROWS[:1], _SCHEMA).write.orc(out, compression="snappy")
    (name,) = [n for n in os.listdir(out) if n.endswith(".orc")]
    assert name.endswith(".snappy.orc")
    handle = orc.ORCFile(os.path.join(out, name))
    assert handle.compression == "SNAPPY"
    assert handle.read(columns=["ts"]).column(0).cast(pa.timestamp("us")).to_pylist() == [
        datetime.datetime(2024, 1, 2, 3, 4, 5, 123456)]


def test_orc_reads_spark_files_ts_as_instants(spark: SparkSession, tmp_path: Path) -> None:
    # A file as Spark writes it (UTC wall time in an ORC timestamp), read in another session time zone.
    path = tmp_path / "spark.orc"
    orc.write_table(pa.table({"ts": pa.array([datetime.datetime(2024, 7, 2, 3, 4, 5)], pa.timestamp("ns"))}), path)
    spark.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
    try:
        got = spark.read.orc(str(path)).selectExpr("cast(ts as string) s", "unix_timestamp(ts) u").collect()
    finally:
        spark.conf.set("spark.sql.session.timeZone", "UTC")
    assert got == [Row(s="2024-07-01 20:04:05", u=1719889445)]

"""DataFrame conversions and plumbing through the public API: Arrow and pandas in and out,
``rdd``, ``toLocalIterator``, RDD input, caching, writing and reading back, ``explain``."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

from dstream.sql import AnalysisException, Row, SparkSession
from dstream.sql import functions as F


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local").appName("test-dataframe-api").getOrCreate()
    session.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
    yield session
    session.stop()


ROWS = [Row(k="a", v=1, t=dt.datetime(2026, 3, 8, 1, 30)), Row(k=None, v=None, t=None),
        Row(k="b", v=3, t=dt.datetime(2026, 3, 8, 3, 30))]


def test_arrow_round_trip_keeps_values_and_types(spark: SparkSession) -> None:
    df = spark.createDataFrame(ROWS)
    table = df.toArrow()
    assert table.schema.names == ["k", "v", "t"]
    assert table.schema.field("v").type == pa.int64()
    assert pa.types.is_timestamp(table.schema.field("t").type)
    again = spark.createDataFrame(table)
    assert again.collect() == df.collect()
    assert again.schema == df.schema


def test_pandas_round_trip_gives_session_wall_times(spark: SparkSession) -> None:
    # As PySpark 4.0.1 (the machine in UTC, the session in Los Angeles): the rows' naive times
    # are the machine's wall times; toPandas gives the session's.
    df = spark.createDataFrame(ROWS)
    frame = df.toPandas()
    assert list(frame.columns) == ["k", "v", "t"]
    assert frame["t"][0] == pd.Timestamp("2026-03-07 17:30:00")
    assert frame["t"][2] == pd.Timestamp("2026-03-07 19:30:00")
    back = spark.createDataFrame(pd.DataFrame({"x": [1, 2], "y": ["p", "q"]}))
    assert back.dtypes == [("x", "bigint"), ("y", "string")]
    assert [tuple(r) for r in back.collect()] == [(1, "p"), (2, "q")]
    # Without Arrow and without a schema, PySpark reads a frame's naive times as the machine's
    # wall times, not the session's: the round trip moves them by the zones' difference.
    again = spark.createDataFrame(frame)  # (v is a double now: pandas made the nullable longs floats)
    assert again.schema["t"] == df.schema["t"]
    assert [r.t for r in again.collect()] == [dt.datetime(2026, 3, 7, 17, 30), None, dt.datetime(2026, 3, 7, 19, 30)]
    assert again.selectExpr("cast(t as long) AS s").first().s == 1772904600  # 2026-03-07T17:30:00Z
    ntz = spark.createDataFrame(frame, "k string, v double, t timestamp_ntz")
    assert ntz.first().t == dt.datetime(2026, 3, 7, 17, 30)


def test_rdd_and_local_iterator_yield_rows(spark: SparkSession) -> None:
    df = spark.range(0, 10, 1, 3).withColumn("sq", F.col("id") * F.col("id"))
    assert df.rdd.getNumPartitions() == 3
    assert sorted(df.rdd.map(lambda r: r.sq).collect()) == [i * i for i in range(10)]
    assert [r.id for r in df.toLocalIterator()] == list(range(10))


def test_create_from_an_rdd_infers_and_converts_once_per_partition(spark: SparkSession) -> None:
    rdd = spark.sparkContext.parallelize([("a", 1), ("b", 2), ("a", 3)], 2)
    df = spark.createDataFrame(rdd, ["k", "v"])
    assert df.dtypes == [("k", "string"), ("v", "bigint")]
    got = {r.k: r.total for r in df.groupBy("k").agg(F.sum("v").alias("total")).collect()}
    assert got == {"a": 4, "b": 2}


def test_rdd_to_df_is_create_data_frame(spark: SparkSession) -> None:
    """PySpark gives ``RDD`` a ``toDF`` once a session exists; the same here."""
    rdd = spark.sparkContext.parallelize([("a", 1), ("b", 2)], 2)
    assert rdd.toDF().columns == ["_1", "_2"]
    assert rdd.toDF(["k", "v"]).collect() == spark.createDataFrame(rdd, ["k", "v"]).collect()
    assert rdd.toDF("k string, v int").dtypes == [("k", "string"), ("v", "int")]
    assert spark.sparkContext.parallelize([Row(n=1)]).toDF().collect() == [Row(n=1)]


def test_cache_reuses_the_computed_partitions(spark: SparkSession) -> None:
    calls = spark.sparkContext.accumulator(0)

    def counted(x: int) -> int:
        calls.add(1)
        return x

    rdd = spark.sparkContext.parallelize(range(20), 2).map(lambda x: (counted(x),))
    df = spark.createDataFrame(rdd, "n long").cache()
    assert df.is_cached
    assert df.count() == 20
    seen = calls.value
    assert df.where(F.col("n") > 9).count() == 10
    assert calls.value == seen, "a cached DataFrame was computed again"
    df.unpersist()
    assert not df.is_cached


def test_write_then_read_back_every_format(spark: SparkSession, tmp_path: Path) -> None:
    df = spark.createDataFrame([(1, "x", 1.5), (2, None, None), (3, "z", -0.25)], "id int, s string, d double")
    for fmt in ("parquet", "json", "csv"):
        path = str(tmp_path / fmt)
        writer = df.write.mode("overwrite")
        if fmt == "csv":
            writer.option("header", True).csv(path)
            back = spark.read.csv(path, header=True, schema="id int, s string, d double")
        else:
            writer.format(fmt).save(path)
            back = spark.read.format(fmt).schema("id int, s string, d double").load(path)
        assert (tmp_path / fmt / "_SUCCESS").exists()
        assert sorted(tuple(r) for r in back.collect()) == [(1, "x", 1.5), (2, None, None), (3, "z", -0.25)]
    with pytest.raises(AnalysisException) as info:
        df.write.parquet(str(tmp_path / "parquet"))
    assert info.value.getCondition() == "PATH_ALREADY_EXISTS"


def test_partitioned_write_is_read_back_with_the_partition_column(spark: SparkSession, tmp_path: Path) -> None:
    df = spark.createDataFrame([(1, "a"), (2, "b"), (3, "a")], "v int, part string")
    df.write.partitionBy("part").parquet(str(tmp_path / "out"))
    assert sorted(p.name for p in (tmp_path / "out").iterdir() if p.is_dir()) == ["part=a", "part=b"]
    back = spark.read.parquet(str(tmp_path / "out"))
    assert sorted((r.v, r.part) for r in back.collect()) == [(1, "a"), (2, "b"), (3, "a")]


def test_explain_shows_pushdown_and_the_physical_plan(spark: SparkSession, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    spark.range(100).write.parquet(str(tmp_path / "ids"))
    df = spark.read.parquet(str(tmp_path / "ids")).where(F.col("id") > 90).select((F.col("id") + 1).alias("n"))
    df.explain()  # PySpark's default: the physical plan only
    out = capsys.readouterr().out
    assert out.startswith("== Physical Plan ==\n") and "Logical Plan" not in out
    assert "PushedFilters" in out and "FileScan parquet" in out
    df.explain(True)
    out = capsys.readouterr().out
    assert [line for line in out.splitlines() if line.startswith("==")] == [
        "== Parsed Logical Plan ==", "== Analyzed Logical Plan ==", "== Optimized Logical Plan ==",
        "== Physical Plan =="]
    assert sorted(r.n for r in df.collect()) == list(range(92, 101))

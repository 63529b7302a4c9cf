"""DataFrame.observe: named aggregate metrics of the rows an action runs through, read from an
Observation (batch) or a streaming query's progress, against plain-Python aggregates."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import AnalysisException, Observation, Row, SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import PySparkTypeError, PySparkValueError
from dstream.sql.streaming import MemoryStream

PROPERTY = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
DEADLINE = 30.0


@given(values=st.lists(st.one_of(st.none(), st.integers(-100, 100)), max_size=20), parts=st.integers(1, 4))
@PROPERTY
def test_observation_matches_plain_aggregates(spark: SparkSession, values: list[Any], parts: int) -> None:
    observation = Observation()
    df = spark.createDataFrame([(v,) for v in values], "v long").repartition(parts).observe(
        observation, F.count(F.lit(1)).alias("rows"), F.count("v").alias("present"), F.max("v").alias("top"),
        (F.sum("v") * 2).alias("twice"))
    kept = df.filter("v > 0").collect()  # the metrics are of the rows observe sees, before the filter
    present = [v for v in values if v is not None]
    assert sorted(r.v for r in kept) == sorted(v for v in present if v > 0)
    assert observation.get == {"rows": len(values), "present": len(present), "top": max(present, default=None),
                               "twice": sum(present) * 2 if present else None}


def test_first_action_counts_and_misuse_is_named(spark: SparkSession, tmp_path: Path) -> None:
    observation = Observation("first")
    df = spark.createDataFrame([(1,), (2,)], "v long").observe(observation, F.sum("v").alias("s"))
    with pytest.raises(PySparkValueError, match="has no metrics yet"):
        _ = observation.get
    assert df.limit(5).count() == 2
    assert observation.get == {"s": 3}
    assert df.union(df).count() == 4
    assert observation.get == {"s": 3}
    # A later action that sees other values does not change them (Spark's Observation): a
    # counter in a file gives each action's row its own value.
    counter = tmp_path / "calls"
    counter.write_text("0")

    def bump(_: Any) -> int:
        n = int(counter.read_text()) + 1
        counter.write_text(str(n))
        return n

    tick = F.udf(bump, "long")
    ticks = Observation("ticks")
    ticked = spark.range(1).select(tick("id").alias("t")).observe(ticks, F.max("t").alias("t"))
    assert [r.t for r in ticked.collect()] == [1]
    assert [r.t for r in ticked.collect()] == [2]
    assert ticks.get == {"t": 1}
    with pytest.raises(PySparkValueError, match="already observes"):
        df.observe(observation, F.count(F.lit(1)).alias("n"))
    with pytest.raises(AnalysisException, match="MISSING_NAME"):
        df.observe("x", F.count(F.lit(1)))
    with pytest.raises(AnalysisException, match="NON_AGGREGATE"):
        df.observe("x", F.col("v").alias("v2"))
    with pytest.raises(PySparkTypeError, match="Observation or a non-empty str"):
        df.observe(42, F.count(F.lit(1)).alias("n"))  # type: ignore[arg-type]


def test_streaming_progress_reports_each_batchs_metrics(spark: SparkSession) -> None:
    stream = MemoryStream("v long", spark)
    query = (stream.toDF().observe("quality", F.count(F.lit(1)).alias("rows"), F.sum("v").alias("total"))
             .writeStream.format("memory").queryName("observed").start())
    try:
        stream.addData([1, 2, 3])
        query.processAllAvailable(DEADLINE)
        assert query.lastProgress["observedMetrics"] == {"quality": Row(rows=3, total=6)}  # Rows, as PySpark
        stream.addData([10])
        query.processAllAvailable(DEADLINE)
        assert query.lastProgress["observedMetrics"] == {"quality": Row(rows=1, total=10)}
        assert sorted(r.v for r in spark.table("observed").collect()) == [1, 2, 3, 10]
    finally:
        query.stop()

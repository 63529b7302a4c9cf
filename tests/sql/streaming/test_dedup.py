"""Streaming deduplication: dropDuplicates/distinct and dropDuplicatesWithinWatermark over MemoryStreams."""

from __future__ import annotations

import datetime as dt
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F
from dstream.sql.errors import AnalysisException, PySparkTypeError
from dstream.sql.streaming import MemoryStream

from .helpers import DEADLINE, EPOCH, collecting, operator, run, ts


def secs(value: dt.datetime) -> int:
    return int((value - EPOCH).total_seconds())








def data_progress(query: Any) -> list[dict[str, Any]]:
    return [p for p in query.recentProgress if p["numInputRows"]]


def test_drop_duplicates_keeps_the_first_row_of_each_key_across_batches(spark: SparkSession) -> None:
    stream = MemoryStream("k string, v int", spark)
    query, out = collecting(stream.toDF().dropDuplicates(["k"]))
    run(query, stream, [("a", 1), ("b", 2), ("a", 3)])
    run(query, stream, [("b", 4), ("c", 5), ("c", 6), ("a", 7)])
    run(query, stream, [("d", 8)])
    query.stop()
    assert [sorted(rows) for rows in out] == [[("a", 1), ("b", 2)], [("c", 5)], [("d", 8)]]
    ops = [operator(p) for p in data_progress(query)]
    assert [op["operatorName"] for op in ops] == ["dedupe"] * 3
    assert [op["numRowsTotal"] for op in ops] == [2, 3, 4]  # no watermark: the state only grows
    assert [op["numRowsUpdated"] for op in ops] == [2, 1, 1]
    assert [op["customMetrics"] for op in ops] == [{"numDroppedDuplicateRows": n} for n in (1, 3, 0)]
    # Without a watermark there is nothing to evict: no batch without data ever runs.
    assert all(p["numInputRows"] for p in query.recentProgress if p["stateOperators"])


def test_distinct_on_a_stream_deduplicates_whole_rows(spark: SparkSession) -> None:
    stream = MemoryStream("k string, v int", spark)
    query, out = collecting(stream.toDF().distinct())
    run(query, stream, [("a", 1), ("a", 1), ("a", 2)])
    run(query, stream, [("a", 2), ("b", 1), ("a", 1)])
    query.stop()
    assert [sorted(rows) for rows in out] == [[("a", 1), ("a", 2)], [("b", 1)]]


def test_a_watermark_drops_late_rows_first_and_evicts_keys_holding_the_event_time(spark: SparkSession) -> None:
    stream = MemoryStream("k string, t timestamp", spark)
    df = stream.toDF().withWatermark("t", "10 seconds").dropDuplicates(["k", "t"])
    query, out = collecting(df)
    run(query, stream, [("a", ts(1)), ("a", ts(1)), ("b", ts(2)), ("c", ts(15))])
    # watermark 5 s: a@1 and b@2 were evicted in the batch without data; a@1 is late now
    run(query, stream, [("a", ts(1)), ("d", ts(30))])
    # watermark 20 s: c@15 was evicted; c@15 and e@20 are late
    run(query, stream, [("e", ts(20)), ("c", ts(15)), ("f", ts(21))])
    query.stop()
    got = [sorted((k, secs(t)) for k, t in rows) for rows in out if rows]
    assert got == [[("a", 1), ("b", 2), ("c", 15)], [("d", 30)], [("f", 21)]]
    data = [operator(p) for p in data_progress(query)]
    assert [op["numRowsDroppedByWatermark"] for op in data] == [0, 1, 2]
    assert [op["customMetrics"]["numDroppedDuplicateRows"] for op in data] == [1, 0, 0]
    evicting = [p for p in query.recentProgress if not p["numInputRows"] and p["stateOperators"]]
    assert [operator(p)["numRowsRemoved"] for p in evicting] == [2, 1]
    assert operator(query.lastProgress)["numRowsTotal"] == 2  # d@30 and f@21: bounded by the watermark


def test_a_watermark_not_in_the_keys_drops_late_rows_but_never_evicts(spark: SparkSession) -> None:
    stream = MemoryStream("k string, t timestamp", spark)
    query, out = collecting(stream.toDF().withWatermark("t", "5 seconds").dropDuplicates(["k"]))
    run(query, stream, [("a", ts(10)), ("b", ts(20))])
    run(query, stream, [("c", ts(14)), ("d", ts(16)), ("a", ts(30))])  # watermark 15 s: c is late, a a duplicate
    run(query, stream, [("e", ts(100))])
    query.stop()
    assert [sorted(k for k, _ in rows) for rows in out if rows] == [["a", "b"], ["d"], ["e"]]
    assert operator(query.lastProgress)["numRowsTotal"] == 4
    assert sum(operator(p)["numRowsDroppedByWatermark"] for p in query.recentProgress if p["stateOperators"]) == 1


def test_drop_duplicates_within_watermark_on_a_subset_follows_sparks_example(spark: SparkSession) -> None:
    stream = MemoryStream("k string, s int", spark)
    df = (stream.toDF().withColumn("t", F.col("s").cast("timestamp")).withWatermark("t", "2 seconds")
          .dropDuplicatesWithinWatermark(["k"]).select("k", "s"))
    query, out = collecting(df)
    steps: list[tuple[list[tuple[str, int]], list[tuple[str, int]], tuple[int, int, int]]] = [
        ([("a", 17)], [("a", 17)], (1, 1, 0)),  # expires at 19; watermark 15
        ([("a", 16)], [], (1, 0, 0)),  # a duplicate, even though older
        ([("a", 13)], [], (1, 0, 1)),  # late: 13 <= 15
        ([("b", 22), ("c", 21)], [("b", 22), ("c", 21)], (2, 2, 0)),  # watermark 20: a (19) evicted
        ([("a", 21)], [("a", 21)], (3, 1, 0)),  # a is new again
        ([("d", 25)], [("d", 25)], (2, 1, 0)),  # watermark 23: a (23) and c (23) evicted
    ]
    for rows, expected, (total, updated, late) in steps:
        before = len(out)
        run(query, stream, rows)
        emitted = sorted(r for batch in out[before:] for r in batch)
        assert emitted == sorted(expected)
        data = operator(data_progress(query)[-1])
        assert data["operatorName"] == "dedupeWithinWatermark"
        assert (operator(query.lastProgress)["numRowsTotal"], data["numRowsUpdated"],
                data["numRowsDroppedByWatermark"]) == (total, updated, late)
    query.stop()


def test_drop_duplicates_within_watermark_refuses_batch_data_and_streams_without_watermark(
        spark: SparkSession) -> None:
    batch = spark.range(10).dropDuplicatesWithinWatermark()
    with pytest.raises(AnalysisException, match="dropDuplicatesWithinWatermark is not supported with batch "
                                                "DataFrames/DataSets"):
        batch.collect()
    stream = MemoryStream("k string, t timestamp", spark)
    with pytest.raises(AnalysisException, match="dropDuplicatesWithinWatermark is not supported on streaming "
                                                "DataFrames/DataSets without watermark"):
        stream.toDF().dropDuplicatesWithinWatermark(["k"]).writeStream.format("memory").queryName("x").start()
    with pytest.raises(PySparkTypeError, match="list or tuple"):
        stream.toDF().dropDuplicatesWithinWatermark("k")  # type: ignore[arg-type]
    assert not spark.streams.active


def test_restart_from_the_checkpoint_continues_with_the_stored_keys(spark: SparkSession, tmp_path: Path) -> None:
    stream = MemoryStream("k string, t timestamp", spark)
    ckpt = str(tmp_path / "ckpt")
    df = stream.toDF().withWatermark("t", "10 seconds").dropDuplicates(["k", "t"])
    first, out1 = collecting(df, ckpt)
    run(first, stream, [("a", ts(1)), ("b", ts(50))])
    first.stop()
    store = tmp_path / "ckpt" / "state" / "0"
    assert sorted(os.listdir(store / "0")) == ["1.delta", "2.delta"]  # the data batch, then the eviction batch
    stream.addData([("b", ts(50)), ("c", ts(45))])
    second, out2 = collecting(df, ckpt)
    second.processAllAvailable(timeout=DEADLINE)
    run(second, stream, [("c", ts(45)), ("d", ts(60))])
    second.stop()
    assert second.id == first.id
    assert [sorted((k, secs(t)) for k, t in rows) for rows in out1 + out2 if rows] == \
        [[("a", 1), ("b", 50)], [("c", 45)], [("d", 60)]]


def dedup_model(batches: list[list[tuple[str, int]]], delay: int, subset: str
                ) -> tuple[list[tuple[str, int, int]], int, int, int]:
    """Spark's rules for dropDuplicates with a watermark (times in seconds, rows numbered in order).

    processAllAvailable runs the batch without data the watermark asks for between data batches, so
    every data batch filters late rows and evicts with the watermark the earlier batches left.
    Returns the emitted rows, the late rows, the duplicate rows and the final size of the state.
    """
    watermark = 0.0
    state: dict[Any, float] = {}
    emitted: list[tuple[str, int, int]] = []
    late = dropped = 0
    number = 0
    for rows in batches:
        for key in [key for key, expires in state.items() if expires <= watermark]:
            del state[key]
        for k, t in rows:
            number += 1
            if t <= watermark:
                late += 1
                continue
            key = (k, t) if subset == "k,t" else k
            if key in state:
                dropped += 1
                continue
            emitted.append((k, t, number))
            # when a key is evicted: by its time (k,t), never (k), or at time + delay (within watermark)
            state[key] = {"k,t": t, "k": float("inf"), "within": t + delay}[subset]
        if rows:
            watermark = max(watermark, max(t for _, t in rows) - delay)
    for key in [key for key, expires in state.items() if expires <= watermark]:
        del state[key]
    return emitted, late, dropped, len(state)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["k,t", "k", "within"]),
       st.lists(st.lists(st.tuples(st.sampled_from("abc"), st.integers(0, 25)), max_size=6), min_size=1, max_size=5))
def test_deduplication_with_a_watermark_matches_sparks_rules(spark: SparkSession, subset: str,
                                                              batches: list[list[tuple[str, int]]]) -> None:
    stream = MemoryStream("k string, t timestamp, n int", spark)
    df = stream.toDF().withWatermark("t", "5 seconds")
    df = {"k,t": df.dropDuplicates(["k", "t"]), "k": df.dropDuplicates(["k"]),
          "within": df.dropDuplicatesWithinWatermark(["k"])}[subset]
    query, out = collecting(df)
    number = 0
    try:
        for rows in batches:
            numbered = []
            for k, t in rows:
                number += 1
                numbered.append((k, ts(t), number))
            run(query, stream, numbered)
    finally:
        query.stop()
    expected, late, dropped, size = dedup_model(batches, 5, subset)
    assert Counter((k, secs(t), n) for rows in out for k, t, n in rows) == Counter(expected)
    ops = [operator(p) for p in query.recentProgress if p["stateOperators"]]
    assert sum(op["numRowsDroppedByWatermark"] for op in ops) == late
    assert sum(op["customMetrics"]["numDroppedDuplicateRows"] for op in ops) == dropped
    assert ops[-1]["numRowsTotal"] == size

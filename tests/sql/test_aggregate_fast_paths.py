"""Fast paths of aggregation and filtering against the general path's (or a plain-Python model's) answers.

* Struct grouping keys without nulls are encoded compactly (their fields only, no validity
  column); with null structs the validity column stays. Both must group exactly as the full
  encoding does, in the partial aggregation, after the shuffle's merge (where partitions with
  and without null structs meet) and in the streaming state's merge.
* A filter every row passes returns its batch without copying; any other mask filters.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pytest

from rdd import SparkContext

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.execution.aggregate import decode_key, encode_key
from dstream.sql.execution.physical import filter_batch
from dstream.sql.expressions.base import AttributeReference, EvalContext, Literal, column_key
from dstream.sql.streaming import MemoryStream
from dstream.sql.types import BooleanType

EPOCH = dt.datetime(1970, 1, 1)


@pytest.fixture
def spark(sc: SparkContext) -> Iterator[SparkSession]:
    session = SparkSession(sc, [("spark.sql.session.timeZone", "UTC"), ("spark.sql.shuffle.partitions", "3")])
    try:
        yield session
    finally:
        session.stop()


def _struct_array(values: list[dict[str, Any] | None]) -> pa.Array:
    return pa.array(values, pa.struct([("a", pa.int64()), ("b", pa.struct([("c", pa.string())]))]))


@pytest.mark.parametrize("values", [
    [{"a": 1, "b": {"c": "x"}}, {"a": 1, "b": {"c": "x"}}, {"a": 2, "b": None}, {"a": None, "b": {"c": None}}],
    [{"a": 1, "b": {"c": "x"}}, None, {"a": None, "b": None}, None, {"a": 1, "b": {"c": "x"}}],
])
def test_compact_struct_encoding_groups_as_the_full_encoding(values: list[dict[str, Any] | None]) -> None:
    arr = _struct_array(values)
    full: dict[str, pa.Array] = {}
    compact: dict[str, pa.Array] = {}
    encode_key("k", arr, full)
    encode_key("k", arr, compact, compact=True)
    # Only a struct without nulls (at its own level) loses its validity column.
    assert ("k.valid" in compact) == (arr.null_count > 0)
    assert "k.valid" in full
    groups = {}
    for name, cols in (("full", full), ("compact", compact)):
        grouped = pa.table(cols).group_by(list(cols), use_threads=False).aggregate([([], "count_all")])
        keys = decode_key("k", arr.type, grouped)
        groups[name] = Counter(dict(zip(map(repr, keys.to_pylist()), grouped.column("count_all").to_pylist())))
    assert groups["compact"] == groups["full"] == Counter(repr(v) for v in values)


def test_group_by_struct_keys_with_and_without_nulls_across_partitions(spark: SparkSession) -> None:
    # Partitions without null structs encode compactly, others do not: their partial
    # buffers meet in the merge after the shuffle.
    rows = [(i % 4 if i % 7 else None, i % 3, i) for i in range(120)]
    df = spark.createDataFrame(rows, "a long, b long, v long").repartition(4)
    key = F.when(F.col("a").isNotNull(), F.struct("a", "b")).alias("k")
    got = {(None if r["k"] is None else tuple(r["k"])): (r["n"], r["s"])
           for r in df.groupBy(key).agg(F.count("*").alias("n"), F.sum("v").alias("s")).collect()}
    model: dict[Any, list[int]] = defaultdict(lambda: [0, 0])
    for a, b, v in rows:
        entry = model[None if a is None else (a, b)]
        entry[0] += 1
        entry[1] += v
    assert got == {k: tuple(v) for k, v in model.items()}


def test_window_counts_without_null_times_match_the_model(spark: SparkSession) -> None:
    times = [EPOCH + dt.timedelta(seconds=s) for s in (0, 3, 9, 10, 11, 25, 25, 39, 40)]
    df = spark.createDataFrame([(t,) for t in times], "t timestamp").repartition(3)
    got = {r["window"]["start"]: r["count"] for r in df.groupBy(F.window("t", "10 seconds")).count().collect()}
    model = Counter(EPOCH + dt.timedelta(seconds=(t - EPOCH).seconds // 10 * 10) for t in times)
    assert got == dict(model)


def test_streaming_window_state_merges_compact_keys(spark: SparkSession) -> None:
    stream = MemoryStream("t timestamp", spark)
    counts = stream.toDF().withWatermark("t", "10 seconds").groupBy(F.window("t", "10 seconds")).count()
    query = counts.writeStream.outputMode("append").format("memory").queryName("fast_path_windows").start()
    # Seconds; the 5 of the third batch is late: its window [0, 10) ended before the watermark 17.
    batches = [[1, 2, 12], [5, 13, 14, 27], [5, 15, 16, 41], [60]]
    try:
        for batch in batches:
            stream.addData([(EPOCH + dt.timedelta(seconds=s),) for s in batch])
            query.processAllAvailable(60)
    finally:
        query.stop()
    got = {r["window"]["start"]: r["count"] for r in spark.table("fast_path_windows").collect()}
    # Model: the watermark after a batch is the newest time so far minus 10 s; each
    # processAllAvailable also runs the no-data batch at the advanced watermark, so a data
    # batch drops a row as late when its window ends at or before the watermark of the
    # data before it; windows ending at or before a batch's watermark are emitted once.
    state: Counter[int] = Counter()
    emitted: dict[int, int] = {}
    watermark = newest = 0
    for batch in batches:
        for s in batch:
            start = s // 10 * 10
            if start + 10 > watermark:
                state[start] += 1
        newest = max(newest, *batch)
        watermark = max(watermark, newest - 10)
        for start in [w for w in state if w + 10 <= watermark]:
            emitted[start] = state.pop(start)
    assert got == {EPOCH + dt.timedelta(seconds=s): n for s, n in emitted.items()}


def test_filter_that_every_row_passes_returns_the_batch_itself() -> None:
    batch = pa.record_batch({"x": pa.array([1, 2, 3])})
    ctx = EvalContext()
    assert filter_batch(batch, Literal(True, BooleanType()), ctx) is batch
    assert filter_batch(batch, Literal(False, BooleanType()), ctx).num_rows == 0
    assert filter_batch(batch, Literal(None, BooleanType()), ctx).num_rows == 0


@pytest.mark.parametrize("mask", [[True, True, True], [True, None, True], [True, False, True], [None, None, None]])
def test_filter_masks_match_arrow(mask: list[bool | None]) -> None:
    cond = AttributeReference("m", BooleanType(), True, 0)
    batch = pa.record_batch({"x": pa.array([1, 2, 3]), column_key(cond.expr_id): pa.array(mask, pa.bool_())})
    got = filter_batch(batch, cond, EvalContext())
    expected = batch.filter(pa.array(mask, pa.bool_()), null_selection_behavior="drop")
    assert got.to_pydict() == expected.to_pydict()
    assert (got is batch) == all(m is True for m in mask)


@pytest.mark.parametrize("start_s", [0, 3])
def test_tumbling_window_starts_before_and_after_1970_match_floor_formula(spark: SparkSession, start_s: int) -> None:
    # The window start of a time without nulls is computed in place on one numpy array:
    # floor modulo (times before 1970 included), with and without a start offset.
    seconds = [-25, -20, -11, -10, -1, 0, 1, 3, 9, 10, 13, 29]
    times = [EPOCH + dt.timedelta(seconds=s) for s in seconds]
    df = spark.createDataFrame([(t,) for t in times], "t timestamp")
    col = F.window("t", "10 seconds", startTime=f"{start_s} seconds")
    got = {(r["window"]["start"], r["window"]["end"]): r["count"] for r in df.groupBy(col).count().collect()}
    model: Counter[tuple[dt.datetime, dt.datetime]] = Counter()
    for s in seconds:
        begin = s - (s - start_s) % 10  # Python's % is the floor modulo
        model[(EPOCH + dt.timedelta(seconds=begin), EPOCH + dt.timedelta(seconds=begin + 10))] += 1
    assert got == dict(model)


def test_streaming_late_groups_are_dropped_and_counted_in_update_mode(spark: SparkSession) -> None:
    # The state operator merges the state and the batch's partial rows in one grouping and
    # drops the late groups afterwards: the groups emitted, their counts and the number of
    # late groups must be the general path's (model: per batch, a (window, key) group whose
    # window ended at or before the watermark is dropped and counted once).
    stream = MemoryStream("t timestamp, k string", spark)
    counts = (stream.toDF().withWatermark("t", "10 seconds").groupBy(F.window("t", "10 seconds"), "k").count())
    query = counts.writeStream.outputMode("update").format("memory").queryName("fast_path_update").start()
    batches = [[(1, "a"), (2, "b"), (12, "a")], [(5, "a"), (13, "b"), (27, "a")],
               [(5, "a"), (5, "b"), (6, "b"), (15, "a"), (41, "b")], [(16, "a"), (60, "a")]]
    try:
        for batch in batches:
            stream.addData([(EPOCH + dt.timedelta(seconds=s), k) for s, k in batch])
            query.processAllAvailable(60)
        dropped = sum(p["stateOperators"][0]["numRowsDroppedByWatermark"] for p in query.recentProgress
                      if p["stateOperators"])
    finally:
        query.stop()
    latest: dict[tuple[int, str], int] = {}
    for r in spark.table("fast_path_update").collect():
        group = ((r["window"]["start"] - EPOCH).seconds, r["k"])
        latest[group] = max(latest.get(group, 0), r["count"])
    model: Counter[tuple[int, str]] = Counter()
    late_groups = 0
    watermark = newest = 0
    for batch in batches:
        late = {(s // 10 * 10, k) for s, k in batch if s // 10 * 10 + 10 <= watermark}
        late_groups += len(late)
        for s, k in batch:
            if (s // 10 * 10, k) not in late:
                model[(s // 10 * 10, k)] += 1
        newest = max(newest, *(s for s, _ in batch))
        watermark = max(watermark, newest - 10)
    assert latest == dict(model)
    assert dropped == late_groups == 3

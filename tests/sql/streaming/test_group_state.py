"""``mapGroupsWithState`` / ``flatMapGroupsWithState`` with ``GroupState``: Spark's rules without pandas.

MemoryStream in; processAllAvailable between batches, except under processing-time
timeouts, where every trigger runs a batch: those tests drive the manual clock and wait
for each batch's progress with a deadline. The last test runs in worker processes.
"""

from __future__ import annotations

import datetime as dt
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstream.sql import Row, SparkSession
from dstream.sql import functions as F
from dstream.sql.errors import (
    AnalysisException,
    IllegalArgumentException,
    PySparkTypeError,
    PySparkValueError,
    SparkRuntimeException,
)
from dstream.sql.streaming import GroupState, GroupStateTimeout, MemoryStream
from dstream.sql.streaming.state.store import StateStoreId, read_state
from dstream.sql.types import LongType, StructField, StructType

DEADLINE = 30.0
EPOCH = dt.datetime(1970, 1, 1)


def ts(seconds: float) -> dt.datetime:
    return EPOCH + dt.timedelta(seconds=seconds)


def wait_for_batch(query: Any, batch_id: int) -> dict[str, Any]:
    """The progress of ``batch_id`` once the query reported it (fails loudly after the deadline)."""
    deadline = time.monotonic() + DEADLINE
    while True:
        found = [p for p in query.recentProgress if p["batchId"] == batch_id and "addBatch" in p["durationMs"]]
        if found:
            return found[-1]
        assert query.isActive, query.exception()
        assert time.monotonic() < deadline, f"batch {batch_id} never ran: {query.recentProgress}"
        time.sleep(0.01)


def table_rows(spark: SparkSession, name: str) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in spark.table(name).collect()]


def running_count(key: tuple[Any, ...], rows: Iterator[Row], state: GroupState) -> tuple[Any, ...]:
    count = (state.get.n if state.exists else 0) + sum(1 for _ in rows)
    state.update((count,))
    return (key[0], count)


# ------------------------------------------------------------------ processing-time timeout (manual clock)


@pytest.fixture
def manual_clock(spark: SparkSession) -> Iterator[Any]:
    from dstream.sql.streaming.clock import streaming_clock

    spark.conf.set("spark.sql.streaming.clock", "manual")
    try:
        yield streaming_clock(spark)
    finally:
        for q in spark.streams.active:
            q.stop()
        spark.conf.set("spark.sql.streaming.clock", "system")


def sessions(key: tuple[Any, ...], rows: Iterator[Row], state: GroupState) -> tuple[Any, ...]:
    """A user's session: events counted, closed after 10 s (batch time) without events."""
    if state.hasTimedOut:
        count = state.get.n
        state.remove()
        return (key[0], count, True, state.getCurrentProcessingTimeMs())
    count = (state.get.n if state.exists else 0) + sum(1 for _ in rows)
    state.update(Row(n=count))
    state.setTimeoutDuration("10 seconds")
    return (key[0], count, False, state.getCurrentProcessingTimeMs())


def test_sessions_time_out_after_inactivity_on_the_manual_clock(spark: SparkSession, manual_clock: Any) -> None:
    stream = MemoryStream("user string", spark)
    stream.addData(["u1", "u1", "u2"])
    query = (stream.toDF().groupBy("user")
             .mapGroupsWithState(sessions, "user string, events long, expired boolean, at long", "n long",
                                 GroupStateTimeout.ProcessingTimeTimeout)
             .writeStream.outputMode("update").format("memory").queryName("sessions")
             .trigger(processingTime="1 second").start())
    progress = wait_for_batch(query, 0)  # at clock 0: both sessions open, timing out at 10 000
    assert progress["stateOperators"][0]["operatorName"] == "flatMapGroupsWithState"
    assert progress["stateOperators"][0]["numRowsTotal"] == 2
    stream.addData(["u2"])
    manual_clock.advance(5000)
    wait_for_batch(query, 1)  # u2's session goes on: it times out at 15 000
    manual_clock.advance(5000)
    progress = wait_for_batch(query, 2)  # a no-data batch at exactly 10 000: u1's timeout is not *before* it
    assert progress["numInputRows"] == 0 and progress["stateOperators"][0]["numRowsTotal"] == 2
    manual_clock.advance(1000)
    progress = wait_for_batch(query, 3)  # 11 000: u1 times out
    assert progress["stateOperators"][0]["numRowsRemoved"] == 1
    manual_clock.advance(5000)
    progress = wait_for_batch(query, 4)  # 16 000: u2 times out
    assert progress["stateOperators"][0]["numRowsTotal"] == 0
    assert table_rows(spark, "sessions") == [
        ("u1", 2, False, 0), ("u2", 1, False, 0),
        ("u2", 2, False, 5000),
        ("u1", 2, True, 11000),
        ("u2", 2, True, 16000)]


# ------------------------------------------------------------------ event-time timeout


def closing_at_watermark(key: tuple[Any, ...], rows: Iterator[Row], state: GroupState) -> Iterator[tuple[Any, ...]]:
    """Counts a user's events; emits the count once the watermark passes 5 s after the newest event."""
    if state.hasTimedOut:
        yield (key[0], state.get.n, state.getCurrentWatermarkMs())
        state.remove()
        return
    seen = list(rows)
    count = (state.get.n if state.exists else 0) + len(seen)
    newest = max([r.t for r in seen] + ([ts(state.get.newest / 1000)] if state.exists else []))
    state.update({"n": count, "newest": int((newest - EPOCH).total_seconds() * 1000)})
    state.setTimeoutTimestamp(newest, "5 seconds")


def test_event_time_timeout_fires_when_the_watermark_passes(spark: SparkSession) -> None:
    stream = MemoryStream("user string, t timestamp", spark)
    query = (stream.toDF().withWatermark("t", "10 seconds").groupBy("user")
             .flatMapGroupsWithState(closing_at_watermark, "user string, events long, watermark long",
                                     "n long, newest long", "append", GroupStateTimeout.EventTimeTimeout)
             .writeStream.outputMode("append").format("memory").queryName("closed").start())
    stream.addData([("a", ts(10)), ("b", ts(12)), ("a", ts(11))])
    query.processAllAvailable(timeout=DEADLINE)  # watermark 2 s: a times out after 16 s, b after 17 s
    assert table_rows(spark, "closed") == []
    stream.addData([("c", ts(26)), ("b", ts(13))])
    query.processAllAvailable(timeout=DEADLINE)  # watermark 16 s: neither 16 000 < 16 000 nor 18 000 < 16 000
    assert table_rows(spark, "closed") == []
    stream.addData([("c", ts(40))])
    query.processAllAvailable(timeout=DEADLINE)  # watermark 30 s: a and b close, c (timeout 45 s) stays
    assert sorted(table_rows(spark, "closed")) == [("a", 2, 30000), ("b", 2, 30000)]
    stream.addData([("a", ts(20)), ("c", ts(31))])  # a is late (20 s <= 30 s); c is not
    query.processAllAvailable(timeout=DEADLINE)
    ops = [p["stateOperators"][0] for p in query.recentProgress if p["stateOperators"]]
    assert sum(op["numRowsDroppedByWatermark"] for op in ops) == 1
    assert ops[-1]["numRowsTotal"] == 1
    stream.addData([("d", ts(100))])
    query.processAllAvailable(timeout=DEADLINE)  # watermark 90 s: c closes with its 3 events
    assert sorted(table_rows(spark, "closed"))[-1] == ("c", 3, 90000)


# ------------------------------------------------------------------ removal and restart


def reset_on_zero(key: tuple[Any, ...], rows: Iterator[Row], state: GroupState) -> Iterator[Row]:
    total = state.get.total if state.exists else 0
    for r in rows:
        if r.v == 0:
            state.remove()
            yield Row(k=key[0], total=total, removed=True)
            return
        total += r.v
    state.update((total,))
    yield Row(k=key[0], total=total, removed=False)


def test_removed_state_is_deleted_from_the_store(spark: SparkSession, tmp_path: Path) -> None:
    stream = MemoryStream("k string, v long", spark)
    ckpt = str(tmp_path / "ckpt")
    query = (stream.toDF().groupBy("k")
             .flatMapGroupsWithState(reset_on_zero, "k string, total long, removed boolean", "total long", "update")
             .writeStream.outputMode("update").format("memory").queryName("resets")
             .option("checkpointLocation", ckpt).start())
    stream.addData([("x", 1), ("x", 2), ("y", 5)])
    query.processAllAvailable(timeout=DEADLINE)
    stream.addData([("x", 0)])
    query.processAllAvailable(timeout=DEADLINE)
    op = query.lastProgress["stateOperators"][0]
    assert (op["numRowsTotal"], op["numRowsRemoved"], op["numRowsUpdated"]) == (1, 1, 0)
    stream.addData([("x", 4)])
    query.processAllAvailable(timeout=DEADLINE)
    query.stop()
    assert table_rows(spark, "resets") == [("x", 3, False), ("y", 5, False), ("x", 3, True), ("x", 4, False)]
    partitions = int(query.lastProgress["stateOperators"][0]["numShufflePartitions"])
    stored: dict[Any, Any] = {}
    for part in range(partitions):
        stored.update(read_state(StateStoreId(str(tmp_path / "ckpt" / "state"), 0, part), 3))
    assert stored == {("x",): [[4], -1], ("y",): [[5], -1]}


def test_restart_from_the_checkpoint_keeps_the_state(spark: SparkSession, tmp_path: Path) -> None:
    stream = MemoryStream("k string", spark)
    ckpt = str(tmp_path / "ckpt")
    out: list[tuple[int, list[tuple[Any, ...]]]] = []

    def start() -> Any:
        return (stream.toDF().groupBy("k").mapGroupsWithState(running_count, "k string, n long", "n long")
                .writeStream.outputMode("update").option("checkpointLocation", ckpt)
                .foreachBatch(lambda df, i: out.append((i, sorted(map(tuple, df.collect()))))).start())

    first = start()
    stream.addData(["a", "b", "a"])
    first.processAllAvailable(timeout=DEADLINE)
    first.stop()
    stream.addData(["a", "c"])
    second = start()
    second.processAllAvailable(timeout=DEADLINE)
    second.stop()
    assert out == [(0, [("a", 2), ("b", 1)]), (1, [("a", 3), ("c", 1)])]
    assert second.lastProgress["stateOperators"][0]["numRowsTotal"] == 3


def test_an_aggregation_may_follow_flat_map_in_append_mode(spark: SparkSession) -> None:
    def expand(key: tuple[Any, ...], rows: Iterator[Row], state: GroupState) -> list[tuple[Any, ...]]:
        return [(key[0], r.v) for r in rows]

    stream = MemoryStream("k string, v long", spark)
    query = (stream.toDF().groupBy("k").flatMapGroupsWithState(expand, "k string, v long", "n long", "append")
             .groupBy("k").agg(F.sum("v").alias("s")).writeStream.outputMode("complete").format("memory")
             .queryName("after").start())
    stream.addData([("a", 1), ("b", 2), ("a", 3)])
    query.processAllAvailable(timeout=DEADLINE)
    stream.addData([("a", 10)])
    query.processAllAvailable(timeout=DEADLINE)
    assert sorted(table_rows(spark, "after")) == [("a", 14), ("b", 2)]
    assert [op["operatorName"] for op in query.lastProgress["stateOperators"]] == ["stateStoreSave",
                                                                                  "flatMapGroupsWithState"]


# ------------------------------------------------------------------ the GroupState API


def new_state(value: Row | None = None, timeout: str = GroupStateTimeout.NoTimeout, watermark_ms: int = -1,
              batch_timestamp_ms: int = 1000) -> GroupState:
    schema = StructType([StructField("count", LongType()), StructField("label", LongType())])
    return GroupState(value, timeout=timeout, state_schema=schema, batch_timestamp_ms=batch_timestamp_ms,
                      watermark_ms=watermark_ms, watermark_present=watermark_ms >= 0, has_timed_out=False,
                      time_zone="UTC")


def test_group_state_values_follow_sparks_rules() -> None:
    state = new_state()
    assert not state.exists and state.getOption is None and not state.hasTimedOut
    with pytest.raises(PySparkValueError, match="State is either not defined or has already been removed"):
        _ = state.get
    with pytest.raises(IllegalArgumentException, match="'None' is not a valid state value"):
        state.update(None)
    with pytest.raises(PySparkValueError, match="does not match with length of fields"):
        state.update((1,))
    state.update({"label": 2, "count": 1})
    assert state.get == Row(count=1, label=2) and state.get.label == 2 and state.updated
    state.update(Row(label=4, count=3))
    assert tuple(state.get) == (3, 4)
    state.remove()
    assert not state.exists and state.removed and not state.updated
    assert str(state) == "GroupState(<undefined>)"


def test_group_state_timeouts_follow_sparks_rules() -> None:
    none = new_state()
    with pytest.raises(SparkRuntimeException, match="Cannot set timeout duration without enabling processing time"):
        none.setTimeoutDuration(1000)
    with pytest.raises(SparkRuntimeException, match="Cannot set timeout timestamp without enabling event time"):
        none.setTimeoutTimestamp(1000)
    with pytest.raises(SparkRuntimeException, match="Cannot get event time watermark timestamp without setting"):
        none.getCurrentWatermarkMs()
    processing = new_state(timeout=GroupStateTimeout.ProcessingTimeTimeout)
    with pytest.raises(IllegalArgumentException, match="Timeout duration must be positive"):
        processing.setTimeoutDuration(0)
    with pytest.raises(IllegalArgumentException, match=r"Provided duration \(-1 second\) is negative"):
        processing.setTimeoutDuration("-1 second")
    with pytest.raises(PySparkTypeError, match="durationMs must be an int"):
        processing.setTimeoutDuration(1.5)  # type: ignore[arg-type]
    processing.setTimeoutDuration("1 minute")
    assert processing.timeout_ms == 61_000 and processing.getCurrentProcessingTimeMs() == 1000
    event = new_state(timeout=GroupStateTimeout.EventTimeTimeout, watermark_ms=50_000)
    assert event.getCurrentWatermarkMs() == 50_000
    with pytest.raises(IllegalArgumentException, match=r"Timeout timestamp \(49999\) cannot be earlier than the "
                                                       r"current watermark \(50000\)"):
        event.setTimeoutTimestamp(49_999)
    with pytest.raises(IllegalArgumentException, match="Timeout timestamp must be positive"):
        new_state(timeout=GroupStateTimeout.EventTimeTimeout).setTimeoutTimestamp(0)
    event.setTimeoutTimestamp(ts(45), "10 seconds")
    assert event.timeout_ms == 55_000
    event.setTimeoutTimestamp(dt.datetime(1970, 1, 1, 0, 1, tzinfo=dt.timezone.utc))
    assert event.timeout_ms == 60_000
    with pytest.raises(SparkRuntimeException, match="Cannot set timeout duration"):
        event.setTimeoutDuration(10)


def test_grouped_data_arguments_are_checked(spark: SparkSession) -> None:
    df = spark.createDataFrame([("a", 1)], "k string, v long")
    grouped = df.groupBy("k")
    with pytest.raises(PySparkTypeError, match="`func` of mapGroupsWithState should be a function"):
        grouped.mapGroupsWithState(42, "k string", "n long")
    with pytest.raises(PySparkTypeError, match="`outputStructType` should be a StructType or a DDL string"):
        grouped.mapGroupsWithState(running_count, 3, "n long")
    with pytest.raises(PySparkValueError, match="outputMode of flatMapGroupsWithState must be 'append' or 'update'"):
        grouped.flatMapGroupsWithState(running_count, "k string", "n long", "complete")
    with pytest.raises(PySparkValueError, match="timeoutConf must be GroupStateTimeout.NoTimeout"):
        grouped.mapGroupsWithState(running_count, "k string", "n long", "sometimes")
    assert grouped.mapGroupsWithState(running_count, "k string, n long", "n long", "noTimeout").collect() == \
        [Row(k="a", n=1)]


# ------------------------------------------------------------------ batch DataFrames


def test_batch_dataframes_call_each_group_once_with_an_empty_state(spark: SparkSession) -> None:
    df = spark.createDataFrame([("a", 1, ts(1)), ("b", 2, ts(2)), ("a", 3, ts(3)), ("b", 4, ts(4))],
                               "k string, v long, t timestamp")

    def describe(key: tuple[Any, ...], rows: Iterator[Row], state: GroupState) -> tuple[Any, ...]:
        seen = list(rows)
        assert not state.exists and not state.hasTimedOut
        state.update((len(seen),))
        state.setTimeoutDuration(1000)
        return (str(key), ",".join(seen[0].__fields__), sum(r.v for r in seen), max(r.t for r in seen))

    got = df.groupBy("k", (F.col("v") % 2).alias("odd")).mapGroupsWithState(
        describe, "key string, fields string, total long, newest timestamp", "n long",
        GroupStateTimeout.ProcessingTimeTimeout).collect()
    assert sorted(map(tuple, got)) == [("('a', 1)", "k,v,t", 4, ts(3)), ("('b', 0)", "k,v,t", 6, ts(4))]

    def explode(key: tuple[Any, ...], rows: Iterator[Row], state: GroupState) -> Iterator[dict[str, Any]]:
        for r in rows:
            yield {"k": key[0], "v": r.v * 10}

    flat = df.groupBy("k").flatMapGroupsWithState(explode, "k string, v long", "n long", "append")
    assert sorted(map(tuple, flat.collect())) == [("a", 10), ("a", 30), ("b", 20), ("b", 40)]
    assert flat.schema.simpleString() == "struct<k:string,v:bigint>"

    def wrong(key: tuple[Any, ...], rows: Iterator[Row], state: GroupState) -> Any:
        return Row(k=key[0], v=1)

    with pytest.raises(Exception, match="must return an iterable of rows"):
        df.groupBy("k").flatMapGroupsWithState(wrong, "k string, v long", "n long", "append").collect()
    with pytest.raises(Exception, match="does not fit the output schema struct<k:string,v:bigint>"):
        df.groupBy("k").mapGroupsWithState(lambda k, r, s: (k[0], "x"), "k string, v long", "n long").collect()


# ------------------------------------------------------------------ refusals at start()


def test_refused_at_start_with_sparks_reasons(spark: SparkSession) -> None:
    stream = MemoryStream("k string, t timestamp", spark)
    df = stream.toDF()
    mapped = df.groupBy("k").mapGroupsWithState(running_count, "k string, n long", "n long")
    with pytest.raises(AnalysisException, match="mapGroupsWithState is not supported with Append output mode"):
        mapped.writeStream.outputMode("append").format("memory").queryName("x").start()
    with pytest.raises(AnalysisException, match="mapGroupsWithState is not supported with aggregation"):
        mapped.groupBy("k").count().writeStream.outputMode("update").format("memory").queryName("x").start()
    updating = df.groupBy("k").flatMapGroupsWithState(lambda k, r, s: [], "k string", "n long", "update")
    with pytest.raises(AnalysisException, match="flatMapGroupsWithState in update mode is not supported with Append "
                                                "output mode"):
        updating.writeStream.outputMode("append").format("memory").queryName("x").start()
    with pytest.raises(AnalysisException, match="flatMapGroupsWithState in update mode is not supported with "
                                                "aggregation"):
        updating.groupBy("k").count().writeStream.outputMode("update").format("memory").queryName("x").start()
    after_agg = df.groupBy("k").count().groupBy("k").flatMapGroupsWithState(
        lambda k, r, s: [], "k string", "n long", "append")
    with pytest.raises(AnalysisException, match="flatMapGroupsWithState in append mode is not supported after "
                                                "aggregation"):
        after_agg.writeStream.outputMode("update").format("memory").queryName("x").start()
    no_watermark = df.groupBy("k").flatMapGroupsWithState(lambda k, r, s: [], "k string", "n long", "append",
                                                          GroupStateTimeout.EventTimeTimeout)
    with pytest.raises(AnalysisException, match=r"Watermark must be specified in the query using "
                                                r"'\[Dataset/DataFrame\].withWatermark\(\)'"):
        no_watermark.writeStream.outputMode("append").format("memory").queryName("x").start()
    assert spark.streams.active == []


# ------------------------------------------------------------------ against a plain-Python model


def capped_count(key: tuple[Any, ...], rows: Iterator[Row], state: GroupState) -> Iterator[tuple[Any, ...]]:
    """A key's running count; at 5 or more it is emitted as closed and the state starts again."""
    count = (state.get.n if state.exists else 0) + sum(1 for _ in rows)
    if count >= 5:
        state.remove()
        yield (key[0], count, True)
    else:
        state.update((count,))
        yield (key[0], count, False)


def capped_model(batches: list[list[str]]) -> list[list[tuple[str, int, bool]]]:
    counts: dict[str, int] = {}
    out = []
    for batch in batches:
        emitted = []
        for key in sorted(set(batch)):
            count = counts.pop(key, 0) + batch.count(key)
            if count < 5:
                counts[key] = count
            emitted.append((key, count, count >= 5))
        out.append(emitted)
    return out


@settings(max_examples=15, deadline=None)
@given(st.lists(st.lists(st.sampled_from("abcd"), min_size=1, max_size=8), min_size=1, max_size=6))
def test_counts_match_a_plain_python_model(spark: SparkSession, batches: list[list[str]]) -> None:
    stream = MemoryStream("k string", spark)
    got: dict[int, list[tuple[Any, ...]]] = {}
    query = (stream.toDF().groupBy("k")
             .flatMapGroupsWithState(capped_count, "k string, n long, closed boolean", "n long", "update")
             .writeStream.outputMode("update")
             .foreachBatch(lambda df, i: got.__setitem__(i, sorted(map(tuple, df.collect())))).start())
    try:
        for batch in batches:
            stream.addData(batch)
            query.processAllAvailable(timeout=DEADLINE)
    finally:
        query.stop()
    assert [got[i] for i in sorted(got)] == capped_model(batches)


def closing_after_quiet(key: tuple[Any, ...], rows: Iterator[Row], state: GroupState) -> Iterator[tuple[Any, ...]]:
    """A key's events counted; closed (emitted, removed) once the watermark passes its newest event + 3 s."""
    if state.hasTimedOut:
        yield (key[0], state.get.n)
        state.remove()
        return
    seen = [int((r.t - EPOCH).total_seconds() * 1000) for r in rows]
    newest = max(seen + ([state.get.newest] if state.exists else []))
    state.update((len(seen) + (state.get.n if state.exists else 0), newest))
    state.setTimeoutTimestamp(max(newest + 3000, state.getCurrentWatermarkMs()))


def closing_model(batches: list[list[tuple[str, int]]]) -> tuple[Counter[tuple[str, int]], int]:
    """Spark's rules: late rows (<= the previous batch's watermark) dropped; timeouts fire when
    ``timeout < `` the batch's watermark, also in the no-data batch a grown watermark triggers."""
    state: dict[str, tuple[int, int, int]] = {}  # key -> (count, newest ms, timeout ms)
    emitted: Counter[tuple[str, int]] = Counter()
    watermark = previous = dropped = 0

    def expire(current: int, touched: set[str]) -> None:
        for key in [k for k, (_, _, timeout) in state.items() if timeout < current and k not in touched]:
            emitted[(key, state.pop(key)[0])] += 1

    for events in batches:
        current = watermark
        kept = [(k, t * 1000) for k, t in events if t * 1000 > previous]
        dropped += len(events) - len(kept)
        for key in sorted({k for k, _ in kept}):
            times = [t for k, t in kept if k == key]
            count, newest, _ = state.get(key, (0, 0, 0))
            newest = max(times + [newest])
            state[key] = (count + len(times), newest, max(newest + 3000, current))
        expire(current, {k for k, _ in kept})
        previous = current
        watermark = max(watermark, max(t for _, t in events) * 1000 - 5000)
        if watermark > current:  # the no-data batch
            expire(watermark, set())
            previous = watermark
    return emitted, dropped


@settings(max_examples=10, deadline=None)
@given(st.lists(st.lists(st.tuples(st.sampled_from("abc"), st.integers(0, 60)), min_size=1, max_size=6),
                min_size=1, max_size=6))
def test_event_time_timeouts_match_a_plain_python_model(spark: SparkSession,
                                                        batches: list[list[tuple[str, int]]]) -> None:
    stream = MemoryStream("k string, t timestamp", spark)
    got: Counter[tuple[str, int]] = Counter()
    query = (stream.toDF().withWatermark("t", "5 seconds").groupBy("k")
             .flatMapGroupsWithState(closing_after_quiet, "k string, n long", "n long, newest long", "append",
                                     GroupStateTimeout.EventTimeTimeout)
             .writeStream.outputMode("append")
             .foreachBatch(lambda df, i: got.update(tuple(r) for r in df.collect())).start())
    try:
        for events in batches:
            stream.addData([(k, ts(t)) for k, t in events])
            query.processAllAvailable(timeout=DEADLINE)
    finally:
        query.stop()
    expected, dropped = closing_model(batches)
    assert got == expected
    assert sum(p["stateOperators"][0]["numRowsDroppedByWatermark"] for p in query.recentProgress
               if "addBatch" in p["durationMs"]) == dropped


# ------------------------------------------------------------------ local[2]: real worker processes


def test_state_lives_in_worker_processes(spark: SparkSession, tmp_path: Path) -> None:
    # One SparkContext per process: the module's `local` session steps aside (the module's last test).
    spark.stop()
    workers = SparkSession.builder.master("local[2]").appName("test-group-state-workers").getOrCreate()
    def count(key: tuple[Any, ...], rows: Iterator[Row], state: GroupState) -> tuple[Any, ...]:
        # Defined here so that it travels to the workers by value.
        n = (state.get.n if state.exists else 0) + sum(1 for _ in rows)
        state.update((n,))
        return (key[0], n)

    try:
        workers.conf.set("spark.sql.shuffle.partitions", "3")
        stream = MemoryStream("k string", workers)
        query = (stream.toDF().groupBy("k").mapGroupsWithState(count, "k string, n long", "n long")
                 .writeStream.outputMode("update").format("memory").queryName("workers")
                 .option("checkpointLocation", str(tmp_path / "ckpt")).start())
        stream.addData(list("abcabca"))
        query.processAllAvailable(timeout=DEADLINE)
        stream.addData(list("aad"))
        query.processAllAvailable(timeout=DEADLINE)
        query.stop()
        assert sorted(tuple(r) for r in workers.table("workers").collect()) == [
            ("a", 3), ("a", 5), ("b", 2), ("c", 2), ("d", 1)]
        assert query.lastProgress["stateOperators"][0]["numShufflePartitions"] == 3
    finally:
        workers.stop()

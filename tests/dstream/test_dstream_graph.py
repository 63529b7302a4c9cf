"""The DStream graph: remember durations, cleanup, slice, fusion, persistence, pickling.

Fresh ``local`` contexts (the ``sc`` fixture); the manual clock drives every batch.
"""

from __future__ import annotations

import gc
import tracemalloc
from datetime import datetime
from pathlib import Path
from typing import Any

import cloudpickle
import pytest

from rdd import DriverOnlyError, SparkConf, StorageLevel
from rdd.engine_api import listener_bus

from dstream import StreamingContext, StreamingStateError
from dstream.nodes.transformed import TransformedNode
from dstream.nodes.windowed import WindowedNode
from dstream.testing import advance_batches, collect_batches, manual_clock, run_batches
from tests.conftest import LOCAL, SMALL_UI_RETENTION


def _context(sc: Any) -> StreamingContext:
    ssc = StreamingContext(sc, 1)
    manual_clock(ssc)
    return ssc


# ------------------------------------------------------------------ remember durations


def test_remember_durations_propagate_with_window_length(sc: Any) -> None:
    ssc = _context(sc)
    source = ssc.queueStream([[1]])
    mapped = source.map(lambda x: x)
    windowed = mapped.window(4, 2)
    windowed.foreachRDD(lambda rdd: None)
    ssc.start()
    try:
        assert windowed._stream_node.remember_ms == 2000  # its own slide
        assert mapped._stream_node.remember_ms == 6000  # + the window
        assert source._stream_node.remember_ms == 6000
    finally:
        ssc.stop(stopSparkContext=False)


def test_ssc_remember_raises_every_stream(sc: Any) -> None:
    ssc = _context(sc)
    ssc.remember(10)
    source = ssc.queueStream([[1]])
    windowed = source.window(4, 2)
    windowed.foreachRDD(lambda rdd: None)
    with pytest.raises(StreamingStateError, match="only once"):
        ssc.remember(20)
    ssc.start()
    try:
        assert windowed._stream_node.remember_ms == 10_000
        assert source._stream_node.remember_ms == 14_000
    finally:
        ssc.stop(stopSparkContext=False)


# ------------------------------------------------------------------ cleanup and memory


def test_old_rdds_are_forgotten_and_unpersisted(sc: Any) -> None:
    ssc = _context(sc)
    source = ssc.queueStream([], default=sc.parallelize([("a", 1)], 1))
    counts = source.reduceByKey(lambda a, b: a + b).window(3, 1)
    parent = counts._stream_node.dependencies[0]
    seen_parent_rdds: list[Any] = []
    counts.foreachRDD(lambda t, rdd: seen_parent_rdds.append(parent.generated[round(t.timestamp() * 1000)]))
    ssc.start()
    try:
        advance_batches(ssc, 50)
        for node in (counts._stream_node, parent, source._stream_node):
            # remember / slide entries, plus one batch of cleanup lag
            assert len(node.generated) <= node.remember_ms // node.slide_ms + 1, node
        assert parent.storage_level == StorageLevel.MEMORY_ONLY  # persisted for the window
        assert all(not rdd.is_cached for rdd in seen_parent_rdds[:-6])
        assert all(rdd.is_cached for rdd in seen_parent_rdds[-3:])
    finally:
        ssc.stop(stopSparkContext=False)


def test_unpersist_can_be_disabled(make_sc: Any) -> None:
    from rdd import SparkConf

    sc = make_sc("local", SparkConf().set("spark.streaming.unpersist", "false"))
    ssc = _context(sc)
    stream = ssc.queueStream([], default=sc.parallelize([1], 1)).map(lambda x: x).cache()
    kept: list[Any] = []
    stream.foreachRDD(lambda rdd: kept.append(rdd))
    ssc.start()
    advance_batches(ssc, 5)
    ssc.stop(stopSparkContext=False)
    assert all(rdd.is_cached for rdd in kept)


def _growth_per_batch(ssc: StreamingContext, batches: int) -> float:
    """Bytes of Python memory still allocated per batch after ``batches`` batches."""
    advance_batches(ssc, 200)  # warm up: caches, interned strings, logging
    gc.collect()
    tracemalloc.start()
    try:
        advance_batches(ssc, 100)
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        advance_batches(ssc, batches)
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return (after - before) / batches


@pytest.mark.timeout(120)
def test_streaming_state_stays_bounded_over_thousands_of_batches(sc: Any) -> None:
    from dstream.scheduler.job import Job, JobSet

    ssc = _context(sc)
    source = ssc.queueStream([], default=sc.parallelize(["a", "b", "a"], 1))
    pairs = source.map(lambda w: (w, 1)).cache()
    windowed = pairs.window(3, 1)
    windowed.foreachRDD(lambda rdd: None)
    pairs.filter(lambda kv: kv[0] == "a").foreachRDD(lambda rdd: None)
    ssc.start()
    try:
        advance_batches(ssc, 3000)
        gc.collect()
        live_jobs = sum(1 for obj in gc.get_objects() if type(obj) in (Job, JobSet))
        assert live_jobs <= 6  # the last batch's, at most
        for node in ssc._engine.graph.nodes:
            assert len(node.generated) <= node.remember_ms // node.slide_ms + 1, node
        assert ssc._engine.scheduler is not None and ssc._engine.scheduler.pending_batches() == 0
        assert ssc._engine.generator is not None and len(ssc._engine.generator._completed) <= 1
        cached = [rdd for node in ssc._engine.graph.nodes for rdd in node.generated.values()
                  if rdd is not None and rdd.is_cached]
        assert len(cached) <= 5  # only the window's span of the cached parent
    finally:
        ssc.stop(stopSparkContext=False)


def _settled_memory(ssc: Any) -> int:
    """Traced memory once what the last batches dropped is gone.

    The context cleaner deletes the shuffle outputs of collected RDDs at the start of the
    next job, so right after a batch some of them are still held, how many depending on
    when the garbage collector ran: one more batch after a collection settles that, and
    the figure measures what the engine keeps, not that lag. Events still queued for the
    listener threads are in flight too, so both buses are drained first.
    """
    gc.collect()
    advance_batches(ssc, 1)
    assert ssc._engine.bus.wait_until_empty(60), "the streaming listener bus did not drain in 60 s"
    assert listener_bus(ssc.sparkContext).wait_until_empty(60), "the context's listener bus did not drain in 60 s"
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_memory_stays_flat_over_thousands_of_batches(make_sc: Any) -> None:
    sc = make_sc(LOCAL, SparkConf().setAll(list(SMALL_UI_RETENTION.items())))
    ssc = _context(sc)
    source = ssc.queueStream([], default=sc.parallelize(["a", "b", "a"], 1))
    counts = source.map(lambda w: (w, 1)).reduceByKey(lambda a, b: a + b)
    counts.window(3, 1).count().foreachRDD(lambda rdd: rdd.collect())
    ssc.start()
    try:
        # Traced from the start: a bounded table filled before tracing would read as growth
        # until every entry it holds had been replaced by a traced one. The warm-up fills
        # caches, interned strings, logging and the UI's tables to their retention limits.
        tracemalloc.start()
        try:
            advance_batches(ssc, 600)
            # The traced total saw-tooths by tens of KB (tables trimmed in chunks, dicts
            # resized): sampled every 50 batches, the lowest sample of the last 500 batches
            # against the lowest of the 500 before says what stays; a leak lifts every sample.
            first = tracemalloc.take_snapshot()  # kept alive while measured
            marks = []
            for sample in range(21):
                marks.append(_settled_memory(ssc))
                if sample < 20:
                    advance_batches(ssc, 50)
            grown = [str(stat) for stat in tracemalloc.take_snapshot().compare_to(first, "lineno")
                     if stat.size_diff > 0][:8]
        finally:
            tracemalloc.stop()
    finally:
        ssc.stop(stopSparkContext=False)
    growth = (min(marks[11:]) - min(marks[:10])) / 550
    assert growth < 100, (f"memory grows by {growth:.0f} bytes per batch (lowest of every 50 batches, over "
                          "1,000 batches); the lines that grew most:\n" + "\n".join(grown))


# ------------------------------------------------------------------ slice


def test_slice_returns_remembered_batches(sc: Any) -> None:
    ssc = _context(sc)
    ssc.remember(10)
    source = ssc.queueStream([[1], [2], [3], [4]])
    doubled = source.map(lambda x: x * 2)
    doubled.foreachRDD(lambda rdd: None)
    with pytest.raises(StreamingStateError, match="before the StreamingContext started"):
        doubled.slice(0, 10)
    ssc.start()
    try:
        advance_batches(ssc, 4)
        as_datetimes = doubled.slice(datetime.fromtimestamp(2), datetime.fromtimestamp(3))
        assert [rdd.collect() for rdd in as_datetimes] == [[4], [6]]
        as_seconds = doubled.slice(1, 4)
        assert [rdd.collect() for rdd in as_seconds] == [[2], [4], [6], [8]]
        off_grid = doubled.slice(1.5, 3.7)  # aligned to the grid: 2 and 3
        assert [rdd.collect() for rdd in off_grid] == [[4], [6]]
        assert doubled.slice(-5, 0.5) == []
    finally:
        ssc.stop(stopSparkContext=False)


# ------------------------------------------------------------------ fusion and persistence


def test_consecutive_transforms_fuse(sc: Any) -> None:
    ssc = _context(sc)
    source = ssc.queueStream([[1]])
    chained = source.map(lambda x: x + 1).filter(lambda x: x > 0).map(str)
    assert isinstance(chained._stream_node, TransformedNode)
    assert chained._stream_node.dependencies == (source._stream_node,)
    assert chained._stream_node.name == "map.filter.map"
    ssc.stop(stopSparkContext=False)


def test_cached_stream_is_not_fused_through(sc: Any) -> None:
    ssc = _context(sc)
    source = ssc.queueStream([[1]])
    cached = source.map(lambda x: x + 1).cache()
    child = cached.map(str)
    assert child._stream_node.dependencies == (cached._stream_node,)
    assert cached.is_cached and not cached.is_checkpointed
    ssc.stop(stopSparkContext=False)


def test_persist_on_window_goes_to_parent(sc: Any) -> None:
    ssc = _context(sc)
    source = ssc.queueStream([[1]])
    parent = source.map(lambda x: x)
    windowed = parent.window(2, 1)
    assert isinstance(windowed._stream_node, WindowedNode)
    assert parent._stream_node.storage_level == StorageLevel.MEMORY_ONLY  # default for windows
    windowed.persist(StorageLevel.MEMORY_AND_DISK)
    assert parent._stream_node.storage_level == StorageLevel.MEMORY_AND_DISK
    assert windowed._stream_node.storage_level is None
    ssc.stop(stopSparkContext=False)


def test_cached_stream_results_are_reused(sc: Any) -> None:
    calls: list[int] = []

    def op(s: Any) -> Any:
        def record(rdd: Any) -> Any:
            calls.append(1)
            return rdd

        shared = s.transform(record).cache()
        return shared.union(shared.map(lambda x: -x))

    out = run_batches(sc, [[1], [2]], op)
    assert [sorted(b) for b in out] == [[-1, 1], [-2, 2]]
    assert len(calls) == 2  # one transform call per batch, memoised for both consumers


# ------------------------------------------------------------------ driver-only objects


def test_dstream_and_context_refuse_pickling(sc: Any) -> None:
    ssc = _context(sc)
    stream = ssc.queueStream([[1]])
    with pytest.raises(DriverOnlyError, match="A DStream can only be used on the driver"):
        cloudpickle.dumps(stream)
    with pytest.raises(DriverOnlyError, match="A StreamingContext can only be used on the driver"):
        cloudpickle.dumps(ssc)
    ssc.stop(stopSparkContext=False)


def test_dstream_referenced_in_a_task_fails_the_batch(sc: Any) -> None:
    def op(s: Any) -> Any:
        return s.map(lambda x: (x, s))

    with pytest.raises(DriverOnlyError):
        run_batches(sc, [[1]], op)


# ------------------------------------------------------------------ checkpoint settings


def test_stream_checkpoint_needs_a_directory(sc: Any) -> None:
    ssc = _context(sc)
    ssc.queueStream([[1]]).map(lambda x: x).checkpoint(2).foreachRDD(lambda rdd: None)
    with pytest.raises(StreamingStateError, match=r"The checkpoint directory has not been set"):
        ssc.start()


def test_stream_checkpoint_interval_must_be_a_multiple_of_slide(sc: Any, tmp_path: Path) -> None:
    ssc = _context(sc)
    ssc.checkpoint(str(tmp_path / "cp"))
    ssc.queueStream([[1]]).window(2, 2).checkpoint(3).foreachRDD(lambda rdd: None)
    with pytest.raises(ValueError, match=r"checkpoint interval \(3 s\) .* multiple of its slide duration \(2 s\)"):
        ssc.start()


def test_stream_checkpoint_marks_rdds(sc: Any, tmp_path: Path) -> None:
    ssc = _context(sc)
    ssc.checkpoint(str(tmp_path / "cp"))
    stream = ssc.queueStream([[1], [2], [3], [4]]).map(lambda x: x * 3).checkpoint(2)
    out = collect_batches(stream)
    ssc.start()
    advance_batches(ssc, 4)
    ssc.stop(stopSparkContext=False)
    assert out == [[3], [6], [9], [12]]
    assert (tmp_path / "cp").is_dir()
    assert stream.is_checkpointed and stream.is_cached

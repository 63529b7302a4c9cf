"""The job generator's batch grid and the job scheduler's ordering (manual clock, ``local``)."""

from __future__ import annotations

from typing import Any

import pytest

from dstream import BatchTimeoutError, StreamingContext
from dstream.clock import ManualClock
from dstream.testing import advance_batches, collect_batches, manual_clock

WAIT = 30.0


def test_batch_grid_is_epoch_aligned(sc: Any) -> None:
    ssc = StreamingContext(sc, 2)
    clock = manual_clock(ssc)
    clock.set_time(12_345)
    out = collect_batches(ssc.queueStream([[1], [2], [3]]), with_time=True)
    ssc.start()
    try:
        assert ssc._engine.graph.zero_time == 12_000  # first batch at the next multiple: 14 000
        advance_batches(ssc, 2)
    finally:
        ssc.stop(stopSparkContext=False)
    assert out == [(14_000, [1]), (16_000, [2])]


def test_missed_ticks_burst_in_order(sc: Any) -> None:
    ssc = StreamingContext(sc, 1)
    clock = manual_clock(ssc)
    out = collect_batches(ssc.queueStream([[1], [2], [3], [4]]), with_time=True)
    ssc.start()
    try:
        clock.set_time(3_500)  # a stall: batches 1, 2 and 3 are all due
        assert ssc._engine.scheduler is not None and ssc._engine.scheduler.wait_batch_done(3_000, WAIT)
        assert out == [(1_000, [1]), (2_000, [2]), (3_000, [3])]
        advance_batches(ssc, 1)
    finally:
        ssc.stop(stopSparkContext=False)
    assert out[-1] == (4_000, [4])


def test_spark_manual_clock_conf(make_sc: Any) -> None:
    from rdd import SparkConf

    sc = make_sc("local", SparkConf().set("spark.streaming.clock", "org.apache.spark.util.ManualClock"))
    ssc = StreamingContext(sc, 1)
    assert isinstance(ssc._engine.clock, ManualClock)
    out = collect_batches(ssc.queueStream([["x"]]))
    ssc.start()
    advance_batches(ssc, 1)
    ssc.stop(stopSparkContext=False)
    assert out == [["x"]]


def test_unknown_clock_conf_fails_at_construction(make_sc: Any) -> None:
    from rdd import SparkConf

    sc = make_sc("local", SparkConf().set("spark.streaming.clock", "hourglass"))
    with pytest.raises(ValueError, match="spark.streaming.clock='hourglass'"):
        StreamingContext(sc, 1)


def test_advance_batches_fails_loudly_when_a_batch_hangs(sc: Any) -> None:
    import threading

    release = threading.Event()
    ssc = StreamingContext(sc, 1)
    manual_clock(ssc)
    ssc.queueStream([[1]]).foreachRDD(lambda rdd: release.wait(WAIT))
    ssc.start()
    try:
        with pytest.raises(BatchTimeoutError, match=r"batch 1000 was not done within 0\.05 s"):
            advance_batches(ssc, 1, timeout=0.05)
    finally:
        release.set()
        ssc.stop(stopSparkContext=False)


def test_batches_without_jobs_still_complete(sc: Any) -> None:
    ssc = StreamingContext(sc, 1)
    manual_clock(ssc)
    out = collect_batches(ssc.queueStream([[1], [2], [3], [4]]).window(2, 2), with_time=True)
    ssc.start()
    try:
        advance_batches(ssc, 4)  # odd batches have no job: they must not block the helper
        assert ssc._engine.scheduler is not None and ssc._engine.scheduler.done_batches == 4
    finally:
        ssc.stop(stopSparkContext=False)
    assert out == [(2_000, [1, 2]), (4_000, [3, 4])]


def test_advance_needs_a_started_manual_context(sc: Any) -> None:
    from dstream import StreamingStateError

    ssc = StreamingContext(sc, 1)
    with pytest.raises(StreamingStateError, match="started"):
        advance_batches(ssc, 1)
    ssc.queueStream([[1]]).foreachRDD(lambda rdd: None)
    ssc.start()  # on the system clock
    try:
        with pytest.raises(StreamingStateError, match="ManualClock"):
            advance_batches(ssc, 1)
        with pytest.raises(StreamingStateError, match="before ssc.start"):
            manual_clock(ssc)
    finally:
        ssc.stop(stopSparkContext=False)


def test_system_clock_runs_batches_in_real_time(sc: Any) -> None:
    import threading

    ssc = StreamingContext(sc, 0.02)
    three = threading.Event()
    seen: list[int] = []

    def handle(time: Any, rdd: Any) -> None:
        seen.append(round(time.timestamp() * 1000))
        if len(seen) == 3:
            three.set()

    ssc.queueStream([[1]]).foreachRDD(handle)
    ssc.start()
    try:
        assert three.wait(WAIT), "three 20 ms batches did not run within the deadline"
    finally:
        ssc.stop(stopSparkContext=False)
    assert [b - a for a, b in zip(seen, seen[1:])][:2] == [20, 20]
    assert all(t % 20 == 0 for t in seen)

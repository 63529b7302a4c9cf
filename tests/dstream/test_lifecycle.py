"""Lifecycle, bad input and error propagation of StreamingContext (fresh ``local`` contexts).

Everything runs on the manual clock; every wait has a deadline (``WAIT``).
"""

from __future__ import annotations

import threading
import traceback
from typing import Any

import pytest

from rdd import ContextStoppedError

from dstream import (
    DurationError,
    NoOutputOperationError,
    Seconds,
    StreamingContext,
    StreamingStateError,
)
from dstream.testing import advance_batches, collect_batches, manual_clock

WAIT = 30.0


def _started(sc: Any, batches: list[list[Any]] | None = None, op: Any = None) -> tuple[StreamingContext, list[Any]]:
    ssc = StreamingContext(sc, 1)
    manual_clock(ssc)
    stream = ssc.queueStream(batches if batches is not None else [[1], [2], [3]])
    out = collect_batches(op(stream) if op else stream)
    ssc.start()
    return ssc, out


# --------------------------------------------------------------------------- states


def test_states_and_get_active(sc: Any) -> None:
    ssc = StreamingContext(sc, 1)
    manual_clock(ssc)
    ssc.queueStream([[1]]).foreachRDD(lambda rdd: None)
    assert StreamingContext.getActive() is None
    ssc.start()
    assert StreamingContext.getActive() is ssc
    ssc.start()  # already started: a warning, not an error
    ssc.stop(stopSparkContext=False)
    assert StreamingContext.getActive() is None
    ssc.stop(stopSparkContext=False)  # idempotent
    with pytest.raises(StreamingStateError, match="has been stopped and cannot be started again") as info:
        ssc.start()
    assert isinstance(info.value, RuntimeError)


def test_stop_before_start(sc: Any) -> None:
    ssc = StreamingContext(sc, 1)
    ssc.stop(stopSparkContext=False)
    with pytest.raises(StreamingStateError):
        ssc.queueStream([[1]])
    with pytest.raises(StreamingStateError):
        ssc.start()


def test_one_active_context_per_process(sc: Any) -> None:
    first, _ = _started(sc)
    second = StreamingContext(sc, 1)
    manual_clock(second)
    second.queueStream([[1]]).foreachRDD(lambda rdd: None)
    try:
        with pytest.raises(StreamingStateError, match=r"only one StreamingContext may be active.*test_lifecycle.py"):
            second.start()
        assert StreamingContext.getActive() is first
    finally:
        first.stop(stopSparkContext=False)
    second.start()  # allowed once the first one stopped
    assert StreamingContext.getActive() is second
    second.stop(stopSparkContext=False)


def test_stop_keeps_spark_context_for_a_new_streaming_context(sc: Any) -> None:
    ssc, out = _started(sc)
    advance_batches(ssc, 1)
    ssc.stop(stopSparkContext=False)
    assert sc.parallelize([1, 2]).count() == 2
    again, out2 = _started(sc, [[10], [20]])
    advance_batches(again, 2)
    again.stop(stopSparkContext=False)
    assert out == [[1]]
    assert out2 == [[10], [20]]


def test_stop_stops_spark_context_by_default(sc: Any) -> None:
    ssc, _ = _started(sc)
    ssc.stop()
    with pytest.raises(ContextStoppedError):
        sc.parallelize([1]).count()
    ssc.stop()  # stopping again (and the stopped SparkContext) is fine


def test_no_operations_after_start(sc: Any) -> None:
    ssc = StreamingContext(sc, 1)
    manual_clock(ssc)
    source = ssc.queueStream([[1]])
    source.foreachRDD(lambda rdd: None)
    ssc.start()
    try:
        for attempt in (
            lambda: source.map(lambda x: x),
            lambda: source.foreachRDD(lambda rdd: None),
            lambda: source.window(2, 1),
            lambda: ssc.queueStream([[1]]),
            lambda: source.cache(),
            lambda: source.checkpoint(1),
            lambda: ssc.remember(5),
        ):
            with pytest.raises(StreamingStateError, match="start"):
                attempt()
    finally:
        ssc.stop(stopSparkContext=False)
    with pytest.raises(StreamingStateError, match="stopped"):
        source.map(lambda x: x)


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("duration", [0, -1, -0.5])
def test_batch_duration_must_be_positive(sc: Any, duration: float) -> None:
    with pytest.raises(ValueError, match=r"batchDuration must be positive, got -?\d"):
        StreamingContext(sc, duration)


def test_batch_duration_is_required_and_jssc_unsupported(sc: Any) -> None:
    with pytest.raises(ValueError, match="batchDuration is required"):
        StreamingContext(sc)
    with pytest.raises(TypeError, match="jssc"):
        StreamingContext(sc, 1, jssc=object())


def test_batch_duration_accepts_float_int_and_duration(sc: Any) -> None:
    for duration, ms in ((1, 1000), (0.25, 250), (Seconds(2), 2000)):
        ssc = StreamingContext(sc, duration)
        assert ssc._engine.graph.batch_ms == ms
        ssc.stop(stopSparkContext=False)


def test_start_without_output_operation(sc: Any) -> None:
    ssc = StreamingContext(sc, 1)
    manual_clock(ssc)
    ssc.queueStream([[1]]).map(lambda x: x)
    with pytest.raises(ValueError, match="no output operations registered") as info:
        ssc.start()
    assert isinstance(info.value, NoOutputOperationError)
    assert StreamingContext.getActive() is None
    with pytest.raises(StreamingStateError):  # Spark: a failed start leaves it stopped
        ssc.start()


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda s: s.window(1.5, 1),
         r"windowDuration \(1\.5 s\) must be a multiple of the parent DStream's slide duration \(1 s\)"),
        (lambda s: s.window(2, 1.5), r"slideDuration \(1\.5 s\) must be a multiple"),
        (lambda s: s.window(2, 2).window(3, 2),
         r"windowDuration \(3 s\) must be a multiple of the parent DStream's slide duration \(2 s\)"),
        (lambda s: s.reduceByWindow(max, None, 2.5, 1), r"windowDuration \(2\.5 s\)"),
        (lambda s: s.countByWindow(2, 0.5), r"slideDuration \(500 ms\)"),
        (lambda s: s.countByValueAndWindow(0.5, 1), r"windowDuration \(500 ms\)"),
        (lambda s: s.groupByKeyAndWindow(3, 1.5), r"slideDuration \(1\.5 s\)"),
        (lambda s: s.map(lambda x: (x, 1)).reduceByKeyAndWindow(max, None, 1.2), r"windowDuration \(1\.2 s\)"),
        (lambda s: s.window(0, 1), "windowDuration must be positive"),
        (lambda s: s.union(s.window(2, 2)), r"same slide duration, got 1 s and 2 s"),
        (lambda s: s.join(s.window(2, 2)), r"same slide duration"),
        (lambda s: s.transformWith(lambda a, b: a, s.window(2, 2)), r"same slide duration"),
        (lambda s: s.context().union(s, s.window(3, 3)), r"same slide duration, got 1 s, 3 s"),
        (lambda s: s.context().union(), "at least one DStream"),
    ],
)
def test_value_errors_name_values_and_rule(sc: Any, build: Any, message: str) -> None:
    ssc = StreamingContext(sc, 1)
    stream = ssc.queueStream([[1]])
    with pytest.raises(ValueError, match=message) as info:
        build(stream)
    assert isinstance(info.value, DurationError) or "at least one" in message
    ssc.stop(stopSparkContext=False)


def test_transform_must_return_an_rdd(sc: Any) -> None:
    ssc, out = _started(sc, [[1], [2]], lambda s: s.transform(lambda rdd: None if rdd.count() == 1 else rdd))
    advance_batches(ssc, 2)
    with pytest.raises(TypeError, match=r"transform\(\) returned None .* it must return an RDD"):
        ssc.awaitTerminationOrTimeout(WAIT)
    ssc.stop(stopSparkContext=False)
    assert out == []  # both batches had one record: both skipped


# --------------------------------------------------------------------------- errors


class UserError(Exception):
    pass


def _fail_on_two(rdd: Any) -> None:
    if rdd.collect() == [2]:
        raise UserError("batch two is bad")


def test_batch_error_is_reraised_with_traceback_and_later_batches_run(sc: Any) -> None:
    ssc = StreamingContext(sc, 1)
    manual_clock(ssc)
    stream = ssc.queueStream([[1], [2], [3], [4]])
    stream.foreachRDD(_fail_on_two)
    out = collect_batches(stream)
    ssc.start()
    try:
        advance_batches(ssc, 1)
        assert ssc.awaitTerminationOrTimeout(0.001) is False  # no error yet, still running
        advance_batches(ssc, 3)
        with pytest.raises(UserError, match="batch two is bad") as info:
            ssc.awaitTermination()
        frames = [frame.name for frame in traceback.extract_tb(info.value.__traceback__)]
        assert "_fail_on_two" in frames
        with pytest.raises(UserError):  # every later call raises it again
            ssc.awaitTerminationOrTimeout(1)
        tb_length = len(traceback.extract_tb(info.value.__traceback__))
        with pytest.raises(UserError) as again:
            ssc.awaitTermination(1)
        assert len(traceback.extract_tb(again.value.__traceback__)) == tb_length  # does not grow
    finally:
        ssc.stop(stopSparkContext=False)
    assert out == [[1], [2], [3], [4]]  # the second output op still ran for every batch


def _boom(x: int) -> int:
    if x == 2:
        raise UserError(f"bad record {x}")
    return x


def test_error_in_task_function_is_the_users_exception(sc: Any) -> None:
    ssc, out = _started(sc, [[1], [2], [3]], lambda s: s.map(_boom))
    advance_batches(ssc, 3)
    with pytest.raises(UserError, match="bad record 2"):
        ssc.awaitTermination(WAIT)
    ssc.stop(stopSparkContext=False)
    assert out == [[1], [3]]


def test_error_while_generating_skips_only_that_batch(sc: Any) -> None:
    def transform(rdd: Any) -> Any:
        if rdd.collect() == [2]:  # an action at generation time, as users do
            raise UserError("generation failed")
        return rdd

    ssc, out = _started(sc, [[1], [2], [3]], lambda s: s.transform(transform))
    advance_batches(ssc, 3)
    with pytest.raises(UserError, match="generation failed"):
        ssc.awaitTerminationOrTimeout(WAIT)
    ssc.stop(stopSparkContext=False)
    assert out == [[1], [3]]


def test_await_termination_returns_after_stop(sc: Any) -> None:
    ssc, _ = _started(sc)
    assert ssc.awaitTerminationOrTimeout(0.001) is False
    assert ssc.awaitTermination(0.001) is None
    stopper = threading.Thread(target=ssc.stop, kwargs={"stopSparkContext": False})
    stopper.start()
    assert ssc.awaitTerminationOrTimeout(WAIT) is True
    ssc.awaitTermination()
    stopper.join(WAIT)


def test_stop_from_inside_an_output_operation(sc: Any) -> None:
    ssc = StreamingContext(sc, 1)
    manual_clock(ssc)
    seen: list[Any] = []

    def handle(rdd: Any) -> None:
        seen.append(rdd.collect())
        ssc.stop(stopSparkContext=False)

    ssc.queueStream([[1], [2]]).foreachRDD(handle)
    ssc.start()
    ssc._engine.clock.set_time(1000)  # type: ignore[attr-defined]
    assert ssc.awaitTerminationOrTimeout(WAIT) is True
    assert StreamingContext.getActive() is None
    assert seen == [[1]]


def _gated(sc: Any, graceful: bool) -> list[Any]:
    """Generate five batches while the first job blocks, then stop from that job."""
    ssc = StreamingContext(sc, 1)
    clock = manual_clock(ssc)
    generated = threading.Event()
    seen: list[Any] = []

    def handle(rdd: Any) -> None:
        values = rdd.collect()
        if values == [1]:
            assert generated.wait(WAIT)
            ssc.stop(stopSparkContext=False, stopGraceFully=graceful)
        seen.append(values)

    ssc.queueStream([[1], [2], [3], [4], [5]]).foreachRDD(handle)
    ssc.start()
    clock.set_time(5000)  # five ticks at once: they burst, none is skipped
    assert ssc._engine.generator is not None and ssc._engine.scheduler is not None
    assert ssc._engine.generator.wait_generated(5000, WAIT)
    generated.set()
    assert ssc.awaitTerminationOrTimeout(WAIT)
    job_thread = ssc._engine.scheduler._thread
    assert job_thread is not None
    job_thread.join(WAIT)
    assert not job_thread.is_alive()
    return seen


def test_graceful_stop_runs_the_generated_batches(sc: Any) -> None:
    assert _gated(sc, graceful=True) == [[1], [2], [3], [4], [5]]


def test_ungraceful_stop_drops_queued_batches(sc: Any) -> None:
    assert _gated(sc, graceful=False) == [[1]]


def test_graceful_stop_from_main_thread(sc: Any) -> None:
    ssc = StreamingContext(sc, 1)
    clock = manual_clock(ssc)
    gate = threading.Event()
    seen: list[Any] = []

    def handle(rdd: Any) -> None:
        gate.wait(WAIT)
        seen.append(rdd.collect())

    ssc.queueStream([[1], [2], [3]]).foreachRDD(handle)
    ssc.start()
    clock.set_time(3000)
    assert ssc._engine.generator is not None and ssc._engine.generator.wait_generated(3000, WAIT)
    stopper = threading.Thread(target=ssc.stop, kwargs={"stopSparkContext": False, "stopGraceFully": True})
    stopper.start()
    gate.set()
    stopper.join(WAIT)
    assert not stopper.is_alive()
    assert seen == [[1], [2], [3]]


def test_interpreter_exit_stops_an_active_context(tmp_path: Any) -> None:
    import subprocess
    import sys

    script = tmp_path / "leave_running.py"
    script.write_text(
        "from rdd import SparkContext\n"
        "from dstream import StreamingContext\n"
        "sc = SparkContext('local')\n"
        "ssc = StreamingContext(sc, 0.01)\n"
        "ssc.queueStream([[1]], default=[2]).map(lambda x: x).foreachRDD(lambda rdd: rdd.collect())\n"
        "ssc.start()\n"
        "ssc.awaitTerminationOrTimeout(0.2)\n"
        "print('leaving without stop')\n"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=WAIT)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "leaving without stop\n"
    assert "Traceback" not in done.stderr

"""StreamingListener: event order and BatchInfo / OutputOperationInfo fields.

Under the manual clock every stamp is a manual time, so the fields are exact: an output
operation that advances the clock by 250 ms makes the batch's processing delay 250 ms.
"""

from __future__ import annotations

from typing import Any

import pytest

from rdd import SparkConf
from rdd.engine_api import listener_bus

from dstream import StreamingContext, StreamingListener
from dstream.listener import BatchInfo, OutputOperationInfo, StreamingListenerBatchCompleted
from dstream.testing import advance_batches, manual_clock
from tests.conftest import LOCAL

WAIT = 30.0


class Recorder(StreamingListener):
    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    def onStreamingStarted(self, streamingStarted: Any) -> None:  # noqa: N802, N803
        self.events.append(("streamingStarted", streamingStarted.time()))

    def onBatchSubmitted(self, batchSubmitted: Any) -> None:  # noqa: N802, N803
        self.events.append(("batchSubmitted", batchSubmitted.batchInfo()))

    def onBatchStarted(self, batchSubmitted: Any) -> None:  # noqa: N802, N803
        self.events.append(("batchStarted", batchSubmitted.batchInfo()))

    def onBatchCompleted(self, batchCompleted: Any) -> None:  # noqa: N802, N803
        self.events.append(("batchCompleted", batchCompleted.batchInfo()))

    def onOutputOperationStarted(self, outputOperationStarted: Any) -> None:  # noqa: N802, N803
        self.events.append(("outputOperationStarted", outputOperationStarted.outputOperationInfo()))

    def onOutputOperationCompleted(self, outputOperationCompleted: Any) -> None:  # noqa: N802, N803
        self.events.append(("outputOperationCompleted", outputOperationCompleted.outputOperationInfo()))


class Broken(StreamingListener):
    def onBatchCompleted(self, batchCompleted: Any) -> None:  # noqa: N802, N803
        raise RuntimeError("listener bug")


def _run(sc: Any, listeners: list[StreamingListener], fail_second: bool = True) -> StreamingContext:
    ssc = StreamingContext(sc, 1)
    clock = manual_clock(ssc)
    for listener in listeners:
        ssc.addStreamingListener(listener)
    stream = ssc.queueStream([[1, 2], [3]])

    def slow(rdd: Any) -> None:
        rdd.count()
        clock.advance(250)  # "takes" 250 ms of manual time

    def maybe_fail(rdd: Any) -> None:
        if fail_second and rdd.collect() == [3]:
            raise ValueError("second batch fails")

    stream.foreachRDD(slow)
    stream.foreachRDD(maybe_fail)
    ssc.start()
    advance_batches(ssc, 2)
    ssc.stop(stopSparkContext=False)  # delivers every queued event first
    return ssc


def test_event_order(sc: Any) -> None:
    recorder = Recorder()
    _run(sc, [recorder])
    names = [name for name, _ in recorder.events]
    per_batch = [
        "batchSubmitted",
        "batchStarted",
        "outputOperationStarted",
        "outputOperationCompleted",
        "outputOperationStarted",
        "outputOperationCompleted",
        "batchCompleted",
    ]
    assert names == ["streamingStarted", *per_batch, *per_batch]
    assert recorder.events[0][1] == 0  # the manual clock's time at start()
    op_ids = [info.id() for name, info in recorder.events if name.startswith("outputOperation")]
    assert op_ids == [0, 0, 1, 1, 0, 0, 1, 1]


def test_batch_info_fields(sc: Any) -> None:
    recorder = Recorder()
    _run(sc, [recorder])
    batches = [info for name, info in recorder.events if name == "batchCompleted"]
    assert [b.batchTime().milliseconds() for b in batches] == [1000, 2000]
    first: BatchInfo = batches[0]
    assert first.submissionTime() == 1000
    assert first.processingStartTime() == 1000
    assert first.processingEndTime() == 1250
    assert first.schedulingDelay() == 0
    assert first.processingDelay() == 250
    assert first.totalDelay() == 250
    assert first.numRecords() == 0  # queue streams report no counts (as in Spark)
    assert first.streamIdToInputInfo() == {}
    ops = first.outputOperationInfos()
    assert sorted(ops) == [0, 1]
    op0: OutputOperationInfo = ops[0]
    assert op0.batchTime().milliseconds() == 1000
    assert op0.name() == "foreachRDD"
    assert "test_listener.py:" in op0.description()
    assert (op0.startTime(), op0.endTime()) == (1000, 1250)
    assert op0.failureReason() is None
    assert ops[1].failureReason() is None

    second = batches[1]
    assert second.submissionTime() == 2000
    assert second.processingDelay() == 250
    failure = second.outputOperationInfos()[1].failureReason()
    assert failure is not None and "ValueError: second batch fails" in failure
    assert "maybe_fail" in failure  # the traceback names the user's function


def test_unknown_times_are_minus_one_before_processing(sc: Any) -> None:
    recorder = Recorder()
    _run(sc, [recorder], fail_second=False)
    submitted = [info for name, info in recorder.events if name == "batchSubmitted"][0]
    assert submitted.processingStartTime() == -1
    assert submitted.processingEndTime() == -1
    assert submitted.schedulingDelay() == -1
    assert submitted.processingDelay() == -1
    assert submitted.totalDelay() == -1
    started_op = [info for name, info in recorder.events if name == "outputOperationStarted"][0]
    assert started_op.endTime() == -1
    assert started_op.startTime() == 1000


def test_a_failing_listener_does_not_stop_the_others(sc: Any) -> None:
    recorder = Recorder()
    _run(sc, [Broken(), recorder], fail_second=False)
    assert [name for name, _ in recorder.events].count("batchCompleted") == 2


def test_remove_streaming_listener(sc: Any) -> None:
    recorder = Recorder()
    ssc = StreamingContext(sc, 1)
    manual_clock(ssc)
    ssc.addStreamingListener(recorder)
    ssc.queueStream([[1], [2]]).foreachRDD(lambda rdd: None)
    ssc.start()
    advance_batches(ssc, 1)
    assert ssc._engine.bus.wait_until_empty(WAIT)
    ssc.removeStreamingListener(recorder)
    advance_batches(ssc, 1)
    ssc.stop(stopSparkContext=False)
    completed = [info.batchTime().milliseconds() for name, info in recorder.events if name == "batchCompleted"]
    assert completed == [1000]


def test_with_nobody_listening_no_event_is_built_until_a_listener_comes(make_sc: Any) -> None:
    sc = make_sc(LOCAL, SparkConf().set("spark.ui.enabled", "false"))  # no UI, no event log
    ssc = StreamingContext(sc, 1)
    manual_clock(ssc)
    ssc.queueStream([[1], [2], [3], [4]]).foreachRDD(lambda rdd: rdd.count())
    ssc.start()
    try:
        advance_batches(ssc, 1)
        # Nothing on the SparkContext's bus would take the forwarded events, so the
        # streaming bus has no listener, and the engine builds no event for a batch.
        assert ssc._engine.bus.listeners == ()
        recorder = Recorder()
        ssc.addStreamingListener(recorder)
        advance_batches(ssc, 1)
        assert ssc._engine.bus.wait_until_empty(WAIT)
        # A program's listener on the SparkContext's bus gets the streaming events again.
        seen: list[str] = []
        spark_listener = type("Seen", (), {"on_event": lambda self, event: seen.append(type(event).__name__)})()
        listener_bus(sc).add_listener(spark_listener)
        advance_batches(ssc, 1)
        assert ssc._engine.bus.wait_until_empty(WAIT) and listener_bus(sc).wait_until_empty(WAIT)
        assert "BatchCompletedEvent" in seen
        listener_bus(sc).remove_listener(spark_listener)
        assert ssc._engine.bus.listeners == (recorder,)
        advance_batches(ssc, 1)
        assert ssc._engine.bus.wait_until_empty(WAIT)
    finally:
        ssc.stop(stopSparkContext=False)
    completed = [info.batchTime().milliseconds() for name, info in recorder.events if name == "batchCompleted"]
    assert completed == [2000, 3000, 4000]


def test_records_are_immutable_and_comparable(sc: Any) -> None:
    recorder = Recorder()
    _run(sc, [recorder], fail_second=False)
    info = recorder.events[-1][1]
    with pytest.raises(AttributeError):
        info._batch_time = 5
    assert info == BatchInfo(2000, {}, 2000, 2000, 2250, info.outputOperationInfos())
    assert info != BatchInfo(2000, {}, 2000)
    assert "BatchInfo(batch_time=2000" in repr(info)


def test_events_compare_and_print_the_fields_of_their_base_class() -> None:
    # The event types declare no slots of their own: their batchInfo is the base's field.
    first = StreamingListenerBatchCompleted(BatchInfo(1000, {}, 1000, 1000, 1010))
    second = StreamingListenerBatchCompleted(BatchInfo(2000, {}, 2000, 2000, 2010))
    assert first != second
    assert first == StreamingListenerBatchCompleted(BatchInfo(1000, {}, 1000, 1000, 1010))
    assert repr(first).startswith("StreamingListenerBatchCompleted(batch_info=BatchInfo(batch_time=1000")

"""receiverStream through a StreamingContext on a ManualClock: blocks become batches."""

from __future__ import annotations

from typing import Any

import pytest

from dstream.listener import StreamingListener
from dstream.receiver import Receiver
from dstream.testing import advance_batches, collect_batches, manual_clock
from tests.receiver.contexts import SSC, receiver_conf
from tests.receiver.helpers import WAIT, ListReceiver


class Recorder(StreamingListener):
    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    def onReceiverStarted(self, receiverStarted: Any) -> None:
        self.events.append(("started", receiverStarted.receiverInfo()))

    def onReceiverError(self, receiverError: Any) -> None:
        self.events.append(("error", receiverError.receiverInfo()))

    def onReceiverStopped(self, receiverStopped: Any) -> None:
        self.events.append(("stopped", receiverStopped.receiverInfo()))

    def onBatchCompleted(self, batchCompleted: Any) -> None:
        self.events.append(("batch", batchCompleted.batchInfo()))


@pytest.fixture(params=["local", "local[2]"])
def rsc(request: pytest.FixtureRequest, make_sc: Any) -> Any:
    return make_sc(request.param, receiver_conf())


def test_stored_records_are_the_next_batch(rsc: Any) -> None:
    ssc = SSC(rsc, 1)
    manual_clock(ssc)
    receiver = ListReceiver(list(range(300)))
    stream = ssc.receiverStream(receiver)
    out = collect_batches(stream.map(lambda x: x * 2))
    recorder = Recorder()
    ssc.addStreamingListener(recorder)
    ssc.start()
    try:
        tracker = ssc._engine.receiver_tracker
        assert tracker.wait_received(300, WAIT), "the receiver's records did not arrive"
        advance_batches(ssc, 2)
    finally:
        ssc.stop(stopSparkContext=False)
    assert out == [[x * 2 for x in range(300)], []]
    kinds = [k for k, _ in recorder.events]
    assert kinds[0] == "started" and kinds[-1] == "stopped"
    batches = [info for k, info in recorder.events if k == "batch"]
    assert [b.numRecords() for b in batches] == [300, 0]
    assert batches[0].streamIdToInputInfo()[0].numRecords() == 300


def test_each_block_is_a_partition(rsc: Any) -> None:
    ssc = SSC(rsc, 1)
    manual_clock(ssc)

    class Blocks(Receiver):
        def onStart(self) -> None:
            self.store([1, 2, 3])
            self.store(iter([4, 5]))

        def onStop(self) -> None:
            pass

    out = collect_batches(ssc.receiverStream(Blocks()).glom())
    ssc.start()
    try:
        assert ssc._engine.receiver_tracker.wait_received(5, WAIT)
        advance_batches(ssc, 1)
    finally:
        ssc.stop(stopSparkContext=False)
    assert out == [[[1, 2, 3], [4, 5]]]


def test_batch_blocks_are_released_after_the_remember_duration(rsc: Any) -> None:
    from rdd.storage import block_manager

    ssc = SSC(rsc, 1)
    manual_clock(ssc)

    class OneBlockPerStart(Receiver):
        def onStart(self) -> None:
            self.store(["x"])

        def onStop(self) -> None:
            pass

    collect_batches(ssc.receiverStream(OneBlockPerStart()))
    ssc.start()
    try:
        tracker = ssc._engine.receiver_tracker
        assert tracker.wait_received(1, WAIT)
        (block,) = tracker.block_tracker.get_unallocated_blocks(0)
        assert block_manager.current().contains(block.block_id)
        # Batch 1000 is forgotten when batch 2000 is cleaned up, at the tick of 3000.
        advance_batches(ssc, 3)
        assert not block_manager.current().contains(block.block_id)
        # Its allocation goes one batch later (older than 3000 - remember).
        assert tracker.block_tracker.pending_batch_times()[0] == 1000
        advance_batches(ssc, 1)
        assert tracker.block_tracker.pending_batch_times()[0] == 2000
    finally:
        ssc.stop(stopSparkContext=False)


def test_receivers_stop_with_the_context(rsc: Any) -> None:
    ssc = SSC(rsc, 1)
    manual_clock(ssc)
    receiver = ListReceiver([1])
    collect_batches(ssc.receiverStream(receiver))
    ssc.start()
    assert ssc._engine.receiver_tracker.wait_received(1, WAIT)
    ssc.stop(stopSparkContext=False)
    assert receiver.stops == 1 and receiver.isStopped()
    supervisor = ssc._engine.receiver_tracker.supervisor(0)
    assert supervisor is not None and supervisor.is_terminated


def test_receiver_streams_only_before_start(rsc: Any) -> None:
    from dstream.errors import StreamingStateError

    ssc = SSC(rsc, 1)
    manual_clock(ssc)
    collect_batches(ssc.receiverStream(ListReceiver([])))
    ssc.start()
    try:
        with pytest.raises(StreamingStateError, match="start"):
            ssc.receiverStream(ListReceiver([]))
    finally:
        ssc.stop(stopSparkContext=False)


def test_receiver_stream_rejects_non_receivers(rsc: Any) -> None:
    ssc = SSC(rsc, 1)
    with pytest.raises(TypeError, match="instance of dstream.Receiver"):
        ssc.receiverStream(lambda: None)
    ssc.stop(stopSparkContext=False)


def test_receiver_stopped_counts_the_records_of_the_final_flush(make_sc: Any) -> None:
    """Every line sent before a graceful stop is in onReceiverStopped's receivedRecords.

    The block interval (60 s) is far longer than the test: no block is cut while the
    lines arrive, all of them are still in the block generator's buffer when the stop
    begins, and only its final flush pushes them. The batches run on the system clock
    (0.2 s), so the graceful stop can process that last block.
    """
    from tests.receiver.helpers import wait_until
    from tests.receiver.servers import LineServer

    lines = 1234
    with LineServer() as server:
        sc = make_sc("local[2]", receiver_conf(**{"spark.streaming.blockInterval": "60s"}))
        ssc = SSC(sc, 0.2)
        out = collect_batches(ssc.socketTextStream("127.0.0.1", server.port))
        recorder = Recorder()
        ssc.addStreamingListener(recorder)
        ssc.start()
        try:
            server.send("".join(f"line {i}\n" for i in range(lines)))
            supervisor = ssc._engine.receiver_tracker.supervisor(0)
            assert supervisor is not None
            wait_until(lambda: supervisor.block_generator.statistics().records_added == lines,
                       f"the receiver storing {lines} lines")
            assert supervisor.block_generator.statistics().blocks_generated == 0
        finally:
            ssc.stop(stopSparkContext=False, stopGraceFully=True)
    stopped = [info for kind, info in recorder.events if kind == "stopped"]
    assert [info.receivedRecords() for info in stopped] == [lines]
    assert sum(len(batch) for batch in out) == lines

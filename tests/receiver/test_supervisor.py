"""Receivers under supervision: storing, restarts, stops, events, the write-ahead log."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

import pytest

from dstream.clock import ManualClock
from dstream.listener import (
    StreamingListenerReceiverError,
    StreamingListenerReceiverStarted,
    StreamingListenerReceiverStopped,
)
from dstream.receiver import Receiver
from dstream.receiver.block_handler import read_block_from_log
from dstream.receiver.errors import ReceiverConfigError, ReceiverError, ReceiverStateError
from dstream.receiver.supervisor import ReceiverState
from dstream.receiver.tracker import ReceiverTracker
from tests.receiver.helpers import WAIT, FlakyReceiver, ListReceiver, fast_settings, wait_until


def records_of(tracker: ReceiverTracker, stream_id: int = 0) -> list[Any]:
    from rdd.storage import block_manager

    out: list[Any] = []
    for info in tracker.block_tracker.get_unallocated_blocks(stream_id):
        out.extend(block_manager.current().get(info.block_id))
    return out


def kinds(events: list[Any]) -> list[str]:
    names = {
        StreamingListenerReceiverStarted: "started",
        StreamingListenerReceiverStopped: "stopped",
        StreamingListenerReceiverError: "error",
    }
    return [names[type(e)] for e in events]


def test_records_stored_one_by_one_all_arrive_in_order() -> None:
    events: list[Any] = []
    receiver = ListReceiver(list(range(500)))
    tracker = ReceiverTracker(fast_settings(), post_event=events.append)
    tracker.add_receiver(0, receiver)
    tracker.start()
    assert tracker.wait_received(500, WAIT), "records did not arrive"
    assert tracker.stop(timeout=WAIT)
    assert records_of(tracker) == list(range(500))
    assert kinds(events) == ["started", "stopped"]
    assert events[0].receiverInfo().streamId() == 0
    assert events[0].receiverInfo().name() == "ListReceiver"
    assert events[0].receiverInfo().active() is True
    assert events[1].receiverInfo().active() is False
    assert receiver.starts == 1 and receiver.stops == 1
    assert receiver.isStopped()


def test_a_block_store_is_synchronous_and_carries_metadata() -> None:
    tracker = ReceiverTracker(fast_settings(block_interval_ms=60_000))
    receiver = ListReceiver(["a", "b", "c"], batch=True)
    tracker.add_receiver(3, receiver)
    tracker.start()
    try:
        assert receiver.done.wait(WAIT)
        # No block interval passed: the block is there because store() returned.
        (block,) = tracker.block_tracker.get_unallocated_blocks(3)
        assert block.num_records == 3
        assert block.metadata == {"count": 3}
        assert records_of(tracker, 3) == ["a", "b", "c"]
    finally:
        tracker.stop(timeout=WAIT)


def test_stop_flushes_records_still_in_the_buffer() -> None:
    # A block interval longer than the test: only stop() can cut the block.
    tracker = ReceiverTracker(fast_settings(block_interval_ms=60_000))
    receiver = ListReceiver(list(range(50)))
    tracker.add_receiver(0, receiver)
    tracker.start()
    assert receiver.done.wait(WAIT)
    assert tracker.block_tracker.received_records() == 0
    assert tracker.stop_receivers(timeout=WAIT)
    assert records_of(tracker) == list(range(50))
    tracker.close()


def test_an_failing_onstart_is_restarted_after_the_delay(caplog: pytest.LogCaptureFixture) -> None:
    events: list[Any] = []
    receiver = FlakyReceiver(failures=2)
    tracker = ReceiverTracker(fast_settings(), post_event=events.append)
    tracker.add_receiver(0, receiver)
    with caplog.at_level(logging.WARNING):
        tracker.start()
        assert tracker.wait_received(1, WAIT)
    tracker.stop(timeout=WAIT)
    assert receiver.starts == 3
    assert records_of(tracker) == ["started-3"]
    assert kinds(events) == [
        "started",
        "error",
        "stopped",
        "started",
        "error",
        "stopped",
        "started",
        "stopped",
    ]
    error_info = events[1].receiverInfo()
    assert error_info.lastErrorMessage() == "Error starting receiver"
    assert "attempt 1 refused" in error_info.lastError()
    restarts = [r.getMessage() for r in caplog.records if "Restarting receiver" in r.getMessage()]
    assert len(restarts) == 2
    assert (
        "FlakyReceiver" in restarts[0]
        and "in 50 ms" in restarts[0]
        and "attempt 1 refused" in restarts[0]
    )


class RestartingReceiver(Receiver):
    """Calls restart() from its thread on every start until told to settle."""

    def __init__(self, restarts_wanted: int, duplicate: bool = False) -> None:
        super().__init__()
        self.restarts_wanted = restarts_wanted
        self.duplicate = duplicate
        self.starts = 0
        self.stops = 0
        self.store_before_restart = True

    def onStart(self) -> None:
        self.starts += 1
        threading.Thread(target=self._run, args=(self.starts,), daemon=True).start()

    def _run(self, start: int) -> None:
        self.store(f"run-{start}")
        if start <= self.restarts_wanted:
            self.restart("no more data")
            if self.duplicate:
                self.restart("no more data, said twice")

    def onStop(self) -> None:
        self.stops += 1


def test_restart_keeps_buffered_records_and_runs_onstop_then_onstart() -> None:
    tracker = ReceiverTracker(fast_settings(block_interval_ms=60_000))
    receiver = RestartingReceiver(restarts_wanted=2)
    tracker.add_receiver(0, receiver)
    tracker.start()
    wait_until(lambda: receiver.starts == 3, "the third start")
    assert tracker.stop(timeout=WAIT)
    assert receiver.stops == 3
    # Every record, including those buffered before each restart, is kept.
    assert records_of(tracker) == ["run-1", "run-2", "run-3"]


def test_duplicate_restart_requests_of_one_run_restart_once() -> None:
    tracker = ReceiverTracker(fast_settings())
    receiver = RestartingReceiver(restarts_wanted=1, duplicate=True)
    tracker.add_receiver(0, receiver)
    tracker.start()
    assert tracker.wait_received(2, WAIT)
    supervisor = tracker.supervisor(0)
    assert supervisor is not None
    wait_until(lambda: supervisor.state is ReceiverState.STARTED, "the restarted receiver")
    tracker.stop(timeout=WAIT)
    assert receiver.starts == 2
    assert supervisor.restarts == 1


def test_stop_during_a_long_restart_delay_is_prompt() -> None:
    tracker = ReceiverTracker(fast_settings(restart_delay_ms=3_600_000))
    receiver = FlakyReceiver(failures=10)
    tracker.add_receiver(0, receiver)
    tracker.start()
    supervisor = tracker.supervisor(0)
    assert supervisor is not None
    wait_until(lambda: supervisor.restarts == 1, "the first restart")
    assert tracker.stop(timeout=WAIT)
    assert receiver.starts == 1


def test_receiver_stop_is_final() -> None:
    events: list[Any] = []

    class Once(Receiver):
        def onStart(self) -> None:
            self.store("only")
            self.stop("source exhausted")

        def onStop(self) -> None:
            pass

    receiver = Once()
    tracker = ReceiverTracker(fast_settings(), post_event=events.append)
    tracker.add_receiver(0, receiver)
    tracker.start()
    supervisor = tracker.supervisor(0)
    assert supervisor is not None and supervisor.await_termination(WAIT)
    assert records_of(tracker) == ["only"]
    assert kinds(events) == ["started", "stopped"]
    with pytest.raises(ReceiverStateError):
        receiver.store(["late"])
    tracker.stop(timeout=WAIT)


def test_report_error_posts_an_event_and_keeps_receiving() -> None:
    events: list[Any] = []

    class Complaining(Receiver):
        def onStart(self) -> None:
            self.reportError("a record was malformed", ValueError("bad byte"))
            self.store("good")

        def onStop(self) -> None:
            pass

    tracker = ReceiverTracker(fast_settings(), post_event=events.append)
    tracker.add_receiver(0, Complaining())
    tracker.start()
    assert tracker.wait_received(1, WAIT)
    tracker.stop(timeout=WAIT)
    assert kinds(events) == ["started", "error", "stopped"]
    assert events[1].receiverInfo().lastErrorMessage() == "a record was malformed"
    assert "bad byte" in events[1].receiverInfo().lastError()


def test_using_a_receiver_outside_a_stream_explains() -> None:
    receiver = ListReceiver([])
    with pytest.raises(ReceiverStateError, match="receiverStream"):
        receiver.store(1)
    with pytest.raises(ReceiverStateError, match="receiverStream"):
        _ = receiver.streamId
    assert receiver.isStopped() and not receiver.isStarted()


def test_a_receiver_object_feeds_one_stream_only() -> None:
    tracker = ReceiverTracker(fast_settings())
    receiver = ListReceiver([])
    tracker.add_receiver(0, receiver)
    with pytest.raises(ReceiverStateError, match="one receiver object per"):
        tracker.add_receiver(1, receiver)
    with pytest.raises(TypeError, match="instance of dstream.Receiver"):
        tracker.add_receiver(2, object())  # type: ignore[arg-type]


def test_metadata_needs_a_block() -> None:
    tracker = ReceiverTracker(fast_settings())

    class Meta(Receiver):
        error: Exception | None = None

        def onStart(self) -> None:
            try:
                self.store("one", {"offset": 1})
            except TypeError as exc:
                Meta.error = exc

        def onStop(self) -> None:
            pass

    tracker.add_receiver(0, Meta())
    tracker.start()
    tracker.stop(timeout=WAIT)
    assert Meta.error is not None and "store([record, ...], metadata)" in str(Meta.error)


def test_write_ahead_log_holds_every_block(tmp_path: Path) -> None:
    clock = ManualClock(1_000)
    tracker = ReceiverTracker(
        fast_settings(wal_enabled=True), clock=clock, checkpoint_dir=str(tmp_path)
    )
    receiver = ListReceiver(list(range(100)))
    tracker.add_receiver(5, receiver)
    tracker.start()
    assert tracker.wait_received(100, WAIT)
    tracker.stop(timeout=WAIT)
    blocks = tracker.block_tracker.get_unallocated_blocks(5)
    assert all(b.wal_handle is not None for b in blocks)
    assert all(b.wal_handle.path.startswith(str(tmp_path / "receivedData" / "5")) for b in blocks)
    from_log = [r for b in blocks for r in read_block_from_log(b.wal_handle)]
    assert from_log == list(range(100))
    assert (tmp_path / "receivedBlockMetadata").is_dir()


def test_write_ahead_log_needs_a_checkpoint_directory() -> None:
    tracker = ReceiverTracker(fast_settings(wal_enabled=True))
    tracker.add_receiver(0, ListReceiver([]))
    with pytest.raises(ReceiverConfigError, match=r"ssc.checkpoint\(directory\)"):
        tracker.start()


def test_blocks_after_close_are_refused() -> None:
    tracker = ReceiverTracker(fast_settings())
    receiver = ListReceiver([])
    tracker.add_receiver(0, receiver)
    tracker.start()
    supervisor = tracker.supervisor(0)
    assert supervisor is not None
    wait_until(lambda: receiver.isStarted(), "the receiver to start")
    tracker.close()
    with pytest.raises(ReceiverError, match="refused"):
        supervisor.push_block(["x"])
    tracker.stop_receivers(timeout=WAIT)


def test_rate_updates_reach_the_receiver_and_its_info() -> None:
    tracker = ReceiverTracker(fast_settings(max_rate=1000.0))
    tracker.add_receiver(0, ListReceiver([]))
    tracker.start()
    try:
        assert tracker.receiver_info(0).rateLimit() == 1000.0
        tracker.send_rate_update(0, 300.0)
        assert tracker.rate_limit(0) == 300.0
        assert tracker.receiver_info(0).rateLimit() == 300.0
        tracker.send_rate_update(0, 5000.0)  # capped by maxRate
        assert tracker.rate_limit(0) == 1000.0
    finally:
        tracker.stop(timeout=WAIT)

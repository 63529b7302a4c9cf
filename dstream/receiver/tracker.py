"""ReceiverTracker: the driver side of every receiver of one StreamingContext.

What this module owns
---------------------
* The receivers of the context (one per receiver input stream) and their supervisors,
  which it starts and stops (Spark's ``ReceiverTracker``, without RPC or scheduling:
  receivers are supervised threads in the driver, so ``local[N]`` never loses a core
  to them).
* The :class:`~dstream.receiver.block_tracker.ReceivedBlockTracker`, with its event log
  in ``<checkpoint>/receivedBlockMetadata`` when a checkpoint directory is set, and the
  per-stream block handlers (the receiver write-ahead log in
  ``<checkpoint>/receivedData/<streamId>`` when enabled).
* Receiver listener events: ``ReceiverStarted`` on registration, ``ReceiverError`` on
  a reported error or a restart caused by one, ``ReceiverStopped`` on deregistration.
* Rate updates from backpressure (:meth:`send_rate_update`).

Lifecycle and the calls the engine makes, in order::

    add_receiver(stream_id, receiver)          while building the graph
    prepare(clock, checkpoint_dir, post_event) before start (the context's settings)
    start()                                    context start, before the first batch
    allocate_blocks_to_batch(t)                at each batch t, before generating jobs
    get_blocks_of_batch_and_stream(t, id)      by ReceiverInputNode.compute(t)
    cleanup_old_blocks_and_batches(threshold)  after batches are fully processed
    stop_receivers(graceful)                   first step of stop: every received record
                                               becomes a reported block
    has_unallocated_blocks()                   graceful stop waits until this is False
    close()                                    last step of stop (closes the logs)

``start``, ``stop_receivers`` and ``close`` are idempotent; :meth:`stop` is
``stop_receivers`` then ``close``.
"""

from __future__ import annotations

import enum
import logging
import os
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rdd.engine_api import block_manager

from dstream.clock import Clock, SystemClock
from dstream.listener import (
    StreamingListenerReceiverError,
    StreamingListenerReceiverStarted,
    StreamingListenerReceiverStopped,
)
from dstream.receiver.block import ReceivedBlockInfo
from dstream.receiver.block_handler import (
    BlockManagerBlockHandler,
    ReceivedBlockHandler,
    WriteAheadLogBlockHandler,
)
from dstream.receiver.block_tracker import ReceivedBlockTracker
from dstream.receiver.errors import ReceiverConfigError, ReceiverStateError
from dstream.receiver.info import ReceiverRateInfo
from dstream.receiver.receiver import Receiver
from dstream.receiver.settings import ReceiverSettings
from dstream.receiver.supervisor import ReceiverSupervisor
from dstream.wal.log import FileBasedWriteAheadLog

__all__ = ["ReceiverTracker", "TrackerState"]

logger = logging.getLogger(__name__)

#: How long a non-graceful stop waits for each receiver (Spark: 10 s for all).
RECEIVER_STOP_TIMEOUT_S = 10.0


class TrackerState(enum.Enum):
    INITIALIZED = "initialized"
    STARTED = "started"
    STOPPING = "stopping"
    STOPPED = "stopped"


@dataclass(slots=True)
class _Tracked:
    stream_id: int
    receiver: Receiver[Any]
    supervisor: ReceiverSupervisor | None = None
    handler: ReceivedBlockHandler | None = None
    active: bool = False
    last_error_message: str = ""
    last_error: str = ""
    last_error_time: int = -1
    errors: list[str] = field(default_factory=list)


class ReceiverTracker:
    """Start, stop and account for the receivers of one StreamingContext.

    Parameters
    ----------
    settings
        Receiver, rate and log settings.
    clock
        The context's clock: event stamps, log segment names and cleanup thresholds (batch
        times) all come from it.
    block_clock
        Drives block cutting (the system clock; a ManualClock in unit tests).
    post_event
        Posts listener events (the context's listener bus), or ``None``.
    checkpoint_dir
        Where the logs live; ``None`` for no logs.
    recover
        Replay the block metadata log at start (a context recovered from a checkpoint).
    """

    def __init__(
        self,
        settings: ReceiverSettings | None = None,
        clock: Clock | None = None,
        block_clock: Clock | None = None,
        post_event: Callable[[Any], None] | None = None,
        checkpoint_dir: str | None = None,
        recover: bool = False,
    ) -> None:
        self.settings = settings if settings is not None else ReceiverSettings()
        self.clock: Clock = clock if clock is not None else SystemClock()
        self.block_clock: Clock = block_clock if block_clock is not None else SystemClock()
        self._post_event = post_event
        self.checkpoint_dir = checkpoint_dir
        self.recover = recover
        self._lock = threading.RLock()
        self._receivers: dict[int, _Tracked] = {}
        self._state = TrackerState.INITIALIZED
        self.block_tracker = ReceivedBlockTracker()
        #: Clean the logs when a ReceiverInputNode forgets a batch. The checkpoint code
        #: turns this off and calls cleanup_old_blocks_and_batches after each checkpoint.
        self.cleanup_on_clear_metadata = True

    # -- set-up ------------------------------------------------------------------------
    @property
    def state(self) -> TrackerState:
        return self._state

    def add_receiver(self, stream_id: int, receiver: Receiver[Any]) -> None:
        """Register ``receiver`` as the source of input stream ``stream_id`` (before start)."""
        if not isinstance(receiver, Receiver):
            raise TypeError(
                f"receiverStream expects an instance of dstream.Receiver, got {receiver!r} of type "
                f"{type(receiver).__name__}; subclass Receiver and implement onStart/onStop"
            )
        with self._lock:
            if self._state is not TrackerState.INITIALIZED:
                raise ReceiverStateError(
                    "receivers can only be added before the StreamingContext starts"
                )
            if any(t.receiver is receiver for t in self._receivers.values()):
                raise ReceiverStateError(
                    f"{receiver!r} is already the source of another stream; create one receiver "
                    "object per ssc.receiverStream() call"
                )
            self._receivers[stream_id] = _Tracked(stream_id, receiver)

    @property
    def stream_ids(self) -> list[int]:
        return sorted(self._receivers)

    def prepare(
        self,
        clock: Clock | None = None,
        checkpoint_dir: str | None = None,
        post_event: Callable[[Any], None] | None = None,
    ) -> None:
        """Take the context's final settings just before start (the clock may change until then)."""
        with self._lock:
            if self._state is not TrackerState.INITIALIZED:
                return
            if clock is not None:
                self.clock = clock
            if checkpoint_dir is not None:
                self.checkpoint_dir = checkpoint_dir
            if post_event is not None:
                self._post_event = post_event

    # -- lifecycle -----------------------------------------------------------------------
    def start(self) -> None:
        """Open the logs, recover if asked, and start every receiver (idempotent).

        Raises
        ------
        ReceiverConfigError
            If the receiver write-ahead log is enabled without a checkpoint directory.
        """
        with self._lock:
            if self._state is not TrackerState.INITIALIZED:
                return
            settings = self.settings
            if settings.wal_enabled and not self.checkpoint_dir:
                raise ReceiverConfigError(
                    "spark.streaming.receiver.writeAheadLog.enable is true but no checkpoint "
                    "directory is set; call ssc.checkpoint(directory) before ssc.start()"
                )
            metadata_log = None
            if self.checkpoint_dir:
                metadata_log = FileBasedWriteAheadLog(
                    os.path.join(self.checkpoint_dir, "receivedBlockMetadata"),
                    self.clock.now_ms,
                    settings.driver_wal_rolling_interval_ms,
                    settings.driver_wal_max_failures,
                )
            self.block_tracker = ReceivedBlockTracker(metadata_log, recover=self.recover)
            manager = block_manager()
            for tracked in self._receivers.values():
                tracked.handler = self._make_handler(tracked, manager)
                tracked.supervisor = ReceiverSupervisor(
                    tracked.receiver,
                    tracked.stream_id,
                    self,
                    tracked.handler,
                    settings,
                    self.block_clock,
                )
            self._state = TrackerState.STARTED
            supervisors = [t.supervisor for t in self._receivers.values()]
        for supervisor in supervisors:
            assert supervisor is not None
            supervisor.start()

    def _make_handler(self, tracked: _Tracked, manager: Any) -> ReceivedBlockHandler:
        level = tracked.receiver.storageLevel
        if self.settings.wal_enabled:
            assert self.checkpoint_dir is not None
            log = FileBasedWriteAheadLog(
                os.path.join(self.checkpoint_dir, "receivedData", str(tracked.stream_id)),
                self.clock.now_ms,
                self.settings.wal_rolling_interval_ms,
                self.settings.wal_max_failures,
            )
            return WriteAheadLogBlockHandler(manager, level, log)
        return BlockManagerBlockHandler(manager, level)

    def stop_receivers(self, graceful: bool = False, timeout: float | None = None) -> bool:
        """Stop every receiver and flush its buffered records into reported blocks.

        Returns ``False`` if a receiver did not stop within the timeout (``timeout`` if
        given, else 10 s each, or unbounded when ``graceful``).
        """
        with self._lock:
            if self._state is not TrackerState.STARTED:
                if self._state is TrackerState.INITIALIZED:
                    self._state = TrackerState.STOPPING
                return True
            self._state = TrackerState.STOPPING
            supervisors = [
                t.supervisor for t in self._receivers.values() if t.supervisor is not None
            ]
        wait = timeout if timeout is not None else (None if graceful else RECEIVER_STOP_TIMEOUT_S)
        for supervisor in supervisors:
            supervisor.request_stop("Stopped by driver")
        ok = True
        for supervisor in supervisors:
            if not supervisor.await_termination(wait):
                logger.warning(
                    "receiver %s of stream %d did not stop in time",
                    supervisor.name,
                    supervisor.stream_id,
                )
                ok = False
        return ok

    def close(self) -> None:
        """Close the logs (after the last batch that needs them)."""
        with self._lock:
            if self._state is TrackerState.STOPPED:
                return
            self._state = TrackerState.STOPPED
            handlers = [t.handler for t in self._receivers.values() if t.handler is not None]
        self.block_tracker.stop()
        for handler in handlers:
            handler.close()

    def stop(self, graceful: bool = False, timeout: float | None = None) -> bool:
        """:meth:`stop_receivers`, then :meth:`close`."""
        ok = self.stop_receivers(graceful, timeout)
        self.close()
        return ok

    # -- batches (job generator thread) ------------------------------------------------
    def allocate_blocks_to_batch(self, time_ms: int) -> None:
        self.block_tracker.allocate_blocks_to_batch(time_ms)

    def get_blocks_of_batch(self, time_ms: int) -> dict[int, list[ReceivedBlockInfo]]:
        return self.block_tracker.get_blocks_of_batch(time_ms)

    def get_blocks_of_batch_and_stream(
        self, time_ms: int, stream_id: int
    ) -> list[ReceivedBlockInfo]:
        return self.block_tracker.get_blocks_of_batch_and_stream(time_ms, stream_id)

    def has_unallocated_blocks(self) -> bool:
        return self.block_tracker.has_unallocated_blocks()

    def pending_batch_times(self) -> list[int]:
        """Batches allocated before a crash and not cleaned: recovery re-runs them."""
        return self.block_tracker.pending_batch_times()

    def cleanup_old_blocks_and_batches(self, threshold_ms: int) -> None:
        """Forget allocations and delete log segments older than ``threshold_ms``.

        Call only once every batch before ``threshold_ms`` is fully processed (and, with
        checkpoints, once the checkpoint after it is written).
        """
        block_tracker = self.block_tracker
        old = [t for t in block_tracker.pending_batch_times() if t < threshold_ms]
        infos = [
            i
            for t in old
            for blocks in block_tracker.get_blocks_of_batch(t).values()
            for i in blocks
        ]
        block_tracker.cleanup_old_batches(threshold_ms)
        # Removing twice is harmless: the input node may have dropped them already.
        self.remove_blocks(infos)
        for tracked in list(self._receivers.values()):
            if tracked.handler is not None:
                tracked.handler.cleanup_old_blocks(threshold_ms)

    def remove_blocks(self, infos: list[ReceivedBlockInfo]) -> None:
        """Drop the block manager copies of blocks whose batch was forgotten."""
        manager = block_manager()
        for info in infos:
            manager.remove(info.block_id)

    # -- rates ---------------------------------------------------------------------------
    def send_rate_update(self, stream_id: int, rate: float) -> None:
        """Apply a backpressure rate to the receiver of ``stream_id``."""
        tracked = self._receivers.get(stream_id)
        if tracked is not None and tracked.supervisor is not None:
            tracked.supervisor.update_rate(rate)

    def rate_limit(self, stream_id: int) -> float | None:
        tracked = self._receivers.get(stream_id)
        if tracked is None or tracked.supervisor is None:
            return self.settings.first_rate
        return tracked.supervisor.rate_limiter.rate

    # -- SupervisorHost (supervisor threads) -------------------------------------------
    def register_receiver(self, stream_id: int, name: str) -> bool:
        with self._lock:
            tracked = self._receivers.get(stream_id)
            if tracked is None or self._state is not TrackerState.STARTED:
                return False
            tracked.active = True
        self._post(StreamingListenerReceiverStarted(self.receiver_info(stream_id)))
        return True

    def deregister_receiver(
        self, stream_id: int, message: str, error: BaseException | None
    ) -> None:
        with self._lock:
            tracked = self._receivers.get(stream_id)
            if tracked is None:
                return
            tracked.active = False
            if error is not None:
                self._record_error(tracked, message, error)
        # The supervisor already warned about a restart or an error; this is bookkeeping.
        logger.info(
            "Deregistered receiver for stream %d: %s%s",
            stream_id,
            message,
            f" - {error}" if error is not None else "",
        )
        self._post(StreamingListenerReceiverStopped(self.receiver_info(stream_id)))

    def add_block(self, info: ReceivedBlockInfo) -> bool:
        with self._lock:
            if self._state is TrackerState.STOPPED:
                return False
        return self.block_tracker.add_block(info)

    def report_error(self, stream_id: int, message: str, error: BaseException | None) -> None:
        with self._lock:
            tracked = self._receivers.get(stream_id)
            if tracked is None:
                return
            self._record_error(tracked, message, error)
        self._post(StreamingListenerReceiverError(self.receiver_info(stream_id)))

    def _record_error(self, tracked: _Tracked, message: str, error: BaseException | None) -> None:
        tracked.last_error_message = message
        tracked.last_error = (
            "" if error is None else "".join(traceback.format_exception(error)).rstrip()
        )
        tracked.last_error_time = self.clock.now_ms()

    # -- introspection ---------------------------------------------------------------------
    def receiver_info(self, stream_id: int) -> ReceiverRateInfo:
        tracked = self._receivers[stream_id]
        supervisor = tracked.supervisor
        rate = supervisor.rate_limiter.rate if supervisor is not None else self.settings.first_rate
        name = supervisor.name if supervisor is not None else type(tracked.receiver).__name__
        return ReceiverRateInfo(
            stream_id,
            name,
            tracked.active,
            "driver",
            "driver",
            tracked.last_error_message,
            tracked.last_error,
            tracked.last_error_time,
            rate_limit=-1.0 if rate is None else rate,
            received_records=self.block_tracker.received_records(stream_id),
        )

    def supervisor(self, stream_id: int) -> ReceiverSupervisor | None:
        tracked = self._receivers.get(stream_id)
        return None if tracked is None else tracked.supervisor

    def wait_received(self, records: int, timeout: float, stream_id: int | None = None) -> bool:
        """Block until ``records`` records have been stored and reported; ``False`` on timeout."""
        return self.block_tracker.wait_received(records, timeout, stream_id)

    def _post(self, event: Any) -> None:
        post = self._post_event
        if post is not None:
            try:
                post(event)
            except Exception:  # noqa: BLE001 - events are best effort
                logger.exception("posting %s failed", type(event).__name__)

    def __repr__(self) -> str:
        return f"<ReceiverTracker receivers={self.stream_ids} state={self._state.value}>"

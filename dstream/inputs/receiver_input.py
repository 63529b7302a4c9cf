"""ReceiverInputNode: the graph source fed by a receiver (``receiverStream``, ``socketTextStream``).

What this module owns
---------------------
For batch ``t``: the blocks the :class:`~dstream.receiver.tracker.ReceiverTracker`
allocated to ``t`` for this stream become one :class:`~dstream.inputs.block_rdd.BlockNode`
RDD (one partition per block, possibly none), and ``input_info(t)`` reports their record
count (for ``BatchInfo.numRecords`` and backpressure).

* Allocation happens at generation time. ``compute(t)`` asks the tracker to allocate
  ``t`` first; allocation is idempotent per time, so when the job generator allocates
  at the start of each tick (Spark's order) this call does nothing.
* Lifecycle: ``start()`` starts the tracker (every receiver of the context, once);
  ``stop()`` stops it. The engine may do both itself, earlier (graceful stop
  must stop receivers *before* the last batches); both are idempotent.
* Cleanup: when the node forgets batch ``t`` (``clear_metadata``), the block manager
  copies of its blocks are removed, and, unless the checkpoint code took that job over
  (``tracker.cleanup_on_clear_metadata``), allocations and log segments older than
  ``t - remember`` are deleted too.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rdd.engine_api import rdd_of

from dstream.inputs.base import InputHost, InputNode
from dstream.inputs.block_rdd import BlockNode, usable_blocks
from dstream.listener import StreamInputInfo
from dstream.receiver.receiver import Receiver
from dstream.receiver.tracker import ReceiverTracker

if TYPE_CHECKING:
    from dstream.graph import DStreamGraph

__all__ = ["ReceiverInputNode"]

logger = logging.getLogger(__name__)


class ReceiverInputNode(InputNode):
    """A stream whose batches are the blocks stored by one receiver.

    Parameters
    ----------
    graph
        The context's graph.
    receiver
        The user's (or a built-in) receiver.
    name
        The stream's name (``socketTextStream``, ``receiverStream``...).

    The engine's receiver tracker comes with :meth:`attach`.
    """

    def __init__(
        self, graph: DStreamGraph, receiver: Receiver[Any], name: str = "receiverStream"
    ) -> None:
        super().__init__(graph, name)
        self.receiver = receiver
        self.tracker: ReceiverTracker = None  # type: ignore[assignment]  # set by attach()
        # Called once before the tracker starts: the engine hands over its final clock,
        # checkpoint directory and listener bus.
        self._before_start: Callable[[], None] | None = None
        self._infos: dict[int, StreamInputInfo] = {}
        receiver._stream_id = self.input_id

    @property
    def stream_id(self) -> int:
        return self.input_id

    # -- checkpointed graphs ---------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        # The tracker (threads, locks, logs) belongs to one running engine; a restored
        # graph gets the new engine's tracker through attach().
        state = super().__getstate__()
        state["tracker"] = None
        state["_before_start"] = None
        state["_infos"] = {}
        return state

    def attach(self, host: InputHost) -> None:
        """Register the receiver with the engine's tracker; with backpressure, a controller
        that pushes each new rate to the receiver's limiter."""
        tracker = host.receiver_tracker
        self.tracker = tracker
        self._before_start = host.prepare_receivers
        tracker.add_receiver(self.input_id, self.receiver)
        if host.receiver_settings.backpressure_enabled:
            stream_id = self.input_id

            def publish(rate: float) -> None:
                tracker.send_rate_update(stream_id, rate)

            host.rate_controller(stream_id, publish)

    # -- lifecycle ---------------------------------------------------------------------
    def start(self) -> None:
        if self._before_start is not None:
            self._before_start()
        self.tracker.start()

    def stop(self) -> None:
        self.tracker.stop()

    # -- per batch (job generator thread) ------------------------------------------------
    def compute_next(self, time_ms: int) -> Any:
        tracker = self.tracker
        tracker.allocate_blocks_to_batch(time_ms)
        infos = usable_blocks(
            tracker.get_blocks_of_batch_and_stream(time_ms, self.input_id), time_ms
        )
        self._infos[time_ms] = StreamInputInfo(self.input_id, sum(i.num_records for i in infos))
        sc = self.graph.sc
        return rdd_of(sc, BlockNode(infos))

    def input_info(self, time_ms: int) -> StreamInputInfo | None:
        return self._infos.get(time_ms)

    def recorded_batch_times(self) -> list[int]:
        """Batches whose blocks the write-ahead log recovered (after the tracker started)."""
        return self.tracker.pending_batch_times() if self.tracker is not None else []

    # -- cleanup (job generator thread, after batch time_ms completed) ---------------------
    def clear_metadata(self, time_ms: int, *args: Any, **kwargs: Any) -> None:
        horizon = time_ms - self.remember_ms
        forgotten = [t for t in self.generated if t <= horizon]
        super().clear_metadata(time_ms, *args, **kwargs)
        tracker = self.tracker
        for t in forgotten:
            self._infos.pop(t, None)
            if self.graph.unpersist:
                tracker.remove_blocks(tracker.get_blocks_of_batch_and_stream(t, self.input_id))
        if forgotten and tracker.cleanup_on_clear_metadata:
            tracker.cleanup_old_blocks_and_batches(self._cleanup_threshold(time_ms))

    def _cleanup_threshold(self, time_ms: int) -> int:
        # Every receiver stream must be done with a batch before its allocation goes.
        longest = max(
            (n.remember_ms for n in self.graph.inputs if isinstance(n, ReceiverInputNode)),
            default=self.remember_ms,
        )
        return time_ms - longest

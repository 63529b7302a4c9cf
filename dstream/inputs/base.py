"""InputNode: a source node of the DStream graph.

What this module owns
---------------------
The contract of inputs: their slide is the batch duration, they have no parents, they
are registered with the graph (ids in creation order, from 0), and they have a
``start``/``stop`` lifecycle and an optional per-batch :class:`StreamInputInfo`
(record count and metadata for ``BatchInfo``).

Connection to the engine: :meth:`InputNode.attach` is the one call through which an
input reaches the engine that runs it (an :class:`InputHost`: the clock, the receiver
tracker, backpressure controllers). The engine calls it when the stream is created and
again when a graph restored from a checkpoint gets its new engine; whatever an input
takes from its host must therefore be dropped from its pickled state.

Invariant: an input hands out data for increasing batch times only. A request for a
time not after the last one it computed (possible through ``slice`` of a forgotten
time) returns ``None`` instead of consuming data meant for a later batch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from dstream.listener import StreamInputInfo
from dstream.nodes.base import StreamNode

if TYPE_CHECKING:
    from dstream.clock import Clock
    from dstream.graph import DStreamGraph
    from dstream.rate.controller import RateController
    from dstream.receiver.settings import ReceiverSettings
    from dstream.receiver.tracker import ReceiverTracker

__all__ = ["InputHost", "InputNode"]


class InputHost(Protocol):
    """What an input may use of the engine that runs it (``dstream.engine.StreamingEngine``)."""

    @property
    def clock(self) -> Clock:
        """The engine's clock (final only at start: read it then)."""

    @property
    def receiver_settings(self) -> ReceiverSettings:
        """Receiver and backpressure settings, read once from the SparkConf."""

    @property
    def receiver_tracker(self) -> ReceiverTracker:
        """The tracker of every receiver of the engine (created on first use)."""

    def prepare_receivers(self) -> None:
        """Hand the tracker the final clock, checkpoint directory and listener bus."""

    def rate_controller(
        self, stream_id: int, publish: Callable[[float], None] | None = None
    ) -> RateController:
        """Build and register a backpressure controller for input ``stream_id``."""


class InputNode(StreamNode):
    """Base of the graph's sources."""

    def __init__(self, graph: DStreamGraph, name: str) -> None:
        super().__init__(graph, (), graph.batch_ms, name)
        self.input_id = graph.add_input(self)
        self.last_time: int | None = None

    def attach(self, host: InputHost) -> None:
        """Connect to the engine that runs this input (at creation, and after a restore).

        The default needs nothing; inputs with live parts (receivers, a clock,
        backpressure) take them from ``host`` here.
        """

    def compute(self, time_ms: int) -> Any:
        if self.last_time is not None and time_ms <= self.last_time:
            return None
        self.last_time = time_ms
        return self.compute_next(time_ms)

    def compute_next(self, time_ms: int) -> Any:
        """Return the RDD of the next batch, ``time_ms`` (later than any before)."""
        raise NotImplementedError

    def input_info(self, time_ms: int) -> StreamInputInfo | None:
        """Return what this input put into batch ``time_ms``, if it tracks that."""
        return None

    # -- checkpoints (see dstream.checkpoint) ------------------------------------------
    def checkpoint_state(self) -> dict[str, Any] | None:
        """Plain msgpack-able data to resume this input after a driver restart, or ``None``."""
        return None

    def restore_state(self, state: dict[str, Any]) -> None:
        """Take back :meth:`checkpoint_state` output (before start)."""

    def recovery_error(self) -> str | None:
        """Why a graph restored from a checkpoint cannot resume this input, or ``None``."""
        return None

    def recorded_batch_times(self) -> list[int]:
        """Batch times whose data this input recorded and can hand out again."""
        return []

    def rebuild_recorded_batches(self) -> None:
        """After a restart, rebuild the RDDs of the recorded batches, oldest first.

        They are then ready for windows and state streams that recompute from an older
        checkpoint, and later batches continue after them.
        """
        for time_ms in sorted(self.recorded_batch_times()):
            if time_ms in self.generated or self.zero_time is None or time_ms <= self.zero_time:
                continue
            self.generated[time_ms] = self.compute_next(time_ms)
            self.last_time = time_ms if self.last_time is None else max(self.last_time, time_ms)

    def start(self) -> None:
        """Start producing data (called once, at context start)."""

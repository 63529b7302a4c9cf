"""InputNode: a source node of the DStream graph.

What this module owns
---------------------
The contract of inputs: their slide is the batch duration, they have no parents, they
are registered with the graph (ids in creation order, from 0), and they have a
``start``/``stop`` lifecycle and an optional per-batch :class:`StreamInputInfo`
(record count and metadata for ``BatchInfo``).

Invariant: an input hands out data for increasing batch times only. A request for a
time not after the last one it computed (possible through ``slice`` of a forgotten
time) returns ``None`` instead of consuming data meant for a later batch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dstream.listener import StreamInputInfo
from dstream.nodes.base import StreamNode

if TYPE_CHECKING:
    from dstream.graph import DStreamGraph

__all__ = ["InputNode"]


class InputNode(StreamNode):
    """Base of the graph's sources."""

    def __init__(self, graph: DStreamGraph, name: str) -> None:
        super().__init__(graph, (), graph.batch_ms, name)
        self.input_id = graph.add_input(self)
        self.last_time: int | None = None

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

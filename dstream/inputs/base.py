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

    def start(self) -> None:
        """Start producing data (called once, at context start)."""

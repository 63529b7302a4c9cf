"""WindowedNode: the union of a parent's RDDs over a sliding window.

What this module owns
---------------------
``window(W, S)``: at each output time ``t`` (``zero + k*S``) the RDD is the union of the
parent's RDDs at the parent's valid times in ``(t - W, t]``, i.e. the closed interval
``[t - W + parent_slide, t]``. Every non-incremental windowed operator
(``reduceByKeyAndWindow`` without ``invFunc``, ``groupByKeyAndWindow``,
``countByValueAndWindow`` ...) is a per-batch step, this node, and a per-window step.

Invariants
----------
* ``W`` and ``S`` are positive multiples of the parent's slide (:func:`check_window`
  raises a ``ValueError`` otherwise, naming both values).
* Parents remember ``own + W`` (``window_ms``), so the RDDs a window needs are still in
  the parent's memo when it is computed.
* Windows keep emitting after the input stops: an input gives an empty RDD per batch
  once its data is exhausted, and the window drains as old batches leave it. Early
  windows reaching before the first batch are partial.
* The parent is persisted (in memory) unless it already has a storage level, because
  overlapping windows read each parent RDD ``W / S`` times. ``persist`` on the windowed
  node is redirected to the parent: persisting window RDDs would store every record
  ``W / S`` times (Spark's rule).
* A union that keeps a partitioner is left to ``sc.union`` (partitioner-aware when all
  inputs share one).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dstream.errors import DurationError
from dstream.nodes.base import StreamNode
from dstream.time import format_ms

if TYPE_CHECKING:
    from dstream.graph import DStreamGraph

__all__ = ["WindowedNode", "check_window"]


def check_window(parent_slide_ms: int, window_ms: int, slide_ms: int) -> None:
    """Raise :class:`DurationError` unless window and slide are multiples of the parent's slide."""
    for name, value in (("windowDuration", window_ms), ("slideDuration", slide_ms)):
        if value % parent_slide_ms:
            raise DurationError(
                f"{name} ({format_ms(value)}) must be a multiple of the parent DStream's "
                f"slide duration ({format_ms(parent_slide_ms)}); use a multiple such as "
                f"{format_ms(max(1, value // parent_slide_ms) * parent_slide_ms)}"
            )


class WindowedNode(StreamNode):
    """Union of the parent's RDDs in ``(t - window_ms, t]``, every ``slide_ms``."""

    def __init__(
        self,
        graph: DStreamGraph,
        parent: StreamNode,
        window_ms: int,
        slide_ms: int,
        default_storage_level: Any,
    ) -> None:
        check_window(parent.slide_ms, window_ms, slide_ms)
        super().__init__(graph, [parent], slide_ms, "window")
        self.window_ms = window_ms
        if parent.storage_level is None and default_storage_level is not None:
            parent.persist(default_storage_level)

    def compute(self, time_ms: int) -> Any:
        parent = self.dependencies[0]
        begin = time_ms - self.window_ms + parent.slide_ms
        rdds = [
            rdd
            for rdd in (parent.get_or_compute(t) for t in parent.slice_times(begin, time_ms))
            if rdd is not None
        ]
        sc = self.graph.sc
        if not rdds:
            return sc.emptyRDD()
        return sc.union(rdds)

    def persist(self, storage_level: Any) -> None:
        self.dependencies[0].persist(storage_level)

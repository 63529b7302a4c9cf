"""UnionNode: the union of several streams' RDDs of the same batch.

Invariant: all parents share one slide duration (checked by the facade, which raises a
``ValueError`` naming the durations). A parent without an RDD at a time contributes
nothing; with no RDD at all the union has none either.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from dstream.nodes.base import StreamNode

if TYPE_CHECKING:
    from dstream.graph import DStreamGraph

__all__ = ["UnionNode"]


class UnionNode(StreamNode):
    """``sc.union`` of the parents' RDDs at each batch time."""

    def __init__(self, graph: DStreamGraph, parents: Sequence[StreamNode]) -> None:
        super().__init__(graph, parents, parents[0].slide_ms, "union")

    def compute(self, time_ms: int) -> Any:
        rdds = [rdd for rdd in (p.get_or_compute(time_ms) for p in self.dependencies) if rdd is not None]
        if not rdds:
            return None
        return self.graph.sc.union(rdds)

"""TransformedNode: a per-batch function of the parents' RDDs.

What this module owns
---------------------
Every per-batch operator (``map``, ``filter``, ``reduceByKey``, ``transform``,
``transformWith``, ``join`` ...) is a :class:`TransformedNode` whose ``fn(time_ms,
*rdds)`` builds the batch's RDD lineage. ``fn`` runs on the job generator thread at
generation time; it should only *build* lineage (user ``transform`` functions that run
actions delay generation, as in Spark).

Fusion
------
:func:`chain` fuses a one-parent transform into its parent when the parent is itself a
one-parent transform that is neither persisted nor checkpointed (PySpark's
``TransformedDStream`` rule): ``ds.map(f).filter(g)`` is one node whose function applies
both, so a batch costs one memo entry and one Python call per fused chain rather than one
per operator. The rule is checked when the child is created; persisting the parent
afterwards does not un-fuse existing children (as in PySpark).

Invariants
----------
* All parents share one slide duration (the facade checks, with a ``ValueError``).
* With one parent, a missing parent RDD (``None``) gives ``None``; with several, a
  missing parent RDD is replaced by an empty RDD (PySpark's ``transformWith``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from dstream.nodes.base import StreamNode

if TYPE_CHECKING:
    from dstream.graph import DStreamGraph

__all__ = ["TransformedNode", "chain"]

BatchFn = Callable[..., Any]


class TransformedNode(StreamNode):
    """Applies ``fn(time_ms, *parent_rdds)`` to the parents' RDDs of each batch."""

    def __init__(self, graph: DStreamGraph, parents: Sequence[StreamNode], fn: BatchFn, name: str) -> None:
        super().__init__(graph, parents, parents[0].slide_ms, name)
        self.fn = fn

    def compute(self, time_ms: int) -> Any:
        parents = self.dependencies
        if len(parents) == 1:
            rdd = parents[0].get_or_compute(time_ms)
            return None if rdd is None else self.fn(time_ms, rdd)
        rdds = [p.get_or_compute(time_ms) for p in parents]
        if any(rdd is None for rdd in rdds):
            empty = self.graph.sc.emptyRDD
            rdds = [empty() if rdd is None else rdd for rdd in rdds]
        return self.fn(time_ms, *rdds)

    @property
    def fusible(self) -> bool:
        """Whether a child transform may absorb this node's function."""
        return len(self.dependencies) == 1 and self.storage_level is None and self.checkpoint_ms is None


def chain(parent: StreamNode, fn: BatchFn, name: str) -> TransformedNode:
    """Return a node applying ``fn`` to ``parent``'s RDDs, fused into ``parent`` if allowed."""
    if isinstance(parent, TransformedNode) and parent.fusible:
        first = parent.fn

        def fused(time_ms: int, rdd: Any) -> Any:
            return fn(time_ms, first(time_ms, rdd))

        return TransformedNode(parent.graph, parent.dependencies, fused, f"{parent.name}.{name}")
    return TransformedNode(parent.graph, [parent], fn, name)

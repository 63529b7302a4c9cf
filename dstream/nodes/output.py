"""ForEachNode: an output operation, the source of one job per batch.

What this module owns
---------------------
``foreachRDD`` and everything built on it (``pprint``, ``saveAsTextFiles``). At
generation time (job generator thread) :meth:`ForEachNode.generate_job` asks the parent
for its RDD, which only builds lineage; the returned :class:`~dstream.scheduler.job.Job`
runs the user function on the job thread, where actions execute.

Invariants
----------
* Output operations get ids ``0..n-1`` in registration order; the job scheduler runs a
  batch's jobs in that order.
* A parent without an RDD at ``t`` (not a valid time for it, e.g. between window slides)
  gives no job.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dstream.nodes.base import StreamNode
from dstream.scheduler.job import Job

if TYPE_CHECKING:
    from dstream.graph import DStreamGraph

__all__ = ["ForEachNode"]


class ForEachNode(StreamNode):
    """Runs ``fn(time_ms, rdd)`` on the parent's RDD of every batch."""

    def __init__(
        self,
        graph: DStreamGraph,
        parent: StreamNode,
        fn: Callable[[int, Any], Any],
        name: str,
        description: str,
    ) -> None:
        super().__init__(graph, [parent], parent.slide_ms, name)
        self.fn = fn
        self.description = description
        self.output_id = graph.add_output(self)

    def compute(self, time_ms: int) -> Any:
        return None

    def generate_job(self, time_ms: int) -> Job | None:
        rdd = self.dependencies[0].get_or_compute(time_ms)
        if rdd is None:
            return None
        fn = self.fn

        def run() -> None:
            fn(time_ms, rdd)

        return Job(time_ms, self.output_id, self.name, self.description, run)

"""QueueInputNode: ``queueStream`` — RDDs handed out one batch at a time.

What this module owns
---------------------
A queue of RDDs fixed when the stream is created (PySpark copies the Python list, so
later changes to it are not seen). With ``one_at_a_time`` each batch takes the next RDD;
otherwise the first batch takes the union of all of them. Once the queue is empty each
batch gets the ``default`` RDD if one was given, else a fresh empty RDD, so downstream
windows keep sliding (Spark's ``QueueInputDStream``).

Queue streams report no record counts (as in Spark): counting would run a job.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from dstream.inputs.base import InputNode

if TYPE_CHECKING:
    from dstream.graph import DStreamGraph

__all__ = ["QueueInputNode"]


class QueueInputNode(InputNode):
    """Hands out queued RDDs, then ``default`` or empty RDDs."""

    def __init__(self, graph: DStreamGraph, rdds: Iterable[Any], one_at_a_time: bool, default: Any) -> None:
        super().__init__(graph, "queueStream")
        self._queue: deque[Any] = deque(rdds)
        self._one_at_a_time = one_at_a_time
        self._default = default

    def compute_next(self, time_ms: int) -> Any:
        queue = self._queue
        if queue:
            if self._one_at_a_time:
                return queue.popleft()
            rdds = list(queue)
            queue.clear()
            return rdds[0] if len(rdds) == 1 else self.graph.sc.union(rdds)
        if self._default is not None:
            return self._default
        return self.graph.sc.emptyRDD()

"""QueueInputNode: ``queueStream`` — RDDs handed out one batch at a time.

What this module owns
---------------------
A queue of items fixed when the stream is created (PySpark copies the Python list, so
later changes to it are not seen). With ``one_at_a_time`` each batch takes the next
item; otherwise the first batch takes the union of all of them. Once the queue is
empty each batch gets the ``default`` RDD if one was given, else a fresh empty RDD.

Checkpoints: an item given as a list keeps its list, so a checkpointed graph carries
the data and a restarted driver hands out exactly the same batches (which items each
batch took is recorded per batch time). An item given as an RDD cannot be saved:
checkpointing such a graph fails at ``start()`` with what to do instead (Spark refuses
``queueStream`` checkpointing altogether).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from rdd import RDD

from dstream.errors import StreamingStateError
from dstream.inputs.base import InputNode

if TYPE_CHECKING:
    from dstream.graph import DStreamGraph

__all__ = ["QueueInputNode"]

_STATE_VERSION = 1


class QueueInputNode(InputNode):
    """Hands out queued items (lists or RDDs), then ``default`` or empty RDDs."""

    def __init__(self, graph: DStreamGraph, items: Iterable[Any], one_at_a_time: bool, default: Any) -> None:
        super().__init__(graph, "queueStream")
        self._items: list[Any] = list(items)
        self._next = 0
        self._one_at_a_time = one_at_a_time
        self._default = default
        #: batch time -> indices of the items it took (remembered batches only)
        self._taken: dict[int, list[int]] = {}

    def _rdd(self, item: Any) -> Any:
        return item if isinstance(item, RDD) else self.graph.sc.parallelize(item)

    def compute_next(self, time_ms: int) -> Any:
        taken = self._taken.get(time_ms)
        if taken is None:
            remaining = range(self._next, len(self._items))
            taken = list(remaining[:1] if self._one_at_a_time else remaining)
            self._taken[time_ms] = taken
            self._next += len(taken)
        if taken:
            rdds = [self._rdd(self._items[i]) for i in taken]
            return rdds[0] if len(rdds) == 1 else self.graph.sc.union(rdds)
        if self._default is not None:
            return self._rdd(self._default)
        return self.graph.sc.emptyRDD()

    def clear_metadata(self, time_ms: int, *args: Any, **kwargs: Any) -> None:
        super().clear_metadata(time_ms, *args, **kwargs)
        horizon = time_ms - self.remember_ms
        for t in [t for t in self._taken if t <= horizon]:
            for i in self._taken.pop(t):
                self._items[i] = None  # handed out and forgotten: let it be collected

    # -- checkpoints ---------------------------------------------------------------------
    def recorded_batch_times(self) -> list[int]:
        return list(self._taken)

    def checkpoint_state(self) -> dict[str, Any]:
        return {"version": _STATE_VERSION, "next": self._next,
                "taken": [[t, list(ids)] for t, ids in sorted(self._taken.items())]}

    def restore_state(self, state: dict[str, Any]) -> None:
        if state.get("version") != _STATE_VERSION:
            raise ValueError(f"queueStream checkpoint state version {state.get('version')!r} is not "
                             f"{_STATE_VERSION}; it was written by another version of dstreams")
        self._next = int(state["next"])
        self._taken = {int(t): [int(i) for i in ids] for t, ids in state["taken"]}

    def __getstate__(self) -> dict[str, Any]:
        if any(isinstance(item, RDD) for item in self._items) or isinstance(self._default, RDD):
            raise StreamingStateError(
                "a queueStream of RDDs cannot be checkpointed (an RDD cannot be saved and rebuilt "
                "after a restart): pass the batches as lists, e.g. ssc.queueStream([[1, 2], [3]]), "
                "or do not call ssc.checkpoint()"
            )
        return super().__getstate__()

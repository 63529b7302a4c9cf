"""QueueInputNode: ``queueStream`` — RDDs handed out one batch at a time.

What this module owns
---------------------
A queue of items fixed when the stream is created (PySpark copies the Python list, so
later changes to it are not seen). With ``one_at_a_time`` each batch takes the next
item; otherwise the first batch takes the union of all of them. Once the queue is
empty each batch gets the ``default`` RDD if one was given, else an empty RDD of one
partition (Spark's default: per-partition functions still run once per batch).

Checkpoints: an item given as a list keeps its list, so a checkpointed graph carries
the data and a restarted driver hands out exactly the same batches (which items each
batch took is recorded per batch time). An item given as an RDD cannot be saved: as in
Spark, such a stream still runs with ``ssc.checkpoint(dir)`` (a warning is logged once,
when the graph is saved) and only recovering from that checkpoint fails, with an error
naming the queueStream.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from rdd import RDD

from dstream.inputs.base import InputNode

if TYPE_CHECKING:
    from dstream.graph import DStreamGraph

__all__ = ["QueueInputNode"]

_STATE_VERSION = 1

logger = logging.getLogger(__name__)


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
        self._drained: RDD[Any] | None = None  # the batches' RDD once the queue is empty

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
        if getattr(self, "_drained", None) is None:  # not in checkpoints, nor in older ones
            # Spark's default for a drained queue: one empty partition, made once (a
            # per-partition function still runs once per batch, as there).
            self._drained = self.graph.sc.parallelize([], 1)
        return self._drained

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
        state = super().__getstate__()
        state["_drained"] = None  # made again when needed
        items = [*self._items, self._default]
        if not any(isinstance(item, RDD) for item in items):
            return state
        logger.warning("queueStream (input %d) was given RDDs, which cannot be saved in a "
                       "checkpoint: it runs, but this context cannot be recovered from its "
                       "checkpoints (pass the batches as lists to queueStream to make it "
                       "recoverable)", self.input_id)
        state["_items"] = [None if isinstance(item, RDD) else item for item in self._items]
        state["_default"] = None if isinstance(self._default, RDD) else self._default
        state["_unsaved_rdds"] = True
        return state

    def recovery_error(self) -> str | None:
        if not getattr(self, "_unsaved_rdds", False):
            return None
        return (f"its queueStream (input {self.input_id}) was given RDDs, which a checkpoint "
                "cannot hold, so it cannot be recovered: delete the checkpoint directory or use "
                "a new one (pass the batches to queueStream as lists to make such a stream "
                "recoverable)")

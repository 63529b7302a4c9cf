"""ContextCleaner: releases what the driver no longer references (Spark's idea).

When the driver garbage-collects a shuffle dependency (no RDD refers to that shuffle
any more) or a persisted lineage node, a ``weakref.finalize`` callback queues its id.
The queue is drained on the job thread at the start of the next job, so cleanup never
races a running job: map outputs are forgotten and their files (or memory) deleted,
and cached blocks are dropped from every worker.

Without it a long stream would keep every batch's shuffle files and stage objects.
"""

from __future__ import annotations

import queue
import weakref
from collections.abc import Callable
from typing import Any


class ContextCleaner:
    def __init__(self) -> None:
        self._pending: queue.SimpleQueue[tuple[str, int]] = queue.SimpleQueue()

    def register_shuffle(self, dependency: Any, shuffle_id: int) -> None:
        weakref.finalize(dependency, self._pending.put, ("shuffle", shuffle_id))

    def register_persisted(self, node: Any, rdd_id: int) -> None:
        if not getattr(node, "_cleaner_registered", False):
            node._cleaner_registered = True
            weakref.finalize(node, self._pending.put, ("rdd", rdd_id))

    def drain(self, remove_shuffle: Callable[[int], None], remove_rdd: Callable[[int], None]) -> int:
        """Release everything queued so far; returns how many items were released."""
        count = 0
        while True:
            try:
                kind, ident = self._pending.get_nowait()
            except queue.Empty:
                return count
            (remove_shuffle if kind == "shuffle" else remove_rdd)(ident)
            count += 1

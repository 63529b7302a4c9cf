"""``df.cache()``: a plan leaf that computes its child once and keeps the partitions.

What this module owns
---------------------
:class:`CachedRelation`, Spark's ``InMemoryRelation``: it stands for its child in
the plans of the cached DataFrame and of every DataFrame derived from it later. The
first action computes the child's record batches as a persisted RDD at the chosen
storage level (the engine's block storage keeps them, in memory or spilled to disk);
later actions read those blocks.

Invariants
----------
* The persisted RDD is built once per relation and reused by every later query;
  ``release()`` unpersists it.
* The optimizer does not look through a cached relation (its child is already
  optimized once, on first use), so predicates are applied above the cache.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from rdd import StorageLevel

from ..expressions.base import AttributeReference
from .logical import LeafPlan, LogicalPlan

if TYPE_CHECKING:
    from rdd import RDD

__all__ = ["CachedRelation"]


class CachedRelation(LeafPlan):
    """The cached form of ``child`` (a leaf: queries above it do not recompute the child)."""

    def __init__(self, child: LogicalPlan, session: Any, level: StorageLevel) -> None:
        super().__init__(child.output())
        self.cached_child = child
        self.session = session
        self.level = level
        self._rdd: RDD[Any] | None = None
        self._lock = threading.Lock()

    @property
    def child(self) -> LogicalPlan:
        return self.cached_child

    def output(self) -> list[AttributeReference]:
        return self.cached_child.output()

    def rdd(self, build: Any) -> RDD[Any]:
        """The persisted RDD of the child's batches (``build(child)`` makes it the first time)."""
        with self._lock:
            if self._rdd is None:
                self._rdd = build(self.cached_child).persist(self.level)
            return self._rdd

    def release(self, blocking: bool = False) -> None:
        """Drop the cached partitions."""
        with self._lock:
            if self._rdd is not None:
                self._rdd.unpersist(blocking)
                self._rdd = None

    def describe(self) -> str:
        return f"InMemoryRelation [{', '.join(repr(a) for a in self.output())}], {self.level}"

    def tree_string(self) -> str:
        return self.describe() + "\n   +- " + self.cached_child.tree_string().replace("\n", "\n      ")

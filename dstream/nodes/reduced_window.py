"""ReducedWindowedNode: ``reduceByKeyAndWindow`` with an inverse function, incrementally.

What this module owns
---------------------
PySpark's rule (``PythonReducedWindowedDStream``), exactly::

        previous window (t - S - W, t - S]
       |________________________|
                  |_________________________|   current window (t - W, t]
       |__________|             |___________|
        old batches              new batches

* When the previous window's RDD exists and ``W >= 5 * S``: subtract the old batches
  from it (``invFunc`` applied only to keys present in the old batches, via a left
  outer join), then add the new batches (``union`` + ``reduceByKey`` + ``filterFunc``).
  Keys whose value reached "zero" stay unless ``filterFunc`` drops them. With no new
  batch the subtracted RDD is returned as is (no filter), with no old batch the
  previous RDD is used as is, as PySpark does.
* Otherwise (the first window, or a window shorter than 5 slides: reducing twice would
  cost more than once) the window is reduced from its batches, and keys that left the
  window are gone.

Cost of a slide: the old and new batches, plus one pass over the previous window's
keys, which stay in the workers (co-partitioned union, no shuffle of the window).
The parent (per-batch reduced values) is persisted: old batches are read again when
they leave the window.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from rdd.storage.level import StorageLevel

from dstream.nodes.base import StreamNode
from dstream.nodes.stateful import StatefulNode
from dstream.nodes.windowed import check_window

if TYPE_CHECKING:
    from dstream.graph import DStreamGraph

__all__ = ["ReducedWindowedNode"]

#: PySpark: "for small window, reduce once will be better than twice".
INCREMENTAL_MIN_SLIDES = 5


class _InverseReduce:
    """``(window_value, old_value or None) -> window_value minus old_value``."""

    def __init__(self, inv_func: Callable[[Any, Any], Any]) -> None:
        self.inv_func = inv_func

    def __call__(self, pair: tuple[Any, Any]) -> Any:
        current, old = pair
        return current if old is None else self.inv_func(current, old)


class ReducedWindowedNode(StatefulNode):
    def __init__(
        self,
        graph: DStreamGraph,
        reduced: StreamNode,
        func: Callable[[Any, Any], Any],
        inv_func: Callable[[Any, Any], Any],
        window_ms: int,
        slide_ms: int,
        num_partitions: int,
        filter_func: Callable[[tuple[Any, Any]], bool] | None,
    ) -> None:
        check_window(reduced.slide_ms, window_ms, slide_ms)
        super().__init__(graph, [reduced], slide_ms, "reduceByKeyAndWindow")
        self.window_ms = window_ms
        self.func = func
        self.inverse = _InverseReduce(inv_func)
        self.num_partitions = num_partitions
        self.filter_func = filter_func
        self.storage_level = StorageLevel.MEMORY_ONLY
        if reduced.storage_level is None:
            reduced.persist(StorageLevel.MEMORY_ONLY)

    def _batches(self, begin_ms: int, end_ms: int) -> list[Any]:
        parent = self.dependencies[0]
        rdds = (parent.get_or_compute(t) for t in parent.slice_times(begin_ms, end_ms))
        return [rdd for rdd in rdds if rdd is not None]

    def _add(self, window: Any, batches: list[Any]) -> Any:
        n = self.num_partitions
        sc = self.graph.sc
        new = (batches[0] if len(batches) == 1 else sc.union(batches)).reduceByKey(self.func, n)
        result = window.union(new).reduceByKey(self.func, n) if window is not None else new
        return result.filter(self.filter_func) if self.filter_func is not None else result

    def _subtract(self, window: Any, batches: list[Any]) -> Any:
        n = self.num_partitions
        sc = self.graph.sc
        old = (batches[0] if len(batches) == 1 else sc.union(batches)).reduceByKey(self.func, n)
        return window.leftOuterJoin(old, n).mapValues(self.inverse)

    def compute(self, time_ms: int) -> Any:
        parent_slide = self.dependencies[0].slide_ms
        window, slide = self.window_ms, self.slide_ms
        previous = self.previous(time_ms)
        if previous is not None and window >= INCREMENTAL_MIN_SLIDES * slide:
            previous_end = time_ms - slide
            old = self._batches(previous_end - window + parent_slide, time_ms - window)
            subtracted = self._subtract(previous, old) if old else previous
            new = self._batches(previous_end + parent_slide, time_ms)
            return self._add(subtracted, new) if new else subtracted
        current = self._batches(time_ms - window + parent_slide, time_ms)
        return self._add(None, current) if current else None

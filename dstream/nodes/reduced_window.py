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
  window are gone. With the batches partitioned like the window, that is one narrow
  pass per partition (``WindowReduce``: a C-level copy of the first batch's table, the
  others folded in, in order, then the filter), the same calls as ``union`` +
  ``reduceByKey``; otherwise that form is used.

Cost of a slide: the old and new batches, plus one C-level copy of the previous
window's table: the previous window and every batch are partitioned alike, so the step
is one narrow pass per partition (``WindowStep``: reduce the leaving batches, apply
``invFunc`` once per key present in them, fold in the entering batches, filter), run
where the previous window is cached. It calls the user's functions exactly as PySpark's
join-and-union form does; if some input is not co-partitioned, that form is used.
The parent (per-batch reduced values) is persisted: old batches are read again when
they leave the window, and a short window reads each batch once per window it is in.

Invariants
----------
- The parent is this operator's own ``reduceByKey`` of the batch, so a partition of a
  parent RDD holds each key at most once: a batch's table is ``dict(partition)``, with
  no call of ``func``, exactly what folding it record by record into an empty table gives.
- Of the parent and the windows, the RDDs this operator reads back are persisted at
  ``MEMORY_ONLY_SHARING_IMMUTABLE``, the others at ``MEMORY_ONLY``: an incremental window
  reads its previous window once and each batch once more as it leaves, a short window
  reads each batch once per window it is in and never its previous window. A partition
  of immutable records (counts, sums of numbers and strings) at the sharing level stays
  in the worker as the objects, read back with no decode; any other partition is
  serialized, so a ``func`` that changes its first argument in place never changes a
  cached batch. Both kinds stay cached until the stream forgets them (twice the
  checkpoint interval), so keeping only what is read back as objects bounds the memory
  this costs (objects take several times their serialized size).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rdd import Partitioner, StorageLevel, portable_hash
from rdd.engine_api import MEMORY_ONLY_SHARING_IMMUTABLE, ZipPartitionsNode, lineage_of, rdd_of

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


#: A value no table holds: one ``get`` both tests and reads a key.
_MISSING = object()


def _merge_into(table: dict[Any, Any], pairs: Any, func: Callable[[Any, Any], Any]) -> None:
    """Fold ``(key, value)`` pairs into ``table`` with ``func``; a key new to it takes the value."""
    get = table.get
    for key, value in pairs:
        current = get(key, _MISSING)
        table[key] = value if current is _MISSING else func(current, value)


def fold_batches(func: Callable[[Any, Any], Any], batches: list[Any]) -> dict[Any, Any]:
    """One table of ``batches`` (each holding a key at most once), folded in order with ``func``."""
    totals = dict(batches[0])
    for batch in batches[1:]:
        _merge_into(totals, batch, func)
    return totals


def _one_table(func: Callable[[Any, Any], Any], batches: list[Any]) -> Any:
    """The ``(key, value)`` pairs of ``batches`` folded into one table: a single batch as
    it is (it holds each key once already), several through :func:`fold_batches`."""
    return batches[0] if len(batches) == 1 else fold_batches(func, batches).items()


class WindowReduce:
    """One partition of a window reduced from its batches (in time order), then filtered."""

    def __init__(self, func: Callable[[Any, Any], Any],
                 filter_func: Callable[[tuple[Any, Any]], bool] | None) -> None:
        self.func, self.filter_func = func, filter_func

    def __call__(self, split: int, iterators: list[Any]) -> Any:
        window = fold_batches(self.func, iterators)
        keep = self.filter_func
        if keep is None:
            return window.items()
        return [kv for kv in window.items() if keep(kv)]


class WindowStep:
    """One partition of the incremental window: previous - leaving + entering, filtered."""

    def __init__(self, func: Callable[[Any, Any], Any], inv_func: Callable[[Any, Any], Any],
                 filter_func: Callable[[tuple[Any, Any]], bool] | None, leaving: int, entering: int) -> None:
        self.func, self.inv_func, self.filter_func = func, inv_func, filter_func
        self.leaving, self.entering = leaving, entering

    def __call__(self, split: int, iterators: list[Any]) -> Any:
        window = dict(iterators[0])
        leaving = iterators[1:1 + self.leaving]
        entering = iterators[1 + self.leaving:]
        func = self.func
        if leaving:
            inv = self.inv_func
            get = window.get
            for key, value in _one_table(func, leaving):
                current = get(key, _MISSING)
                if current is not _MISSING:
                    window[key] = inv(current, value)
        if not entering:
            return window.items()  # PySpark returns the subtracted window unfiltered
        _merge_into(window, _one_table(func, entering), func)
        keep = self.filter_func
        if keep is None:
            return window.items()
        return [kv for kv in window.items() if keep(kv)]


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
        incremental = window_ms >= INCREMENTAL_MIN_SLIDES * slide_ms
        shared, serialized = MEMORY_ONLY_SHARING_IMMUTABLE, StorageLevel.MEMORY_ONLY
        self.storage_level = shared if incremental else serialized
        if reduced.storage_level is None:
            reduced.persist(serialized if incremental else shared)

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

    def _step(self, previous: Any, old: list[Any], new: list[Any]) -> Any:
        """The narrow step, or ``None`` when some input is not partitioned like the window."""
        partitioner = previous.partitioner
        if partitioner is None or partitioner.numPartitions != self.num_partitions:
            return None
        if any(rdd.partitioner != partitioner for rdd in old + new):
            return None
        nodes = [lineage_of(previous)] + [lineage_of(rdd) for rdd in old + new]
        step = WindowStep(self.func, self.inverse.inv_func, self.filter_func, len(old), len(new))
        return rdd_of(self.graph.sc, ZipPartitionsNode(nodes, step, preserves_partitioning=True))

    def _reduce(self, batches: list[Any]) -> Any:
        """The window reduced from ``batches`` in one narrow pass, or ``None`` when they are
        not all partitioned as ``reduceByKey(func, num_partitions)`` partitions."""
        partitioner = Partitioner(self.num_partitions, portable_hash)
        if any(rdd.partitioner != partitioner for rdd in batches):
            return None
        nodes = [lineage_of(rdd) for rdd in batches]
        reduce = WindowReduce(self.func, self.filter_func)
        return rdd_of(self.graph.sc, ZipPartitionsNode(nodes, reduce, preserves_partitioning=True))

    def compute(self, time_ms: int) -> Any:
        parent_slide = self.dependencies[0].slide_ms
        window, slide = self.window_ms, self.slide_ms
        previous = self.previous(time_ms)
        if previous is not None and window >= INCREMENTAL_MIN_SLIDES * slide:
            previous_end = time_ms - slide
            old = self._batches(previous_end - window + parent_slide, time_ms - window)
            new = self._batches(previous_end + parent_slide, time_ms)
            stepped = self._step(previous, old, new)
            if stepped is not None:
                return stepped
            subtracted = self._subtract(previous, old) if old else previous
            return self._add(subtracted, new) if new else subtracted
        current = self._batches(time_ms - window + parent_slide, time_ms)
        if not current:
            return None
        reduced = self._reduce(current)
        return reduced if reduced is not None else self._add(None, current)

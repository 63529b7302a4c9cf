"""DStream: PySpark's discretized-stream facade over a graph node.

What this module owns
---------------------
The public :class:`DStream` methods that are not key/value specific: per-batch
transformations, windows, persistence, ``slice`` and the output operations. Each method
validates its arguments (with the values in the message), converts durations to
milliseconds, and delegates to one engine call that creates a node
(:mod:`dstream.nodes`). Pair methods live in :class:`dstream.pair.PairDStreamFunctions`.

Everything funnels through two primitives, as in PySpark: per-batch operators are a
``transform`` of the batch's RDD (:func:`dstream.nodes.transformed.chain`, which fuses
consecutive ones), and windowed operators are ``window`` plus per-batch steps.

A DStream only lives on the driver: pickling one (for example by referencing it inside
an RDD function) raises at once with an explanation.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from rdd import RDD, DriverOnlyError, StorageLevel
from rdd.engine_api import count_partition

from dstream.callbacks import batch_function, returns_rdd
from dstream.callsite import user_call_site
from dstream.errors import DurationError, StreamingStateError
from dstream.nodes.output import ForEachNode
from dstream.nodes.transformed import TransformedNode, chain
from dstream.nodes.union import UnionNode
from dstream.nodes.windowed import WindowedNode, check_window
from dstream.output import print_batch, save_batch
from dstream.pair import PairDStreamFunctions, _snapshot_pairs
from dstream.time import datetime_to_ms, duration_ms, format_ms

if TYPE_CHECKING:
    from dstream.context import StreamingContext
    from dstream.nodes.base import StreamNode

__all__ = ["DStream"]

T_co = TypeVar("T_co", covariant=True)
U = TypeVar("U")


def _count_partition(iterator: Iterable[Any]) -> list[int]:
    return [count_partition(iterator)]


def _key_with_none(x: Any) -> tuple[None, Any]:
    return (None, x)


def _key_with_one(x: Any) -> tuple[Any, int]:
    return (x, 1)


def _key_with_one_key(x: Any) -> tuple[int, Any]:
    return (1, x)


def _one(x: Any) -> int:
    return 1


def _positive_count(kv: tuple[Any, int]) -> bool:
    return kv[1] > 0


def _value(kv: tuple[Any, Any]) -> Any:
    return kv[1]


class DStream(PairDStreamFunctions, Generic[T_co]):
    """A discretized stream: a sequence of RDDs, one per batch interval.

    DStreams are created by a :class:`~dstream.StreamingContext` (``queueStream``) or
    derived from other DStreams; nothing runs until the context is started, and no
    operation may be added afterwards.

    Examples
    --------
    >>> from dstream.testing import run_batches
    >>> run_batches(sc, [[1, 2], [3]], lambda s: s.map(lambda x: x * 10))
    [[10, 20], [30]]
    """

    def __init__(self, node: StreamNode, ssc: StreamingContext) -> None:
        self._stream_node = node
        self._ssc = ssc
        self._sc = ssc._sc

    def __repr__(self) -> str:
        return f"DStream({self._stream_node!r})"

    def __reduce__(self) -> Any:
        # Referencing a stream or the context inside an RDD function would ship the
        # whole graph to the workers; refuse at pickling time with the fix.
        raise DriverOnlyError(
            "A DStream can only be used on the driver. It appears that it is referenced "
            "inside a function that runs on RDD data (map, filter, foreachPartition...): "
            "use the batch's RDD instead, for example dstream.transform(lambda rdd: "
            "rdd.map(f)), and rdd.context for the SparkContext."
        )

    # -- helpers ---------------------------------------------------------------------
    def _derive(self, node: StreamNode) -> DStream[Any]:
        return DStream(node, self._ssc)

    def _with_state(self, mapped: StreamNode, internal: StreamNode) -> MapWithStateDStream:
        # pair.py builds mapWithState's stream through here: it cannot import this module.
        return MapWithStateDStream(mapped, self._ssc, internal)

    def _apply(self, fn: Callable[[int, Any], Any], name: str) -> DStream[Any]:
        """Derive a stream whose batch RDD is ``fn(time_ms, rdd)`` (fused when possible)."""
        return self._derive(chain(self._stream_node, fn, name))

    def _same_slide(self, others: Iterable[DStream[Any]], what: str) -> None:
        for other in others:
            if not isinstance(other, DStream):
                raise TypeError(f"{what} expects DStreams, got {other!r} of type {type(other).__name__}")
            if other._ssc is not self._ssc:
                raise ValueError(
                    f"{what} needs DStreams of the same StreamingContext; {other!r} belongs "
                    "to another one"
                )
            if other._stream_node.slide_ms != self._stream_node.slide_ms:
                raise DurationError(
                    f"{what} needs DStreams with the same slide duration, got "
                    f"{format_ms(self._stream_node.slide_ms)} and "
                    f"{format_ms(other._stream_node.slide_ms)}; "
                    "window one of them so their slides match"
                )

    def _window_ms(self, windowDuration: float, slideDuration: float | None) -> tuple[int, int]:  # noqa: N803
        window = duration_ms(windowDuration, "windowDuration")
        slide = self._stream_node.slide_ms if slideDuration is None else duration_ms(slideDuration, "slideDuration")
        check_window(self._stream_node.slide_ms, window, slide)
        return window, slide

    @property
    def is_cached(self) -> bool:
        """Whether the stream's RDDs are persisted (PySpark attribute)."""
        return self._stream_node.storage_level is not None

    @property
    def is_checkpointed(self) -> bool:
        """Whether the stream's RDDs are checkpointed periodically (PySpark attribute)."""
        return self._stream_node.checkpoint_ms is not None

    # -- basics ----------------------------------------------------------------------
    def context(self) -> StreamingContext:
        """Return the :class:`~dstream.StreamingContext` of this DStream."""
        return self._ssc

    def count(self) -> DStream[int]:
        """Return a DStream whose RDDs hold one element: the batch's record count.

        An empty batch counts ``0``.

        Examples
        --------
        >>> from dstream.testing import run_batches
        >>> run_batches(sc, [[1, 2, 3], []], lambda s: s.count())
        [[3], [0]]
        """
        def count(time_ms: int, rdd: Any) -> Any:
            # The extra 0 makes an empty (even partition-less) batch count as 0. The
            # context comes from the RDD: a captured one could not be checkpointed.
            counts = rdd.mapPartitions(_count_partition).union(rdd.context.parallelize([0], 1))
            return counts.map(_key_with_none).reduceByKey(operator.add, 1).map(_value)

        return self._apply(count, "count")

    def filter(self, f: Callable[[T_co], bool]) -> DStream[T_co]:
        """Return a DStream of the elements for which ``f`` returns true."""
        return self._apply(lambda t, rdd: rdd.filter(f), "filter")

    def flatMap(
        self, f: Callable[[T_co], Iterable[U]], preservesPartitioning: bool = False  # noqa: N803
    ) -> DStream[U]:
        """Return a DStream of the elements of the iterables ``f`` returns for each element.

        Examples
        --------
        >>> from dstream.testing import run_batches
        >>> run_batches(sc, [["a b", "c"]], lambda s: s.flatMap(str.split))
        [['a', 'b', 'c']]
        """
        return self._apply(lambda t, rdd: rdd.flatMap(f, preservesPartitioning), "flatMap")

    def map(self, f: Callable[[T_co], U], preservesPartitioning: bool = False) -> DStream[U]:  # noqa: N803
        """Return a DStream of ``f`` applied to every element.

        Examples
        --------
        >>> from dstream.testing import run_batches
        >>> run_batches(sc, [[1, 2]], lambda s: s.map(lambda x: x + 1))
        [[2, 3]]
        """
        return self._apply(lambda t, rdd: rdd.map(f, preservesPartitioning), "map")

    def mapPartitions(
        self, f: Callable[[Iterator[T_co]], Iterable[U]], preservesPartitioning: bool = False  # noqa: N803
    ) -> DStream[U]:
        """Return a DStream of ``f`` applied to each partition of each batch."""
        return self._apply(lambda t, rdd: rdd.mapPartitions(f, preservesPartitioning), "mapPartitions")

    def mapPartitionsWithIndex(
        self, f: Callable[[int, Iterator[T_co]], Iterable[U]], preservesPartitioning: bool = False  # noqa: N803
    ) -> DStream[U]:
        """Return a DStream of ``f(partition_index, iterator)`` for each partition of each batch."""
        return self._apply(
            lambda t, rdd: rdd.mapPartitionsWithIndex(f, preservesPartitioning), "mapPartitionsWithIndex"
        )

    def reduce(self, func: Callable[[T_co, T_co], T_co]) -> DStream[T_co]:
        """Return a DStream whose RDDs hold the batch reduced with ``func`` (none if empty).

        Examples
        --------
        >>> from dstream.testing import run_batches
        >>> run_batches(sc, [[1, 2, 3], []], lambda s: s.reduce(lambda a, b: a + b))
        [[6], []]
        """
        return self._apply(
            lambda t, rdd: rdd.map(_key_with_none).reduceByKey(func, 1).map(_value), "reduce"
        )

    def countByValue(self) -> DStream[tuple[T_co, int]]:
        """Return a DStream of ``(value, count)`` pairs for the distinct values of each batch."""
        return self.map(_key_with_one).reduceByKey(operator.add)

    def glom(self) -> DStream[list[T_co]]:
        """Return a DStream whose elements are the lists of each partition's elements."""
        return self._apply(lambda t, rdd: rdd.glom(), "glom")

    def repartition(self, numPartitions: int) -> DStream[T_co]:  # noqa: N803
        """Return a DStream with every batch reshuffled into ``numPartitions`` partitions."""
        return self._apply(lambda t, rdd: rdd.repartition(numPartitions), "repartition")

    def union(self, other: DStream[U]) -> DStream[T_co | U]:
        """Return a DStream of the elements of this and ``other`` in each batch.

        Raises
        ------
        ValueError
            If the two streams have different slide durations.
        """
        self._same_slide([other], "union")
        node = self._stream_node
        return self._derive(UnionNode(node.graph, [node, other._stream_node]))

    def transform(self, func: Callable[..., RDD[Any]]) -> DStream[Any]:
        """Return a DStream of ``func`` applied to each batch's RDD.

        Parameters
        ----------
        func
            ``func(rdd)`` or ``func(time, rdd)``, where ``time`` is the batch time as a
            naive local ``datetime``; it must return an RDD. It runs on the driver when
            the batch is generated, so it should only build RDD operations.

        Examples
        --------
        >>> from dstream.testing import run_batches
        >>> run_batches(sc, [[3, 1, 2]], lambda s: s.transform(lambda rdd: rdd.sortBy(lambda x: x)))
        [[1, 2, 3]]
        """
        fn = returns_rdd("transform", batch_function(func, 1, "transform"))
        return self._apply(fn, "transform")

    def transformWith(
        self, func: Callable[..., RDD[Any]], other: DStream[Any], keepSerializer: bool = False  # noqa: N803
    ) -> DStream[Any]:
        """Return a DStream of ``func`` applied to the RDDs of this and ``other`` per batch.

        ``func`` takes ``(rdd_a, rdd_b)`` or ``(time, rdd_a, rdd_b)`` and returns an RDD.
        ``keepSerializer`` is accepted for PySpark compatibility and has no effect.
        """
        self._same_slide([other], "transformWith")
        fn = returns_rdd("transformWith", batch_function(func, 2, "transformWith"))
        parents = [self._stream_node, other._stream_node]
        return self._derive(TransformedNode(self._stream_node.graph, parents, fn, "transformWith"))

    # -- persistence -----------------------------------------------------------------
    def _check_not_started(self, what: str) -> None:
        if self._ssc._engine.graph_closed:
            raise StreamingStateError(
                f"cannot {what} a DStream after the StreamingContext was started or stopped; "
                "call it before ssc.start()"
            )

    def cache(self) -> DStream[T_co]:
        """Persist every batch's RDD in memory (``StorageLevel.MEMORY_ONLY``); return self."""
        return self.persist(StorageLevel.MEMORY_ONLY)

    def persist(self, storageLevel: StorageLevel) -> DStream[T_co]:  # noqa: N803
        """Persist every batch's RDD at ``storageLevel``; return self.

        On a windowed stream this persists the parent stream instead (persisting the
        windows would store each record once per window it belongs to).
        """
        self._check_not_started("persist")
        self._stream_node.persist(storageLevel)
        return self

    def checkpoint(self, interval: float) -> DStream[T_co]:
        """Checkpoint this stream's RDDs every ``interval`` seconds; return self.

        Needs a checkpoint directory (``ssc.checkpoint(directory)`` or
        ``sc.setCheckpointDir(directory)``) before ``start()``. The interval must be a
        multiple of the stream's slide duration (checked at ``start()``). A stateful
        stream is also checkpointed whenever its lineage grows too deep to send to
        workers, however long the interval.
        """
        self._check_not_started("checkpoint")
        self._stream_node.checkpoint_ms = duration_ms(interval, "interval")
        if self._stream_node.storage_level is None:
            self._stream_node.persist(StorageLevel.MEMORY_ONLY)
        return self

    def slice(self, begin: datetime | float, end: datetime | float) -> list[RDD[T_co]]:
        """Return the RDDs of the batches between ``begin`` and ``end``, both inclusive.

        Parameters
        ----------
        begin, end
            Naive local ``datetime`` or unix timestamps in seconds. Times between
            batches are aligned to the batch grid. Only batches still remembered (see
            ``ssc.remember``) can be returned unchanged.
        """
        node = self._stream_node
        begin_ms = datetime_to_ms(begin)
        end_ms = datetime_to_ms(end)
        with node.graph.lock:
            times = node.slice_times(begin_ms, end_ms)
            rdds = [node.get_or_compute(t) for t in times]
        return [rdd for rdd in rdds if rdd is not None]

    # -- windows ---------------------------------------------------------------------
    def window(self, windowDuration: float, slideDuration: float | None = None) -> DStream[T_co]:  # noqa: N803
        """Return a DStream whose RDD at time t holds every element of ``(t - window, t]``.

        Parameters
        ----------
        windowDuration
            Width of the window in seconds; a multiple of this stream's slide duration.
        slideDuration
            Interval between windows in seconds (default: this stream's slide duration);
            a multiple of this stream's slide duration.

        Notes
        -----
        Windows keep being produced after the input stops, until the last batches have
        left them; the first windows are partial.

        Examples
        --------
        >>> from dstream.testing import run_batches
        >>> run_batches(sc, [[1], [2], [3]], lambda s: s.window(2, 1), num_batches=4)
        [[1], [1, 2], [2, 3], [3]]
        """
        window, slide = self._window_ms(windowDuration, slideDuration)
        parent = self._stream_node
        node = WindowedNode(parent.graph, parent, window, slide, StorageLevel.MEMORY_ONLY)
        return self._derive(node)

    def reduceByWindow(
        self,
        reduceFunc: Callable[[T_co, T_co], T_co],  # noqa: N803
        invReduceFunc: Callable[[T_co, T_co], T_co] | None,  # noqa: N803
        windowDuration: float,  # noqa: N803
        slideDuration: float,  # noqa: N803
    ) -> DStream[T_co]:
        """Return a DStream of one element per window: its elements reduced with ``reduceFunc``.

        A window with no element gives an empty RDD. With ``invReduceFunc`` (the inverse
        of ``reduceFunc``) the window is computed incrementally (PySpark keys every
        element with 1 and uses ``reduceByKeyAndWindow``; so does this).

        Examples
        --------
        >>> from dstream.testing import run_batches
        >>> add = lambda a, b: a + b
        >>> run_batches(sc, [[1], [2], [3]], lambda s: s.reduceByWindow(add, None, 2, 1))
        [[1], [3], [5]]
        """
        self._window_ms(windowDuration, slideDuration)
        keyed = self.map(_key_with_one_key)
        reduced = keyed.reduceByKeyAndWindow(reduceFunc, invReduceFunc, windowDuration, slideDuration, 1)
        return reduced.map(_value)

    def countByWindow(self, windowDuration: float, slideDuration: float) -> DStream[int]:  # noqa: N803
        """Return a DStream of one element per window: the number of elements in it.

        Incremental, as in PySpark (``reduceByWindow(add, sub, ...)``): nothing is
        emitted until the first element arrives; afterwards an empty window counts 0.
        Requires ``ssc.checkpoint(directory)``.
        """
        return self.map(_one).reduceByWindow(operator.add, operator.sub, windowDuration, slideDuration)

    def countByValueAndWindow(
        self, windowDuration: float, slideDuration: float, numPartitions: int | None = None  # noqa: N803
    ) -> DStream[tuple[T_co, int]]:
        """Return a DStream of ``(value, count)`` for the distinct values of each window.

        Incremental, as in PySpark (counts added and subtracted; values whose count
        drops to 0 are filtered out). Requires ``ssc.checkpoint(directory)``.
        """
        self._window_ms(windowDuration, slideDuration)
        counted = self.map(_key_with_one).reduceByKeyAndWindow(
            operator.add, operator.sub, windowDuration, slideDuration, numPartitions
        )
        return counted.filter(_positive_count)

    # -- output operations -----------------------------------------------------------
    def _register_output(self, fn: Callable[[int, Any], Any], name: str) -> None:
        node = self._stream_node
        ForEachNode(node.graph, node, fn, name, f"{name} at {user_call_site()}")

    def foreachRDD(self, func: Callable[..., Any]) -> None:
        """Apply ``func`` to the RDD of every batch (an output operation).

        ``func(rdd)`` or ``func(time, rdd)`` (``time`` a naive local ``datetime``) runs on
        the driver, on the job thread, in registration order with the other output
        operations. An exception is re-raised by ``awaitTermination``; later batches
        still run.

        Examples
        --------
        >>> from dstream.testing import run_batches
        >>> counts = []
        >>> def operation(stream):
        ...     stream.foreachRDD(lambda rdd: counts.append(rdd.count()))
        ...     return stream
        >>> _ = run_batches(sc, [[1, 2], [3]], operation)
        >>> counts
        [2, 1]
        """
        self._register_output(batch_function(func, 1, "foreachRDD"), "foreachRDD")

    def pprint(self, num: int = 10) -> None:
        """Print the first ``num`` elements of every batch (an output operation).

        The layout is PySpark's: a rule of 43 dashes, ``Time: <batch datetime>``,
        another rule, one element per line, ``...`` if the batch has more than ``num``
        elements, then an empty line.
        """
        if isinstance(num, bool) or not isinstance(num, int) or num < 0:
            raise ValueError(f"pprint(num) takes a non-negative int, got {num!r}")
        self._register_output(lambda t, rdd: print_batch(t, rdd, num), "pprint")

    def saveAsTextFiles(self, prefix: str, suffix: str | None = None) -> None:
        """Save every batch as a directory of text files ``prefix-<time in ms>[.suffix]``.

        Each directory holds ``part-NNNNN`` files (one line per element, ``str(element)``)
        and a ``_SUCCESS`` marker. Directories appear atomically; a batch whose directory
        is already complete (a replay) is not written again.
        """
        self._register_output(lambda t, rdd: save_batch(t, rdd, prefix, suffix), "saveAsTextFiles")


class MapWithStateDStream(DStream[Any]):
    """The result of ``mapWithState``: the mapped values, plus :meth:`stateSnapshots`."""

    def __init__(self, node: StreamNode, ssc: StreamingContext, internal: StreamNode) -> None:
        super().__init__(node, ssc)
        self._internal = internal

    def stateSnapshots(self) -> DStream[tuple[Any, Any]]:
        """Return a DStream of every ``(key, state)`` after each batch."""
        return self._derive(TransformedNode(self._internal.graph, [self._internal], _snapshot_pairs,
                                            "mapWithState.stateSnapshots"))

    def checkpoint(self, interval: float) -> MapWithStateDStream:
        """Set the checkpoint interval of the state (default: 10 batches)."""
        self._check_not_started("checkpoint")
        self._internal.checkpoint_ms = duration_ms(interval, "interval")
        return self

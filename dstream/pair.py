"""PairDStreamFunctions: the key/value operations of a DStream (a mixin of ``DStream``).

What this module owns
---------------------
Per-batch key/value operators (``reduceByKey``, ``combineByKey``, ``groupByKey``,
``partitionBy``, ``mapValues``, ``flatMapValues``, ``cogroup`` and the joins), each one
RDD operation applied to every batch, and the keyed window operators
(``reduceByKeyAndWindow``, ``groupByKeyAndWindow``).

``numPartitions=None`` means ``sc.defaultParallelism``, resolved when the operator is
defined (PySpark's rule). Binary operators join the two RDDs of the *same* batch time,
so both streams must share a slide duration.

Windowed reduces without an inverse function are ``reduceByKey`` per batch, ``window``,
then ``reduceByKey`` over the window: the cost of a window is proportional to the
batches in it. With an inverse function they are incremental (previous window +
entering - leaving batches, :mod:`dstream.nodes.reduced_window`). The state operators
(``updateStateByKey``, ``mapWithState``) live in :mod:`dstream.state`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from rdd import Partitioner, portable_hash
from rdd.engine_api import ResultIterable

from dstream.nodes.reduced_window import ReducedWindowedNode
from dstream.nodes.transformed import TransformedNode
from dstream.state.nodes import MapWithStateNode, UpdateStateNode
from dstream.state.spec import StateSpec
from dstream.state.update import mapped_values, snapshot_pairs

if TYPE_CHECKING:
    from dstream.dstream import DStream, MapWithStateDStream

__all__ = ["PairDStreamFunctions"]


def _singleton(value: Any) -> list[Any]:
    return [value]


def _extend(a: list[Any], b: list[Any]) -> list[Any]:
    a.extend(b)
    return a


def _drop_front(a: list[Any], b: list[Any]) -> list[Any]:
    return a[len(b):]


def _mapped_values(time_ms: int, rdd: Any) -> Any:
    return rdd.mapPartitions(mapped_values)


def _snapshot_pairs(time_ms: int, rdd: Any) -> Any:
    return rdd.mapPartitions(snapshot_pairs, True)


class PairDStreamFunctions:
    """Key/value operations; available on every DStream whose elements are ``(k, v)`` pairs."""

    __slots__ = ()

    def _partitions(self: DStream[Any], numPartitions: int | None) -> int:  # noqa: N803
        if numPartitions is None:
            return self._sc.defaultParallelism
        if isinstance(numPartitions, bool) or not isinstance(numPartitions, int) or numPartitions <= 0:
            raise ValueError(f"numPartitions must be a positive int or None, got {numPartitions!r}")
        return numPartitions

    def _binary(
        self: DStream[Any], other: DStream[Any], fn: Callable[[int, Any, Any], Any], name: str
    ) -> DStream[Any]:
        self._same_slide([other], name)
        node = self._stream_node
        return self._derive(TransformedNode(node.graph, [node, other._stream_node], fn, name))

    # -- per batch -------------------------------------------------------------------
    def reduceByKey(
        self: DStream[Any], func: Callable[[Any, Any], Any], numPartitions: int | None = None  # noqa: N803
    ) -> DStream[Any]:
        """Return a DStream of each batch's values merged per key with ``func``.

        Examples
        --------
        >>> from dstream.testing import run_batches
        >>> batches = [[("a", 1), ("b", 2), ("a", 3)]]
        >>> out = run_batches(sc, batches, lambda s: s.reduceByKey(lambda x, y: x + y))
        >>> sorted(out[0])
        [('a', 4), ('b', 2)]
        """
        n = self._partitions(numPartitions)
        return self._apply(lambda t, rdd: rdd.reduceByKey(func, n), "reduceByKey")

    def combineByKey(
        self: DStream[Any],
        createCombiner: Callable[[Any], Any],  # noqa: N803
        mergeValue: Callable[[Any, Any], Any],  # noqa: N803
        mergeCombiners: Callable[[Any, Any], Any],  # noqa: N803
        numPartitions: int | None = None,  # noqa: N803
    ) -> DStream[Any]:
        """Return a DStream of each batch's values combined per key (RDD ``combineByKey``)."""
        n = self._partitions(numPartitions)
        return self._apply(
            lambda t, rdd: rdd.combineByKey(createCombiner, mergeValue, mergeCombiners, n), "combineByKey"
        )

    def groupByKey(self: DStream[Any], numPartitions: int | None = None) -> DStream[Any]:  # noqa: N803
        """Return a DStream of ``(key, values)`` for each batch; values are iterable."""
        n = self._partitions(numPartitions)
        return self._apply(lambda t, rdd: rdd.groupByKey(n), "groupByKey")

    def partitionBy(
        self: DStream[Any],
        numPartitions: int,  # noqa: N803
        partitionFunc: Callable[[Any], int] = portable_hash,  # noqa: N803
    ) -> DStream[Any]:
        """Return a DStream with every batch partitioned by key into ``numPartitions``."""
        n = self._partitions(numPartitions)
        return self._apply(lambda t, rdd: rdd.partitionBy(n, partitionFunc), "partitionBy")

    def mapValues(self: DStream[Any], f: Callable[[Any], Any]) -> DStream[Any]:
        """Return a DStream of ``(key, f(value))``; partitioning is kept."""
        return self._apply(lambda t, rdd: rdd.mapValues(f), "mapValues")

    def flatMapValues(self: DStream[Any], f: Callable[[Any], Iterable[Any]]) -> DStream[Any]:
        """Return a DStream of ``(key, x)`` for each ``x`` in ``f(value)``; partitioning is kept."""
        return self._apply(lambda t, rdd: rdd.flatMapValues(f), "flatMapValues")

    def cogroup(
        self: DStream[Any], other: DStream[Any], numPartitions: int | None = None  # noqa: N803
    ) -> DStream[Any]:
        """Return a DStream of ``(key, (values_here, values_there))`` per batch."""
        n = self._partitions(numPartitions)
        return self._binary(other, lambda t, a, b: a.cogroup(b, n), "cogroup")

    def join(
        self: DStream[Any], other: DStream[Any], numPartitions: int | None = None  # noqa: N803
    ) -> DStream[Any]:
        """Return a DStream of ``(key, (v, w))`` for keys present in both streams' batch.

        Examples
        --------
        >>> from dstream.testing import run_batches
        >>> run_batches(sc, [[("a", 1)]], lambda s, o: s.join(o), others=[[[("a", 2)]]])
        [[('a', (1, 2))]]
        """
        n = self._partitions(numPartitions)
        return self._binary(other, lambda t, a, b: a.join(b, n), "join")

    def leftOuterJoin(
        self: DStream[Any], other: DStream[Any], numPartitions: int | None = None  # noqa: N803
    ) -> DStream[Any]:
        """Return a DStream of ``(key, (v, w or None))`` for every key of this stream's batch."""
        n = self._partitions(numPartitions)
        return self._binary(other, lambda t, a, b: a.leftOuterJoin(b, n), "leftOuterJoin")

    def rightOuterJoin(
        self: DStream[Any], other: DStream[Any], numPartitions: int | None = None  # noqa: N803
    ) -> DStream[Any]:
        """Return a DStream of ``(key, (v or None, w))`` for every key of ``other``'s batch."""
        n = self._partitions(numPartitions)
        return self._binary(other, lambda t, a, b: a.rightOuterJoin(b, n), "rightOuterJoin")

    def fullOuterJoin(
        self: DStream[Any], other: DStream[Any], numPartitions: int | None = None  # noqa: N803
    ) -> DStream[Any]:
        """Return a DStream of ``(key, (v or None, w or None))`` for keys of either batch."""
        n = self._partitions(numPartitions)
        return self._binary(other, lambda t, a, b: a.fullOuterJoin(b, n), "fullOuterJoin")

    # -- windows ---------------------------------------------------------------------
    def reduceByKeyAndWindow(
        self: DStream[Any],
        func: Callable[[Any, Any], Any],
        invFunc: Callable[[Any, Any], Any] | None,  # noqa: N803
        windowDuration: float,  # noqa: N803
        slideDuration: float | None = None,  # noqa: N803
        numPartitions: int | None = None,  # noqa: N803
        filterFunc: Callable[[tuple[Any, Any]], bool] | None = None,  # noqa: N803
    ) -> DStream[Any]:
        """Return a DStream of each window's values merged per key with ``func``.

        Parameters
        ----------
        func
            Associative, commutative reduce function.
        invFunc
            Inverse of ``func`` (``invFunc(func(a, b), b) == a``) or ``None``. With it the
            window is computed incrementally, as in PySpark: the previous window, minus
            the batches that left, plus the batches that entered; keys whose value
            reaches "zero" stay unless ``filterFunc`` drops them. The first window and
            windows shorter than 5 slides are recomputed from their batches instead
            (there, keys that left the window are gone). Requires
            ``ssc.checkpoint(directory)`` or ``sc.setCheckpointDir(directory)``.
        windowDuration, slideDuration
            Window width and slide in seconds, multiples of this stream's slide
            (``slideDuration`` defaults to it).
        numPartitions
            Partitions of the result (default ``sc.defaultParallelism``).
        filterFunc
            With ``invFunc``, keep only the ``(key, value)`` pairs it accepts (as in
            PySpark, it is ignored without ``invFunc``).

        Examples
        --------
        >>> from dstream.testing import run_batches
        >>> add = lambda a, b: a + b
        >>> out = run_batches(sc, [[("a", 1)], [("a", 2)], [("b", 5)]],
        ...                   lambda s: s.reduceByKeyAndWindow(add, None, 2, 1))
        >>> [sorted(batch) for batch in out]
        [[('a', 1)], [('a', 3)], [('a', 2), ('b', 5)]]
        """
        self._window_ms(windowDuration, slideDuration)
        n = self._partitions(numPartitions)
        if invFunc is not None:
            return self._reduce_by_key_and_window_inverse(
                func, invFunc, windowDuration, slideDuration, n, filterFunc
            )
        return self.reduceByKey(func, n).window(windowDuration, slideDuration).reduceByKey(func, n)

    def _reduce_by_key_and_window_inverse(
        self: DStream[Any],
        func: Callable[[Any, Any], Any],
        inv_func: Callable[[Any, Any], Any],
        window_duration: float,
        slide_duration: float | None,
        num_partitions: int,
        filter_func: Callable[[tuple[Any, Any]], bool] | None,
    ) -> DStream[Any]:
        """The incremental windowed reduce (see :mod:`dstream.nodes.reduced_window`)."""
        if not callable(inv_func):
            raise TypeError(f"invFunc must be a function or None, got {inv_func!r}")
        window, slide = self._window_ms(window_duration, slide_duration)
        reduced = self.reduceByKey(func, num_partitions)
        node = ReducedWindowedNode(self._stream_node.graph, reduced._stream_node, func, inv_func,
                                   window, slide, num_partitions, filter_func)
        return self._derive(node)

    def groupByKeyAndWindow(
        self: DStream[Any],
        windowDuration: float,  # noqa: N803
        slideDuration: float,  # noqa: N803
        numPartitions: int | None = None,  # noqa: N803
    ) -> DStream[Any]:
        """Return a DStream of ``(key, values)`` over each window; values are iterable.

        Computed as PySpark does: lists of values merged with an inverse that drops the
        leaving batches' values from the front, so long windows are incremental.
        """
        self._window_ms(windowDuration, slideDuration)
        lists = self.mapValues(_singleton)
        grouped = lists.reduceByKeyAndWindow(_extend, _drop_front, windowDuration, slideDuration, numPartitions)
        return grouped.mapValues(ResultIterable)

    # -- state ---------------------------------------------------------------------
    def updateStateByKey(
        self: DStream[Any],
        updateFunc: Callable[[list[Any], Any], Any],  # noqa: N803
        numPartitions: int | None = None,  # noqa: N803
        initialRDD: Any = None,  # noqa: N803
    ) -> DStream[Any]:
        """Return a DStream of ``(key, state)``, the state updated every batch.

        ``updateFunc(new_values, last_state)`` is called for every key that has a state
        or new values in the batch (``last_state`` is ``None`` for a new key); returning
        ``None`` removes the key. Requires ``ssc.checkpoint(directory)`` or
        ``sc.setCheckpointDir(directory)``.

        Parameters
        ----------
        updateFunc
            ``(list of the batch's values, previous state or None) -> new state or None``.
        numPartitions
            Partitions of the state (default ``sc.defaultParallelism``).
        initialRDD
            Initial ``(key, state)`` pairs: an RDD or any iterable of pairs.

        Examples
        --------
        >>> def update(values, total):
        ...     return sum(values) + (total or 0)
        >>> running = pairs.updateStateByKey(update)  # doctest: +SKIP
        """
        if not callable(updateFunc):
            raise TypeError(f"updateFunc must be a function, got {updateFunc!r}")
        n = self._partitions(numPartitions)
        partitioner = Partitioner(n, portable_hash)
        node = UpdateStateNode(self._stream_node.graph, self._stream_node, updateFunc, partitioner, initialRDD)
        return self._derive(node)

    def mapWithState(self: DStream[Any], spec: StateSpec) -> MapWithStateDStream:
        """Return the stream of ``spec``'s function applied to each ``(key, value)`` with its state.

        Spark's Scala ``mapWithState`` (PySpark never had it): the function is called
        only for keys with data in the batch, and for keys that time out, so the cost of
        a batch does not grow with the size of the state. Requires
        ``ssc.checkpoint(directory)`` or ``sc.setCheckpointDir(directory)``.

        Timeouts: a key idle for longer than ``spec.timeout`` receives one last call with
        ``value=None`` and ``state.isTimingOut()`` true, at the first batch ``t`` with
        ``t - timeout > last update`` (Spark waits for a checkpoint batch; here every
        batch expires its idle keys, at a cost proportional to the keys expiring).

        Examples
        --------
        >>> def count(key, value, state):
        ...     total = (state.getOption() or 0) + (value or 0)
        ...     if not state.isTimingOut():
        ...         state.update(total)
        ...     return (key, total)
        >>> counts = pairs.mapWithState(StateSpec.function(count).timeout(60))  # doctest: +SKIP
        >>> snapshots = counts.stateSnapshots()  # doctest: +SKIP
        """
        if not isinstance(spec, StateSpec):
            raise TypeError(f"mapWithState takes a StateSpec (StateSpec.function(f)), got {type(spec).__name__}")
        parent = self._stream_node
        internal = MapWithStateNode(parent.graph, parent, spec, self._sc.defaultParallelism)
        mapped = TransformedNode(parent.graph, [internal], _mapped_values, "mapWithState.mapped")
        return self._with_state(mapped, internal)

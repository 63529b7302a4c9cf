"""PairRDDFunctions: the key-value methods of ``RDD`` (PySpark's names verbatim).

Everything here that moves data by key goes through :meth:`combineByKey` (or its
sibling :meth:`partitionBy`), and both end in the engine's one shuffle funnel,
``RDD._shuffle(partitioner, aggregator, map_side_combine)`` (``docs/internals.md``).
The joins, ``cogroup`` and ``subtractByKey`` are built on ``groupByKey`` over tagged
values (``rdd.join``, which holds those methods).

Partition count
    When ``numPartitions`` is ``None`` the result has ``ctx.defaultParallelism``
    partitions if ``spark.default.parallelism`` is set in the conf, and otherwise as
    many partitions as this RDD: PySpark's rule. (For a join that is the union of both
    sides, so it is the sum of their partition counts, exactly as in PySpark.)

No shuffle when already partitioned
    If this RDD's partitioner equals the one an operation asks for, records with the
    same key already share a partition; the operation then runs per partition,
    without a shuffle, and keeps the partitioner.

Functions shipped to tasks are module-level helpers bound with ``functools.partial``
rather than closures, so that they never capture an ``RDD`` (which cannot be
pickled) and so that cloudpickle sends them by reference.
"""

from __future__ import annotations

import copy
import functools
import operator
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from rdd.aggregator import Aggregator, append_to_list, extend_list, identity_combiner, singleton_list
from rdd.partitioner import Partitioner, portable_hash
from rdd.resultiterable import ResultIterable

if TYPE_CHECKING:
    from rdd.rdd import RDD

__all__ = ["PairRDDFunctions", "ResultIterable"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
U = TypeVar("U")
W = TypeVar("W")
C = TypeVar("C")

# --- per-record helpers shipped to tasks -------------------------------------------


def _zero_then(zero: U, func: Callable[[U, V], U], value: V) -> U:
    # A fresh copy of the zero value for every key, so that a mutable zero (a list,
    # a dict) is never shared between keys or between tasks in one worker.
    return func(copy.deepcopy(zero), value)


def _combine_partition(
    aggregator: Aggregator, iterator: Iterable[tuple[K, V]]
) -> Iterator[tuple[K, Any]]:
    return iter(aggregator.combine_values_by_key(iterator).items())


def _map_values(f: Callable[[V], U], iterator: Iterable[tuple[K, V]]) -> Iterator[tuple[K, U]]:
    for key, value in iterator:
        yield key, f(value)


def _flat_map_values(
    f: Callable[[V], Iterable[U]], iterator: Iterable[tuple[K, V]]
) -> Iterator[tuple[K, U]]:
    for key, value in iterator:
        for item in f(value):
            yield key, item


def _reduce_partition_to_dict(
    func: Callable[[V, V], V], iterator: Iterable[tuple[K, V]]
) -> dict[K, V]:
    reduced: dict[K, V] = {}
    for key, value in iterator:
        reduced[key] = func(reduced[key], value) if key in reduced else value
    return reduced


def _key_equals(key: Any, record: tuple[Any, Any]) -> bool:
    return bool(record[0] == key)


_key_of = operator.itemgetter(0)
_value_of = operator.itemgetter(1)


class PairRDDFunctions:
    """Methods of ``RDD`` for RDDs of ``(key, value)`` pairs.

    Mixed into :class:`rdd.rdd.RDD`; not meant to be used on its own.
    """

    # --- partitioning ---------------------------------------------------------------

    def _default_reduce_partitions(self: RDD[Any]) -> int:
        """Partition count for a by-key operation called with ``numPartitions=None``."""
        if self.ctx._conf.contains("spark.default.parallelism"):
            return int(self.ctx.defaultParallelism)
        return int(self.getNumPartitions())

    def _combine_by_key(
        self: RDD[tuple[K, V]],
        aggregator: Aggregator,
        numPartitions: int | None,
        partitionFunc: Callable[[Any], int],
        map_side_combine: bool,
    ) -> RDD[tuple[K, Any]]:
        if numPartitions is None:
            numPartitions = self._default_reduce_partitions()
        if numPartitions == 0 and self.getNumPartitions():
            # Spark would return no rows (a job over 0 partitions never runs the map side).
            raise ValueError(f"numPartitions must be a positive integer, got 0: an RDD of "
                             f"{self.getNumPartitions()} partition(s) cannot be partitioned into 0 "
                             "(only an RDD without partitions, such as sc.emptyRDD(), can)")
        partitioner = Partitioner(numPartitions, partitionFunc)
        if self.partitioner == partitioner:
            # Each key already lives in exactly one partition: combine in place.
            return self.mapPartitions(
                functools.partial(_combine_partition, aggregator), preservesPartitioning=True
            )
        return self._shuffle(partitioner, aggregator, map_side_combine=map_side_combine)

    def partitionBy(
        self: RDD[tuple[K, V]],
        numPartitions: int | None,
        partitionFunc: Callable[[K], int] = portable_hash,
    ) -> RDD[tuple[K, V]]:
        """Return a copy of the RDD partitioned by key with ``partitionFunc``.

        Parameters
        ----------
        numPartitions : int or None
            Number of partitions; ``None`` uses the default reduce partition count.
        partitionFunc : callable, default portable_hash
            Maps a key to an int; the partition is that int modulo ``numPartitions``.

        Returns
        -------
        RDD
            The same records, each in its key's partition. If this RDD is already
            partitioned by an equal partitioner, ``self`` is returned unchanged.

        Examples
        --------
        >>> pairs = sc.parallelize([1, 2, 3, 4, 2, 4, 1]).map(lambda x: (x, x))
        >>> sets = pairs.partitionBy(2).glom().collect()
        >>> len(set(sets[0]).intersection(set(sets[1])))
        0
        """
        if numPartitions is None:
            numPartitions = self._default_reduce_partitions()
        if numPartitions == 0 and self.getNumPartitions():
            # Spark would return no rows (a job over 0 partitions never runs the map side).
            raise ValueError(f"numPartitions must be a positive integer, got 0: an RDD of "
                             f"{self.getNumPartitions()} partition(s) cannot be partitioned into 0 "
                             "(only an RDD without partitions, such as sc.emptyRDD(), can)")
        partitioner = Partitioner(numPartitions, partitionFunc)
        if self.partitioner == partitioner:
            return self
        return self._shuffle(partitioner)

    # --- the combineByKey family ----------------------------------------------------

    def combineByKey(
        self: RDD[tuple[K, V]],
        createCombiner: Callable[[V], C],
        mergeValue: Callable[[C, V], C],
        mergeCombiners: Callable[[C, C], C],
        numPartitions: int | None = None,
        partitionFunc: Callable[[K], int] = portable_hash,
    ) -> RDD[tuple[K, C]]:
        """Combine the values of each key with a custom set of aggregation functions.

        Turns an ``RDD[(K, V)]`` into an ``RDD[(K, C)]`` for a "combined type" ``C``.
        Values are combined inside each map task first (map-side combine), then the
        per-task combiners are merged after the shuffle.

        Parameters
        ----------
        createCombiner : callable
            ``V -> C``: makes a combiner from the first value of a key in a task.
        mergeValue : callable
            ``(C, V) -> C``: folds another value into a combiner (may mutate and
            return its first argument).
        mergeCombiners : callable
            ``(C, C) -> C``: merges two combiners (may mutate and return the first).
        numPartitions : int, optional
            Number of result partitions; see the module notes for the default.
        partitionFunc : callable, default portable_hash
            Key hash used to place keys.

        Returns
        -------
        RDD
            One ``(key, combiner)`` per distinct key.

        Examples
        --------
        >>> rdd = sc.parallelize([("a", 1), ("b", 1), ("a", 2)])
        >>> sorted(rdd.combineByKey(str, lambda c, v: c + str(v), lambda a, b: a + b).collect())
        [('a', '12'), ('b', '1')]
        """
        aggregator = Aggregator(createCombiner, mergeValue, mergeCombiners)
        return self._combine_by_key(aggregator, numPartitions, partitionFunc, True)

    def aggregateByKey(
        self: RDD[tuple[K, V]],
        zeroValue: U,
        seqFunc: Callable[[U, V], U],
        combFunc: Callable[[U, U], U],
        numPartitions: int | None = None,
        partitionFunc: Callable[[K], int] = portable_hash,
    ) -> RDD[tuple[K, U]]:
        """Aggregate the values of each key, starting from a neutral zero value.

        Parameters
        ----------
        zeroValue : U
            Initial value for each key; deep-copied per key, so it may be mutable.
        seqFunc : callable
            ``(U, V) -> U``: folds a value into the accumulator within a partition.
        combFunc : callable
            ``(U, U) -> U``: merges accumulators from different partitions.
        numPartitions : int, optional
            Number of result partitions.
        partitionFunc : callable, default portable_hash
            Key hash used to place keys.

        Returns
        -------
        RDD
            One ``(key, accumulator)`` per distinct key.

        Examples
        --------
        >>> rdd = sc.parallelize([("a", 1), ("b", 1), ("a", 2)])
        >>> seq = lambda acc, v: (acc[0] + v, acc[1] + 1)
        >>> comb = lambda a, b: (a[0] + b[0], a[1] + b[1])
        >>> sorted(rdd.aggregateByKey((0, 0), seq, comb).collect())
        [('a', (3, 2)), ('b', (1, 1))]
        """
        create = functools.partial(_zero_then, zeroValue, seqFunc)
        return self.combineByKey(create, seqFunc, combFunc, numPartitions, partitionFunc)

    def foldByKey(
        self: RDD[tuple[K, V]],
        zeroValue: V,
        func: Callable[[V, V], V],
        numPartitions: int | None = None,
        partitionFunc: Callable[[K], int] = portable_hash,
    ) -> RDD[tuple[K, V]]:
        """Merge the values of each key with ``func``, starting from ``zeroValue``.

        Parameters
        ----------
        zeroValue : V
            Neutral value for ``func`` (0 for addition, [] for concatenation);
            deep-copied per key.
        func : callable
            ``(V, V) -> V``, associative.
        numPartitions : int, optional
            Number of result partitions.
        partitionFunc : callable, default portable_hash
            Key hash used to place keys.

        Returns
        -------
        RDD
            One ``(key, folded value)`` per distinct key.

        Examples
        --------
        >>> from operator import add
        >>> rdd = sc.parallelize([("a", 1), ("b", 1), ("a", 1)])
        >>> sorted(rdd.foldByKey(0, add).collect())
        [('a', 2), ('b', 1)]
        """
        create = functools.partial(_zero_then, zeroValue, func)
        return self.combineByKey(create, func, func, numPartitions, partitionFunc)

    def reduceByKey(
        self: RDD[tuple[K, V]],
        func: Callable[[V, V], V],
        numPartitions: int | None = None,
        partitionFunc: Callable[[K], int] = portable_hash,
    ) -> RDD[tuple[K, V]]:
        """Merge the values of each key with an associative, commutative ``func``.

        Values are reduced inside each map task before the shuffle, like a
        MapReduce combiner.

        Parameters
        ----------
        func : callable
            ``(V, V) -> V``.
        numPartitions : int, optional
            Number of result partitions.
        partitionFunc : callable, default portable_hash
            Key hash used to place keys.

        Returns
        -------
        RDD
            One ``(key, reduced value)`` per distinct key.

        Examples
        --------
        >>> from operator import add
        >>> rdd = sc.parallelize([("a", 1), ("b", 1), ("a", 1)])
        >>> sorted(rdd.reduceByKey(add).collect())
        [('a', 2), ('b', 1)]
        """
        # identity_combiner() lets the engine's combine loop take its fast path.
        return self.combineByKey(identity_combiner(), func, func, numPartitions, partitionFunc)

    def reduceByKeyLocally(self: RDD[tuple[K, V]], func: Callable[[V, V], V]) -> dict[K, V]:
        """Merge the values of each key with ``func`` and return the result as a dict.

        Each partition is reduced in its task; the driver merges the per-partition
        dicts. No shuffle.

        Parameters
        ----------
        func : callable
            ``(V, V) -> V``, associative and commutative.

        Returns
        -------
        dict
            ``{key: reduced value}``.

        Examples
        --------
        >>> from operator import add
        >>> rdd = sc.parallelize([("a", 1), ("b", 1), ("a", 1)])
        >>> sorted(rdd.reduceByKeyLocally(add).items())
        [('a', 2), ('b', 1)]
        """
        partials = self.ctx._run_job(self, functools.partial(_reduce_partition_to_dict, func))
        merged: dict[K, V] = {}
        for part in partials:
            for key, value in part.items():
                merged[key] = func(merged[key], value) if key in merged else value
        return merged

    def groupByKey(
        self: RDD[tuple[K, V]],
        numPartitions: int | None = None,
        partitionFunc: Callable[[K], int] = portable_hash,
    ) -> RDD[tuple[K, ResultIterable[V]]]:
        """Group the values of each key into a single sequence.

        Parameters
        ----------
        numPartitions : int, optional
            Number of result partitions.
        partitionFunc : callable, default portable_hash
            Key hash used to place keys.

        Returns
        -------
        RDD
            ``(key, ResultIterable of values)``; use ``list(v)`` for a list.

        Notes
        -----
        Like Spark (and unlike PySpark) there is no map-side combine: grouping does
        not shrink the data, and building the groups map-side would only hold every
        value of a task in memory twice. To aggregate, prefer ``reduceByKey`` or
        ``aggregateByKey``, which do combine map-side.

        Examples
        --------
        >>> rdd = sc.parallelize([("a", 1), ("b", 1), ("a", 1)])
        >>> sorted(rdd.groupByKey().mapValues(len).collect())
        [('a', 2), ('b', 1)]
        >>> sorted(rdd.groupByKey().mapValues(list).collect())
        [('a', [1, 1]), ('b', [1])]
        """
        aggregator = Aggregator(singleton_list, append_to_list, extend_list)
        grouped = self._combine_by_key(aggregator, numPartitions, partitionFunc, False)
        return grouped.mapValues(ResultIterable)

    # --- per-value transformations --------------------------------------------------

    def mapValues(self: RDD[tuple[K, V]], f: Callable[[V], U]) -> RDD[tuple[K, U]]:
        """Apply ``f`` to each value, keeping the key and the partitioning.

        Parameters
        ----------
        f : callable
            ``V -> U``.

        Returns
        -------
        RDD
            ``(key, f(value))`` pairs, with this RDD's partitioner.

        Examples
        --------
        >>> sc.parallelize([("a", ["x", "y"]), ("b", ["p"])]).mapValues(len).collect()
        [('a', 2), ('b', 1)]
        """
        return self.mapPartitions(functools.partial(_map_values, f), preservesPartitioning=True)

    def flatMapValues(
        self: RDD[tuple[K, V]], f: Callable[[V], Iterable[U]]
    ) -> RDD[tuple[K, U]]:
        """Apply ``f`` to each value and emit one pair per item it returns.

        Parameters
        ----------
        f : callable
            ``V -> iterable of U``.

        Returns
        -------
        RDD
            ``(key, item)`` pairs, with this RDD's partitioner.

        Examples
        --------
        >>> sc.parallelize([("a", ["x", "y"]), ("b", ["p"])]).flatMapValues(lambda v: v).collect()
        [('a', 'x'), ('a', 'y'), ('b', 'p')]
        """
        return self.mapPartitions(
            functools.partial(_flat_map_values, f), preservesPartitioning=True
        )

    def keys(self: RDD[tuple[K, V]]) -> RDD[K]:
        """Return an RDD of the keys.

        Examples
        --------
        >>> sc.parallelize([(1, 2), (3, 4)]).keys().collect()
        [1, 3]
        """
        return self.map(_key_of)

    def values(self: RDD[tuple[K, V]]) -> RDD[V]:
        """Return an RDD of the values.

        Examples
        --------
        >>> sc.parallelize([(1, 2), (3, 4)]).values().collect()
        [2, 4]
        """
        return self.map(_value_of)

    # --- actions ----------------------------------------------------------------------

    def countByKey(self: RDD[tuple[K, V]]) -> defaultdict[K, int]:
        """Count the pairs of each key and return the counts to the driver.

        Returns
        -------
        collections.defaultdict
            ``{key: count}`` (a ``defaultdict(int)``, as PySpark returns).

        Examples
        --------
        >>> sorted(sc.parallelize([("a", 1), ("b", 1), ("a", 1)]).countByKey().items())
        [('a', 2), ('b', 1)]
        """
        return self.map(_key_of).countByValue()

    def collectAsMap(self: RDD[tuple[K, V]]) -> dict[K, V]:
        """Return the pairs as a dict; for a repeated key the last pair wins.

        All the data is loaded into the driver's memory.

        Examples
        --------
        >>> sc.parallelize([(1, 2), (3, 4)]).collectAsMap()
        {1: 2, 3: 4}
        """
        return dict(self.collect())

    def lookup(self: RDD[tuple[K, V]], key: K) -> list[V]:
        """Return the list of values for ``key``.

        When the RDD has a partitioner, only the partition that ``key`` maps to is
        scanned; otherwise every partition is.

        Parameters
        ----------
        key : K
            The key to look up.

        Returns
        -------
        list
            The values, in partition order.

        Examples
        --------
        >>> rdd = sc.parallelize([(i, str(i)) for i in range(100)], 4)
        >>> rdd.lookup(42)
        ['42']
        >>> rdd.reduceByKey(lambda a, b: a + b).lookup(42)
        ['42']
        """
        found = self.filter(functools.partial(_key_equals, key)).map(_value_of)
        if self.partitioner is not None:
            return self.ctx._run_job(found, list, [self.partitioner(key)])[0]
        return found.collect()

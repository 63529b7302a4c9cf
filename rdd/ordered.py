"""OrderedRDDFunctions: sorting by key (PySpark's names verbatim).

``sortByKey`` is a range partitioning followed by a sort inside each partition:

1. count the RDD and sample about 20 keys per target partition;
2. sort the sampled keys and take every ``len(samples) / n``-th as a boundary,
   giving ``n - 1`` boundaries;
3. shuffle with a partition function that places a key by binary search among the
   boundaries (mirrored for descending order);
4. sort each partition.

Partition ``i`` then holds keys no greater than those of partition ``i + 1`` (for
ascending order), so reading partitions in order yields a total order. Partitions
are sorted in memory.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from rdd.partitioner import portable_hash

if TYPE_CHECKING:
    from rdd.rdd import RDD

__all__ = ["OrderedRDDFunctions"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
T = TypeVar("T")

# Keys sampled per target partition to choose range boundaries (Spark's
# RangePartitioner uses 20): more gives more even partitions for a costlier sample.
_SAMPLES_PER_PARTITION = 20.0

# The sample's fixed seed, so a recomputed sortByKey places keys identically.
_SAMPLE_SEED = 1


def _sort_partition(
    keyfunc: Callable[[Any], Any], ascending: bool, iterator: Iterable[tuple[Any, Any]]
) -> list[tuple[Any, Any]]:
    return sorted(iterator, key=lambda pair: keyfunc(pair[0]), reverse=not ascending)


def _range_bounds(sorted_keys: Sequence[Any], num_partitions: int) -> list[Any]:
    """Pick ``num_partitions - 1`` boundaries from sorted sample keys.

    Examples
    --------
    >>> _range_bounds(list(range(10)), 3)
    [3, 6]
    >>> _range_bounds([], 3)
    []
    """
    if not sorted_keys:
        return []
    size = len(sorted_keys)
    return [sorted_keys[size * (i + 1) // num_partitions] for i in range(num_partitions - 1)]


def _range_partition(
    bounds: Sequence[Any],
    keyfunc: Callable[[Any], Any],
    ascending: bool,
    num_partitions: int,
    key: Any,
) -> int:
    """Return the partition of ``key`` among ``bounds`` (already mapped by ``keyfunc``).

    Examples
    --------
    >>> [_range_partition([3, 6], lambda k: k, True, 3, k) for k in (0, 3, 4, 6, 9)]
    [0, 0, 1, 1, 2]
    >>> [_range_partition([3, 6], lambda k: k, False, 3, k) for k in (0, 9)]
    [2, 0]
    """
    index = bisect.bisect_left(bounds, keyfunc(key))
    return index if ascending else num_partitions - 1 - index


def _key_by(f: Callable[[T], Any], value: T) -> tuple[Any, T]:
    return (f(value), value)


def _first(pair: tuple[Any, Any]) -> Any:
    return pair[0]


class OrderedRDDFunctions:
    """Sorting methods of ``RDD``.

    Mixed into :class:`rdd.rdd.RDD`; not meant to be used on its own.
    """

    def sortByKey(
        self: RDD[tuple[K, V]],
        ascending: bool = True,
        numPartitions: int | None = None,
        keyfunc: Callable[[K], Any] = lambda x: x,
    ) -> RDD[tuple[K, V]]:
        """Sort a pair RDD by key.

        Parameters
        ----------
        ascending : bool, default True
            Sort order.
        numPartitions : int, optional
            Number of result partitions; by default as for ``reduceByKey``.
        keyfunc : callable, default identity
            Applied to each key to get the value that is compared.

        Returns
        -------
        RDD
            The pairs, range-partitioned and sorted within each partition, so that
            ``collect()`` returns them in order.

        Notes
        -----
        With more than one result partition this runs two jobs before the shuffle:
        a count and a sample of the keys, to choose the partition ranges.

        Examples
        --------
        >>> tmp = [("a", 1), ("b", 2), ("1", 3), ("d", 4), ("2", 5)]
        >>> sc.parallelize(tmp).sortByKey().first()
        ('1', 3)
        >>> sc.parallelize(tmp).sortByKey(True, 2).collect()
        [('1', 3), ('2', 5), ('a', 1), ('b', 2), ('d', 4)]
        >>> sc.parallelize(tmp).sortByKey(False, 1, keyfunc=str.upper).keys().collect()
        ['d', 'b', 'a', '2', '1']
        """
        if numPartitions is None:
            numPartitions = self._default_reduce_partitions()
        sort = functools.partial(_sort_partition, keyfunc, ascending)
        if numPartitions == 1:
            single = self.coalesce(1) if self.getNumPartitions() > 1 else self
            return single.mapPartitions(sort, preservesPartitioning=True)
        total = self.count()
        if total == 0:
            return self
        fraction = min(_SAMPLES_PER_PARTITION * numPartitions / total, 1.0)
        sampled = self.sample(False, fraction, _SAMPLE_SEED).map(_first).collect()
        bounds = _range_bounds(sorted(keyfunc(k) for k in sampled), numPartitions)
        place = functools.partial(_range_partition, bounds, keyfunc, ascending, numPartitions)
        return self.partitionBy(numPartitions, place).mapPartitions(
            sort, preservesPartitioning=True
        )

    def sortBy(
        self: RDD[T],
        keyfunc: Callable[[T], Any],
        ascending: bool = True,
        numPartitions: int | None = None,
    ) -> RDD[T]:
        """Sort the RDD by ``keyfunc(element)``.

        Parameters
        ----------
        keyfunc : callable
            Computes the sort key of an element.
        ascending : bool, default True
            Sort order.
        numPartitions : int, optional
            Number of result partitions.

        Returns
        -------
        RDD
            The elements in sorted order.

        Examples
        --------
        >>> tmp = [("a", 1), ("b", 2), ("1", 3), ("d", 4), ("2", 5)]
        >>> sc.parallelize(tmp).sortBy(lambda x: x[0]).collect()
        [('1', 3), ('2', 5), ('a', 1), ('b', 2), ('d', 4)]
        >>> sc.parallelize(tmp).sortBy(lambda x: x[1], False).collect()
        [('2', 5), ('d', 4), ('1', 3), ('b', 2), ('a', 1)]
        """
        keyed = self.map(functools.partial(_key_by, keyfunc))
        return keyed.sortByKey(ascending, numPartitions).values()

    def repartitionAndSortWithinPartitions(
        self: RDD[tuple[K, V]],
        numPartitions: int | None = None,
        partitionFunc: Callable[[K], int] = portable_hash,
        ascending: bool = True,
        keyfunc: Callable[[K], Any] = lambda x: x,
    ) -> RDD[tuple[K, V]]:
        """Repartition by ``partitionFunc`` and sort each partition by key.

        Cheaper than ``partitionBy`` followed by a sort of each partition when the
        goal is sorted partitions, not a total order.

        Parameters
        ----------
        numPartitions : int, optional
            Number of result partitions.
        partitionFunc : callable, default portable_hash
            Key hash used to place keys.
        ascending : bool, default True
            Sort order within each partition.
        keyfunc : callable, default identity
            Applied to each key to get the value that is compared.

        Returns
        -------
        RDD
            The pairs, hash-partitioned, each partition sorted by key.

        Examples
        --------
        >>> rdd = sc.parallelize([(0, 5), (3, 8), (2, 6), (0, 8), (3, 8), (1, 3)])
        >>> rdd.repartitionAndSortWithinPartitions(2, lambda x: x % 2, True).glom().collect()
        [[(0, 5), (0, 8), (2, 6)], [(1, 3), (3, 8), (3, 8)]]
        """
        if numPartitions is None:
            numPartitions = self._default_reduce_partitions()
        sort = functools.partial(_sort_partition, keyfunc, ascending)
        return self.partitionBy(numPartitions, partitionFunc).mapPartitions(
            sort, preservesPartitioning=True
        )

"""RDDDerived: the transformations of ``RDD`` composed from other methods.

``sample``, ``randomSplit``, ``sampleByKey``, ``distinct``, ``intersection``, ``subtract``, ``keyBy``, ``groupBy``,
``zipWithIndex`` and ``zipWithUniqueId`` construct no lineage node themselves: each is a
composition of ``mapPartitionsWithIndex``, ``map`` and the key-value methods of
``rdd.pair`` (so their shuffles go through the one funnel, ``RDD._shuffle``).

Functions shipped to tasks are module-level helpers bound with ``functools.partial``,
never closures over ``self``: an ``RDD`` cannot be pickled, and module-level
functions travel to workers by reference. ``sample`` draws from a generator seeded by
``(seed, partition)`` only, so a recomputed partition gives the same sample.
"""

from __future__ import annotations

import functools
import itertools
import math
import random
from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from rdd.actions import count_partition
from rdd.partitioner import portable_hash

if TYPE_CHECKING:
    from rdd.rdd import RDD
    from rdd.resultiterable import ResultIterable

__all__ = ["RDDDerived"]

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)

# --- per-partition helpers shipped to tasks ------------------------------------------


def _pair_with_none(value: T) -> tuple[T, None]:
    return (value, None)


def _pair_with_true(value: T) -> tuple[T, bool]:
    return (value, True)


def _keep_first(a: T, _b: T) -> T:
    return a


def _key_of(pair: tuple[K, Any]) -> K:
    return pair[0]


def _in_both(record: tuple[Any, tuple[ResultIterable[Any], ResultIterable[Any]]]) -> bool:
    mine, theirs = record[1]
    return len(mine) > 0 and len(theirs) > 0


def _key_by(f: Callable[[T], K], value: T) -> tuple[K, T]:
    return (f(value), value)


def _index_partition(
    starts: list[int], split: int, iterator: Iterable[T]
) -> Iterator[tuple[T, int]]:
    for index, value in enumerate(iterator, starts[split]):
        yield value, index


def _unique_id_partition(
    num_partitions: int, split: int, iterator: Iterable[T]
) -> Iterator[tuple[T, int]]:
    for position, value in enumerate(iterator):
        yield value, position * num_partitions + split


def _poisson(rng: random.Random, mean: float) -> int:
    """Draw from Poisson(mean) by multiplying uniforms (Knuth).

    ``exp(-mean)`` underflows for large means, so the mean is split into chunks of at
    most 500 (a sum of independent Poissons is Poisson).
    """
    count = 0
    while mean > 0:
        step = min(mean, 500.0)
        mean -= step
        limit = math.exp(-step)
        product = rng.random()
        while product > limit:
            count += 1
            product *= rng.random()
    return count


def _sample_partition(
    with_replacement: bool, fraction: float, seed: int, split: int, iterator: Iterable[T]
) -> Iterator[T]:
    # A str seed is hashed with SHA-512 by random.Random, so the stream depends on
    # (seed, split) only: the same in every process and on every recomputation.
    rng = random.Random(f"{seed}:{split}")
    if with_replacement:
        for value in iterator:
            for _ in range(_poisson(rng, fraction)):
                yield value
    else:
        for value in iterator:
            if rng.random() < fraction:
                yield value


def _range_sample_partition(
    lower: float, upper: float, seed: int, split: int, iterator: Iterable[T]
) -> Iterator[T]:
    # Every split of one randomSplit call draws the same stream (seed, partition) and
    # keeps the elements whose draw falls in its own [lower, upper): the splits are
    # disjoint and together hold every element exactly once.
    rng = random.Random(f"{seed}:{split}:split")
    for value in iterator:
        if lower <= rng.random() < upper:
            yield value


def _stratified_sample_partition(
    with_replacement: bool, fractions: dict[Any, float], seed: int, split: int, iterator: Iterable[tuple[Any, Any]]
) -> Iterator[tuple[Any, Any]]:
    rng = random.Random(f"{seed}:{split}")
    for pair in iterator:
        key = pair[0]
        try:
            fraction = fractions[key]
        except KeyError:
            known = ", ".join(sorted(map(repr, fractions))[:10]) or "none"
            raise ValueError(f"sampleByKey: no fraction for key {key!r}; give fractions an entry for every "
                             f"key of the RDD (it has fractions for: {known})") from None
        if with_replacement:
            for _ in range(_poisson(rng, fraction)):
                yield pair
        elif rng.random() < fraction:
            yield pair


class RDDDerived:
    """Transformations of ``RDD`` built from its other methods.

    Mixed into :class:`rdd.rdd.RDD`; not meant to be used on its own.
    """

    def sample(
        self: RDD[T], withReplacement: bool, fraction: float, seed: int | None = None
    ) -> RDD[T]:
        """Return a random sample of the elements.

        Without replacement each element is kept with probability ``fraction``;
        with replacement each element appears a Poisson(``fraction``) number of
        times. The size of the result is therefore only about ``fraction`` times the
        size of this RDD; use :meth:`takeSample` for an exact count.

        Parameters
        ----------
        withReplacement : bool
            Whether elements may appear more than once.
        fraction : float
            Expected fraction of elements kept (without replacement, in [0, 1]) or
            expected times each element is chosen (with replacement, >= 0).
        seed : int, optional
            Seed; the same seed gives the same sample. Without one, a seed is drawn
            now, so recomputing the RDD still gives the same sample.

        Returns
        -------
        RDD
            The sampled elements, in their original order.

        Examples
        --------
        >>> rdd = sc.parallelize(range(100), 4)
        >>> 6 <= rdd.sample(False, 0.1, 81).count() <= 14
        True
        """
        if not fraction >= 0:  # also rejects NaN
            raise ValueError(f"Fraction must be nonnegative, got fraction={fraction!r}.")
        if seed is None:
            seed = random.randint(0, 2**32 - 1)
        sampler = functools.partial(_sample_partition, bool(withReplacement), float(fraction), seed)
        return self.mapPartitionsWithIndex(sampler, preservesPartitioning=True)

    def randomSplit(self: RDD[T], weights: list[float], seed: int | None = None) -> list[RDD[T]]:  # noqa: N802
        """Split this RDD at random into RDDs whose sizes follow ``weights``.

        Each element lands in exactly one of the returned RDDs, the i-th with probability
        ``weights[i] / sum(weights)``; recomputing a split gives the same elements.

        Parameters
        ----------
        weights : list of float
            Relative sizes of the splits (nonnegative, with a positive sum).
        seed : int, optional
            Seed; without one a seed is drawn now.

        Returns
        -------
        list of RDD
            One RDD per weight, elements in their original order.

        Examples
        --------
        >>> rdd = sc.parallelize(range(500), 1)
        >>> a, b = rdd.randomSplit([2, 3], 17)
        >>> len(a.collect() + b.collect()), sorted(a.collect() + b.collect()) == list(range(500))
        (500, True)
        >>> 150 < a.count() < 250
        True
        """
        weights = list(weights)
        bad = [w for w in weights if isinstance(w, bool) or not isinstance(w, (int, float)) or not w >= 0]
        if bad:
            raise ValueError(f"Weights must be nonnegative numbers, got {weights!r}")
        total = float(sum(weights))
        if not total > 0 or math.isinf(total):
            raise ValueError(f"Sum of weights must be positive and finite, got {weights!r}")
        if seed is None:
            seed = random.randint(0, 2**32 - 1)
        bounds = [0.0, *itertools.accumulate(w / total for w in weights)]
        bounds[-1] = 1.0  # rounding must not leave a sliver below 1.0 in no split
        return [self.mapPartitionsWithIndex(functools.partial(_range_sample_partition, lower, upper, seed),
                                            preservesPartitioning=True)
                for lower, upper in zip(bounds, bounds[1:])]

    def sampleByKey(self: RDD[tuple[K, Any]], withReplacement: bool, fractions: dict[K, float],  # noqa: N802,N803
                    seed: int | None = None) -> RDD[tuple[K, Any]]:
        """Sample each key's pairs with its own fraction (stratified sampling).

        Parameters
        ----------
        withReplacement : bool
            Whether a pair may appear more than once.
        fractions : dict
            Key -> fraction, as for :meth:`sample`; every key of the RDD needs one.
        seed : int, optional
            Seed; without one a seed is drawn now.

        Examples
        --------
        >>> pairs = sc.parallelize([(k, i) for i in range(1000) for k in "ab"], 2)
        >>> sample = pairs.sampleByKey(False, {"a": 0.1, "b": 0.0}, 2).collect()
        >>> 50 < len(sample) < 150, {k for k, _ in sample}
        (True, {'a'})
        """
        fractions = dict(fractions)
        bad = {k: f for k, f in fractions.items()
               if isinstance(f, bool) or not isinstance(f, (int, float)) or not f >= 0}
        if bad:
            raise ValueError(f"Negative fraction value: fractions must be numbers >= 0, got {bad!r}")
        if seed is None:
            seed = random.randint(0, 2**32 - 1)
        sampler = functools.partial(_stratified_sample_partition, bool(withReplacement),
                                    {k: float(f) for k, f in fractions.items()}, seed)
        return self.mapPartitionsWithIndex(sampler, preservesPartitioning=True)

    def distinct(self: RDD[T], numPartitions: int | None = None) -> RDD[T]:
        """Return the distinct elements (shuffles; the order is not kept).

        Parameters
        ----------
        numPartitions : int, optional
            Number of result partitions.

        Examples
        --------
        >>> sorted(sc.parallelize([1, 1, 2, 3]).distinct().collect())
        [1, 2, 3]
        """
        pairs = self.map(_pair_with_none)
        return pairs.reduceByKey(_keep_first, numPartitions).map(_key_of)

    def intersection(self: RDD[T], other: RDD[T]) -> RDD[T]:
        """Return the distinct elements present in both RDDs (shuffles).

        Examples
        --------
        >>> rdd1 = sc.parallelize([1, 10, 2, 3, 4, 5])
        >>> rdd2 = sc.parallelize([1, 6, 2, 3, 7, 8])
        >>> sorted(rdd1.intersection(rdd2).collect())
        [1, 2, 3]
        """
        mine = self.map(_pair_with_none)
        theirs = other.map(_pair_with_none)
        return mine.cogroup(theirs).filter(_in_both).map(_key_of)

    def subtract(self: RDD[T], other: RDD[Any], numPartitions: int | None = None) -> RDD[T]:
        """Return the elements of this RDD that are not in ``other`` (duplicates kept).

        Parameters
        ----------
        other : RDD
            Elements to remove.
        numPartitions : int, optional
            Number of result partitions.

        Examples
        --------
        >>> x = sc.parallelize([("a", 1), ("b", 4), ("b", 5), ("a", 3)])
        >>> y = sc.parallelize([("a", 3), ("c", None)])
        >>> sorted(x.subtract(y).collect())
        [('a', 1), ('b', 4), ('b', 5)]
        """
        mine = self.map(_pair_with_true)
        theirs = other.map(_pair_with_true)
        return mine.subtractByKey(theirs, numPartitions).map(_key_of)

    def keyBy(self: RDD[T], f: Callable[[T], K]) -> RDD[tuple[K, T]]:
        """Return ``(f(x), x)`` for every element ``x``.

        Examples
        --------
        >>> sc.parallelize(range(3)).keyBy(lambda x: x * x).collect()
        [(0, 0), (1, 1), (4, 2)]
        """
        return self.map(functools.partial(_key_by, f))

    def groupBy(
        self: RDD[T],
        f: Callable[[T], K],
        numPartitions: int | None = None,
        partitionFunc: Callable[[K], int] = portable_hash,
    ) -> RDD[tuple[K, ResultIterable[T]]]:
        """Group the elements by ``f(element)``.

        Parameters
        ----------
        f : callable
            Computes the group key of an element.
        numPartitions : int, optional
            Number of result partitions.
        partitionFunc : callable, default portable_hash
            Key hash used to place keys.

        Returns
        -------
        RDD
            ``(key, ResultIterable of elements)``.

        Examples
        --------
        >>> rdd = sc.parallelize([1, 1, 2, 3, 5, 8])
        >>> sorted((k, sorted(v)) for k, v in rdd.groupBy(lambda x: x % 2).collect())
        [(0, [2, 8]), (1, [1, 1, 3, 5])]
        """
        return self.keyBy(f).groupByKey(numPartitions, partitionFunc)

    def zipWithIndex(self: RDD[T]) -> RDD[tuple[T, int]]:
        """Pair each element with its index: ``(element, index)``.

        The index follows partition order, then order within a partition. With more
        than one partition this runs a job first, to count each partition.

        Examples
        --------
        >>> sc.parallelize(["a", "b", "c", "d"], 3).zipWithIndex().collect()
        [('a', 0), ('b', 1), ('c', 2), ('d', 3)]
        """
        starts = [0]
        if self.getNumPartitions() > 1:
            counts = self.ctx._run_job(self, count_partition)
            starts.extend(itertools.accumulate(counts[:-1]))
        return self.mapPartitionsWithIndex(functools.partial(_index_partition, starts))

    def zipWithUniqueId(self: RDD[T]) -> RDD[tuple[T, int]]:
        """Pair each element with a unique id, without running a job.

        The k-th element of partition p gets ``k * n + p`` for ``n`` partitions, so
        ids are unique but may have gaps.

        Examples
        --------
        >>> sc.parallelize(["a", "b", "c", "d", "e"], 3).zipWithUniqueId().collect()
        [('a', 0), ('b', 1), ('c', 4), ('d', 2), ('e', 5)]
        """
        n = self.getNumPartitions()
        return self.mapPartitionsWithIndex(functools.partial(_unique_id_partition, n))

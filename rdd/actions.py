"""RDDActions: the actions of ``RDD`` that return data to the driver (PySpark's names).

Every action here submits its work through ``ctx._run_job(rdd, func, partitions)``
(``docs/internals.md``): ``func`` runs on each partition's iterator in a task and
returns one small result, and the driver merges those results. The output writers
(``saveAs*``) are in ``rdd.output``, the transformations composed from other methods
(``sample``, ``distinct``, ``groupBy``, ``zipWithIndex`` ...) in ``rdd.derived``.

Functions shipped to tasks are module-level helpers bound with ``functools.partial``,
never closures over ``self``: an ``RDD`` cannot be pickled, and module-level
functions travel to workers by reference.

Zero values (``fold``, ``aggregate``, ``treeAggregate``) are deep-copied once per
task, so a mutable zero such as ``[]`` is never shared between partitions, even
when a worker runs several tasks with one unpickled function.
"""

from __future__ import annotations

import copy
import functools
import heapq
import itertools
import math
import random
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar, cast

from rdd.task_functions import count_partition

if TYPE_CHECKING:
    from rdd.rdd import RDD

__all__ = ["RDDActions"]

T = TypeVar("T")
U = TypeVar("U")
K = TypeVar("K", bound=Hashable)

# take(): how much more to scan after a pass finds too few rows (Spark's
# spark.rdd.limit.scaleUpFactor). Larger finishes sparse scans in fewer jobs but
# computes more partitions than needed.
_TAKE_SCALE_UP_FACTOR = 4

# takeSample(): the largest sample that can be requested; the headroom keeps the
# oversampling arithmetic (num + 10 standard deviations) inside sys.maxsize.
_MAX_SAMPLE_SIZE = sys.maxsize - int(10.0 * math.sqrt(sys.maxsize))

# --- per-partition helpers shipped to tasks ------------------------------------------


def _reduce_partition(f: Callable[[T, T], T], iterator: Iterable[T]) -> list[T]:
    # [] for an empty partition, [value] otherwise: None is a legitimate value.
    it = iter(iterator)
    for first in it:
        return [functools.reduce(f, it, first)]
    return []


def _fold_partition(zero: U, op: Callable[[U, T], U], iterator: Iterable[T]) -> U:
    return functools.reduce(op, iterator, _copy_zero(zero))


def _copy_zero(zero: U) -> U:
    return copy.deepcopy(zero)


def _aggregate_partition_once(
    zero: U, seq_op: Callable[[U, T], U], iterator: Iterable[T]
) -> Iterator[U]:
    yield _fold_partition(zero, seq_op, iterator)


def _key_by_split(modulus: int, split: int, iterator: Iterable[T]) -> Iterator[tuple[int, T]]:
    for value in iterator:
        yield split % modulus, value


def _take_up_to(limit: int, iterator: Iterable[T]) -> list[T]:
    return list(itertools.islice(iterator, limit))


def _nlargest(num: int, key: Callable[[T], Any] | None, iterator: Iterable[T]) -> list[T]:
    if key is None:
        return heapq.nlargest(num, iterator)  # type: ignore[type-var]  # records must be comparable
    return heapq.nlargest(num, iterator, key=key)


def _nsmallest(num: int, key: Callable[[T], Any] | None, iterator: Iterable[T]) -> list[T]:
    if key is None:
        return heapq.nsmallest(num, iterator)  # type: ignore[type-var]  # records must be comparable
    return heapq.nsmallest(num, iterator, key=key)


def _foreach_partition(f: Callable[[T], Any], iterator: Iterable[T]) -> None:
    for value in iterator:
        f(value)


def _call_on_partition(f: Callable[[Iterator[T]], Any], iterator: Iterable[T]) -> None:
    result = f(iter(iterator))
    # A generator function does nothing until iterated: drain what it returns.
    if result is not None:
        try:
            drain = iter(result)
        except TypeError:
            return
        for _ in drain:
            pass


def _count_values(iterator: Iterable[T]) -> Counter[T]:
    return Counter(iterator)


def _max_by(key: Callable[[T], Any], a: T, b: T) -> T:
    return max(a, b, key=key)


def _min_by(key: Callable[[T], Any], a: T, b: T) -> T:
    return min(a, b, key=key)


def _mark_present(value: T) -> tuple[T, bool]:
    return (value, True)


def _merge_present(
    f: Callable[[T, T], T], a: tuple[T | None, bool], b: tuple[T | None, bool]
) -> tuple[T | None, bool]:
    # (value, present) pairs give treeReduce a neutral element for empty partitions.
    if not a[1]:
        return b
    if not b[1]:
        return a
    return (f(a[0], b[0]), True)  # type: ignore[arg-type]


def _sample_fraction(num: int, total: int, with_replacement: bool) -> float:
    """Sampling fraction that yields at least ``num`` of ``total`` rows with high probability.

    Spark's bounds: with replacement the count is ~Poisson, so oversample by 5
    standard deviations (9 for tiny samples); without replacement the count is
    Binomial, and the fraction is chosen so that a shortfall has probability < 1e-4.
    """
    fraction = num / total
    if with_replacement:
        num_stdev = 9 if num < 12 else 5
        return fraction + num_stdev * math.sqrt(fraction / total)
    gamma = -math.log(5e-5) / total
    return min(1.0, fraction + gamma + math.sqrt(gamma * gamma + 2 * gamma * fraction))


def _local_iterator(rdd: RDD[T], prefetch: bool) -> Iterator[T]:
    count = rdd.getNumPartitions()
    ahead: list[T] | None = None
    for split in range(count):
        current = ahead if ahead is not None else rdd.ctx._run_job(rdd, list, [split])[0]
        ahead = rdd.ctx._run_job(rdd, list, [split + 1])[0] if prefetch and split + 1 < count else None
        yield from current


class RDDActions:
    """Actions of ``RDD``.

    Mixed into :class:`rdd.rdd.RDD`; not meant to be used on its own.
    """

    # --- returning data to the driver ----------------------------------------------------

    def collect(self: RDD[T]) -> list[T]:
        """Return all the elements of this RDD as a list.

        All the data is loaded into the driver's memory.

        Examples
        --------
        >>> sc.parallelize([1, 2, 3], 2).collect()
        [1, 2, 3]
        """
        return [value for part in self.ctx._run_job(self, list) for value in part]

    def toLocalIterator(self: RDD[T], prefetchPartitions: bool = False) -> Iterator[T]:  # noqa: N802,N803
        """Iterate over the elements, computing one partition at a time.

        The driver holds one partition (two with ``prefetchPartitions``) instead of the
        whole RDD: each partition is a job of its own, run when the iteration reaches it.

        Parameters
        ----------
        prefetchPartitions : bool
            Compute the next partition before handing out the current one's elements.

        Examples
        --------
        >>> list(sc.parallelize(range(10), 3).toLocalIterator())
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
        """
        return _local_iterator(self, bool(prefetchPartitions))

    def count(self: RDD[Any]) -> int:
        """Return the number of elements in this RDD.

        Examples
        --------
        >>> sc.parallelize([2, 3, 4]).count()
        3
        """
        return sum(self.ctx._run_job(self, count_partition))

    def take(self: RDD[T], num: int) -> list[T]:
        """Return the first ``num`` elements of the RDD.

        The first pass reads one partition; each further pass reads more, estimated
        from how many rows were found so far (at most 4 times as many as already
        read), so a ``take`` on a large RDD usually computes very few partitions.

        Parameters
        ----------
        num : int
            How many elements to return.

        Returns
        -------
        list
            Up to ``num`` elements, in partition order.

        Examples
        --------
        >>> sc.parallelize([2, 3, 4, 5, 6]).take(2)
        [2, 3]
        >>> sc.parallelize(range(100), 100).filter(lambda x: x > 90).take(3)
        [91, 92, 93]
        """
        items: list[T] = []
        total = self.getNumPartitions()
        scanned = 0
        while len(items) < num and scanned < total:
            to_try = 1
            if scanned > 0:
                if not items:
                    to_try = scanned * _TAKE_SCALE_UP_FACTOR
                else:
                    # Overestimate the partitions still needed by 50%, within bounds.
                    estimate = int(1.5 * num * scanned / len(items)) - scanned
                    to_try = min(max(estimate, 1), scanned * _TAKE_SCALE_UP_FACTOR)
            partitions = list(range(scanned, min(scanned + to_try, total)))
            left = num - len(items)
            for part in self.ctx._run_job(
                self, functools.partial(_take_up_to, left), partitions
            ):
                items.extend(part)
            scanned += len(partitions)
        return items[:num]

    def first(self: RDD[T]) -> T:
        """Return the first element of this RDD.

        Raises
        ------
        ValueError
            If the RDD is empty.

        Examples
        --------
        >>> sc.parallelize([2, 3, 4]).first()
        2
        """
        found = self.take(1)
        if found:
            return found[0]
        raise ValueError("RDD is empty")

    def isEmpty(self: RDD[Any]) -> bool:
        """Return True if this RDD has no elements (reads as few partitions as it can).

        Examples
        --------
        >>> sc.parallelize([]).isEmpty()
        True
        >>> sc.parallelize([1]).isEmpty()
        False
        """
        return self.getNumPartitions() == 0 or not self.take(1)

    def top(self: RDD[T], num: int, key: Callable[[T], Any] | None = None) -> list[T]:
        """Return the ``num`` largest elements, largest first.

        Parameters
        ----------
        num : int
            How many elements to return.
        key : callable, optional
            Sort key, as for ``sorted``.

        Returns
        -------
        list
            Up to ``num`` elements in descending order.

        Examples
        --------
        >>> sc.parallelize([10, 4, 2, 12, 3]).top(3)
        [12, 10, 4]
        >>> sc.parallelize([10, 4, 2, 12, 3], 2).top(2, key=str)
        [4, 3]
        """
        partials = self.ctx._run_job(self, functools.partial(_nlargest, num, key))
        return _nlargest(num, key, itertools.chain.from_iterable(partials))

    def takeOrdered(
        self: RDD[T], num: int, key: Callable[[T], Any] | None = None
    ) -> list[T]:
        """Return the ``num`` smallest elements, smallest first.

        Parameters
        ----------
        num : int
            How many elements to return; must not be negative.
        key : callable, optional
            Sort key, as for ``sorted``.

        Returns
        -------
        list
            Up to ``num`` elements in ascending order.

        Examples
        --------
        >>> sc.parallelize([10, 1, 2, 9, 3, 4, 5, 6, 7]).takeOrdered(6)
        [1, 2, 3, 4, 5, 6]
        >>> sc.parallelize([10, 1, 2, 9, 3, 4, 5, 6, 7], 2).takeOrdered(6, key=lambda x: -x)
        [10, 9, 7, 6, 5, 4]
        """
        if num < 0:
            raise ValueError(f"top N cannot be negative (got num={num}).")
        partials = self.ctx._run_job(self, functools.partial(_nsmallest, num, key))
        return _nsmallest(num, key, itertools.chain.from_iterable(partials))

    def max(self: RDD[T], key: Callable[[T], Any] | None = None) -> T:
        """Return the largest element.

        Parameters
        ----------
        key : callable, optional
            Comparison key.

        Raises
        ------
        ValueError
            If the RDD is empty.

        Examples
        --------
        >>> sc.parallelize([1.0, 5.0, 43.0, 10.0]).max()
        43.0
        >>> sc.parallelize([1.0, 5.0, 43.0, 10.0]).max(key=str)
        5.0
        """
        if key is None:
            return self.reduce(cast("Callable[[T, T], T]", max))
        return self.reduce(functools.partial(_max_by, key))

    def min(self: RDD[T], key: Callable[[T], Any] | None = None) -> T:
        """Return the smallest element.

        Parameters
        ----------
        key : callable, optional
            Comparison key.

        Raises
        ------
        ValueError
            If the RDD is empty.

        Examples
        --------
        >>> sc.parallelize([2.0, 5.0, 43.0, 10.0]).min()
        2.0
        >>> sc.parallelize([2.0, 5.0, 43.0, 10.0]).min(key=str)
        10.0
        """
        if key is None:
            return self.reduce(cast("Callable[[T, T], T]", min))
        return self.reduce(functools.partial(_min_by, key))

    def takeSample(
        self: RDD[T], withReplacement: bool, num: int, seed: int | None = None
    ) -> list[T]:
        """Return a random sample of exactly ``num`` elements (fewer if the RDD is smaller).

        The sample is drawn with :meth:`sample` using a fraction large enough to give
        ``num`` rows with high probability (retrying in the rare case it does not),
        then shuffled and cut. All of it is loaded into the driver's memory.

        Parameters
        ----------
        withReplacement : bool
            Whether an element may be picked more than once.
        num : int
            Sample size; must not be negative.
        seed : int, optional
            Seed for reproducible samples.

        Returns
        -------
        list
            The sample, in random order.

        Examples
        --------
        >>> rdd = sc.parallelize(range(10), 2)
        >>> len(rdd.takeSample(True, 20, 1))
        20
        >>> len(rdd.takeSample(False, 5, 2))
        5
        >>> sorted(rdd.takeSample(False, 15, 3))
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
        """
        if num < 0:
            raise ValueError(f"Sample size cannot be negative (got num={num}).")
        if num > _MAX_SAMPLE_SIZE:
            raise ValueError(f"Sample size cannot be greater than {_MAX_SAMPLE_SIZE} (got {num}).")
        if num == 0 or self.getNumPartitions() == 0:
            return []
        total = self.count()
        if total == 0:
            return []
        rng = random.Random(seed)
        if not withReplacement and num >= total:
            everything = self.collect()
            rng.shuffle(everything)
            return everything
        fraction = _sample_fraction(num, total, withReplacement)
        samples = self.sample(withReplacement, fraction, seed).collect()
        while len(samples) < num:
            # Rare (the fraction oversamples on purpose): draw again with a new seed.
            samples = self.sample(withReplacement, fraction, rng.randint(0, sys.maxsize)).collect()
        rng.shuffle(samples)
        return samples[:num]

    # --- reductions --------------------------------------------------------------------------

    def reduce(self: RDD[T], f: Callable[[T, T], T]) -> T:
        """Reduce the elements with a commutative, associative binary function.

        Each partition is reduced in its task; the driver reduces the partial results.

        Parameters
        ----------
        f : callable
            ``(T, T) -> T``.

        Raises
        ------
        ValueError
            If the RDD is empty.

        Examples
        --------
        >>> from operator import add
        >>> sc.parallelize([1, 2, 3, 4, 5]).reduce(add)
        15
        """
        partials = self.ctx._run_job(self, functools.partial(_reduce_partition, f))
        values = [part[0] for part in partials if part]
        if not values:
            raise ValueError("Can not reduce() empty RDD")
        return functools.reduce(f, values)

    def treeReduce(self: RDD[T], f: Callable[[T, T], T], depth: int = 2) -> T:
        """Reduce the elements in a multi-level tree pattern.

        Like :meth:`reduce`, but partial results are merged in ``depth`` rounds of
        tasks instead of all at once on the driver, which helps with many partitions
        or large partial results.

        Parameters
        ----------
        f : callable
            ``(T, T) -> T``, commutative and associative.
        depth : int, default 2
            Suggested depth of the tree; at least 1.

        Raises
        ------
        ValueError
            If the RDD is empty or ``depth < 1``.

        Examples
        --------
        >>> from operator import add
        >>> sc.parallelize([-5, -4, -3, -2, -1, 1, 2, 3, 4], 10).treeReduce(add)
        -5
        """
        if depth < 1:
            raise ValueError(f"Depth cannot be smaller than 1 but got {depth}.")
        merge: Callable[[tuple[T | None, bool], tuple[T | None, bool]], tuple[T | None, bool]] = (
            functools.partial(_merge_present, f))
        zero: tuple[T | None, bool] = (None, False)
        value, present = self.map(_mark_present).treeAggregate(zero, merge, merge, depth)
        if not present:
            raise ValueError("Can not reduce() empty RDD")
        return value  # type: ignore[return-value]

    def fold(self: RDD[T], zeroValue: T, op: Callable[[T, T], T]) -> T:
        """Fold the elements of each partition, then the partition results, with ``op``.

        ``zeroValue`` is used once per partition and once more on the driver, so it
        must be neutral for ``op`` (0 for addition, 1 for multiplication). ``op`` may
        mutate and return its first argument.

        Parameters
        ----------
        zeroValue : T
            Neutral starting value; deep-copied for each use.
        op : callable
            ``(T, T) -> T``.

        Returns
        -------
        T
            The folded value (``zeroValue`` for an empty RDD).

        Examples
        --------
        >>> from operator import add
        >>> sc.parallelize([1, 2, 3, 4, 5]).fold(0, add)
        15
        """
        partials = self.ctx._run_job(self, functools.partial(_fold_partition, zeroValue, op))
        return functools.reduce(op, partials, _copy_zero(zeroValue))

    def aggregate(
        self: RDD[T],
        zeroValue: U,
        seqOp: Callable[[U, T], U],
        combOp: Callable[[U, U], U],
    ) -> U:
        """Aggregate the elements of each partition with ``seqOp``, then merge with ``combOp``.

        Parameters
        ----------
        zeroValue : U
            Neutral starting value for both functions; deep-copied for each use.
        seqOp : callable
            ``(U, T) -> U``: folds an element into a partition's accumulator.
        combOp : callable
            ``(U, U) -> U``: merges two accumulators.

        Returns
        -------
        U
            The aggregate (``zeroValue`` for an empty RDD).

        Examples
        --------
        >>> seq = lambda acc, x: (acc[0] + x, acc[1] + 1)
        >>> comb = lambda a, b: (a[0] + b[0], a[1] + b[1])
        >>> sc.parallelize([1, 2, 3, 4]).aggregate((0, 0), seq, comb)
        (10, 4)
        """
        partials = self.ctx._run_job(self, functools.partial(_fold_partition, zeroValue, seqOp))
        return functools.reduce(combOp, partials, _copy_zero(zeroValue))

    def treeAggregate(
        self: RDD[T],
        zeroValue: U,
        seqOp: Callable[[U, T], U],
        combOp: Callable[[U, U], U],
        depth: int = 2,
    ) -> U:
        """Aggregate like :meth:`aggregate`, merging partial results in a tree of tasks.

        Parameters
        ----------
        zeroValue : U
            Neutral starting value; deep-copied for each partition.
        seqOp : callable
            ``(U, T) -> U``.
        combOp : callable
            ``(U, U) -> U``.
        depth : int, default 2
            Suggested depth of the tree; at least 1.

        Returns
        -------
        U
            The aggregate.

        Examples
        --------
        >>> from operator import add
        >>> sc.parallelize([-5, -4, -3, -2, -1, 1, 2, 3, 4], 10).treeAggregate(0, add, add, 3)
        -5
        """
        if depth < 1:
            raise ValueError(f"Depth cannot be smaller than 1 but got {depth}.")
        if self.getNumPartitions() == 0:
            return _copy_zero(zeroValue)
        partials = self.mapPartitions(
            functools.partial(_aggregate_partition_once, zeroValue, seqOp)
        )
        num = partials.getNumPartitions()
        scale = max(math.ceil(num ** (1.0 / depth)), 2)
        # Add a level only while it cuts the work of the final merge.
        while num > scale + num / scale:
            num //= scale
            partials = (
                partials.mapPartitionsWithIndex(functools.partial(_key_by_split, num))
                .reduceByKey(combOp, num)
                .values()
            )
        return partials.reduce(combOp)

    # --- side effects ---------------------------------------------------------------------

    def foreach(self: RDD[T], f: Callable[[T], Any]) -> None:
        """Apply ``f`` to every element, in the tasks (not on the driver).

        Examples
        --------
        >>> sc.parallelize([1, 2, 3]).foreach(lambda x: None)
        """
        self.ctx._run_job(self, functools.partial(_foreach_partition, f))

    def foreachPartition(self: RDD[T], f: Callable[[Iterator[T]], Any]) -> None:
        """Apply ``f`` to the iterator of each partition, in the tasks.

        If ``f`` returns an iterable (for example, it is a generator function), the
        iterable is consumed so that its body runs.

        Examples
        --------
        >>> sc.parallelize([1, 2, 3], 2).foreachPartition(lambda it: None)
        """
        self.ctx._run_job(self, functools.partial(_call_on_partition, f))

    # --- counting ---------------------------------------------------------------------------

    def countByValue(self: RDD[K]) -> defaultdict[K, int]:
        """Return the count of each distinct element as a ``defaultdict(int)``.

        Examples
        --------
        >>> sorted(sc.parallelize([1, 2, 1, 2, 2], 2).countByValue().items())
        [(1, 2), (2, 3)]
        """
        counts: defaultdict[K, int] = defaultdict(int)
        for part in self.ctx._run_job(self, _count_values):
            for value, n in part.items():
                counts[value] += n
        return counts

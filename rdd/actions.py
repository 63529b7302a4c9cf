"""RDDActions: actions and the derived transformations of ``RDD`` (PySpark's names).

Every action here submits its work through ``ctx._run_job(rdd, func, partitions)``
(``docs/internals.md``): ``func`` runs on each partition's iterator in a task and
returns one small result, and the driver merges those results. Transformations
here (``sample``, ``distinct``, ``groupBy``, ``zipWithIndex`` ...) are compositions
of ``mapPartitionsWithIndex`` and the key-value methods of ``rdd.pair``.

Functions shipped to tasks are module-level helpers bound with ``functools.partial``,
never closures over ``self``: an ``RDD`` cannot be pickled, and module-level
functions travel to workers by reference.

Zero values (``fold``, ``aggregate``, ``treeAggregate``) are deep-copied once per
task, so a mutable zero such as ``[]`` is never shared between partitions, even
when a worker runs several tasks with one unpickled function.
"""

from __future__ import annotations

import bz2
import copy
import functools
import gzip
import heapq
import itertools
import math
import os
import pickle
import random
import shutil
import sys
import uuid
import zlib
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import IO, TYPE_CHECKING, Any, TypeVar

from rdd.partitioner import portable_hash

if TYPE_CHECKING:
    from rdd.rdd import RDD
    from rdd.resultiterable import ResultIterable

__all__ = ["RDDActions"]

T = TypeVar("T")
U = TypeVar("U")
K = TypeVar("K", bound=Hashable)

# take(): how much more to scan after a pass finds too few rows (Spark's
# spark.rdd.limit.scaleUpFactor). Larger finishes sparse scans in fewer jobs but
# computes more partitions than needed.
_TAKE_SCALE_UP_FACTOR = 4

# saveAsPickleFile(batchSize=0): grow the batch until a pickled batch is about this
# big. Big enough to amortise per-frame overhead, small enough to bound memory.
_AUTO_BATCH_TARGET_BYTES = 64 * 1024

# takeSample(): the largest sample that can be requested; the headroom keeps the
# oversampling arithmetic (num + 10 standard deviations) inside sys.maxsize.
_MAX_SAMPLE_SIZE = sys.maxsize - int(10.0 * math.sqrt(sys.maxsize))

# Hadoop codec class names accepted by saveAsTextFile -> part file suffix.
_TEXT_CODECS = {
    "org.apache.hadoop.io.compress.GzipCodec": ".gz",
    "org.apache.hadoop.io.compress.BZip2Codec": ".bz2",
    "org.apache.hadoop.io.compress.DefaultCodec": ".deflate",
    "org.apache.hadoop.io.compress.DeflateCodec": ".deflate",
}


# --- per-partition helpers shipped to tasks ------------------------------------------


def _count_partition(iterator: Iterable[Any]) -> int:
    return sum(1 for _ in iterator)


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
    return heapq.nlargest(num, iterator, key=key)


def _nsmallest(num: int, key: Callable[[T], Any] | None, iterator: Iterable[T]) -> list[T]:
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


# --- saving ----------------------------------------------------------------------------


class _DeflateWriter:
    """A minimal binary writer producing a zlib stream (Hadoop's DefaultCodec)."""

    def __init__(self, raw: IO[bytes]) -> None:
        self._raw = raw
        self._compressor = zlib.compressobj()

    def write(self, data: bytes) -> None:
        self._raw.write(self._compressor.compress(data))

    def close(self) -> None:
        self._raw.write(self._compressor.flush())
        self._raw.close()


class _GzipWriter:
    """gzip without a file name in the header (gzip.open would record the temp name)."""

    def __init__(self, raw: IO[bytes]) -> None:
        self._raw = raw
        self._gzip = gzip.GzipFile(filename="", mode="wb", fileobj=raw)

    def write(self, data: bytes) -> None:
        self._gzip.write(data)

    def close(self) -> None:
        self._gzip.close()  # does not close a fileobj it was given
        self._raw.close()


def _open_part(path: str, suffix: str) -> Any:
    if suffix == ".gz":
        return _GzipWriter(open(path, "wb"))
    if suffix == ".bz2":
        return bz2.open(path, "wb")
    if suffix == ".deflate":
        return _DeflateWriter(open(path, "wb"))
    return open(path, "wb", buffering=1024 * 1024)


def _write_part(
    out_dir: str,
    suffix: str,
    encode: Callable[[Iterator[Any]], Iterator[bytes]],
    split: int,
    iterator: Iterable[Any],
) -> Iterator[int]:
    """Write one partition to ``part-NNNNN``; yields the number of bytes written.

    The data goes to a hidden temporary file first and is renamed into place, so a
    reader never sees a half-written part, and a retried task simply replaces it.
    """
    name = f"part-{split:05d}{suffix}"
    tmp = os.path.join(out_dir, f".{name}.{uuid.uuid4().hex}.tmp")
    written = 0
    try:
        out = _open_part(tmp, suffix)
        try:
            for chunk in encode(iter(iterator)):
                out.write(chunk)
                written += len(chunk)
        finally:
            out.close()
        os.replace(tmp, os.path.join(out_dir, name))
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    yield written


def _encode_text(iterator: Iterator[Any]) -> Iterator[bytes]:
    for record in iterator:
        # bytes are written as they are (PySpark does the same); all else via str().
        line = record if isinstance(record, bytes) else str(record).encode("utf-8")
        yield line + b"\n"


def _encode_pickle_batches(batch_size: int, iterator: Iterator[Any]) -> Iterator[bytes]:
    if batch_size > 0:
        while batch := list(itertools.islice(iterator, batch_size)):
            yield pickle.dumps(batch, protocol=5)
        return
    # batchSize=0: adaptive, grow while frames stay small, shrink when they get huge.
    size = 1
    while batch := list(itertools.islice(iterator, size)):
        frame = pickle.dumps(batch, protocol=5)
        yield frame
        if len(frame) < _AUTO_BATCH_TARGET_BYTES:
            size *= 2
        elif len(frame) > 10 * _AUTO_BATCH_TARGET_BYTES and size > 1:
            size //= 2


def _local_path(path: str | os.PathLike[str]) -> str:
    text = os.fspath(path)
    if text.startswith("file://"):
        text = text[len("file://") :]
    elif text.startswith("file:"):
        text = text[len("file:") :]
    return os.path.abspath(text)


def _claim_output_dir(out_dir: str) -> None:
    # Like Hadoop's output-spec check: never write into (or over) existing output.
    try:
        os.makedirs(os.path.dirname(out_dir), exist_ok=True)
        os.mkdir(out_dir)
    except FileExistsError:
        raise FileExistsError(
            f"Output directory file:{out_dir} already exists; "
            f"saving never overwrites: remove it or choose another path"
        ) from None


def _drain(iterator: Iterable[Any]) -> None:
    for _ in iterator:
        pass


class RDDActions:
    """Actions and derived transformations of ``RDD``.

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

    def count(self: RDD[Any]) -> int:
        """Return the number of elements in this RDD.

        Examples
        --------
        >>> sc.parallelize([2, 3, 4]).count()
        3
        """
        return sum(self.ctx._run_job(self, _count_partition))

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
        return heapq.nlargest(num, itertools.chain.from_iterable(partials), key=key)

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
        return heapq.nsmallest(num, itertools.chain.from_iterable(partials), key=key)

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
            return self.reduce(max)
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
            return self.reduce(min)
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
        merge = functools.partial(_merge_present, f)
        value, present = self.map(_mark_present).treeAggregate((None, False), merge, merge, depth)
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

    # --- saving ------------------------------------------------------------------------------

    def saveAsTextFile(
        self: RDD[Any], path: str, compressionCodecClass: str | None = None
    ) -> None:
        """Save the RDD as a directory of text files, one line per element.

        Writes ``part-00000``, ``part-00001`` ... (one per partition; each line is
        ``str(element)`` in UTF-8, bytes elements as they are) and an empty
        ``_SUCCESS`` once every part is written.

        Parameters
        ----------
        path : str
            Output directory (a local path or a ``file:`` URI); must not exist.
        compressionCodecClass : str, optional
            A Hadoop codec class name: ``org.apache.hadoop.io.compress.GzipCodec``
            (``.gz``), ``...BZip2Codec`` (``.bz2``) or ``...DefaultCodec`` /
            ``...DeflateCodec`` (``.deflate``, a zlib stream).

        Raises
        ------
        FileExistsError
            If ``path`` already exists.

        Examples
        --------
        >>> import os, tempfile
        >>> out = os.path.join(tempfile.mkdtemp(), "out")
        >>> sc.parallelize(["a", "b"], 2).saveAsTextFile(out)
        >>> sorted(os.listdir(out))
        ['_SUCCESS', 'part-00000', 'part-00001']
        """
        suffix = ""
        if compressionCodecClass is not None:
            suffix = _TEXT_CODECS.get(compressionCodecClass, "")
            if not suffix:
                supported = ", ".join(sorted(_TEXT_CODECS))
                raise ValueError(
                    f"unsupported compressionCodecClass {compressionCodecClass!r}; "
                    f"use one of {supported}, or None for plain text"
                )
        self._save_parts(path, suffix, _encode_text)

    def saveAsPickleFile(self: RDD[Any], path: str, batchSize: int = 10) -> None:
        """Save the RDD as a directory of pickle files, readable by ``sc.pickleFile``.

        Each ``part-NNNNN`` is a sequence of ``pickle`` frames (protocol 5), each a
        list of up to ``batchSize`` elements.

        Parameters
        ----------
        path : str
            Output directory (a local path or a ``file:`` URI); must not exist.
        batchSize : int, default 10
            Elements per pickled list; 0 picks the size automatically.

        Raises
        ------
        FileExistsError
            If ``path`` already exists.

        Examples
        --------
        >>> import os, tempfile
        >>> out = os.path.join(tempfile.mkdtemp(), "out")
        >>> sc.parallelize(range(10), 2).saveAsPickleFile(out, 3)
        >>> sorted(sc.pickleFile(out).collect())
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
        """
        if not isinstance(batchSize, int) or batchSize < 0:
            raise ValueError(
                f"batchSize must be a non-negative int (0 means automatic), got {batchSize!r}"
            )
        self._save_parts(path, "", functools.partial(_encode_pickle_batches, batchSize))

    def _save_parts(
        self: RDD[Any],
        path: str,
        suffix: str,
        encode: Callable[[Iterator[Any]], Iterator[bytes]],
    ) -> None:
        out_dir = _local_path(path)
        _claim_output_dir(out_dir)
        writer = functools.partial(_write_part, out_dir, suffix, encode)
        try:
            self.ctx._run_job(self.mapPartitionsWithIndex(writer), _drain)
        except BaseException:
            # The directory is ours and incomplete; removing it lets the call be
            # retried as is instead of failing on "already exists".
            shutil.rmtree(out_dir, ignore_errors=True)
            raise
        with open(os.path.join(out_dir, "_SUCCESS"), "wb"):
            pass

    # --- derived transformations -----------------------------------------------------------

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
            counts = self.ctx._run_job(self, _count_partition)
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

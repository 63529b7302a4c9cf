"""DoubleRDDFunctions: statistics of an RDD of numbers (PySpark's names verbatim).

``stats()`` builds one :class:`rdd.statcounter.StatCounter` per partition in the
tasks and merges them on the driver; ``mean``, ``variance``, ``stdev`` and friends
are read off that one counter. ``histogram`` counts per partition and adds the
count lists on the driver. Every method is a single job through ``ctx._run_job``.
"""

from __future__ import annotations

import bisect
import functools
import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from rdd.statcounter import StatCounter

if TYPE_CHECKING:
    from rdd.rdd import RDD

__all__ = ["DoubleRDDFunctions"]

Number = int | float

# Two list buckets count as evenly spaced when their widths differ by less than
# this; then a value's bucket is found by division instead of a binary search.
_EVEN_BUCKETS_TOLERANCE = 1e-10


def _is_missing(value: Any) -> bool:
    # None and NaN are skipped by histogram, as in PySpark.
    return value is None or (isinstance(value, float) and math.isnan(value))


def _min_max_partition(iterator: Iterable[Any]) -> list[tuple[Any, Any]]:
    low = high = None
    for value in iterator:
        if _is_missing(value):
            continue
        if low is None:
            low = high = value
        elif value < low:
            low = value
        elif value > high:
            high = value
    return [] if low is None else [(low, high)]


def _count_present(iterator: Iterable[Any]) -> int:
    return sum(1 for value in iterator if not _is_missing(value))


def _even_buckets(low: Number, high: Number, count: int) -> list[Number]:
    """Return ``count + 1`` evenly spaced bucket boundaries from ``low`` to ``high``.

    Boundaries stay ints when the step is a whole number; the last boundary is
    ``high`` exactly, whatever the rounding of the step.

    Examples
    --------
    >>> _even_buckets(0, 50, 2)
    [0, 25, 50]
    >>> _even_buckets(0, 5, 2)
    [0.0, 2.5, 5]
    """
    span = high - low
    step: Number = span / count
    if math.isinf(step):
        raise ValueError(
            f"Can not generate buckets with infinite value (min={low!r}, max={high!r}); "
            f"pass explicit buckets or filter out infinities"
        )
    if int(step) * count == span:
        step = int(step)
    return [low + i * step for i in range(count)] + [high]


def _bucket_index(
    value: Any, buckets: Sequence[Any], even: bool, step: float | None
) -> int | None:
    """Return the index of the bucket holding ``value``, or None if it falls outside.

    Buckets are half-open ``[b[i], b[i+1])`` except the last, which is closed, so
    the maximum boundary counts in the last bucket.

    Examples
    --------
    >>> [_bucket_index(v, [0, 10, 20], False, None) for v in (-1, 0, 9, 10, 20, 21)]
    [None, 0, 0, 1, 1, None]
    """
    low, high = buckets[0], buckets[-1]
    if _is_missing(value) or value < low or value > high:
        return None
    last = len(buckets) - 2
    if even and step:
        index = int((value - low) / step)
    else:
        index = bisect.bisect_right(buckets, value) - 1
    # The top boundary (and float round-off just under it) belongs to the last bucket.
    return min(index, last)


def _histogram_partition(
    buckets: Sequence[Any], even: bool, step: float | None, iterator: Iterable[Any]
) -> list[int]:
    counts = [0] * (len(buckets) - 1)
    for value in iterator:
        index = _bucket_index(value, buckets, even, step)
        if index is not None:
            counts[index] += 1
    return counts


def _check_buckets(buckets: Sequence[Any]) -> tuple[bool, float | None]:
    """Validate explicit buckets; return ``(even, step)`` for the bucket lookup.

    Raises ``ValueError`` for fewer than two boundaries, None/NaN boundaries, or
    boundaries that are not strictly increasing.

    Examples
    --------
    >>> _check_buckets([0, 10, 20])
    (True, 10.0)
    >>> _check_buckets([0, 5, 25])
    (False, None)
    """
    if len(buckets) < 2:
        raise ValueError(
            f"buckets should have more than one value, got {list(buckets)!r}; "
            f"give at least two boundaries, e.g. [min, max]"
        )
    if any(_is_missing(b) for b in buckets):
        raise ValueError(f"can not have None or NaN in buckets, got {list(buckets)!r}")
    if sorted(buckets) != list(buckets):
        raise ValueError(f"buckets should be sorted, got {list(buckets)!r}")
    if len(set(buckets)) != len(buckets):
        raise ValueError(f"buckets should not contain duplicated values, got {list(buckets)!r}")
    try:
        widths = [b - a for a, b in zip(buckets, buckets[1:])]
    except TypeError:
        return False, None  # not numbers (e.g. strings): binary search still works
    if max(widths) - min(widths) < _EVEN_BUCKETS_TOLERANCE:
        return True, (buckets[-1] - buckets[0]) / (len(buckets) - 1)
    return False, None


class DoubleRDDFunctions:
    """Statistics methods of ``RDD`` for RDDs of numbers.

    Mixed into :class:`rdd.rdd.RDD`; not meant to be used on its own.
    """

    def sum(self: RDD[Number]) -> Number:
        """Add up the elements.

        Examples
        --------
        >>> sc.parallelize([1.0, 2.0, 3.0]).sum()
        6.0
        """
        return sum(self.ctx._run_job(self, sum), 0)

    def stats(self: RDD[Number]) -> StatCounter:
        """Return a :class:`StatCounter` of the elements (count, mean, variance, min, max).

        One job: each task summarises its partition, the driver merges the summaries.

        Examples
        --------
        >>> sc.parallelize([1, 2, 3]).stats()
        (count: 3, mean: 2.0, stdev: 0.816496580927726, max: 3.0, min: 1.0)
        """
        merged = StatCounter()
        for counter in self.ctx._run_job(self, StatCounter):
            merged.mergeStats(counter)
        return merged

    def mean(self: RDD[Number]) -> float:
        """Return the mean of the elements (``0.0`` for an empty RDD).

        Examples
        --------
        >>> sc.parallelize([1, 2, 3]).mean()
        2.0
        """
        return self.stats().mean()

    def variance(self: RDD[Number]) -> float:
        """Return the population variance of the elements.

        Examples
        --------
        >>> sc.parallelize([1, 2, 3]).variance()
        0.6666666666666666
        """
        return self.stats().variance()

    def stdev(self: RDD[Number]) -> float:
        """Return the population standard deviation of the elements.

        Examples
        --------
        >>> sc.parallelize([1, 2, 3]).stdev()
        0.816496580927726
        """
        return self.stats().stdev()

    def sampleStdev(self: RDD[Number]) -> float:
        """Return the sample standard deviation (dividing by ``n - 1``).

        Examples
        --------
        >>> sc.parallelize([1, 2, 3]).sampleStdev()
        1.0
        """
        return self.stats().sampleStdev()

    def sampleVariance(self: RDD[Number]) -> float:
        """Return the sample variance (dividing by ``n - 1``).

        Examples
        --------
        >>> sc.parallelize([1, 2, 3]).sampleVariance()
        1.0
        """
        return self.stats().sampleVariance()

    def histogram(
        self: RDD[Any], buckets: int | Sequence[Any]
    ) -> tuple[Sequence[Any], list[int]]:
        """Count the elements falling in each bucket.

        Buckets are half-open ``[b[i], b[i+1])`` except the last, which also holds
        its upper boundary: ``[1, 10, 20, 50]`` means ``[1, 10)``, ``[10, 20)`` and
        ``[20, 50]``. Elements outside the buckets, None and NaN are not counted.

        Parameters
        ----------
        buckets : int or list or tuple
            An int ``n`` makes ``n`` evenly spaced buckets between the minimum and
            the maximum of the RDD (one job to find them); a sorted list or tuple of
            at least two distinct boundaries is used as given (elements need only be
            comparable with them).

        Returns
        -------
        tuple
            ``(buckets, counts)``: the boundaries and one count per bucket.

        Raises
        ------
        ValueError
            For an int below 1, an empty RDD with an int, or invalid boundaries.
        TypeError
            If ``buckets`` is neither an int nor a list or tuple.

        Examples
        --------
        >>> rdd = sc.parallelize(range(51))
        >>> rdd.histogram(2)
        ([0, 25, 50], [25, 26])
        >>> rdd.histogram([0, 5, 25, 50])
        ([0, 5, 25, 50], [5, 20, 26])
        >>> sc.parallelize(["ab", "ac", "b", "bd", "ef"]).histogram(("a", "b", "c"))
        (('a', 'b', 'c'), [2, 2])
        """
        if not isinstance(buckets, (int, list, tuple)):
            raise TypeError(
                f"buckets should be a list or tuple or number(int or long), "
                f"got {type(buckets).__name__}"
            )
        if isinstance(buckets, int):
            if buckets < 1:
                raise ValueError(f"number of buckets must be >= 1, got {buckets}")
            ranges = [r for part in self.ctx._run_job(self, _min_max_partition) for r in part]
            if not ranges:
                raise ValueError(
                    "can not generate buckets from empty RDD; pass explicit buckets instead"
                )
            low = min(r[0] for r in ranges)
            high = max(r[1] for r in ranges)
            if low == high or buckets == 1:
                return [low, high], [sum(self.ctx._run_job(self, _count_present))]
            try:
                boundaries: Sequence[Any] = _even_buckets(low, high, buckets)
            except TypeError:
                raise TypeError(
                    f"Can not generate buckets with non-number in RDD (min={low!r}, "
                    f"max={high!r}); pass explicit buckets"
                ) from None
            even, step = True, (high - low) / buckets
        else:
            boundaries = buckets
            even, step = _check_buckets(boundaries)
        counter = functools.partial(_histogram_partition, boundaries, even, step)
        counts = [0] * (len(boundaries) - 1)
        for part in self.ctx._run_job(self, counter):
            counts = [a + b for a, b in zip(counts, part)]
        return boundaries, counts

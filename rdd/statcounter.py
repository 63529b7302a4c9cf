"""StatCounter: count, mean, variance, min and max of numbers in one pass.

The counter keeps ``n`` (count), ``mu`` (running mean) and ``m2`` (sum of squared
deviations from the mean), updated with Welford's recurrence so that a long stream
of large, close values does not lose precision the way ``sum(x*x) - n*mean**2``
would. Two counters merge with Chan et al.'s parallel formula, which is what lets
each partition build its own counter and the driver fold them together
(:meth:`rdd.numeric.DoubleRDDFunctions.stats`).

The public surface is PySpark's ``pyspark.statcounter.StatCounter`` verbatim.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

__all__ = ["StatCounter"]


def _nan_max(a: float, b: float) -> float:
    # builtin max() drops a NaN depending on argument order; propagate it instead.
    if a != a or b != b:
        return math.nan
    return a if a >= b else b


def _nan_min(a: float, b: float) -> float:
    if a != a or b != b:
        return math.nan
    return a if a <= b else b


class StatCounter:
    """Running statistics of a collection of numbers.

    Parameters
    ----------
    values : iterable of numbers, optional
        Values to merge right away.

    Examples
    --------
    >>> s = StatCounter([1.0, 2.0, 3.0])
    >>> s.count(), s.mean(), s.max()
    (3, 2.0, 3.0)
    >>> s.merge(4.0).count()
    4
    """

    def __init__(self, values: Iterable[float] | None = None) -> None:
        self.n: int = 0
        self.mu: float = 0.0
        self.m2: float = 0.0
        self.maxValue: float = float("-inf")
        self.minValue: float = float("inf")
        if values is not None:
            for v in values:
                self.merge(v)

    def merge(self, value: float) -> StatCounter:
        """Add one value; returns ``self`` so calls chain.

        Parameters
        ----------
        value : number
            The value to add.

        Returns
        -------
        StatCounter
            This counter.
        """
        delta = value - self.mu
        self.n += 1
        self.mu += delta / self.n
        # Welford: uses the mean both before (delta) and after the update.
        self.m2 += delta * (value - self.mu)
        # min/max are kept as floats (PySpark's values are floats too); NaN wins
        # like numpy.maximum, so a NaN in the data is visible in the result.
        fvalue = float(value)
        self.maxValue = _nan_max(self.maxValue, fvalue)
        self.minValue = _nan_min(self.minValue, fvalue)
        return self

    def mergeStats(self, other: StatCounter) -> StatCounter:
        """Merge another counter's statistics into this one; returns ``self``.

        Parameters
        ----------
        other : StatCounter
            The counter to merge (left unchanged). May be ``self``.

        Returns
        -------
        StatCounter
            This counter.

        Raises
        ------
        TypeError
            If ``other`` is not a StatCounter.
        """
        if not isinstance(other, StatCounter):
            raise TypeError(
                f"mergeStats() takes a StatCounter, got {type(other).__name__}; "
                f"use merge() to add a single value"
            )
        if other is self:
            # Merging a counter with itself would read fields while writing them.
            return self.mergeStats(other.copy())
        if other.n == 0:
            return self
        if self.n == 0:
            self.n, self.mu, self.m2 = other.n, other.mu, other.m2
            self.maxValue, self.minValue = other.maxValue, other.minValue
            return self
        n = self.n + other.n
        delta = other.mu - self.mu
        # When one side is much larger, moving its mean by a small correction keeps
        # more precision than the weighted average of two means.
        if other.n * 10 < self.n:
            self.mu += delta * other.n / n
        elif self.n * 10 < other.n:
            self.mu = other.mu - delta * self.n / n
        else:
            self.mu = (self.mu * self.n + other.mu * other.n) / n
        self.m2 += other.m2 + delta * delta * self.n * other.n / n
        self.n = n
        self.maxValue = _nan_max(self.maxValue, other.maxValue)
        self.minValue = _nan_min(self.minValue, other.minValue)
        return self

    def copy(self) -> StatCounter:
        """Return an independent copy of this counter.

        Returns
        -------
        StatCounter
            A new counter with the same statistics.
        """
        clone = StatCounter()
        clone.n, clone.mu, clone.m2 = self.n, self.mu, self.m2
        clone.maxValue, clone.minValue = self.maxValue, self.minValue
        return clone

    def count(self) -> int:
        """Return the number of values merged."""
        return int(self.n)

    def mean(self) -> float:
        """Return the mean (``0.0`` when empty)."""
        return float(self.mu)

    def sum(self) -> float:
        """Return the sum of the values (``n * mean``)."""
        return float(self.n * self.mu)

    def min(self) -> float:
        """Return the smallest value (``inf`` when empty)."""
        return self.minValue

    def max(self) -> float:
        """Return the largest value (``-inf`` when empty)."""
        return self.maxValue

    def variance(self) -> float:
        """Return the population variance (``nan`` when empty)."""
        if self.n == 0:
            return float("nan")
        return self.m2 / self.n

    def sampleVariance(self) -> float:
        """Return the sample variance, dividing by ``n - 1`` (``nan`` when ``n <= 1``)."""
        if self.n <= 1:
            return float("nan")
        return self.m2 / (self.n - 1)

    def stdev(self) -> float:
        """Return the population standard deviation."""
        return math.sqrt(self.variance())

    def sampleStdev(self) -> float:
        """Return the sample standard deviation, dividing by ``n - 1``."""
        return math.sqrt(self.sampleVariance())

    def asDict(self, sample: bool = False) -> dict[str, Any]:
        """Return the statistics as a dict.

        Parameters
        ----------
        sample : bool, default False
            PySpark's flag, inverted as PySpark has it: by default the **sample** (``n - 1``)
            stdev and variance, with ``sample=True`` the population ones. (Kept so that
            code moved from PySpark prints the same numbers.)

        Returns
        -------
        dict
            Keys ``count``, ``mean``, ``sum``, ``min``, ``max``, ``stdev``, ``variance``.

        Examples
        --------
        >>> StatCounter([1.0, 2.0, 3.0]).asDict()["variance"]
        1.0
        >>> StatCounter([1.0, 2.0, 3.0]).asDict(sample=True)["variance"]
        0.6666666666666666
        """
        return {
            "count": self.count(),
            "mean": self.mean(),
            "sum": self.sum(),
            "min": self.min(),
            "max": self.max(),
            "stdev": self.stdev() if sample else self.sampleStdev(),
            "variance": self.variance() if sample else self.sampleVariance(),
        }

    def __repr__(self) -> str:
        return (
            f"(count: {self.count()}, mean: {self.mean()}, stdev: {self.stdev()}, "
            f"max: {self.max()}, min: {self.min()})"
        )

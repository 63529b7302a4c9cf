"""RDDApproximate: PySpark's approximate actions (``countApprox``, ``sumApprox``, ``meanApprox``,
``countApproxDistinct``) and their result type, ``BoundedFloat``.

What this module owns
---------------------
* ``countApprox``, ``sumApprox`` and ``meanApprox`` run their job to the end, so the
  answer is exact: a ``BoundedFloat`` whose ``low`` and ``high`` equal the value, with
  confidence 1.0, which is what Spark returns once every task has reported. The
  ``timeout`` is checked (a number >= 0) but never cuts a job short: an estimate from
  some of the partitions would be a different number on every run, and the engine
  computes partitions fast enough that waiting is the better trade.
* ``countApproxDistinct`` is a HyperLogLog sketch over PySpark's 32-bit ``portable_hash``
  of each element (as PySpark hashes before handing the values to Spark's HLL++), so
  values with equal hashes count once, exactly as in PySpark. Each task fills its own
  registers; the driver merges them (register-wise max) and estimates. Up to
  ``4 * 2**p`` distinct hashes (at most 16,384) the sketch also keeps them exactly, and
  the count is exact: small sets are where a plain HyperLogLog errs most.

Invariants
----------
* A sketch depends only on the elements, never on the partitioning or the order: the
  same data gives the same estimate on every master.
* The register count is ``2**p`` with ``p`` the smallest precision whose standard error
  (``1.04 / sqrt(2**p)``) is within ``relativeSD`` (Spark's rule; ``p`` from 4 to 18 here).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from rdd.partitioner import portable_hash

if TYPE_CHECKING:
    from rdd.rdd import RDD

__all__ = ["BoundedFloat", "RDDApproximate"]

T = TypeVar("T")

# PySpark's floor for relativeSD: below it the sketch would need more registers than
# Spark's HLL++ allows.
_MIN_RELATIVE_SD = 0.000017
# Precision bounds: 4 keeps the bias constant of the estimator defined; 18 registers
# (256 K bytes per task) are past any relativeSD a user asks for in practice (0.0026).
_MIN_PRECISION, _MAX_PRECISION = 4, 18
_MASK64 = (1 << 64) - 1
# Small sets are counted exactly (HLL++ has a sparse mode for the same reason: a few
# hundred values in a few hundred registers collide enough to be off by 10%).
_MAX_SPARSE = 1 << 14


class BoundedFloat(float):
    """A float with the confidence and bounds of an approximate result (PySpark's type).

    Parameters
    ----------
    mean : float
        The value.
    confidence : float
        Probability that the true value lies in ``[low, high]``.
    low, high : float
        The bounds.

    Examples
    --------
    >>> b = BoundedFloat(5.0, 0.95, 4.0, 6.0)
    >>> b + 1, b.confidence, b.low, b.high
    (6.0, 0.95, 4.0, 6.0)
    """

    confidence: float
    low: float
    high: float

    def __new__(cls, mean: float, confidence: float, low: float, high: float) -> BoundedFloat:
        value = float.__new__(cls, mean)
        value.confidence = confidence
        value.low = low
        value.high = high
        return value

    def __reduce__(self) -> tuple[Any, ...]:
        return (BoundedFloat, (float(self), self.confidence, self.low, self.high))


def _exact(value: float) -> BoundedFloat:
    return BoundedFloat(value, 1.0, value, value)


def _check_timeout(timeout: Any, confidence: Any) -> None:
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout >= 0:
        raise ValueError(f"timeout must be a number of milliseconds >= 0, got {timeout!r}")
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 <= confidence <= 1:
        raise ValueError(f"confidence must be a probability in [0, 1], got {confidence!r}")


def precision_for(relative_sd: float) -> int:
    """The sketch's precision ``p`` (``2**p`` registers) for a standard error of ``relative_sd``."""
    wanted = math.ceil(2.0 * math.log2(1.04 / relative_sd))
    return min(max(wanted, _MIN_PRECISION), _MAX_PRECISION)


def _mix64(value: int) -> int:
    # splitmix64's finaliser: portable_hash's 32 bits spread over 64, so the register
    # index and the run of zeros after it come from independent-looking bits.
    value = (value + 0x9E3779B97F4A7C15) & _MASK64
    value = ((value ^ (value >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    value = ((value ^ (value >> 27)) * 0x94D049BB133111EB) & _MASK64
    return value ^ (value >> 31)


def sparse_limit(precision: int) -> int:
    """How many distinct hashes a sketch keeps exactly before it falls back to its registers."""
    return min(4 << precision, _MAX_SPARSE)


def sketch_partition(precision: int, iterator: Iterable[Any]) -> tuple[bytearray, set[int] | None]:
    """One partition's sketch (a task's result): HyperLogLog registers, plus the exact set of
    hashes while there are at most :func:`sparse_limit` of them (``None`` past it)."""
    registers = bytearray(1 << precision)
    exact: set[int] | None = set()
    limit = sparse_limit(precision)
    rest_bits = 64 - precision
    rest_mask = (1 << rest_bits) - 1
    for element in iterator:
        hashed = portable_hash(element) & 0xFFFFFFFF
        if exact is not None:
            exact.add(hashed)
            if len(exact) > limit:
                exact = None
        mixed = _mix64(hashed)
        index = mixed >> rest_bits
        rank = rest_bits - (mixed & rest_mask).bit_length() + 1  # leading zeros after the index, plus one
        if rank > registers[index]:
            registers[index] = rank
    return registers, exact


def merge_sketches(a: tuple[bytearray, set[int] | None], b: tuple[bytearray, set[int] | None],
                   limit: int) -> tuple[bytearray, set[int] | None]:
    """Two sketches as one: register-wise max; the exact sets' union while it stays within ``limit``."""
    exact = a[1] | b[1] if a[1] is not None and b[1] is not None else None
    if exact is not None and len(exact) > limit:
        exact = None
    return bytearray(map(max, a[0], b[0])), exact


def estimate(registers: bytearray) -> int:
    """The cardinality estimate of merged registers (HyperLogLog with linear counting for small sets)."""
    m = len(registers)
    alpha = {16: 0.673, 32: 0.697, 64: 0.709}.get(m, 0.7213 / (1.0 + 1.079 / m))
    raw = alpha * m * m / sum(2.0 ** -r for r in registers)
    zeros = registers.count(0)
    if raw <= 2.5 * m and zeros:
        return round(m * math.log(m / zeros))
    return round(raw)


def _count_one(iterator: Iterable[Any]) -> list[float]:
    return [float(sum(1 for _ in iterator))]


def _sum_and_count(iterator: Iterable[Any]) -> tuple[float, int]:
    total, count = 0.0, 0
    for value in iterator:
        total += float(value)
        count += 1
    return total, count


class RDDApproximate:
    """The approximate actions of ``RDD``; mixed into :class:`rdd.rdd.RDD`."""

    def countApprox(self: RDD[Any], timeout: int, confidence: float = 0.95) -> int:  # noqa: N802 - PySpark's name
        """The number of elements (exact: the job runs to the end; see the module doc).

        Parameters
        ----------
        timeout : int
            Milliseconds PySpark would wait before estimating (checked, not used).
        confidence : float
            The confidence PySpark would report, in [0, 1].

        Examples
        --------
        >>> sc.parallelize(range(1000), 10).countApprox(1000, 1.0)
        1000
        """
        return int(self.mapPartitions(_count_one).sumApprox(timeout, confidence))

    def sumApprox(self: RDD[Any], timeout: int, confidence: float = 0.95) -> BoundedFloat:  # noqa: N802
        """The sum of the elements as a :class:`BoundedFloat` (exact; see the module doc).

        Examples
        --------
        >>> r = sc.parallelize(range(1000), 10).sumApprox(1000)
        >>> r, r.low, r.high, r.confidence
        (499500.0, 499500.0, 499500.0, 1.0)
        """
        _check_timeout(timeout, confidence)
        parts = self.ctx._run_job(self, _sum_and_count)
        return _exact(math.fsum(total for total, _ in parts))

    def meanApprox(self: RDD[Any], timeout: int, confidence: float = 0.95) -> BoundedFloat:  # noqa: N802
        """The mean of the elements as a :class:`BoundedFloat` (exact; ``nan`` when empty).

        Examples
        --------
        >>> sc.parallelize(range(1000), 10).meanApprox(1000)
        499.5
        """
        _check_timeout(timeout, confidence)
        parts = self.ctx._run_job(self, _sum_and_count)
        count = sum(n for _, n in parts)
        return _exact(math.fsum(total for total, _ in parts) / count if count else math.nan)

    def countApproxDistinct(self: RDD[Any], relativeSD: float = 0.05) -> int:  # noqa: N802,N803
        """The approximate number of distinct elements (HyperLogLog; see the module doc).

        Parameters
        ----------
        relativeSD : float
            The sketch's relative standard error; smaller takes more memory per task.
            Must be greater than 0.000017.

        Examples
        --------
        >>> n = sc.parallelize(range(1000), 4).countApproxDistinct()
        >>> 900 < n < 1100
        True
        >>> sc.parallelize(["a", "b", "a"]).countApproxDistinct()
        2
        """
        if isinstance(relativeSD, bool) or not isinstance(relativeSD, (int, float)) or \
                not relativeSD > _MIN_RELATIVE_SD:
            raise ValueError(f"relativeSD should be greater than {_MIN_RELATIVE_SD}, got {relativeSD!r}")
        precision = precision_for(float(relativeSD))
        parts = self.ctx._run_job(self, functools.partial(sketch_partition, precision))
        limit = sparse_limit(precision)
        merged: tuple[bytearray, set[int] | None] = (bytearray(1 << precision), set())
        for part in parts:
            merged = merge_sketches(merged, part, limit)
        registers, exact = merged
        return len(exact) if exact is not None else estimate(registers)

"""Integral sums as bigint, with the exact check of the groups whose sum left its range.

What this module owns
---------------------
:func:`long_overflows` (which groups' true sums are out of bigint's range) and
:func:`long_sums` (``sum``'s bigint result: an ANSI error on overflow, else Java's
wrapped value). ``sum`` and ``try_sum`` (null on overflow) use both.

Invariants
----------
* Arrow's int64 sum wraps modulo 2**64; a float64 sum of the same values beside it tells
  which groups came near the range's ends, and only those are reconstructed exactly.
"""

from __future__ import annotations

from fractions import Fraction

import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["long_overflows", "long_sums"]

_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


def long_overflows(sums: pa.Array, approx: pa.Array) -> pa.Array | None:
    """Per group, whether its true integral sum left bigint's range; ``None`` when none came near.

    ``sums`` are int64 sums, wrapped modulo 2**64 (so exact whenever the true sum fits);
    ``approx`` are the float64 sums of the same values. A true sum far inside the range has
    a float sum far inside it too; only groups whose float sum nears 2**62 are checked
    exactly: the true sum is the wrapped one plus the multiple of 2**64 closest to the float.
    """
    approx = approx.cast(pa.float64())
    near = pc.fill_null(pc.greater_equal(pc.abs(approx), float(2**62)), False)
    if not pc.any(near).as_py():
        return None
    flags = [False] * len(sums)
    positions = [i for i, close in enumerate(near.to_pylist()) if close]
    for i, wrapped, estimate in zip(positions, sums.filter(near).to_pylist(), approx.filter(near).to_pylist()):
        true = wrapped + round((Fraction(estimate) - wrapped) / 2**64) * 2**64
        flags[i] = not _LONG_MIN <= true <= _LONG_MAX
    return pa.array(flags, pa.bool_())


def long_sums(sums: pa.Array, approx: pa.Array, ansi: bool) -> pa.Array:
    """Integral sums as bigint: out of range raises ``ARITHMETIC_OVERFLOW`` (ANSI) or wraps as Java's
    (see :func:`long_overflows`)."""
    sums = sums.cast(pa.int64())
    if ansi:
        overflows = long_overflows(sums, approx)
        if overflows is not None and pc.any(overflows).as_py():
            from ..kernels.conditions import arithmetic_overflow  # noqa: PLC0415 - only on the error path

            raise arithmetic_overflow("long overflow", "try_sum")
    # Out of range without ANSI: the wrapped int64 sum is what Java's long arithmetic gives.
    return sums

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
* Under ANSI Spark adds row by row, each addition checked: a group whose running sum
  leaves the range on the way fails even if its total fits (``MAX + 1 - 1``).
  :func:`check_running_sums` replays that in row order, per group, but only when the
  batch's values are large enough for any running sum to get there (their absolute
  values add up to 2**63 or more): other batches pay one pass of ``abs`` and ``sum``.
"""

from __future__ import annotations

from fractions import Fraction

import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["check_running_sums", "long_overflows", "long_sums"]

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

            raise arithmetic_overflow("long overflow", "try_add")
    # Out of range without ANSI: the wrapped int64 sum is what Java's long arithmetic gives.
    return sums


def check_running_sums(values: pa.Array, keys: pa.Table) -> None:
    """Raise ``ARITHMETIC_OVERFLOW`` if a group's running sum, in row order, leaves bigint's range.

    ``values`` are int64 (nulls skipped), ``keys`` the grouping columns of the same rows
    (an empty table: one group). See the module doc for when the rows are replayed.
    """
    if values.null_count == len(values):
        return
    magnitude = pc.sum(pc.abs(values.cast(pa.float64(), safe=False))).as_py() or 0.0
    if magnitude < float(2**63) * (1 - 2**-40):  # no running sum can reach the range's ends
        return
    rows = keys.append_column("__v", values) if keys.num_columns else pa.table({"__v": values})
    if keys.num_columns:
        per_group = rows.group_by(keys.column_names, use_threads=False).aggregate([("__v", "list")])
        groups = per_group.column("__v_list").to_pylist()
    else:
        groups = [values.to_pylist()]
    for members in groups:
        total = 0
        for v in members:
            if v is not None:
                total += v
                if not _LONG_MIN <= total <= _LONG_MAX:
                    from ..kernels.conditions import arithmetic_overflow  # noqa: PLC0415 - only on the error path

                    raise arithmetic_overflow("long overflow", "try_add")

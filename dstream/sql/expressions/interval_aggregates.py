"""``sum`` and ``avg`` of ANSI intervals: the values their buffers finish into.

What this module owns
---------------------
The last step of ``sum``/``try_sum`` and ``avg``/``try_avg`` over a day-time or
year-month interval column (the buffers are :class:`.aggregates.Sum`'s and ``Avg``'s:
a sum of the stored units, months or microseconds, as int64 beside an approximate
float64 sum, and a count):

* ``sum`` keeps the column's type; beyond an int of months (year-month) or a long of
  microseconds (day-time) it raises ``INTERVAL_ARITHMETIC_OVERFLOW`` (``try_sum``: null).
* ``avg`` is the widest interval of the kind (``INTERVAL YEAR TO MONTH``, ``INTERVAL DAY
  TO SECOND``), the exact mean rounded HALF_UP to a month or a microsecond, as Spark
  divides an interval.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, localcontext

import pyarrow as pa
import pyarrow.compute as pc

from ..kernels.conditions import interval_overflow
from ..types import DataType, YearMonthIntervalType
from .long_sums import long_overflows, long_sums

__all__ = ["interval_sums", "interval_avgs"]


def _arrow(dt: DataType) -> pa.DataType:
    from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - light import at run time only

    return to_arrow_type(dt)


def interval_sums(total: pa.Array, approx: pa.Array, dt: DataType, null_on_overflow: bool) -> pa.Array:
    """The sums of the stored units as intervals of type ``dt``."""
    sums = long_sums(total, approx, ansi=False)
    wrapped = long_overflows(sums, approx)
    over = pc.fill_null(wrapped, False) if wrapped is not None else pa.array([False] * len(sums))
    if isinstance(dt, YearMonthIntervalType):
        outside = pc.or_(pc.less(sums, -(2**31)), pc.greater(sums, 2**31 - 1))
        over = pc.or_(over, pc.fill_null(outside, False))
    if pc.any(over).as_py():
        if not null_on_overflow:
            raise interval_overflow("try_add")
        sums = pc.if_else(over, pa.scalar(None, pa.int64()), sums)
    return sums.cast(pa.int64()).cast(_arrow(dt))


def interval_avgs(total: pa.Array, count: pa.Array, dt: DataType) -> pa.Array:
    """The means (HALF_UP to the unit) of sums ``total`` over ``count`` values, as intervals of type ``dt``."""
    out: list[int | None] = []
    with localcontext() as ctx:
        ctx.prec = 60
        for s, c in zip(total.to_pylist(), count.to_pylist()):
            out.append(None if s is None or not c else int((Decimal(s) / c).quantize(Decimal(1), ROUND_HALF_UP)))
    return pa.array(out, pa.int64()).cast(_arrow(dt))

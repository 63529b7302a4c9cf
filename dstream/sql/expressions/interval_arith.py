"""``+`` and ``-`` on timestamps, dates and ANSI intervals (``t + INTERVAL 1 HOUR``, ``d - INTERVAL 1 MONTH``).

What this module owns
---------------------
The typing, coercion and evaluation of Spark's datetime arithmetic with ANSI intervals,
for the ``Add`` and ``Subtract`` nodes of :mod:`.operators` (they stay those nodes, so the
rest of the engine, the stream-stream join's time bounds among them, reads
``t + INTERVAL 1 HOUR`` as a sum); ``*`` and ``/`` of an interval by a number are
:mod:`.interval_scale`'s, dispatched from here:

==========================================  ==========================================
operands                                    result
==========================================  ==========================================
timestamp ± interval, interval + timestamp  the timestamp's type: the interval's whole
                                            days on the session zone's wall clock,
                                            then the rest as microseconds (Spark's
                                            timestampAddDayTime); timestamp_ntz plainly
date ± interval of days only                date
date ± any other day-time interval          timestamp (the date's midnight, UTC-free
                                            arithmetic on the instant)
interval ± interval                         interval (the fields of both)
timestamp - timestamp                       ``interval day to second``
date - date                                 ``interval day``
date ± year-month interval                  date: the same day of the month, or the
                                            month's last day (Jan 31 + 1 month = Feb 29)
timestamp ± year-month interval             the timestamp's type: its wall time (in the
                                            session zone) moved so, a wall time in a DST
                                            gap moved forward by the gap, as Java does
year-month ± year-month                     year-month (the fields of both)
date, timestamp ± calendar interval         see :mod:`.calendar_interval` (months, then
                                            days, then microseconds)
calendar ± calendar interval                calendar interval, part by part
==========================================  ==========================================

Invariants
----------
* Overflow raises ``ARITHMETIC_OVERFLOW`` whatever ``spark.sql.ansi.enabled`` says, as
  Spark's ``Math.addExact`` does for datetimes (``INTERVAL_ARITHMETIC_OVERFLOW`` for a sum
  of year-month intervals beyond an int of months).
* A ``void`` operand takes the other side's temporal type; a timestamp meets a
  ``timestamp_ntz`` as ``timestamp``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import ArithmeticException
from ..formatting import FIELD_MICROS
from ..kernels.conditions import interval_overflow
from ..kernels.year_month import shift_dated
from ..types import (
    CalendarIntervalType,
    DataType,
    DateType,
    DayTimeIntervalType,
    NullType,
    TimestampNTZType,
    TimestampType,
    YearMonthIntervalType,
)
from .base import EvalContext
from .calendar_interval import add_calendar, shift_by_calendar
from .cast import cast_to
from .checks import mismatch, quoted_type
from .coercion import wider_interval
from .interval_scale import coerce_scaled, eval_scaled, is_scaled, scaled_type

if TYPE_CHECKING:
    from .operators import BinaryArithmetic

__all__ = ["is_temporal", "coerce_temporal", "temporal_type", "eval_temporal", "exact"]

_DAY_MICROS = FIELD_MICROS[DayTimeIntervalType.DAY]


def _ts(dt: DataType) -> bool:
    return isinstance(dt, TimestampType | TimestampNTZType)


def _iv(dt: DataType) -> bool:
    return isinstance(dt, DayTimeIntervalType)


def _ym(dt: DataType) -> bool:
    return isinstance(dt, YearMonthIntervalType)


def _cal(dt: DataType) -> bool:
    return isinstance(dt, CalendarIntervalType)


def _dated(dt: DataType) -> bool:
    return isinstance(dt, DateType) or _ts(dt)


def is_temporal(symbol: str, lt: DataType, rt: DataType) -> bool:
    """Whether ``lt symbol rt`` is datetime or interval arithmetic (handled here) rather than numeric."""
    if symbol in ("*", "/"):
        return is_scaled(symbol, lt, rt)
    if symbol not in ("+", "-"):
        return False
    if _iv(lt) or _iv(rt) or _ym(lt) or _ym(rt) or _cal(lt) or _cal(rt):
        return True
    if symbol == "-":
        return (_ts(lt) and _ts(rt)) or (isinstance(lt, DateType) and isinstance(rt, DateType))
    return False


def coerce_temporal(node: BinaryArithmetic) -> BinaryArithmetic:
    """``node`` with its operands cast to the types its datetime arithmetic needs (or a clear error)."""
    if node.symbol in ("*", "/"):
        return coerce_scaled(node)
    left, right = node.left, node.right
    lt, rt = left.data_type(), right.data_type()
    if isinstance(lt, NullType):
        left, lt = cast_to(left, rt), rt
    elif isinstance(rt, NullType):
        right, rt = cast_to(right, lt), lt
    if _ts(lt) and _ts(rt) and lt != rt:
        left, right = cast_to(left, TimestampType()), cast_to(right, TimestampType())
    elif isinstance(lt, DateType) and _iv(rt) and not _days_only(rt):
        left = cast_to(left, TimestampType())
    elif isinstance(rt, DateType) and _iv(lt) and not _days_only(lt) and node.symbol == "+":
        right = cast_to(right, TimestampType())
    out = node if left is node.left and right is node.right else type(node)(left, right)
    if temporal_type(out.symbol, out.left.data_type(), out.right.data_type()) is None:
        lt, rt = out.left.data_type(), out.right.data_type()
        raise mismatch(out, "BINARY_OP_DIFF_TYPES",
                       f"the left and right operands of the binary operator have incompatible types "
                       f"({quoted_type(lt)} and {quoted_type(rt)}); an interval adds to or subtracts from a "
                       "timestamp, a date or another interval, and only a timestamp or a date is subtracted "
                       "from its own kind")
    return out


def _days_only(dt: DataType) -> bool:
    return isinstance(dt, DayTimeIntervalType) and dt.startField == dt.endField == DayTimeIntervalType.DAY


def temporal_type(symbol: str, lt: DataType, rt: DataType) -> DataType | None:
    """The result type of ``lt symbol rt`` after coercion, ``None`` when the pair has no meaning."""
    if symbol in ("*", "/"):
        return scaled_type(lt, rt)
    if (_ym(rt) or _cal(rt)) and _dated(lt):
        return lt
    if symbol == "+" and (_ym(lt) or _cal(lt)) and _dated(rt):
        return rt
    if _cal(lt) and _cal(rt):
        return lt
    if isinstance(lt, YearMonthIntervalType) and isinstance(rt, YearMonthIntervalType):
        return YearMonthIntervalType(min(lt.startField, rt.startField), max(lt.endField, rt.endField))
    if _ts(lt) and _iv(rt):
        return lt
    if symbol == "+" and _iv(lt) and _ts(rt):
        return rt
    if isinstance(lt, DateType) and _days_only(rt) or symbol == "+" and _days_only(lt) and isinstance(rt, DateType):
        return DateType()
    if isinstance(lt, DayTimeIntervalType) and isinstance(rt, DayTimeIntervalType):
        return wider_interval(lt, rt)
    if symbol == "-" and _ts(lt) and lt == rt:
        return DayTimeIntervalType()
    if symbol == "-" and isinstance(lt, DateType) and isinstance(rt, DateType):
        return DayTimeIntervalType(DayTimeIntervalType.DAY, DayTimeIntervalType.DAY)
    return None


def _micros(values: pa.Array) -> pa.Array:
    """Timestamps, durations or dates as int64 (microseconds; days for dates)."""
    if pa.types.is_date32(values.type):
        return values.cast(pa.int32()).cast(pa.int64())
    return values.cast(pa.int64())


def exact(fn: str, what: str, *arrays: pa.Array | pa.Scalar) -> pa.Array:
    """Arrow's checked ``fn`` (``add_checked``, ``negate_checked``...) of int64 ``arrays``; overflow raises
    ``ARITHMETIC_OVERFLOW`` naming ``what``."""
    try:
        return getattr(pc, fn)(*arrays)
    except pa.ArrowInvalid:
        raise ArithmeticException(
            f"[ARITHMETIC_OVERFLOW] {what} overflowed: the result is beyond the range of a timestamp or an "
            "interval (about 292,000 years).", "ARITHMETIC_OVERFLOW", {"message": what}) from None


def eval_temporal(symbol: str, a: pa.Array, b: pa.Array, lt: DataType, rt: DataType, result: DataType,
                  ctx: EvalContext) -> pa.Array:
    """The values of ``a symbol b`` for coerced operand types ``lt``, ``rt`` and result type ``result``."""
    if symbol in ("*", "/"):
        return eval_scaled(symbol, a, b, lt, rt, result)
    if _ym(lt) or _ym(rt):
        return _eval_year_month(symbol, a, b, lt, rt, result, ctx)
    sign = 1 if symbol == "+" else -1
    if _cal(lt) and _cal(rt):
        return add_calendar(a, b, sign)
    if _cal(rt):
        return shift_by_calendar(a, b, sign, lt, ctx.time_zone)
    if _cal(lt):
        return shift_by_calendar(b, a, 1, rt, ctx.time_zone)
    fn = "add_checked" if symbol == "+" else "subtract_checked"
    what = f"{quoted_type(lt)} {symbol} {quoted_type(rt)}"
    left, right = _micros(a), _micros(b)
    if isinstance(result, DateType):
        # Days only: the interval's whole days move the date.
        if _iv(lt):
            left = pc.divide(left, _DAY_MICROS)
        else:
            right = pc.divide(right, _DAY_MICROS)
        days = exact(fn, what, left, right)
        return days.cast(pa.int32()).cast(pa.date32())
    if isinstance(lt, DateType) and isinstance(rt, DateType):
        days = exact("subtract_checked", what, left, right)
        return exact("multiply_checked", what, days, pa.scalar(_DAY_MICROS, pa.int64())).cast(pa.duration("us"))
    out = exact(fn, what, left, right)  # also the overflow check of the wall-clock form below
    if isinstance(result, TimestampType) and (_iv(lt) or _iv(rt)):
        out = _whole_days_on_wall_clock(a if _iv(rt) else b, right if _iv(rt) else left, sign if _iv(rt) else 1,
                                        out, ctx.time_zone)
    from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - light import at run time only

    return out.cast(to_arrow_type(result))


def _whole_days_on_wall_clock(stamps: pa.Array, interval: pa.Array, sign: int, instants: pa.Array,
                              time_zone: str) -> pa.Array:
    """A timestamp plus a day-time interval as Spark's ``timestampAddDayTime``: the interval's whole
    days (toward zero) on the session zone's wall clock, then the rest as microseconds.

    ``TIMESTAMP'2024-03-10 01:30' + INTERVAL 1 DAY`` in Los Angeles is 01:30 the next day,
    not 02:30 (the night is 23 hours long). ``instants`` is the plain sum, kept when no row
    has a whole day.
    """
    micros = interval.fill_null(0).to_numpy(zero_copy_only=False) * sign
    days = np.sign(micros) * (np.abs(micros) // _DAY_MICROS)
    if not days.any():
        return instants
    moved = shift_dated(stamps.cast(pa.timestamp("us", "UTC")), np.zeros(len(micros), np.int64), days,
                        micros - days * _DAY_MICROS, time_zone)
    return pa.array(moved, pa.int64(), mask=instants.is_null().to_numpy(zero_copy_only=False))


def _eval_year_month(symbol: str, a: pa.Array, b: pa.Array, lt: DataType, rt: DataType, result: DataType,
                     ctx: EvalContext) -> pa.Array:
    if _ym(lt) and _ym(rt):
        fn = "add_checked" if symbol == "+" else "subtract_checked"
        try:
            return getattr(pc, fn)(a.cast(pa.int32()), b.cast(pa.int32()))
        except pa.ArrowInvalid:
            raise interval_overflow("try_add" if symbol == "+" else "try_subtract") from None
    dated, months = (a, b) if _ym(rt) else (b, a)
    valid = pc.and_(dated.is_valid(), months.is_valid()).to_numpy(zero_copy_only=False)
    count = months.cast(pa.int64()).fill_null(0).to_numpy(zero_copy_only=False)
    moved = shift_dated(dated, -count if symbol == "-" else count, time_zone=ctx.time_zone)
    if isinstance(result, DateType):
        _check_range(moved[valid], -(2**31), 2**31 - 1, lt, rt, symbol)
        return pa.array(moved.astype(np.int32), pa.int32(), mask=~valid).cast(pa.date32())
    return pa.array(moved, pa.int64(), mask=~valid).cast(dated.type)


def _check_range(values: np.ndarray, low: int, high: int, lt: DataType, rt: DataType, symbol: str) -> None:
    if values.size and (values.min() < low or values.max() > high):
        what = f"{quoted_type(lt)} {symbol} {quoted_type(rt)}"
        raise ArithmeticException(
            f"[ARITHMETIC_OVERFLOW] {what} overflowed: the result is beyond the range of a date.",
            "ARITHMETIC_OVERFLOW", {"message": what})

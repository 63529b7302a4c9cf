"""Spark's calendar interval (``CalendarIntervalType``): ``make_interval`` and what it does.

What this module owns
---------------------
* ``make_interval(years, months, weeks, days, hours, mins, secs)`` (each 0 when omitted,
  ``secs`` a ``decimal(18,6)``) and ``try_make_interval`` (null where a part overflows):
  months = years * 12 + months, days = weeks * 7 + days, microseconds from the rest.
* Its arithmetic, for the ``+``, ``-``, ``*`` and ``/`` nodes (see :mod:`.interval_arith`):
  a timestamp plus an interval moves by the months, then the days, on the wall clock of
  the session time zone (a ``timestamp_ntz`` on its own), then by the microseconds, as
  Spark's ``timestampAddInterval``; a date plus one without microseconds stays a date;
  intervals add and subtract part by part; multiplied or divided by a number, each part is
  scaled as Spark's ``IntervalUtils.fromDoubles`` does: the months truncated (their
  fraction dropped), the days truncated with their fraction carried into microseconds.

Invariants
----------
* Arrow's ``month_day_nano_interval`` holds it (months, days, nanoseconds = microseconds
  * 1000): the parts never mix, as in Spark.
* A part beyond an int (months, days) raises ``ARITHMETIC_OVERFLOW``, as does a time part
  beyond what nanoseconds hold (about 292 years either way; Spark's microseconds go
  further); the ``try_`` forms give null.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import numpy as np
import pyarrow as pa

from ..errors import ArithmeticException, IllegalArgumentException
from ..formatting import FIELD_MICROS
from ..kernels.conditions import arithmetic_overflow, interval_divided_by_zero
from ..kernels.year_month import DAY_MICROS, shift_dated
from ..types import CalendarIntervalType, DataType, DateType, DecimalType, IntegerType
from .base import EvalContext
from .function_registry import FunctionSpec, register

__all__ = ["calendar_parts", "calendar_array", "add_calendar", "negate_calendar", "scale_calendar",
           "shift_by_calendar"]

Parts = tuple[int, int, int]

_INT = (-(2**31), 2**31 - 1)
#: Arrow's month_day_nano_interval holds the time part in nanoseconds: about 292 years of
#: microseconds either way (Spark's long of microseconds reaches 292,000 years).
_MICROS = (-((2**63 - 1) // 1000), (2**63 - 1) // 1000)


def _checked(parts: Parts, null_on_overflow: bool = False) -> Parts | None:
    """``parts`` when each fits its storage; else ``None`` (``null_on_overflow``) or Spark's overflow error."""
    months, days, micros = parts
    if _INT[0] <= months <= _INT[1] and _INT[0] <= days <= _INT[1] and _MICROS[0] <= micros <= _MICROS[1]:
        return parts
    if null_on_overflow:
        return None
    if _INT[0] <= months <= _INT[1] and _INT[0] <= days <= _INT[1] and -(2**63) <= micros < 2**63:
        raise ArithmeticException(
            f"The time part of a calendar interval, {micros} microseconds, is beyond what dstreams holds (about "
            "292 years either way, in Arrow's nanoseconds): use a day-time interval or fewer hours and seconds.",
            "ARITHMETIC_OVERFLOW", {"message": "calendar interval time part overflow"})
    raise arithmetic_overflow("integer overflow")


def calendar_parts(values: pa.Array) -> list[Parts | None]:
    """``(months, days, microseconds)`` of each interval (``None`` for a null)."""
    return [None if v is None else (v.months, v.days, v.nanoseconds // 1000) for v in values.to_pylist()]


def calendar_array(parts: list[Parts | None]) -> pa.Array:
    """Intervals of ``(months, days, microseconds)`` parts."""
    return pa.array([None if p is None else (p[0], p[1], p[2] * 1000) for p in parts], pa.month_day_nano_interval())


def _run_make_interval(null_on_overflow: bool) -> Any:
    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        n = next((len(a) for a in args if isinstance(a, pa.Array)), 1)
        columns = [a.to_pylist() if isinstance(a, pa.Array) else [a] * n for a in args]
        columns += [[0] * n] * (7 - len(columns))
        out: list[Parts | None] = []
        for years, months, weeks, days, hours, mins, secs in zip(*columns):
            if None in (years, months, weeks, days, hours, mins, secs):
                out.append(None)
                continue
            micros = hours * FIELD_MICROS[1] + mins * FIELD_MICROS[2] + int(Decimal(str(secs)) * 1_000_000)
            out.append(_checked((years * 12 + months, weeks * 7 + days, micros), null_on_overflow))
        return calendar_array(out)
    return run


def _make_interval_types(types: list[DataType]) -> list[DataType | None]:
    wanted: list[DataType | None] = [IntegerType()] * 6 + [DecimalType(18, 6)]
    return wanted[: len(types)]


#: The arguments Spark fills in for omitted ones, as its generated names show them.
_DEFAULTS = ("0",) * 6 + ("0.000000",)


def _shown(name: str) -> Any:
    def display(sqls: list[str]) -> str:
        return f"{name}({', '.join([*sqls, *_DEFAULTS[len(sqls):]])})"
    return display


for _name, _lenient in (("make_interval", False), ("try_make_interval", True)):
    register(FunctionSpec(_name, 0, 7, _make_interval_types, lambda ts: CalendarIntervalType(),
                          _run_make_interval(_lenient), display=_shown(_name)))


def add_calendar(a: pa.Array, b: pa.Array, sign: int) -> pa.Array:
    """``a + b`` (``sign`` 1) or ``a - b`` (-1) of two calendar interval arrays, part by part."""
    out: list[Parts | None] = []
    for x, y in zip(calendar_parts(a), calendar_parts(b)):
        if x is None or y is None:
            out.append(None)
            continue
        out.append(_checked((x[0] + sign * y[0], x[1] + sign * y[1], x[2] + sign * y[2])))
    return calendar_array(out)


def negate_calendar(values: pa.Array) -> pa.Array:
    """``-interval``: each part negated exactly (Spark's ``negateExact``)."""
    out: list[Parts | None] = []
    for p in calendar_parts(values):
        out.append(None if p is None else _checked((-p[0], -p[1], -p[2])))
    return calendar_array(out)


def scale_calendar(values: pa.Array, factors: pa.Array, divide: bool) -> pa.Array:
    """Intervals times (or divided by) numbers, as Spark's ``IntervalUtils.fromDoubles``."""
    out: list[Parts | None] = []
    for parts, f in zip(calendar_parts(values), factors.cast(pa.float64()).to_pylist()):
        if parts is None or f is None:
            out.append(None)
            continue
        if divide and f == 0:
            raise interval_divided_by_zero()
        months, days, micros = ((p / f if divide else p * f) for p in parts)
        whole_months, whole_days = int(months), int(days)
        out.append(_checked((whole_months, whole_days, round(micros + DAY_MICROS * (days - whole_days)))))
    return calendar_array(out)


def shift_by_calendar(dated: pa.Array, intervals: pa.Array, sign: int, dated_type: DataType,
                      time_zone: str) -> pa.Array:
    """Dates or timestamps plus (``sign`` 1) or minus (-1) calendar intervals (see the module doc)."""
    parts = calendar_parts(intervals)
    valid = np.array([p is not None for p in parts]) & dated.is_valid().to_numpy(zero_copy_only=False)
    months = np.array([sign * p[0] if p else 0 for p in parts], dtype=np.int64)
    days = np.array([sign * p[1] if p else 0 for p in parts], dtype=np.int64)
    micros = np.array([sign * p[2] if p else 0 for p in parts], dtype=np.int64)
    if isinstance(dated_type, DateType):
        if (micros[valid] != 0).any():
            raise IllegalArgumentException(
                "Cannot add an interval to a date because its microseconds part is not 0. To resolve this, cast the "
                "input date to a timestamp, which supports the addition of intervals with non-zero microseconds.",
                "INVALID_INTERVAL_WITH_MICROSECONDS_ADDITION", {})
        moved = shift_dated(dated, months, days)
        return pa.array(moved.astype(np.int32), pa.int32(), mask=~valid).cast(pa.date32())
    moved = shift_dated(dated, months, days, micros, time_zone)
    return pa.array(moved, pa.int64(), mask=~valid).cast(dated.type)

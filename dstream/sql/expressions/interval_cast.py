"""Casts to and from Spark's ANSI intervals (``CAST(x AS INTERVAL YEAR TO MONTH)``...).

What this module owns
---------------------
Which casts involving a day-time or year-month interval exist (:func:`interval_castable`)
and their values (:func:`cast_interval`):

===============================  ==================================================
cast                             value
===============================  ==================================================
interval -> string               Spark's text (``INTERVAL '1-2' YEAR TO MONTH``)
string -> year-month interval    the text read as the target's fields (``'1-2'``,
                                 ``INTERVAL '1-2' YEAR TO MONTH``, ``'14'`` for MONTH)
interval -> interval (same kind) the units below the target's end field dropped,
                                 toward zero (14 months as ``INTERVAL YEAR``: 1 year)
interval -> integral, decimal    the count of the source's end field (``INTERVAL
                                 '1-2' YEAR TO MONTH`` as int: 14), toward zero
integral, decimal -> interval    that many of the target's unit; the target has one
of one field                     field (``CAST(3 AS INTERVAL MONTH)``), decimals round
                                 HALF_UP to a month or a microsecond
===============================  ==================================================

Invariants
----------
* A value out of the target's range raises ``CAST_OVERFLOW``; text that is not an
  interval raises ``INVALID_INTERVAL_FORMAT``; ``TRY_CAST`` gives null instead of either.
* Per row in Python: casts of intervals are rare and their rules (rounding, field cuts)
  are exact integer arithmetic.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pyarrow as pa

from ..errors import ArithmeticException, CapturedException
from ..formatting import FIELD_MICROS, format_day_time_interval, format_year_month_interval
from ..kernels.year_month import INT_MAX, INT_MIN, parse_year_month
from ..types import (
    AnsiIntervalType,
    ByteType,
    DataType,
    DayTimeIntervalType,
    DecimalType,
    IntegerType,
    IntegralType,
    LongType,
    ShortType,
    StringType,
    YearMonthIntervalType,
)

__all__ = ["interval_castable", "cast_interval"]

_INTEGRAL_RANGES = {ByteType: (-(2**7), 2**7 - 1), ShortType: (-(2**15), 2**15 - 1),
                    IntegerType: (INT_MIN, INT_MAX), LongType: (-(2**63), 2**63 - 1)}
_LONG_MAX = 2**63 - 1


def interval_castable(src: DataType, dst: DataType) -> bool | None:
    """Whether Spark casts ``src`` to ``dst`` when either is an ANSI interval; ``None`` when neither is."""
    if not isinstance(src, AnsiIntervalType) and not isinstance(dst, AnsiIntervalType):
        return None
    if isinstance(dst, StringType):
        return True
    if isinstance(src, StringType):
        return isinstance(dst, YearMonthIntervalType)
    if isinstance(src, AnsiIntervalType) and isinstance(dst, AnsiIntervalType):
        return type(src) is type(dst)
    if isinstance(src, AnsiIntervalType):
        return isinstance(dst, IntegralType | DecimalType)
    assert isinstance(dst, AnsiIntervalType)
    return isinstance(src, IntegralType | DecimalType) and dst.startField == dst.endField


def _unit(dt: AnsiIntervalType, field: int) -> int:
    """The stored units (months or microseconds) in one unit of ``field``."""
    if isinstance(dt, YearMonthIntervalType):
        return 12 if field == YearMonthIntervalType.YEAR else 1
    return FIELD_MICROS[field]


def _overflow(value: str, src: DataType, dst: DataType) -> ArithmeticException:
    src_name, dst_name = f'"{src.simpleString().upper()}"', f'"{dst.simpleString().upper()}"'
    return ArithmeticException(
        f"The value {value} of the type {src_name} cannot be cast to {dst_name} due to an overflow. "
        "Use `try_cast` to tolerate overflow and return NULL instead.", "CAST_OVERFLOW",
        {"value": value, "sourceType": src_name, "targetType": dst_name})


def _text(value: int, dt: AnsiIntervalType) -> str:
    if isinstance(dt, YearMonthIntervalType):
        return format_year_month_interval(value, dt.startField, dt.endField)
    return format_day_time_interval(value, dt.startField, dt.endField)


def _each(values: list[Any], convert: Callable[[Any], Any], mode: str) -> list[Any]:
    out = []
    for v in values:
        if v is None:
            out.append(None)
            continue
        try:
            out.append(convert(v))
        except CapturedException:
            if mode != "try":
                raise
            out.append(None)
    return out


def cast_interval(values: pa.Array, src: DataType, dst: DataType, mode: str) -> pa.Array:
    """``values`` of type ``src`` cast to ``dst`` (one of them an ANSI interval; :func:`interval_castable`).

    ``mode`` is ``"ansi"``, ``"legacy"`` or ``"try"`` (null instead of an error).
    """
    from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - light import at run time only

    target = to_arrow_type(dst)
    if isinstance(src, AnsiIntervalType):
        stored = values.cast(pa.int64()).to_pylist()
        return pa.array(_each(stored, _from_interval(src, dst), mode), target)
    if isinstance(src, StringType):
        assert isinstance(dst, YearMonthIntervalType)
        return pa.array(_each(values.to_pylist(), lambda t: parse_year_month(t, dst.startField, dst.endField), mode),
                        target)
    assert isinstance(dst, AnsiIntervalType)
    unit = _unit(dst, dst.startField)
    low, high = (INT_MIN, INT_MAX) if isinstance(dst, YearMonthIntervalType) else (-_LONG_MAX, _LONG_MAX)

    def to_interval(v: Any) -> int:
        exact = Decimal(v) * unit
        stored = int(exact.quantize(Decimal(1), rounding=ROUND_HALF_UP))
        if not low <= stored <= high:
            raise _overflow(str(v), src, dst)
        return stored
    return pa.array(_each(values.to_pylist(), to_interval, mode), target)


def _from_interval(src: AnsiIntervalType, dst: DataType) -> Callable[[int], Any]:
    if isinstance(dst, StringType):
        return lambda v: _text(v, src)
    unit = _unit(src, src.endField)

    def count(v: int) -> int:  # whole units of the end field, toward zero
        return abs(v) // unit * (1 if v >= 0 else -1)
    if isinstance(dst, AnsiIntervalType):
        # A day-time interval keeps its microseconds down to SECOND (seconds have a fraction).
        step = 1 if isinstance(dst, DayTimeIntervalType) and dst.endField == DayTimeIntervalType.SECOND \
            else _unit(dst, dst.endField)
        return lambda v: abs(v) // step * step * (1 if v >= 0 else -1)
    if isinstance(dst, DecimalType):
        quantum = Decimal(1).scaleb(-dst.scale)

        def to_decimal(v: int) -> Decimal:
            exact = (Decimal(v) / unit).quantize(quantum, rounding=ROUND_HALF_UP)
            if len(exact.as_tuple().digits) > dst.precision and exact != 0:
                raise _overflow(_text(v, src), src, dst)
            return exact
        return to_decimal
    low, high = _INTEGRAL_RANGES[type(dst)]

    def to_integral(v: int) -> int:
        n = count(v)
        if not low <= n <= high:
            raise _overflow(_text(v, src), src, dst)
        return n
    return to_integral

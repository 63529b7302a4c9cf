"""Casts to and from Spark's ANSI intervals (``CAST(x AS INTERVAL YEAR TO MONTH)``...).

What this module owns
---------------------
Which casts involving a day-time or year-month interval exist (:func:`interval_castable`)
and their values (:func:`cast_interval`):

===============================  ==================================================
cast                             value
===============================  ==================================================
interval -> string               Spark's text (``INTERVAL '1-2' YEAR TO MONTH``)
string -> interval               the text read as the target's fields (``'1-2'``,
                                 ``INTERVAL '1-2' YEAR TO MONTH``, ``'14'`` for MONTH,
                                 ``'1 02:00:00'`` for DAY TO SECOND)
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
from ..formatting import (
    FIELD_MICROS,
    format_calendar_interval,
    format_day_time_interval,
    format_year_month_interval,
    java_divmod,
)
from ..kernels.interval_text import parse_day_time
from ..kernels.year_month import INT_MAX, INT_MIN, parse_year_month
from ..type_trees import holds_type
from ..types import (
    AnsiIntervalType,
    ArrayType,
    ByteType,
    CalendarIntervalType,
    DataType,
    DayTimeIntervalType,
    DecimalType,
    IntegerType,
    IntegralType,
    LongType,
    MapType,
    ShortType,
    StringType,
    StructType,
    YearMonthIntervalType,
    _map_leaves,
)

__all__ = ["interval_castable", "cast_interval", "holds_interval", "intervals_as_text", "intervals_from_text",
           "text_type"]

_INTEGRAL_RANGES: dict[type[DataType], tuple[int, int]] = {
    ByteType: (-(2**7), 2**7 - 1), ShortType: (-(2**15), 2**15 - 1), IntegerType: (INT_MIN, INT_MAX),
    LongType: (-(2**63), 2**63 - 1)}
_LONG_MAX = 2**63 - 1


def interval_castable(src: DataType, dst: DataType) -> bool | None:
    """Whether Spark casts ``src`` to ``dst`` when either is an ANSI interval; ``None`` when neither is."""
    if isinstance(src, CalendarIntervalType) or isinstance(dst, CalendarIntervalType):
        return isinstance(src, CalendarIntervalType) and isinstance(dst, StringType | CalendarIntervalType)
    if not isinstance(src, AnsiIntervalType) and not isinstance(dst, AnsiIntervalType):
        return None
    if isinstance(dst, StringType):
        return True
    if isinstance(src, StringType):
        return True
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
    out: list[Any] = []
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
    if isinstance(src, CalendarIntervalType):
        return pa.array([None if v is None else format_calendar_interval(v.months, v.days, v.nanoseconds // 1000)
                         for v in values.to_pylist()], pa.string())
    if isinstance(src, AnsiIntervalType):
        stored = values.cast(pa.int64()).to_pylist()
        return pa.array(_each(stored, _from_interval(src, dst), mode), target)
    if isinstance(src, StringType):
        assert isinstance(dst, AnsiIntervalType)
        parse = parse_year_month if isinstance(dst, YearMonthIntervalType) else parse_day_time
        return pa.array(_each(values.to_pylist(), lambda t: parse(t, dst.startField, dst.endField), mode),
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
    if isinstance(dst, AnsiIntervalType):
        # A day-time interval keeps its microseconds down to SECOND (seconds have a fraction).
        step = 1 if isinstance(dst, DayTimeIntervalType) and dst.endField == DayTimeIntervalType.SECOND \
            else _unit(dst, dst.endField)
        return lambda v: java_divmod(v, step)[0] * step
    if isinstance(dst, DecimalType):
        quantum = Decimal(1).scaleb(-dst.scale)

        def to_decimal(v: int) -> Decimal:
            exact = (Decimal(v) / unit).quantize(quantum, rounding=ROUND_HALF_UP)
            if len(exact.as_tuple().digits) > dst.precision and exact != 0:
                raise _overflow(_text(v, src), src, dst)
            return exact
        return to_decimal
    if type(dst) not in _INTEGRAL_RANGES:
        raise TypeError(f"no cast from {src.simpleString()} to {dst.simpleString()}: an interval casts to a string, "
                        "an integral number, a decimal or an interval of its kind")
    low, high = _INTEGRAL_RANGES[type(dst)]

    def to_integral(v: int) -> int:
        n = java_divmod(v, unit)[0]  # whole units, toward zero
        if not low <= n <= high:
            raise _overflow(_text(v, src), src, dst)
        return n
    return to_integral


def holds_interval(dt: DataType) -> bool:
    """Whether ``dt`` is or holds (in an array, map or struct) an interval."""
    return holds_type(dt, _any_interval)


def _map_leaf_arrays(values: pa.Array, dt: DataType, test: Callable[[DataType], bool],
                     fn: Callable[[pa.Array, DataType], pa.Array]) -> pa.Array:
    """``values`` of type ``dt`` with ``fn(leaf, leaf_type)`` replacing each array, map key or value, or
    struct field (at any depth) whose type passes ``test``; the nesting and its nulls are kept."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if not holds_type(dt, test):
        return values
    if test(dt):
        return fn(values, dt)
    mask = values.is_null() if values.null_count else None
    if isinstance(dt, ArrayType):
        return pa.ListArray.from_arrays(values.offsets, _map_leaf_arrays(values.values, dt.elementType, test, fn),
                                        mask=mask)
    if isinstance(dt, MapType):
        return pa.MapArray.from_arrays(values.offsets, _map_leaf_arrays(values.keys, dt.keyType, test, fn),
                                       _map_leaf_arrays(values.items, dt.valueType, test, fn), mask=mask)
    assert isinstance(dt, StructType)
    children = [_map_leaf_arrays(values.field(i), f.dataType, test, fn) for i, f in enumerate(dt.fields)]
    return pa.StructArray.from_arrays(children, names=[f.name for f in dt.fields], mask=mask)


def _any_interval(dt: DataType) -> bool:
    return isinstance(dt, AnsiIntervalType | CalendarIntervalType)


def _ansi_interval(dt: DataType) -> bool:
    return isinstance(dt, AnsiIntervalType)


def intervals_as_text(values: pa.Array, dt: DataType) -> tuple[pa.Array, DataType]:
    """``values`` with every interval inside replaced by Spark's text of it, and the type that has then.

    Arrow holds an interval without its fields (a year-month one is an int of months): the
    writers of nested values (``CAST(array AS STRING)``, ``to_json``, ``to_csv``) get the text
    Spark writes, ``INTERVAL '1' MONTH``, from here.
    """
    text = _map_leaf_arrays(values, dt, _any_interval, lambda v, t: cast_interval(v, t, StringType(), "ansi"))
    return text, _map_leaves(dt, lambda t: StringType() if _any_interval(t) else t)


def text_type(dt: DataType) -> DataType:
    """``dt`` with every interval inside replaced by ``string``: how a text format's parser reads it."""
    return _map_leaves(dt, lambda t: StringType() if _ansi_interval(t) else t)


def intervals_from_text(values: pa.Array, dt: DataType, mode: str = "try") -> pa.Array:
    """Values parsed as :func:`text_type` of ``dt``, their interval texts read as ``dt``'s intervals (null for a
    text of other fields, as Spark's JSON and CSV readers give it; an error with ``mode`` ``"ansi"``)."""
    return _map_leaf_arrays(values, dt, _ansi_interval, lambda v, t: cast_interval(v, StringType(), t, mode))

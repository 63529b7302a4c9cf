"""More array functions of the registry: ``array_join``, ``array_position``, ``array_remove``,
``array_union``, ``array_intersect``, ``array_except``, ``arrays_overlap``, ``flatten``, ``slice``,
``array_repeat`` and ``sequence``.

What this module owns
---------------------
Their specs (Spark's names and types) and their evaluation, per row over Python lists:
arrays are small, and these functions are defined element by element.

Invariants
----------
* Set operations compare as Spark does: one null is a value (kept once), every NaN equals
  every NaN; the result keeps first occurrences in order (``a`` before ``b``).
* ``arrays_overlap`` is three-valued: true on a common non-null element, else null when
  both are non-empty and one holds a null, else false.
* ``slice`` counts from 1 (negative: from the end); a start of 0 or a negative length
  raises, as Spark's does; ``flatten`` of an array holding a null array is null.
* ``sequence`` runs over integers, or over dates or timestamps with a day-time interval
  step (1 day, or -1 day going down, by default; whole days for dates); a step that
  moves away from ``stop``, or a zero step, raises ``INVALID_SEQUENCE_BOUNDARIES``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pyarrow as pa

from ..errors import SparkRuntimeException
from ..kernels.year_month import shift_dated
from ..types import (
    ArrayType,
    BooleanType,
    DataType,
    DateType,
    DayTimeIntervalType,
    IntegerType,
    LongType,
    StringType,
    TimestampNTZType,
    TimestampType,
    YearMonthIntervalType,
)
from .base import EvalContext
from .coercion import find_common_type, is_integral
from .function_registry import FunctionSpec, null_safe, per_row, register

__all__: list[str] = []


def _marker(value: Any) -> Any:
    return ("nan",) if isinstance(value, float) and math.isnan(value) else value


def _unique(values: list[Any]) -> list[Any]:
    seen: set[Any] = set()
    out = []
    for v in values:
        if _marker(v) not in seen:
            seen.add(_marker(v))
            out.append(v)
    return out


def _arrays(types: list[DataType]) -> list[DataType | None]:
    for dt in types:
        if not isinstance(dt, ArrayType):
            raise TypeError(f'the parameters require the "ARRAY" type, not "{dt.simpleString().upper()}"')
    common = find_common_type(types)
    if common is None:
        raise TypeError("the arrays must have the same element type, got "
                        + ", ".join(t.simpleString() for t in types))
    return [common] * len(types)


def _first(types: list[DataType]) -> DataType:
    return types[0]


def _intersect(a: list[Any], b: list[Any]) -> list[Any]:
    wanted = {_marker(v) for v in b}
    return [v for v in _unique(a) if _marker(v) in wanted]


def _except(a: list[Any], b: list[Any]) -> list[Any]:
    unwanted = {_marker(v) for v in b}
    return [v for v in _unique(a) if _marker(v) not in unwanted]


def _overlap(a: list[Any] | None, b: list[Any] | None) -> bool | None:
    if a is None or b is None:
        return None
    if {_marker(v) for v in a if v is not None} & {_marker(v) for v in b if v is not None}:
        return True
    return None if a and b and (None in a or None in b) else False


register(FunctionSpec("array_union", 2, 2, _arrays, _first, per_row(null_safe(lambda a, b: _unique(a + b)))))
register(FunctionSpec("array_intersect", 2, 2, _arrays, _first, per_row(null_safe(_intersect))))
register(FunctionSpec("array_except", 2, 2, _arrays, _first, per_row(null_safe(_except))))
register(FunctionSpec("arrays_overlap", 2, 2, _arrays, lambda ts: BooleanType(), per_row(_overlap),
                      null_intolerant=False))


def _array_and_value(types: list[DataType]) -> list[DataType | None]:
    dt = types[0]
    if not isinstance(dt, ArrayType):
        raise TypeError(f'the first parameter requires the "ARRAY" type, not "{dt.simpleString().upper()}"')
    return [None, dt.elementType]


def _position(a: list[Any], value: Any) -> int:
    for i, v in enumerate(a, 1):
        if v is not None and _marker(v) == _marker(value):
            return i
    return 0


register(FunctionSpec("array_position", 2, 2, _array_and_value, lambda ts: LongType(),
                      per_row(null_safe(_position))))
register(FunctionSpec("array_remove", 2, 2, _array_and_value, _first,
                      per_row(null_safe(lambda a, x: [v for v in a if v is None or _marker(v) != _marker(x)]))))


def _join(a: list[Any] | None, delimiter: Any, replacement: Any = None) -> str | None:
    if a is None or delimiter is None:
        return None
    items = [v if v is not None else replacement for v in a]
    return delimiter.join(v for v in items if v is not None)


def _join_types(types: list[DataType]) -> list[DataType | None]:
    wanted: list[DataType | None] = [ArrayType(StringType()), StringType(), StringType()]
    return wanted[: len(types)]


register(FunctionSpec("array_join", 2, 3, _join_types, lambda ts: StringType(), per_row(_join),
                      scalar_positions=(1, 2), null_intolerant=False))


def _flatten_types(types: list[DataType]) -> list[DataType | None]:
    dt = types[0]
    if not (isinstance(dt, ArrayType) and isinstance(dt.elementType, ArrayType)):
        raise TypeError(f'the parameter requires the "ARRAY<ARRAY>" type, not "{dt.simpleString().upper()}"')
    return [None]


def _flatten(a: list[Any]) -> list[Any] | None:
    return None if any(inner is None for inner in a) else [v for inner in a for v in inner]


register(FunctionSpec("flatten", 1, 1, _flatten_types, lambda ts: ts[0].elementType,  # type: ignore[attr-defined]
                      per_row(null_safe(_flatten))))


def _slice(a: list[Any], start: int, length: int) -> list[Any]:
    if start == 0:
        raise SparkRuntimeException("Unexpected value for start in function slice: SQL array indices start at 1.",
                                    "INVALID_PARAMETER_VALUE.START",
                                    {"parameter": "`start`", "functionName": "`slice`"})
    if length < 0:
        raise SparkRuntimeException(f"Unexpected value for length in function slice: Expects length greater than or "
                                    f"equal to 0, but got {length}.", "INVALID_PARAMETER_VALUE.LENGTH",
                                    {"parameter": "`length`", "functionName": "`slice`", "length": str(length)})
    begin = start - 1 if start > 0 else len(a) + start
    return [] if begin < 0 else a[begin:begin + length]


register(FunctionSpec("slice", 3, 3, lambda ts: [None, IntegerType(), IntegerType()], _first,
                      per_row(null_safe(_slice))))


def _repeat(value: Any, count: int | None) -> list[Any] | None:
    return None if count is None else [value] * max(count, 0)


register(FunctionSpec("array_repeat", 2, 2, lambda ts: [None, IntegerType()], lambda ts: ArrayType(ts[0], True),
                      per_row(_repeat), null_intolerant=False))


def _sequence_types(types: list[DataType]) -> list[DataType | None]:
    if all(is_integral(t) for t in types):
        common = find_common_type(types) or LongType()
        return [common] * len(types)
    bounds = types[:2]
    temporal = find_common_type(bounds)
    if isinstance(temporal, DateType | TimestampType | TimestampNTZType) and (
            len(types) == 2 or isinstance(types[2], DayTimeIntervalType | YearMonthIntervalType)):
        return [temporal, temporal] + ([None] if len(types) > 2 else [])
    shown = ", ".join(t.simpleString() for t in types)
    raise TypeError("sequence takes integers (start, stop and an optional step), or dates or timestamps with an "
                    f"optional interval step (INTERVAL 1 DAY, INTERVAL 1 MONTH), got {shown}")


def _sequence(start: int, stop: int, step: int | None = None) -> list[int]:
    step = step if step is not None else (1 if stop >= start else -1)
    if step == 0 or (stop - start) * step < 0:
        raise SparkRuntimeException(f"Illegal sequence boundaries: {start} to {stop} by {step}",
                                    "INVALID_SEQUENCE_BOUNDARIES", {})
    return list(range(start, stop + (1 if step > 0 else -1), step))


_DAY_US = 86_400_000_000


def month_sequences(args: list[Any], element: DataType, time_zone: str) -> pa.Array:
    """``sequence(start, stop, INTERVAL n MONTHS)`` of dates or timestamps: ``start`` moved by 0, n, 2n...
    months (each from ``start``, so Jan 31 by one month gives Feb 29, then Mar 31) while not past ``stop``."""
    unit = pa.int32() if isinstance(element, DateType) else pa.int64()
    starts, stops = (a.cast(unit).to_pylist() for a in args[:2])
    start_type = args[0].type
    out: list[list[int] | None] = []
    for start, stop, months in zip(starts, stops, args[2].cast(pa.int64()).to_pylist()):
        if start is None or stop is None or months is None:
            out.append(None)
            continue
        if start != stop and (months == 0 or (stop - start) * months < 0):
            raise SparkRuntimeException(f"Illegal sequence boundaries: {start} to {stop} by {months} months",
                                        "INVALID_SEQUENCE_BOUNDARIES", {})
        day = 1 if isinstance(element, DateType) else _DAY_US
        count = abs(stop - start) // (28 * day) // max(abs(months), 1) + 2
        steps = np.arange(count, dtype=np.int64) * months
        moved = shift_dated(pa.array(np.full(count, start), unit).cast(start_type), steps, time_zone=time_zone)
        past = moved > stop if months > 0 else moved < stop
        end = int(np.argmax(past)) if past.any() else count
        out.append([int(v) for v in moved[:max(end, 1)]])
    return pa.array(out, pa.list_(unit))


def _run_sequence(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    """Integers as they are; dates as day numbers and timestamps as microseconds, the step (an
    interval, 1 day by default) in the same unit: a date's step must be whole days."""
    from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - light import at run time only

    element = types[0]
    if not isinstance(element, DateType | TimestampType | TimestampNTZType):
        return per_row(null_safe(_sequence))(args, types, rt, ctx)
    unit = pa.int32() if isinstance(element, DateType) else pa.int64()
    if len(args) > 2 and isinstance(types[2], YearMonthIntervalType):
        return month_sequences(args, element, ctx.time_zone).cast(to_arrow_type(rt))
    bounds = [a.cast(unit).to_pylist() for a in args[:2]]
    steps = args[2].cast(pa.int64()).to_pylist() if len(args) > 2 else [None] * len(bounds[0])
    out: list[list[int] | None] = []
    for start, stop, step in zip(*bounds, steps):
        if start is None or stop is None or (len(args) > 2 and step is None):
            out.append(None)
            continue
        if step is not None and isinstance(element, DateType):
            if step % _DAY_US:
                raise SparkRuntimeException(
                    "sequence step must be a day interval if start and end values are dates, "
                    f"got {step} microseconds.", "INVALID_SEQUENCE_STEP", {})
            step //= _DAY_US
        elif step is None and not isinstance(element, DateType):
            step = _DAY_US if stop >= start else -_DAY_US
        out.append(_sequence(start, stop, step))
    values = pa.array(out, pa.list_(unit))
    return values.cast(to_arrow_type(rt))


register(FunctionSpec("sequence", 2, 3, _sequence_types, lambda ts: ArrayType(ts[0], False), _run_sequence,
                      null_intolerant=False))

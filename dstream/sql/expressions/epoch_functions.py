"""Epoch and time-zone functions of the registry: ``timestamp_seconds``, ``timestamp_millis``,
``timestamp_micros``, ``unix_seconds``, ``unix_millis``, ``unix_micros``, ``unix_date``,
``date_from_unix_date``, ``from_utc_timestamp`` and ``to_utc_timestamp``.

What this module owns
---------------------
The :class:`FunctionSpec` of each, on Arrow arrays: timestamps are UTC microseconds
(``timestamp[us, tz=UTC]``), dates days since the epoch.

Invariants
----------
* ``timestamp_seconds`` takes integral or fractional seconds (a fraction below a
  microsecond is dropped, as Spark's conversion to a long does; NaN and infinities give
  null); ``timestamp_millis``/``timestamp_micros`` take integers.
* ``unix_seconds``/``unix_millis`` round toward negative infinity (an instant before 1970
  with a fraction gives the earlier second), as Spark's ``Math.floorDiv``.
* ``from_utc_timestamp(t, tz)`` reads ``t``'s UTC wall clock as ``tz``'s: the result shows,
  in UTC, the wall time ``tz`` had at instant ``t``; ``to_utc_timestamp`` is its inverse
  (a wall time in a daylight-saving gap moves forward, in an overlap takes the earlier
  instant). The zone may be a column; an unknown zone id raises ``INVALID_TIMEZONE``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..types import (
    DataType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    IntegralType,
    LongType,
    NullType,
    StringType,
    TimestampType,
)
from .base import EvalContext
from .checks import quoted_type
from .function_registry import FunctionSpec, register

__all__: list[str] = []

_US = 1_000_000
_TS = pa.timestamp("us", tz="UTC")
Runner = Callable[[list[Any], list[DataType], DataType, EvalContext], pa.Array]


def _const(dt: DataType) -> Callable[[list[DataType]], DataType]:
    return lambda types: dt


def _micros(values: Any) -> pa.Array:
    return pc.cast(pc.cast(values, _TS), pa.int64())


def _as_timestamp(micros: pa.Array) -> pa.Array:
    return pc.cast(micros, pa.int64()).cast(_TS)


# -- numbers to timestamps ------------------------------------------------------------------


def _seconds_types(types: list[DataType]) -> list[DataType | None]:
    if isinstance(types[0], (DecimalType, DoubleType, FloatType)):
        return [None]
    if isinstance(types[0], IntegralType | NullType):
        return [LongType()]
    raise TypeError(f'the argument requires a numeric type, not {quoted_type(types[0])}')


def _run_timestamp_seconds(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    values = args[0]
    if isinstance(types[0], (DoubleType, FloatType)):
        floats = values.cast(pa.float64()).to_numpy(zero_copy_only=False)
        finite = np.isfinite(floats) & values.is_valid().to_numpy(zero_copy_only=False)
        micros = np.trunc(np.where(finite, floats, 0.0) * _US).astype(np.int64)
        return pa.array(micros, pa.int64(), mask=~finite).cast(_TS)
    if isinstance(types[0], DecimalType):
        # Exact: a decimal's microseconds, the fraction below one dropped (int() truncates toward zero).
        return pa.array([None if d is None else int(d * _US) for d in values.to_pylist()], pa.int64()).cast(_TS)
    return _as_timestamp(pc.multiply_checked(values.cast(pa.int64()), _US))


def _integral(types: list[DataType]) -> list[DataType | None]:
    if isinstance(types[0], IntegralType | NullType):
        return [LongType()]
    raise TypeError(f'the argument requires an integral type, not {quoted_type(types[0])}')


def _scaled(factor: int) -> Runner:
    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        return _as_timestamp(pc.multiply_checked(args[0].cast(pa.int64()), factor))
    return run


register(FunctionSpec("timestamp_seconds", 1, 1, _seconds_types, _const(TimestampType()), _run_timestamp_seconds))
register(FunctionSpec("timestamp_millis", 1, 1, _integral, _const(TimestampType()), _scaled(1000)))
register(FunctionSpec("timestamp_micros", 1, 1, _integral, _const(TimestampType()), _scaled(1)))


# -- timestamps to numbers ------------------------------------------------------------------


def _timestamp_arg(types: list[DataType]) -> list[DataType | None]:
    return [TimestampType()]


def _per(divisor: int) -> Runner:
    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        micros = _micros(args[0])
        if divisor == 1:
            return micros
        quotient = pc.divide(micros, divisor)
        # Arrow's integer division truncates toward zero; Spark's floorDiv rounds down.
        below = pc.and_(pc.less(micros, 0), pc.not_equal(pc.multiply(quotient, divisor), micros))
        return pc.if_else(below, pc.subtract(quotient, 1), quotient)
    return run


register(FunctionSpec("unix_seconds", 1, 1, _timestamp_arg, _const(LongType()), _per(_US)))
register(FunctionSpec("unix_millis", 1, 1, _timestamp_arg, _const(LongType()), _per(1000)))
register(FunctionSpec("unix_micros", 1, 1, _timestamp_arg, _const(LongType()), _per(1)))


def _run_unix_date(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    return pc.cast(args[0], pa.int32())


def _run_date_from_unix_date(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    return pc.cast(args[0], pa.int32()).cast(pa.date32())


register(FunctionSpec("unix_date", 1, 1, lambda ts: [DateType()], _const(IntegerType()), _run_unix_date))
register(FunctionSpec("date_from_unix_date", 1, 1, lambda ts: [IntegerType()], _const(DateType()),
                      _run_date_from_unix_date))


# -- from_utc_timestamp / to_utc_timestamp -------------------------------------------------------


def _zone_shift(to_utc: bool) -> Runner:
    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        micros = _micros(args[0])
        zones = args[1].combine_chunks() if isinstance(args[1], pa.ChunkedArray) else args[1]
        out = pa.nulls(len(micros), _TS)
        for zone in pc.unique(zones.drop_null()).to_pylist():  # a literal zone: one pass
            out = pc.if_else(pc.equal(zones, zone), _shift(micros, zone, to_utc), out)
        return out
    return run


def _shift(micros: pa.Array, zone: str, to_utc: bool) -> pa.Array:
    from ..kernels.cast_text import local_to_utc  # noqa: PLC0415 - kernels load at run time
    from ..timezones import arrow_zone  # noqa: PLC0415 - beside the kernels

    arrow = arrow_zone(zone)
    if to_utc:
        return _as_timestamp(local_to_utc(micros, arrow))
    wall = pc.local_timestamp(pc.cast(micros.cast(_TS), pa.timestamp("us", tz=arrow)))
    return _as_timestamp(pc.cast(pc.cast(wall, pa.timestamp("us")), pa.int64()))


def _zone_types(types: list[DataType]) -> list[DataType | None]:
    return [TimestampType(), StringType()]


register(FunctionSpec("from_utc_timestamp", 2, 2, _zone_types, _const(TimestampType()), _zone_shift(False)))
register(FunctionSpec("to_utc_timestamp", 2, 2, _zone_types, _const(TimestampType()), _zone_shift(True)))

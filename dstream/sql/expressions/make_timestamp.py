"""``make_timestamp``, ``make_timestamp_ltz``, ``make_timestamp_ntz`` and their ``try_`` forms
(null where a field is out of range):
a timestamp from its fields; ``make_dt_interval`` and ``make_ym_interval``: an interval from its fields.

What this module owns
---------------------
Their specs: ``(years, months, days, hours, mins, secs[, timezone])`` with ``secs`` a
``decimal(16,6)`` (seconds and microseconds). ``make_timestamp`` and ``make_timestamp_ltz``
read the fields as wall time in ``timezone`` (the session time zone without it) and give a
``timestamp``; ``make_timestamp_ntz`` gives the wall time itself, a ``timestamp_ntz``.

Invariants
----------
* ``secs`` may be 60 only without a fraction: the minute after (Spark's leap-second rule).
* A field out of range (month 13, day 31 of April, hour 24, minute 60, seconds above 60 or
  60.5, a negative second) raises ``DATETIME_FIELD_OUT_OF_BOUNDS`` under ANSI mode and gives
  null without it; ``try_make_timestamp`` always gives null.
* A wall time a daylight-saving change skips moves forward by the gap; one it repeats takes
  the earlier instant (``java.time``'s rules, which Spark uses).
* ``make_dt_interval(days, hours, mins, secs)`` (each 0 by default, ``secs`` with a fraction)
  is their sum, a ``DayTimeIntervalType``; any field may be negative or past its unit.
* ``make_ym_interval(years, months)`` (each 0 by default) is ``years * 12 + months`` months, a
  ``YearMonthIntervalType``; beyond an int of months it raises ``INTERVAL_ARITHMETIC_OVERFLOW``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pyarrow as pa

from ..errors import DateTimeException
from ..kernels.conditions import interval_overflow
from ..timezones import instant_us, naive_us, zone_of
from ..types import (
    DataType,
    DayTimeIntervalType,
    DecimalType,
    IntegerType,
    StringType,
    TimestampNTZType,
    TimestampType,
    YearMonthIntervalType,
)
from .base import EvalContext
from .function_registry import FunctionSpec, register

__all__: list[str] = []



def _types(types: list[DataType]) -> list[DataType | None]:
    wanted: list[DataType | None] = [IntegerType()] * 5 + [DecimalType(16, 6), StringType()]
    return wanted[: len(types)]


def _local(name: str, fields: tuple[Any, ...]) -> dt.datetime:
    """The wall time of the fields; ``ValueError`` naming the field out of range."""
    year, month, day, hour, minute, secs = fields
    if not isinstance(secs, Decimal):
        secs = Decimal(str(secs))
    if secs < 0 or secs > 60 or (secs == 60 and secs != secs.to_integral_value()):
        raise ValueError(f"Invalid value for SecondOfMinute (valid values 0 - 59): {secs}")
    whole = int(secs)
    micros = int((secs - whole) * 1_000_000)
    extra = dt.timedelta(minutes=1) if whole == 60 else dt.timedelta(0)
    try:
        base = dt.datetime(year, month, day, hour, minute, 0 if whole == 60 else whole, micros)
    except ValueError as exc:
        raise ValueError(f"Invalid value for a field of {name}({', '.join(map(str, fields))}): {exc}") from None
    return base + extra


def _runner(name: str, ntz: bool, strict: bool | None) -> Callable[[list[Any], list[DataType], DataType, EvalContext],
                                                                    pa.Array]:
    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        columns = [a.to_pylist() for a in args]
        raise_errors = ctx.ansi if strict is None else strict
        out: list[int | None] = []
        for row in zip(*columns):
            fields, zone = row[:6], (row[6] if len(row) > 6 else ctx.time_zone)
            if any(v is None for v in fields) or zone is None:
                out.append(None)
                continue
            try:
                local = _local(name, fields)
            except ValueError as exc:
                if raise_errors:
                    raise DateTimeException(f"{exc}. If necessary set "
                                            "\"spark.sql.ansi.enabled\" to \"false\" to bypass this error.",
                                            "DATETIME_FIELD_OUT_OF_BOUNDS", {"rangeMessage": str(exc)}) from None
                out.append(None)
                continue
            out.append(naive_us(local) if ntz else instant_us(local, zone_of(zone)))
        return pa.array(out, pa.int64()).cast(pa.timestamp("us") if ntz else pa.timestamp("us", "UTC"))
    return run


register(FunctionSpec("make_timestamp", 6, 7, _types, lambda ts: TimestampType(),
                      _runner("make_timestamp", False, None), null_intolerant=False))
register(FunctionSpec("make_timestamp_ltz", 6, 7, _types, lambda ts: TimestampType(),
                      _runner("make_timestamp_ltz", False, None), null_intolerant=False))
register(FunctionSpec("try_make_timestamp", 6, 7, _types, lambda ts: TimestampType(),
                      _runner("try_make_timestamp", False, False), null_intolerant=False))
register(FunctionSpec("make_timestamp_ntz", 6, 6, _types, lambda ts: TimestampNTZType(),
                      _runner("make_timestamp_ntz", True, None), null_intolerant=False))
register(FunctionSpec("try_make_timestamp_ltz", 6, 7, _types, lambda ts: TimestampType(),
                      _runner("try_make_timestamp_ltz", False, False), null_intolerant=False))
register(FunctionSpec("try_make_timestamp_ntz", 6, 6, _types, lambda ts: TimestampNTZType(),
                      _runner("try_make_timestamp_ntz", True, False), null_intolerant=False))


def _interval_types(types: list[DataType]) -> list[DataType | None]:
    wanted: list[DataType | None] = [IntegerType(), IntegerType(), IntegerType(), DecimalType(18, 6)]
    return wanted[: len(types)]


def _run_make_dt_interval(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    n = next((len(a) for a in args if isinstance(a, pa.Array)), 1)
    columns = [a.to_pylist() if isinstance(a, pa.Array) else [a] * n for a in args]
    columns += [[0] * n] * (4 - len(columns))
    out: list[int | None] = []
    for days, hours, mins, secs in zip(*columns):
        if days is None or hours is None or mins is None or secs is None:
            out.append(None)
            continue
        micros = int(Decimal(str(secs)) * 1_000_000)
        out.append(((days * 24 + hours) * 60 + mins) * 60_000_000 + micros)
    return pa.array(out, pa.int64()).cast(pa.duration("us"))


register(FunctionSpec("make_dt_interval", 0, 4, _interval_types, lambda ts: DayTimeIntervalType(),
                      _run_make_dt_interval, null_intolerant=False))


def _run_make_ym_interval(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    n = next((len(a) for a in args if isinstance(a, pa.Array)), 1)
    columns = [a.to_pylist() if isinstance(a, pa.Array) else [a] * n for a in args]
    columns += [[0] * n] * (2 - len(columns))
    out: list[int | None] = []
    for years, months in zip(*columns):
        if years is None or months is None:
            out.append(None)
            continue
        total = years * 12 + months
        if not -(2**31) <= total < 2**31:
            raise interval_overflow()
        out.append(total)
    return pa.array(out, pa.int32())


register(FunctionSpec("make_ym_interval", 0, 2, lambda ts: [IntegerType()] * len(ts),
                      lambda ts: YearMonthIntervalType(), _run_make_ym_interval,
                      display=lambda sqls: f"make_ym_interval({', '.join([*sqls, '0', '0'][:2])})"))

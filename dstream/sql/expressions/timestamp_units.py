"""``timestamp_diff(unit, start, end)`` and ``timestamp_add(unit, quantity, ts)`` (SQL's
``TIMESTAMPDIFF``/``TIMESTAMPADD``): whole units between two timestamps, a number of units
added to one.

What this module owns
---------------------
Their specs. The unit is a constant: ``MICROSECOND``, ``MILLISECOND``, ``SECOND``,
``MINUTE``, ``HOUR``, ``DAY``, ``WEEK``, ``MONTH``, ``QUARTER`` or ``YEAR`` (any case).

Invariants (Spark's, after ``java.time``)
-----------------------------------------
* Up to ``HOUR`` the units are exact durations: the microseconds between the instants
  divided by the unit, truncated toward zero; adding moves the instant.
* From ``DAY`` on they count calendar units of the wall times in the session time zone:
  ``LocalDateTime.until`` (a unit counts once the later wall time reaches the earlier's
  time of day and day of month), truncated toward zero; adding moves the wall time (a
  month added to January 31 gives the last day of February) and reads it back in the
  zone.
"""

from __future__ import annotations

import calendar
import datetime as dt
from collections.abc import Callable
from typing import Any

import pyarrow as pa

from ..errors import SparkRuntimeException
from ..timezones import instant_us, wall_time, zone_of
from ..types import DataType, IntegerType, LongType, StringType, TimestampType
from .base import EvalContext
from .function_registry import FunctionSpec, register

__all__: list[str] = []

_MICROS = {"MICROSECOND": 1, "MILLISECOND": 1_000, "SECOND": 1_000_000, "MINUTE": 60_000_000,
           "HOUR": 3_600_000_000}
_MONTHS = {"MONTH": 1, "QUARTER": 3, "YEAR": 12}
UNITS = (*_MICROS, "DAY", "WEEK", *_MONTHS)


def _unit(name: str, unit: Any) -> str:
    text = str(unit).upper() if unit is not None else ""
    if text not in UNITS:
        raise SparkRuntimeException(
            f"[INVALID_PARAMETER_VALUE.DATETIME_UNIT] The value of parameter(s) `unit` in `{name}` is invalid: "
            f"expects one of the units without quotes {', '.join(UNITS)}, but got the string literal {unit!r}.",
            "INVALID_PARAMETER_VALUE.DATETIME_UNIT", {"functionName": name, "invalidValue": str(unit)})
    return text


def _trunc_div(a: int, b: int) -> int:
    # Java's long division: toward zero.
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _months_until(start: dt.datetime, end: dt.datetime) -> int:
    """``LocalDateTime.until(end, MONTHS)``: whole months, the day and time of day included."""
    end_date = end.date()
    if end_date > start.date() and end.time() < start.time():
        end_date -= dt.timedelta(days=1)
    elif end_date < start.date() and end.time() > start.time():
        end_date += dt.timedelta(days=1)
    packed1 = (start.year * 12 + start.month - 1) * 32 + start.day
    packed2 = (end_date.year * 12 + end_date.month - 1) * 32 + end_date.day
    return _trunc_div(packed2 - packed1, 32)


def _days_until(start: dt.datetime, end: dt.datetime) -> int:
    end_date = end.date()
    if end_date > start.date() and end.time() < start.time():
        end_date -= dt.timedelta(days=1)
    elif end_date < start.date() and end.time() > start.time():
        end_date += dt.timedelta(days=1)
    return (end_date - start.date()).days


def _diff(unit: str, start: int, end: int, zone: dt.tzinfo) -> int:
    # Spark measures between the two local date-times (LocalDateTime.until), in every unit:
    # across a DST change an HOUR difference is the wall clock's, not the instants'.
    a, b = wall_time(start, zone), wall_time(end, zone)
    if unit in _MICROS:
        delta = b - a
        return _trunc_div((delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds, _MICROS[unit])
    if unit == "DAY":
        return _days_until(a, b)
    if unit == "WEEK":
        return _trunc_div(_days_until(a, b), 7)
    return _trunc_div(_months_until(a, b), _MONTHS[unit])


def _add(unit: str, quantity: int, micros: int, zone: dt.tzinfo) -> int:
    if unit in _MICROS:
        return micros + quantity * _MICROS[unit]
    wall = wall_time(micros, zone)
    if unit in ("DAY", "WEEK"):
        return instant_us(wall + dt.timedelta(days=quantity * (7 if unit == "WEEK" else 1)), zone)
    months = wall.year * 12 + wall.month - 1 + quantity * _MONTHS[unit]
    year, month = divmod(months, 12)
    day = min(wall.day, calendar.monthrange(year, month + 1)[1])
    return instant_us(wall.replace(year=year, month=month + 1, day=day), zone)


def _zone(ctx: EvalContext) -> dt.tzinfo:
    return zone_of(ctx.time_zone)


def _micros(values: pa.Array) -> list[Any]:
    return values.cast(pa.timestamp("us", "UTC")).cast(pa.int64()).to_pylist()


def _run_diff(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    unit, zone = _unit("timestampdiff", args[0]), _zone(ctx)
    starts, ends = _micros(args[1]), _micros(args[2])
    return pa.array([None if s is None or e is None else _diff(unit, s, e, zone) for s, e in zip(starts, ends)],
                    pa.int64())


def _run_add(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    unit, zone = _unit("timestampadd", args[0]), _zone(ctx)
    quantities, stamps = args[1].to_pylist(), _micros(args[2])
    out = [None if q is None or t is None else _add(unit, q, t, zone) for q, t in zip(quantities, stamps)]
    return pa.array(out, pa.int64()).cast(pa.timestamp("us", "UTC"))


def _show(name: str) -> Callable[[list[str]], str]:
    return lambda shown: f"{name}({shown[0].strip(chr(39)).upper()}, {', '.join(shown[1:])})"


register(FunctionSpec("timestampdiff", 3, 3, lambda ts: [StringType(), TimestampType(), TimestampType()],
                      lambda ts: LongType(), _run_diff, scalar_positions=(0,), display=_show("timestampdiff")),
         "timestamp_diff")
register(FunctionSpec("timestampadd", 3, 3, lambda ts: [StringType(), IntegerType(), TimestampType()],
                      lambda ts: TimestampType(), _run_add, scalar_positions=(0,), display=_show("timestampadd")),
         "timestamp_add")

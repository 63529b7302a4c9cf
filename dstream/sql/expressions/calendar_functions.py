"""Calendar functions of the registry: ``add_months``, ``last_day``, ``next_day``, ``months_between``,
``make_date``, ``monthname``, ``dayname`` and ``weekday``.

What this module owns
---------------------
Month arithmetic on dates as Spark does it (``java.time``'s proleptic Gregorian calendar):
whole arrays at a time through numpy's ``datetime64[M]``/``datetime64[D]``, which counts
months and days the same way.

Invariants
----------
* ``add_months`` clamps the day to the target month's length (Jan 31 + 1 month is the last
  day of February) and never snaps a month end to the target's month end (Spark 3's rule).
* ``next_day`` takes Spark's day names (``MO``, ``MON``, ``MONDAY``, any case); an unknown
  name raises ``ILLEGAL_DAY_OF_WEEK`` under ANSI mode and gives null without it.
* ``months_between`` is Spark's: whole months when both days of month are equal or both
  are month ends, else the month difference plus the seconds difference over a 31-day
  month, rounded to 8 digits unless ``roundOff`` is false; timestamps are read in the
  session time zone.
* ``make_date`` raises ``DATETIME_FIELD_OUT_OF_BOUNDS`` for an impossible date under ANSI
  mode and gives null without it.
* ``monthname`` and ``dayname`` give English three-letter names (``Jan``, ``Mon``), of the
  date, or of a timestamp's date in the session time zone; ``weekday`` the day of the
  week from 0 (Monday) to 6 (Sunday).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import DateTimeException, IllegalArgumentException
from ..kernels.year_month import month_index, month_start, shift_days
from ..types import BooleanType, DataType, DateType, DoubleType, IntegerType, StringType, TimestampType
from .base import EvalContext
from .function_registry import FunctionSpec, register

__all__: list[str] = []

_DAY_US = 86_400_000_000
_DAY_NAMES = {name: i for i, names in enumerate([
    ("MO", "MON", "MONDAY"), ("TU", "TUE", "TUESDAY"), ("WE", "WED", "WEDNESDAY"), ("TH", "THU", "THURSDAY"),
    ("FR", "FRI", "FRIDAY"), ("SA", "SAT", "SATURDAY"), ("SU", "SUN", "SUNDAY")]) for name in names}


def _ints_and_valid(values: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """An integer array as int64 (0 where null) and its validity."""
    valid = values.is_valid().to_numpy(zero_copy_only=False)
    return values.fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64), valid


def _days_and_valid(values: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Days since the epoch (0 where null) and the validity of a date array."""
    return _ints_and_valid(values.cast(pa.int32()))


def _dates(days: np.ndarray, valid: np.ndarray) -> pa.Array:
    return pa.array(days.astype(np.int32), pa.int32(), mask=~valid).cast(pa.date32())


def _const(dt: DataType) -> Callable[[list[DataType]], DataType]:
    return lambda types: dt


# -- add_months, last_day ---------------------------------------------------------


def _run_add_months(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    days, valid = _days_and_valid(args[0])
    months, months_valid = _ints_and_valid(args[1])
    valid &= months_valid
    out = shift_days(days, months)
    if (valid & ((out < -(2**31)) | (out >= 2**31))).any():
        from ..errors import ArithmeticException  # noqa: PLC0415 - the rare path only

        raise ArithmeticException("add_months: the resulting date is out of the supported "
                                  "range. Use smaller month counts.", "ARITHMETIC_OVERFLOW",
                                  {"message": "add_months result out of range"})
    return _dates(out, valid)


def _run_last_day(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    days, valid = _days_and_valid(args[0])
    return _dates(month_start(month_index(days) + 1) - 1, valid)


register(FunctionSpec("add_months", 2, 2, lambda ts: [DateType(), IntegerType()], _const(DateType()),
                      _run_add_months))
register(FunctionSpec("last_day", 1, 1, lambda ts: [DateType()], _const(DateType()), _run_last_day))


# -- next_day ---------------------------------------------------------------------


def _run_next_day(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    days, valid = _days_and_valid(args[0])
    name = args[1]
    target = _DAY_NAMES.get(str(name).strip().upper()) if name is not None else None
    if target is None:
        if name is not None and ctx.ansi:
            raise IllegalArgumentException(
                f"Illegal input for day of week: {name}. Use a day name such as 'Mon', "
                "'MONDAY' or 'MO'; with spark.sql.ansi.enabled=false an unknown name gives NULL.",
                "ILLEGAL_DAY_OF_WEEK", {"string": str(name)})
        return pa.nulls(len(days), pa.date32())
    weekday = (days + 3) % 7  # 1970-01-01 was a Thursday; Monday is 0
    return _dates(days + (target - weekday - 1) % 7 + 1, valid)


register(FunctionSpec("next_day", 2, 2, lambda ts: [DateType(), StringType()], _const(DateType()), _run_next_day,
                      scalar_positions=(1,), null_intolerant=False))


# -- months_between ---------------------------------------------------------------


def _local_days_and_seconds(values: pa.Array, zone: str) -> tuple[np.ndarray, np.ndarray]:
    """Each instant's local date (days) and whole seconds since that date's start, in ``zone``."""
    wall = pc.local_timestamp(values.cast(pa.timestamp("us", tz=zone))).cast(pa.int64()).fill_null(0)
    days = np.floor_divide(wall.to_numpy(zero_copy_only=False), _DAY_US)
    midnight_wall = pa.array(days * _DAY_US, pa.int64()).cast(pa.timestamp("us"))
    # The day's start as an instant: after a gap at midnight it is the first valid time, as Java's.
    midnight = pc.assume_timezone(midnight_wall, zone, ambiguous="earliest", nonexistent="latest")
    instants = values.cast(pa.int64()).fill_null(0).to_numpy(zero_copy_only=False)
    elapsed = instants - midnight.cast(pa.int64()).to_numpy(zero_copy_only=False)
    return days, np.floor_divide(elapsed, 1_000_000)


def _run_months_between(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    first, second = args[0], args[1]
    round_off = True if len(args) < 3 else args[2]
    valid = first.is_valid().to_numpy(zero_copy_only=False) & second.is_valid().to_numpy(zero_copy_only=False)
    days1, seconds1 = _local_days_and_seconds(first, ctx.time_zone)
    days2, seconds2 = _local_days_and_seconds(second, ctx.time_zone)
    month1, month2 = month_index(days1), month_index(days2)
    dom1, dom2 = days1 - month_start(month1), days2 - month_start(month2)
    last1 = month_start(month1 + 1) - 1 == days1
    last2 = month_start(month2 + 1) - 1 == days2
    month_diff = (month1 - month2).astype(np.float64)
    seconds_diff = (dom1 - dom2) * 86_400 + seconds1 - seconds2
    diff = month_diff + seconds_diff / (31 * 86_400)
    if round_off is None:
        valid = np.zeros_like(valid)
    elif round_off:
        diff = np.floor(diff * 1e8 + 0.5) / 1e8  # Java's Math.round, then back to 8 digits
    out = np.where((dom1 == dom2) | (last1 & last2), month_diff, diff)
    return pa.array(out, pa.float64(), mask=~valid)


def _months_between_types(types: list[DataType]) -> list[DataType | None]:
    wanted: list[DataType | None] = [TimestampType(), TimestampType(), BooleanType()]
    return wanted[: len(types)]


def _show_months_between(args: list[str]) -> str:
    return f"months_between({args[0]}, {args[1]}, {args[2] if len(args) > 2 else 'true'})"


register(FunctionSpec("months_between", 2, 3, _months_between_types, _const(DoubleType()), _run_months_between,
                      scalar_positions=(2,), display=_show_months_between))


# -- make_date --------------------------------------------------------------------


def _run_make_date(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    (years, vy), (months, vm), (dom, vd) = (_ints_and_valid(a) for a in args)
    valid = vy & vm & vd
    month_ok = (months >= 1) & (months <= 12)
    index = (years - 1970) * 12 + np.clip(months, 1, 12) - 1
    start = month_start(index)
    length = month_start(index + 1) - start
    day_ok = (dom >= 1) & (dom <= length)
    bad = valid & ~(month_ok & day_ok)
    if bad.any():
        if ctx.ansi:
            i = int(np.argmax(bad))
            field, value, bounds = (("MonthOfYear", months[i], "1 - 12") if not month_ok[i]
                                    else ("DayOfMonth", dom[i], f"1 - {length[i]}"))
            message = (f"Invalid value for {field} (valid values {bounds}): {value} (in make_date({years[i]}, "
                       f"{months[i]}, {dom[i]}))")
            raise DateTimeException(f"{message}. If necessary set "
                                    "\"spark.sql.ansi.enabled\" to \"false\" to bypass this error (the date is "
                                    "then NULL).", "DATETIME_FIELD_OUT_OF_BOUNDS", {"rangeMessage": message})
        valid &= ~bad
    return _dates(np.where(valid, start + dom - 1, 0), valid)


register(FunctionSpec("make_date", 3, 3, lambda ts: [IntegerType()] * 3, _const(DateType()), _run_make_date))


_MONTHS = pa.array(["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"])
_DAYS = pa.array(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"])


def _run_month_name(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    days = args[0].cast(pa.int32()).fill_null(0).to_numpy(zero_copy_only=False).astype("datetime64[D]")
    months = days.astype("datetime64[M]").astype(np.int64) % 12
    return _MONTHS.take(pa.array(months, pa.int64(), mask=args[0].is_null().to_numpy(zero_copy_only=False)))


def _run_day_name(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    days = args[0].cast(pa.int32()).fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64)
    weekday = (days + 3) % 7  # 1970-01-01 was a Thursday: Monday is 0
    return _DAYS.take(pa.array(weekday, pa.int64(), mask=args[0].is_null().to_numpy(zero_copy_only=False)))


register(FunctionSpec("monthname", 1, 1, lambda ts: [DateType()], _const(StringType()), _run_month_name))
register(FunctionSpec("dayname", 1, 1, lambda ts: [DateType()], _const(StringType()), _run_day_name))


def _run_weekday(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    days = args[0].cast(pa.int32()).fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64)
    return pa.array(((days + 3) % 7).astype(np.int32), pa.int32(), mask=args[0].is_null().to_numpy(
        zero_copy_only=False))


register(FunctionSpec("weekday", 1, 1, lambda ts: [DateType()], _const(IntegerType()), _run_weekday))

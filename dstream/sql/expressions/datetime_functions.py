"""Date and time functions of the registry: ``to_timestamp``, ``date_format``, ``year``, ``date_add``...

What this module owns
---------------------
The specs of the datetime functions: their types (strings are cast to timestamps or
dates as Spark does), generated names (``to_timestamp(a, yyyy-MM-dd)``,
``unix_timestamp(a, yyyy-MM-dd HH:mm:ss)``, ``current_timestamp()``), and evaluation:
parsing and formatting with Spark's patterns go to ``kernels.datetimes``; field
extraction and day arithmetic are plain Arrow compute in the session time zone. Also
:func:`epoch_value`, a collected date or timestamp as Spark holds it (``hash`` and
``format_string`` compute on that form).

Invariants
----------
* Timestamps are ``pa.timestamp("us", tz="UTC")`` instants; a field (``hour``...) is
  read in ``ctx.time_zone``.
* ``current_timestamp()``/``current_date()``/``localtimestamp()`` read ``ctx.now_us`` (one
  instant per query) and are not foldable at definition time; ``localtimestamp()`` is that
  instant's wall time in the session time zone, a ``timestamp_ntz``.
* ``try_to_timestamp`` is ``to_timestamp`` without ANSI's errors: null for text that does
  not parse.
* ``convert_timezone([from,] to, ts)`` reads the ``timestamp_ntz`` ``ts`` as a wall time in
  ``from`` (the session zone without it) and gives the same instant's wall time in ``to``.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

import pyarrow as pa
import pyarrow.compute as pc

from ..timezones import instant_us, naive_us, wall_time, zone_of
from ..types import (
    DataType,
    DateType,
    DecimalType,
    IntegerType,
    LongType,
    NumericType,
    StringType,
    TimestampNTZType,
    TimestampType,
)
from .base import EvalContext
from .function_registry import FunctionSpec, register

__all__ = ["DEFAULT_FORMAT", "SECOND_FIELDS", "epoch_value"]

_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
_MICROSECOND = _dt.timedelta(microseconds=1)


def epoch_value(value: Any) -> Any:
    """Spark's internal form of a collected value: a date as days since 1970-01-01, a
    ``datetime`` as microseconds since the epoch (a naive one read as UTC, as
    ``TIMESTAMP_NTZ`` holds its wall clock); any other value unchanged."""
    if isinstance(value, _dt.datetime):
        aware = value if value.tzinfo is not None else value.replace(tzinfo=_dt.timezone.utc)
        return (aware - _EPOCH) // _MICROSECOND
    if isinstance(value, _dt.date):
        return (value - _EPOCH.date()).days
    return value

#: ``unix_timestamp``'s and ``from_unixtime``'s default pattern.
DEFAULT_FORMAT = "yyyy-MM-dd HH:mm:ss"

Run = Callable[[list[Any], list[DataType], DataType, EvalContext], pa.Array]


def _kernels() -> Any:
    from ..kernels import datetimes as dt_kernels  # noqa: PLC0415 - kernels load at run time

    return dt_kernels


def _const(dt: DataType) -> Callable[[list[DataType]], DataType]:
    return lambda types: dt


def _is_time(dt: DataType) -> bool:
    return isinstance(dt, (TimestampType, TimestampNTZType, DateType))


def _parse_input(types: list[DataType]) -> list[DataType | None]:
    first: DataType | None = None if isinstance(types[0], StringType) or _is_time(types[0]) else StringType()
    return [first, StringType()][: len(types)]


def _run_to_timestamp(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    values = args[0]
    if isinstance(types[0], StringType):
        fmt = args[1] if len(args) > 1 else None
        return _kernels().to_timestamp(values, fmt, ctx.time_zone, ctx.ansi)
    return _cast(values, types[0], TimestampType(), ctx)


def _run_to_date(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    values = args[0]
    if isinstance(types[0], StringType):
        fmt = args[1] if len(args) > 1 else None
        return _kernels().to_date(values, fmt, ctx.ansi, ctx.time_zone)
    return _cast(values, types[0], DateType(), ctx)


def _cast(values: pa.Array, src: DataType, dst: DataType, ctx: EvalContext) -> pa.Array:
    if src == dst:
        return values
    from ..kernels import cast as cast_kernels  # noqa: PLC0415 - kernels load at run time

    return cast_kernels.cast(values, src, dst, "ansi" if ctx.ansi else "legacy", ctx.time_zone)


def _timestamp_parse_input(types: list[DataType]) -> list[DataType | None]:
    """``to_timestamp``'s inputs: :func:`_parse_input`'s, and a number without a format.

    Spark accepts numbers here (only into ``TIMESTAMP``: ``to_timestamp_ntz`` and ``to_date`` parse
    them as text and fail) and casts them: seconds since the epoch, a fraction kept to the microsecond.
    """
    if len(types) == 1 and isinstance(types[0], NumericType):
        return [None]
    return _parse_input(types)


register(FunctionSpec("to_timestamp", 1, 2, _timestamp_parse_input, _const(TimestampType()), _run_to_timestamp,
                      scalar_positions=(1,)))
register(FunctionSpec("to_date", 1, 2, _parse_input, _const(DateType()), _run_to_date, scalar_positions=(1,)))


def _run_try_to_timestamp(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    values = args[0]
    if isinstance(types[0], StringType):
        return _kernels().to_timestamp(values, args[1] if len(args) > 1 else None, ctx.time_zone, False)
    from ..kernels import cast as cast_kernels  # noqa: PLC0415 - kernels load at run time

    return values if types[0] == TimestampType() else cast_kernels.cast(values, types[0], TimestampType(), "legacy",
                                                                         ctx.time_zone)


register(FunctionSpec("try_to_timestamp", 1, 2, _timestamp_parse_input, _const(TimestampType()), _run_try_to_timestamp,
                      scalar_positions=(1,)))


def _timestamp_input(types: list[DataType]) -> list[DataType | None]:
    first: DataType | None = None if isinstance(types[0], (TimestampType, TimestampNTZType)) else TimestampType()
    return [first, StringType()][: len(types)]


def _run_date_format(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    return _kernels().date_format(args[0], args[1], ctx.time_zone)


register(FunctionSpec("date_format", 2, 2, _timestamp_input, _const(StringType()), _run_date_format,
                      scalar_positions=(1,)))


def _run_unix_timestamp(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    fmt = args[1] if len(args) > 1 else DEFAULT_FORMAT
    values = args[0]
    if isinstance(types[0], StringType):
        return _kernels().unix_timestamp(values, fmt, ctx.time_zone, ctx.ansi)
    micros = _cast(values, types[0], TimestampType(), ctx).cast(pa.int64())
    # Spark divides the microseconds as Java's longs do: toward zero (-0.5 s is 0), where
    # unix_seconds floors.
    return pc.divide(micros, pa.scalar(1_000_000, pa.int64()))


def _show_with_default(name: str) -> Callable[[list[str]], str]:
    return lambda args: f"{name}({args[0]}, {args[1] if len(args) > 1 else DEFAULT_FORMAT})"


register(FunctionSpec("unix_timestamp", 1, 2, _parse_input, _const(LongType()), _run_unix_timestamp,
                      scalar_positions=(1,), display=_show_with_default("unix_timestamp")))


def _run_from_unixtime(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    fmt = args[1] if len(args) > 1 else DEFAULT_FORMAT
    return _kernels().from_unixtime(args[0], fmt, ctx.time_zone)


def _seconds_input(types: list[DataType]) -> list[DataType | None]:
    wanted: list[DataType | None] = [LongType(), StringType()]
    return wanted[: len(types)]


register(FunctionSpec("from_unixtime", 1, 2, _seconds_input, _const(StringType()), _run_from_unixtime,
                      scalar_positions=(1,), display=_show_with_default("from_unixtime")))


def _local(values: pa.Array, src: DataType, ctx: EvalContext) -> pa.Array:
    """Timestamps as wall-clock times of the session zone (dates unchanged)."""
    if isinstance(src, TimestampType):
        return values.cast(pa.timestamp("us", tz=ctx.time_zone))
    return values


def _field(fn: Callable[[pa.Array], pa.Array]) -> Run:
    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        return fn(_local(args[0], types[0], ctx)).cast(pa.int32())
    return run


def _date_input(types: list[DataType]) -> list[DataType | None]:
    return [None if _is_time(types[0]) else DateType()]


def _time_input(types: list[DataType]) -> list[DataType | None]:
    return [None if isinstance(types[0], (TimestampType, TimestampNTZType)) else TimestampType()]


def _dayofweek(values: pa.Array) -> pa.Array:
    return pc.day_of_week(values, count_from_zero=False, week_start=7)


_DATE_FIELDS: dict[str, Callable[[pa.Array], pa.Array]] = {
    "year": pc.year,
    "month": pc.month,
    "dayofmonth": pc.day,
    "day": pc.day,  # PySpark 4's own name for dayofmonth (its column is day(d))
    "dayofyear": pc.day_of_year,
    "quarter": pc.quarter,
    "weekofyear": pc.iso_week,
    "dayofweek": _dayofweek,
}
_TIME_FIELDS: dict[str, Callable[[pa.Array], pa.Array]] = {
    "hour": pc.hour,
    "minute": pc.minute,
    "second": pc.second,
}

for _name, _fn in _DATE_FIELDS.items():
    register(FunctionSpec(_name, 1, 1, _date_input, _const(IntegerType()), _field(_fn)))
for _name, _fn in _TIME_FIELDS.items():
    register(FunctionSpec(_name, 1, 1, _time_input, _const(IntegerType()), _field(_fn)))


#: The field names of ``extract``/``date_part`` that mean the seconds with their fraction.
SECOND_FIELDS = frozenset({"SECOND", "SECONDS", "S", "SEC", "SECS"})


def _second_field_types(types: list[DataType]) -> list[DataType | None]:
    return [StringType(), *_time_input(types[1:])]


def _run_second_fraction(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    """Spark's ``SecondWithFraction``: ``extract(SECOND FROM ts)`` is the seconds with microseconds,
    ``decimal(8,6)`` (``second(ts)`` alone is the whole seconds, an int)."""
    field = args[0]
    if str(field).upper() not in SECOND_FIELDS:
        from ..errors import IllegalArgumentException  # noqa: PLC0415 - only on this error

        raise IllegalArgumentException(
            f"This form of extract reads the seconds, not the field {field!r}: use "
            f"F.extract(F.lit({str(field)!r}), col), which knows every field.",
            "INVALID_PARAMETER_VALUE", {"parameter": "`field`", "functionName": "`extract`", "value": repr(field)})
    local = _local(args[1], types[1], ctx)
    micros = pc.add(pc.multiply(pc.cast(pc.second(local), pa.int64()), 1_000_000),
                    pc.add(pc.multiply(pc.cast(pc.millisecond(local), pa.int64()), 1000),
                           pc.cast(pc.microsecond(local), pa.int64())))
    return pa.array([None if v is None else Decimal(v).scaleb(-6) for v in micros.to_pylist()],
                    pa.decimal128(8, 6))


def _show_extract(args: list[str]) -> str:
    return f"extract({args[0]} FROM {args[1]})"


register(FunctionSpec("extract", 2, 2, _second_field_types, _const(DecimalType(8, 6)), _run_second_fraction,
                      scalar_positions=(0,), display=_show_extract))
for _name in ("date_part", "datepart"):
    register(FunctionSpec(_name, 2, 2, _second_field_types, _const(DecimalType(8, 6)), _run_second_fraction,
                          scalar_positions=(0,)))


def _days(values: pa.Array) -> pa.Array:
    return values.cast(pa.int32())


def _run_date_add(sign: int) -> Run:
    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        days = _days(_date_values(args[0], types[0], ctx))
        delta = args[1].cast(pa.int32())
        result = pc.add_checked(days, delta) if sign > 0 else pc.subtract_checked(days, delta)
        return result.cast(pa.date32())
    return run


def _date_values(values: pa.Array, src: DataType, ctx: EvalContext) -> pa.Array:
    return values if isinstance(src, DateType) else _cast(values, src, DateType(), ctx)


def _date_int(types: list[DataType]) -> list[DataType | None]:
    return [DateType(), IntegerType()]


register(FunctionSpec("date_add", 2, 2, _date_int, _const(DateType()), _run_date_add(1)))
register(FunctionSpec("date_sub", 2, 2, _date_int, _const(DateType()), _run_date_add(-1)))


def _run_datediff(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    return pc.subtract(_days(args[0]), _days(args[1])).cast(pa.int32())


def _two_dates(types: list[DataType]) -> list[DataType | None]:
    return [DateType(), DateType()]


register(FunctionSpec("datediff", 2, 2, _two_dates, _const(IntegerType()), _run_datediff))


def _run_now(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    return pa.array([ctx.now_us], pa.int64()).cast(pa.timestamp("us", tz="UTC"))


def _wall_micros(instant: int, zone: str) -> int:
    """The wall time of an instant in ``zone``, as microseconds of a ``timestamp_ntz``."""
    return naive_us(wall_time(instant, zone_of(zone)))


def _run_local_now(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    return pa.array([_wall_micros(ctx.now_us, ctx.time_zone)], pa.int64()).cast(pa.timestamp("us"))


def _convert_types(types: list[DataType]) -> list[DataType | None]:
    return [StringType()] * (len(types) - 1) + [TimestampNTZType()]


def _run_convert_timezone(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    n = len(args[-1])
    sources = args[0].to_pylist() if len(args) == 3 else [ctx.time_zone] * n
    targets = args[-2].to_pylist()
    walls = args[-1].cast(pa.int64()).to_pylist()
    out: list[int | None] = []
    for source, target, wall in zip(sources, targets, walls):
        if source is None or target is None or wall is None:
            out.append(None)
            continue
        local = wall_time(wall, _dt.timezone.utc)  # a timestamp_ntz's microseconds are its UTC wall time
        out.append(_wall_micros(instant_us(local, zone_of(source)), target))
    return pa.array(out, pa.int64()).cast(pa.timestamp("us"))


def _run_today(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    instant = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc) + _dt.timedelta(microseconds=ctx.now_us)
    return pa.array([instant.astimezone(ZoneInfo(ctx.time_zone)).date()], pa.date32())


# Spark names now() after itself (curdate() is named current_date(), a plain alias).
for _name in ("current_timestamp", "now"):
    register(FunctionSpec(_name, 0, 0, lambda ts: [], _const(TimestampType()), _run_now, null_intolerant=False,
                          foldable=False))
register(FunctionSpec("current_date", 0, 0, lambda ts: [], _const(DateType()), _run_today,
                      null_intolerant=False, foldable=False), "curdate")
register(FunctionSpec("localtimestamp", 0, 0, lambda ts: [], _const(TimestampNTZType()), _run_local_now,
                      null_intolerant=False, foldable=False))
register(FunctionSpec("convert_timezone", 2, 3, _convert_types, _const(TimestampNTZType()), _run_convert_timezone,
                      null_intolerant=False))


#: The units ``date_trunc`` and ``trunc`` accept (Spark's spellings, any case), as Arrow's rounding units.
_TRUNC_UNITS = {"YEAR": "year", "YYYY": "year", "YY": "year", "QUARTER": "quarter", "MONTH": "month", "MM": "month",
                "MON": "month", "WEEK": "week", "DAY": "day", "DD": "day", "HOUR": "hour", "MINUTE": "minute",
                "SECOND": "second", "MILLISECOND": "millisecond", "MICROSECOND": "microsecond"}
_DATE_TRUNC_UNITS = ("year", "quarter", "month", "week")


def _floor(values: pa.Array, unit: str) -> pa.Array:
    # A zoned timestamp is floored in its zone's wall time (Arrow's rule), weeks from Monday as Spark's.
    return pc.floor_temporal(values, unit=unit, week_starts_monday=True)


_SUB_DAY_UNITS = ("hour", "minute", "second", "millisecond", "microsecond")


def _run_date_trunc(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    unit = _TRUNC_UNITS.get(str(args[0]).upper()) if args[0] is not None else None
    values = args[1]
    if unit is None:  # Spark gives null for a unit it does not know
        return pa.nulls(len(values), values.type)
    if not isinstance(types[1], TimestampType):
        return _floor(values, unit)
    wall = pc.local_timestamp(values.cast(pa.timestamp("us", tz=ctx.time_zone)))
    floored = _floor(wall, unit)
    if unit in _SUB_DAY_UNITS:
        # As Spark: below a day each value keeps its own UTC offset (01:30 of the repeated hour
        # of a fall-back night truncates to 01:00 of that same repeated hour).
        offset = pc.subtract(wall.cast(pa.int64()), values.cast(pa.int64()))
        return pc.subtract(floored.cast(pa.int64()), offset).cast(values.type)
    # A day or more: the truncated wall time in the zone, the earlier of two, after a gap as Java shifts it.
    return pc.assume_timezone(floored, ctx.time_zone, ambiguous="earliest",
                              nonexistent="latest").cast(values.type)


def _run_trunc(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    unit = _TRUNC_UNITS.get(str(args[1]).upper()) if args[1] is not None else None
    values = _date_values(args[0], types[0], ctx)
    if unit not in _DATE_TRUNC_UNITS:  # only year, quarter, month and week truncate a date
        return pa.nulls(len(values), pa.date32())
    return _floor(values, unit)


register(FunctionSpec("date_trunc", 2, 2, lambda ts: [StringType(), _time_input(ts[1:])[0]],
                      lambda ts: ts[1], _run_date_trunc, scalar_positions=(0,)))
register(FunctionSpec("trunc", 2, 2, lambda ts: [DateType(), StringType()], _const(DateType()), _run_trunc,
                      scalar_positions=(1,)))


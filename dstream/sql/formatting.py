"""Spark's string form of one value: the text ``df.show()`` and ``CAST(x AS STRING)`` print.

What this module owns
---------------------
* ``java_double_str`` / ``java_float_str``: Java's ``Double.toString`` / ``Float.toString``
  (JDK 19+, the shortest-digits algorithm Spark 4 runs on): the fewest significant digits
  that read back as the same value, closest to it; plain notation (``100.0``, ``0.001``)
  when ``1e-3 <= |x| < 1e7``, else ``d.dddE±n`` (``1.23456789E7``, ``1.0E-4``); ``NaN``,
  ``Infinity``, ``-Infinity``, ``-0.0``.
* ``format_value``: Spark's *pretty string* of one collected Python value of a Spark type,
  as ``show()`` prints a cell: ``NULL``, ``true``/``false``, Java doubles, plain decimals at
  the type's scale, ``2025-01-31``, ``2025-01-31 12:00:00.5``, binary as ``[0A FF]``, arrays
  ``[1, 2, NULL]``, structs ``{1, a}``, maps ``{k1 -> v1, k2 -> NULL}``, day-time
  intervals ``INTERVAL '0 01:30:00' DAY TO SECOND``.

Invariants
----------
* ``float(java_double_str(x)) == x`` for every finite ``x`` (the digits are Python's
  shortest round-trip digits, laid out Java's way).
* Pure functions of their arguments: no session, no process state, safe in tasks.
* A leaf of the package: it imports only ``dstream.sql.types`` (so the cast kernel, literals
  and ``show`` can all use it without cycles).
"""

from __future__ import annotations

import datetime as _dt
import math
import struct
from decimal import Context, Decimal
from fractions import Fraction
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from dstream.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    CalendarIntervalType,
    DataType,
    DateType,
    DayTimeIntervalType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegralType,
    MapType,
    StringType,
    StructType,
    TimestampNTZType,
    TimestampType,
    YearMonthIntervalType,
)

__all__ = ["format_value", "java_double_str", "java_float_str", "format_timestamp", "format_date",
           "format_calendar_interval", "format_day_time_interval", "format_year_month_interval", "java_divmod"]

NULL_STRING = "NULL"

# Java switches to computerized scientific notation outside [1e-3, 1e7).
_PLAIN_MIN_EXP = -3
_PLAIN_MAX_EXP = 6

# Room for 38 digits of a decimal(38, s) on either side of the point while quantizing.
_DECIMAL_CONTEXT = Context(prec=80)


def _layout(digits: str, exp: int, negative: bool) -> str:
    """Java's layout of the decimal ``d1.d2...dn * 10**exp`` (``digits`` has no trailing zeros)."""
    sign = "-" if negative else ""
    if _PLAIN_MIN_EXP <= exp <= _PLAIN_MAX_EXP:
        if exp >= 0:
            whole = digits[: exp + 1].ljust(exp + 1, "0")
            frac = digits[exp + 1 :] or "0"
            return f"{sign}{whole}.{frac}"
        return f"{sign}0.{'0' * (-exp - 1)}{digits}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exp}"


def _decimal_digits(text: str) -> tuple[str, int]:
    """Significant digits of a decimal numeral and the exponent of its first digit."""
    sign_, digit_tuple, exponent = Decimal(text).as_tuple()
    digits = "".join(map(str, digit_tuple)).rstrip("0")
    assert isinstance(exponent, int)
    return digits, exponent + len(digit_tuple) - 1


def _special(x: float) -> str | None:
    """Java's text of NaN, the infinities and the zeros, or ``None`` for other values."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0.0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    return None


def java_double_str(x: float) -> str:
    """Java's ``Double.toString(x)``.

    Parameters
    ----------
    x : float
        Any double, including NaN, the infinities and ``-0.0``.

    Returns
    -------
    str
        ``1.0``, ``100.0``, ``0.001``, ``1.23456789E7``, ``1.0E-4``, ``4.9E-324``, ``NaN``...
    """
    x = float(x)
    special = _special(x)
    if special is not None:
        return special
    a = abs(x)
    digits, exp = _decimal_digits(repr(a))
    if len(digits) == 1:
        # Java picks among one- and two-digit decimals the one closest to x (so the smallest
        # subnormal is 4.9E-324 where the shortest round-trip is 5e-324).
        two = f"{a:.1e}"
        if float(two) == a:
            digits, exp = _decimal_digits(two)
    return _layout(digits, exp, x < 0)


def _to_float32(x: float) -> float:
    """``(float) x`` in Java: round a double to the nearest float32 (overflow to infinity)."""
    try:
        return float(struct.unpack("<f", struct.pack("<f", x))[0])
    except OverflowError:
        return math.copysign(math.inf, x)


def _float32_bits(f: float) -> int:
    return int(struct.unpack("<I", struct.pack("<f", f))[0])


def _float32_from_bits(bits: int) -> Fraction:
    if bits >= 0x7F800000:
        # The value one ulp above the largest float: 2**128, the far end of its rounding interval.
        return Fraction(2**128)
    return Fraction(struct.unpack("<f", struct.pack("<I", bits))[0])


def _float32_digits(f: float) -> tuple[str, int]:
    """Java's chosen decimal for the positive finite float32 ``f``: (digits, exponent of the first).

    Exact rational arithmetic: a decimal is acceptable when it lies in the rounding interval of
    ``f`` (the half-way points to its neighbours, inclusive when ``f``'s significand is even).
    """
    bits = _float32_bits(f)
    value = Fraction(f)
    low = (value + _float32_from_bits(bits - 1)) / 2
    high = (value + _float32_from_bits(bits + 1)) / 2
    inclusive = bits % 2 == 0

    def inside(c: Fraction) -> bool:
        return low <= c <= high if inclusive else low < c < high

    top = Decimal(f).adjusted()
    chosen: list[tuple[Fraction, int, int]] = []  # (candidate, coefficient, exponent of its last digit)
    for n in range(1, 10):
        unit_exp = top - n + 1
        unit = Fraction(10) ** unit_exp
        floor_coef = math.floor(value / unit)
        for coef in (floor_coef, floor_coef + 1):
            cand = coef * unit
            if inside(cand):
                chosen.append((cand, coef, unit_exp))
        # Java also weighs two-digit decimals when one digit suffices, keeping the closest.
        if chosen and n >= 2:
            break
    best = min(chosen, key=lambda c: (abs(c[0] - value), c[1] % 2))
    text = f"{best[1]}E{best[2]}"
    return _decimal_digits(text)


def java_float_str(x: float) -> str:
    """Java's ``Float.toString`` of ``x`` rounded to a float32.

    Parameters
    ----------
    x : float
        A Python float holding (or rounded to) a float32 value.

    Returns
    -------
    str
        ``1.1``, ``3.4028235E38``, ``1.4E-45``, ``1.0E7``, ``NaN``...
    """
    f = _to_float32(float(x))
    special = _special(f)
    if special is not None:
        return special
    digits, exp = _float32_digits(abs(f))
    return _layout(digits, exp, f < 0)


def _zone(time_zone: str) -> _dt.tzinfo:
    try:
        return ZoneInfo(time_zone)
    except (ZoneInfoNotFoundError, ValueError):
        pass
    text = time_zone.strip().upper().removeprefix("UTC").removeprefix("GMT")
    if text[:1] in ("+", "-"):
        hours, _, minutes = text[1:].partition(":")
        delta = _dt.timedelta(hours=int(hours or 0), minutes=int(minutes or 0))
        return _dt.timezone(-delta if text[0] == "-" else delta)
    return _dt.timezone.utc


def format_date(value: _dt.date) -> str:
    """Spark's ``yyyy-MM-dd`` text of a date (four-digit year even before 1000)."""
    return f"{value.year:04d}-{value.month:02d}-{value.day:02d}"


def format_timestamp(value: _dt.datetime, time_zone: str) -> str:
    """Spark's text of a timestamp: ``yyyy-MM-dd HH:mm:ss`` plus the fraction without trailing zeros.

    Parameters
    ----------
    value : datetime.datetime
        A naive datetime is already wall time in the session zone; an aware one is
        converted to ``time_zone`` first.
    time_zone : str
        The session time zone (IANA name or ``+hh:mm`` offset).

    Returns
    -------
    str
        ``2025-01-31 12:00:00`` or ``2025-01-31 12:00:00.123``.
    """
    if value.tzinfo is not None:
        value = value.astimezone(_zone(time_zone)).replace(tzinfo=None)
    text = f"{format_date(value)} {value.hour:02d}:{value.minute:02d}:{value.second:02d}"
    if value.microsecond:
        text += "." + f"{value.microsecond:06d}".rstrip("0")
    return text


def _format_decimal(value: Any, dt: DecimalType) -> str:
    d = value if isinstance(value, Decimal) else Decimal(str(value))
    if d.is_finite():
        d = d.quantize(Decimal(1).scaleb(-dt.scale), context=_DECIMAL_CONTEXT)
    if d.is_zero():
        # Java's BigDecimal has no negative zero.
        d = abs(d)
    return format(d, "f")


def _format_binary(value: Any) -> str:
    return "[" + " ".join(f"{b:02X}" for b in bytes(value)) + "]"


def _join(parts: list[str], left: str, right: str) -> str:
    return left + ", ".join(parts) + right


def _format_struct(value: Any, dt: StructType, time_zone: str) -> str:
    fields = list(dt.fields)
    if isinstance(value, dict):
        items = [value.get(f.name) for f in fields]
    else:
        items = list(value)
    return _join([format_value(v, f.dataType, time_zone) for v, f in zip(items, fields)], "{", "}")


def _format_map(value: Any, dt: MapType, time_zone: str) -> str:
    # Arrow's own map conversion yields (key, value) pairs; rows carry dicts.
    pairs = value.items() if isinstance(value, dict) else value
    parts = [
        f"{format_value(k, dt.keyType, time_zone)} -> {format_value(v, dt.valueType, time_zone)}" for k, v in pairs
    ]
    return _join(parts, "{", "}")


def format_value(value: Any, dt: DataType, time_zone: str) -> str:
    """Spark's pretty string of one value, as a ``show()`` cell holds it (before escaping and truncation).

    Parameters
    ----------
    value : Any
        The collected Python value (as ``arrow_to_rows`` gives: ``Row`` for structs, ``dict``
        for maps, ``list`` for arrays, naive ``datetime`` in the session zone for timestamps).
    dt : DataType
        Its Spark type.
    time_zone : str
        The session time zone, used only for aware datetimes.

    Returns
    -------
    str
        ``NULL`` for ``None``; nested values formatted recursively (strings unquoted).
    """
    if value is None:
        return NULL_STRING
    if isinstance(dt, StringType):
        return str(value)
    if isinstance(dt, IntegralType):
        return str(int(value))
    if isinstance(dt, DoubleType):
        return java_double_str(float(value))
    if isinstance(dt, FloatType):
        return java_float_str(float(value))
    if isinstance(dt, BooleanType):
        return "true" if value else "false"
    if isinstance(dt, (TimestampType, TimestampNTZType)) and isinstance(value, _dt.datetime):
        return format_timestamp(value, time_zone)
    if isinstance(dt, DateType) and isinstance(value, _dt.date):
        if isinstance(value, _dt.datetime):
            value = value.date()
        return format_date(value)
    if isinstance(dt, DecimalType):
        return _format_decimal(value, dt)
    if isinstance(dt, DayTimeIntervalType):
        return format_day_time_interval(dt.toInternal(value), dt.startField, dt.endField)
    if isinstance(dt, YearMonthIntervalType):
        return format_year_month_interval(int(value), dt.startField, dt.endField)
    if isinstance(dt, CalendarIntervalType):
        return format_calendar_interval(value.months, value.days, value.nanoseconds // 1000)
    if isinstance(dt, BinaryType):
        return _format_binary(value)
    if isinstance(dt, ArrayType):
        return _join([format_value(v, dt.elementType, time_zone) for v in value], "[", "]")
    if isinstance(dt, StructType):
        return _format_struct(value, dt, time_zone)
    if isinstance(dt, MapType):
        return _format_map(value, dt, time_zone)
    return _format_untyped(value, time_zone)


#: Microseconds in one unit of each day-time interval field, by field (DAY 0 .. SECOND 3).
FIELD_MICROS = (86_400_000_000, 3_600_000_000, 60_000_000, 1_000_000)
_FIELD_NAMES = ("day", "hour", "minute", "second")


def format_day_time_interval(micros: int, start: int = 0, end: int = 3) -> str:
    """Spark's ANSI string of a day-time interval: ``INTERVAL '1 02:03:04.5' DAY TO SECOND``.

    The first field (``start``: 0 day, 1 hour, 2 minute, 3 second) holds everything above
    it (``INTERVAL '26:00' HOUR TO MINUTE``); the others are two digits, seconds with their
    fraction without trailing zeros.
    """
    sign, rest = ("-", -micros) if micros < 0 else ("", micros)
    parts: list[str] = []
    for index in range(start, end + 1):
        name = _FIELD_NAMES[index]
        if name == "second":
            whole, fraction = divmod(rest, 1_000_000)
            text = f"{whole:02d}" if index > start else str(whole)
            if fraction:
                text += f".{fraction:06d}".rstrip("0")
            if index == start and whole < 10:
                text = "0" + text
            parts.append(text)
            rest = 0
            continue
        amount, rest = divmod(rest, FIELD_MICROS[index])
        parts.append(str(amount) if index == start and name == "day" else f"{amount:02d}")
    body = parts[0]
    for index, part in enumerate(parts[1:], start + 1):
        body += (" " if _FIELD_NAMES[index - 1] == "day" else ":") + part
    first, last = _FIELD_NAMES[start].upper(), _FIELD_NAMES[end].upper()
    return f"INTERVAL '{sign}{body}' {first if start == end else f'{first} TO {last}'}"


def java_divmod(a: int, b: int) -> tuple[int, int]:
    """Java's ``a / b`` and ``a % b`` for a positive ``b``: the quotient toward zero, the remainder with
    ``a``'s sign."""
    q = abs(a) // b * (1 if a >= 0 else -1)
    return q, a - q * b


def format_year_month_interval(months: int, start: int = 0, end: int = 1) -> str:
    """Spark's ANSI string of a year-month interval: ``INTERVAL '-1-2' YEAR TO MONTH``, ``INTERVAL '14' MONTH``.

    ``start`` and ``end`` are the fields (0 year, 1 month); an ``INTERVAL YEAR`` shows whole
    years (the months below a year are not shown), an ``INTERVAL MONTH`` all the months.
    """
    sign, count = ("-", -months) if months < 0 else ("", months)
    if start == end == 0:
        return f"INTERVAL '{sign}{count // 12}' YEAR"
    if start == end == 1:
        return f"INTERVAL '{sign}{count}' MONTH"
    return f"INTERVAL '{sign}{count // 12}-{count % 12}' YEAR TO MONTH"


def format_calendar_interval(months: int, days: int, micros: int) -> str:
    """Spark's text of an interval: ``1 years 2 months 25 days 5 hours 6 minutes 7.5 seconds`` (``0 seconds``)."""
    if months == 0 and days == 0 and micros == 0:
        return "0 seconds"

    years, month = java_divmod(months, 12)
    hours, rest = java_divmod(micros, FIELD_MICROS[1])
    minutes, rest = java_divmod(rest, FIELD_MICROS[2])
    parts = [f"{v} {unit}" for v, unit in ((years, "years"), (month, "months"), (days, "days"), (hours, "hours"),
                                           (minutes, "minutes")) if v]
    if rest:
        seconds = Decimal(rest).scaleb(-6).normalize()
        parts.append(f"{seconds:f} seconds")
    return " ".join(parts)


def _format_untyped(value: Any, time_zone: str) -> str:
    """Best effort for a type this module does not know (intervals, variants): by the value's class."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return java_double_str(value)
    if isinstance(value, _dt.datetime):
        return format_timestamp(value, time_zone)
    if isinstance(value, _dt.date):
        return format_date(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return _format_binary(value)
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, dict):
        parts = [f"{_format_untyped(k, time_zone)} -> {_format_untyped(v, time_zone)}" for k, v in value.items()]
        return _join(parts, "{", "}")
    if isinstance(value, list):
        return _join([_format_untyped(v, time_zone) for v in value], "[", "]")
    if isinstance(value, tuple):
        return _join([_format_untyped(v, time_zone) for v in value], "{", "}")
    if value is None:
        return NULL_STRING
    return str(value)

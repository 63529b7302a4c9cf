"""Spark's day-time ``INTERVAL`` literals: their units, their texts, their microseconds.

What this module owns
---------------------
The values of the three literal forms Spark's parser accepts, once the expression parser
has split them into (value, unit) pairs or a (text, from, to) triple:

* multi-unit: ``INTERVAL 1 HOUR 30 MINUTES``, ``INTERVAL '10' SECOND``, ``INTERVAL 1.5 SECONDS``
  (:func:`multi_unit`);
* a text of value-unit pairs: ``INTERVAL '1 day 2 hours'`` (:func:`unit_text`);
* unit to unit: ``INTERVAL '1 02:03:04.5' DAY TO SECOND``, ``INTERVAL '02:30' HOUR TO MINUTE``
  (:func:`unit_to_unit`).

:func:`parse_interval_text` reads the text Spark writes for an interval in CSV and JSON
(``INTERVAL '0 01:30:00' DAY TO SECOND``, or the quoted part alone).

Each gives the interval in microseconds and its fields (``DAY`` 0 .. ``SECOND`` 3), as
``DayTimeIntervalType(start, end)``: the widest and narrowest unit written (weeks count as
days, milliseconds and microseconds as seconds).

Invariants
----------
* Only day-time units: ``YEAR`` and ``MONTH`` (Spark's year-month and calendar intervals)
  raise a ``ParseException`` that says so and names the functions to use instead.
* Values are exact: decimal text is read as ``Decimal``; a fraction is allowed on seconds
  only, down to the microsecond.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation

from dstream.sql.errors import ParseException
from dstream.sql.formatting import FIELD_MICROS

__all__ = ["FIELDS", "is_unit", "multi_unit", "parse_interval_text", "unit_text", "unit_to_unit"]

#: The fields of a day-time interval, in DayTimeIntervalType's order.
FIELDS = ("DAY", "HOUR", "MINUTE", "SECOND")

#: unit word (singular) -> (microseconds in one, the field it belongs to).
_UNITS: dict[str, tuple[int, int]] = {
    **{name: (FIELD_MICROS[field], field) for field, name in enumerate(FIELDS)},
    "WEEK": (7 * FIELD_MICROS[0], 0),
    "MILLISECOND": (1_000, 3),
    "MICROSECOND": (1, 3),
}
_YEAR_MONTH = ("YEAR", "YEARS", "MONTH", "MONTHS")
_MAX_MICROS = (1 << 63) - 1


def _singular(word: str) -> str:
    upper = word.upper()
    return upper[:-1] if upper.endswith("S") and upper[:-1] in _UNITS else upper


def _year_month(text: str) -> ParseException:
    return ParseException(
        f"Cannot parse the INTERVAL value {text!r}: year-month intervals (YEAR, MONTH) are not supported, "
        "only day-time units (WEEK, DAY, HOUR, MINUTE, SECOND, MILLISECOND, MICROSECOND). "
        "Use add_months(date, n) to move a date by months.", "UNSUPPORTED_FEATURE",
        {"feature": "INTERVAL YEAR TO MONTH"})


def _invalid(text: str, why: str) -> ParseException:
    return ParseException(f"Cannot parse the INTERVAL value {text!r}: {why}.", "INVALID_INTERVAL_FORMAT",
                          {"input": text})


def is_unit(word: str) -> bool:
    """Whether ``word`` names an interval unit (``hour``, ``MINUTES``..., also year and month)."""
    return _singular(word) in _UNITS or word.upper() in _YEAR_MONTH


def _micros_of(value: str, unit: str, context: str) -> tuple[int, int]:
    name = _singular(unit)
    if unit.upper() in _YEAR_MONTH:
        raise _year_month(context)
    if name not in _UNITS:
        raise _invalid(context, f"{unit!r} is not a unit")
    try:
        amount = Decimal(value.strip())
    except InvalidOperation:
        raise _invalid(context, f"{value!r} is not a number") from None
    if not amount.is_finite():
        raise _invalid(context, f"{value!r} is not a number")
    if amount != amount.to_integral_value() and name != "SECOND":
        raise _invalid(context, f"{unit.lower()} cannot have a fractional part ({value}); only seconds can")
    per_unit, field = _UNITS[name]
    micros = amount * per_unit
    if micros != micros.to_integral_value():
        raise _invalid(context, f"{value} {unit.lower()} is finer than a microsecond")
    return int(micros), field


def _checked(micros: int, context: str) -> int:
    if abs(micros) > _MAX_MICROS:
        raise _invalid(context, "it is out of the range of an interval (about 292,000 years)")
    return micros


def multi_unit(pairs: Sequence[tuple[str, str]], context: str) -> tuple[int, int, int]:
    """``(microseconds, start field, end field)`` of value-unit pairs (``[("1", "hour"), ("30", "minutes")]``)."""
    total, fields = 0, []
    seen: set[str] = set()
    for value, unit in pairs:
        name = _singular(unit)
        if name in seen:
            raise _invalid(context, f"the unit {name} is given twice")
        seen.add(name)
        micros, field = _micros_of(value, unit, context)
        total += micros
        fields.append(field)
    return _checked(total, context), min(fields), max(fields)


_PAIR = re.compile(r"\s*([+-]?\s*\d+(?:\.\d*)?|[+-]?\s*\.\d+)\s*([A-Za-z]+)")


def unit_text(text: str) -> tuple[int, int, int]:
    """:func:`multi_unit` of a text of value-unit pairs (``'1 day 2 hours'``, ``'-10 seconds'``)."""
    body = text.strip()
    if body.upper().startswith("INTERVAL"):
        body = body[len("INTERVAL"):]
    pairs, pos = [], 0
    while pos < len(body):
        m = _PAIR.match(body, pos)
        if m is None:
            if body[pos:].strip() == "":
                break
            raise _invalid(text, "expected a number followed by a unit (as in '1 day 2 hours')")
        pairs.append((m.group(1).replace(" ", ""), m.group(2)))
        pos = m.end()
    if not pairs:
        raise _invalid(text, "expected a number followed by a unit (as in '1 day 2 hours')")
    return multi_unit(pairs, text)


#: The text each unit-to-unit span accepts: sign, then the fields from start to end.
_SPAN_PATTERNS: dict[tuple[int, int], str] = {
    (0, 0): r"(?P<d>\d+)",
    (0, 1): r"(?P<d>\d+) (?P<h>\d{1,2})",
    (0, 2): r"(?P<d>\d+) (?P<h>\d{1,2}):(?P<m>\d{1,2})",
    (0, 3): r"(?P<d>\d+) (?P<h>\d{1,2}):(?P<m>\d{1,2}):(?P<s>\d{1,2}(?:\.\d{1,9})?)",
    (1, 1): r"(?P<h>\d+)",
    (1, 2): r"(?P<h>\d+):(?P<m>\d{1,2})",
    (1, 3): r"(?P<h>\d+):(?P<m>\d{1,2}):(?P<s>\d{1,2}(?:\.\d{1,9})?)",
    (2, 2): r"(?P<m>\d+)",
    (2, 3): r"(?P<m>\d+):(?P<s>\d{1,2}(?:\.\d{1,9})?)",
    (3, 3): r"(?P<s>\d+(?:\.\d{1,9})?)",
}
#: Spark bounds the fields after the first: hours 0-23, minutes and seconds 0-59.
_BOUNDS = {"h": 23, "m": 59, "s": 59}


def unit_to_unit(text: str, start: str, end: str) -> tuple[int, int, int]:
    """``(microseconds, start field, end field)`` of ``INTERVAL 'text' start TO end`` (or of one unit)."""
    upper_start, upper_end = start.upper(), end.upper()
    if upper_start in _YEAR_MONTH or upper_end in _YEAR_MONTH:
        raise _year_month(text)
    if upper_start not in FIELDS or upper_end not in FIELDS or FIELDS.index(upper_start) > FIELDS.index(upper_end):
        raise _invalid(text, f"INTERVAL ... {upper_start} TO {upper_end} is not a day-time interval span "
                             "(DAY, HOUR, MINUTE, SECOND, from the widest to the narrowest)")
    first, last = FIELDS.index(upper_start), FIELDS.index(upper_end)
    body = text.strip()
    sign = 1
    if body[:1] in "+-" and body:
        sign = -1 if body[0] == "-" else 1
        body = body[1:]
    m = re.fullmatch(_SPAN_PATTERNS[(first, last)], body)
    if m is None:
        example = {0: "1 02:03:04.5", 1: "02:03:04.5", 2: "03:04.5", 3: "04.5"}[first]
        raise _invalid(text, f"it does not match the form of INTERVAL {upper_start}"
                             f"{'' if first == last else ' TO ' + upper_end} (as in {example!r} cut at {upper_end})")
    total = Decimal(0)
    for group, unit in (("d", "DAY"), ("h", "HOUR"), ("m", "MINUTE"), ("s", "SECOND")):
        value = m.groupdict().get(group)
        if value is None:
            continue
        amount = Decimal(value)
        bound = _BOUNDS.get(group)
        if bound is not None and unit != upper_start and amount >= bound + 1:
            raise _invalid(text, f"{unit.lower()} {value} is out of range [0, {bound}]")
        total += amount * _UNITS[unit][0]
    if total != total.to_integral_value():
        raise _invalid(text, "it is finer than a microsecond")
    return _checked(sign * int(total), text), first, last


_WRITTEN = re.compile(r"\s*INTERVAL\s+'([^']*)'\s+([A-Za-z]+)(?:\s+TO\s+([A-Za-z]+))?\s*", re.IGNORECASE)


def parse_interval_text(text: str) -> int:
    """The microseconds of an interval as Spark writes it: ``INTERVAL '1 02:03:04' DAY TO SECOND``.

    The quoted part alone (``1 02:03:04``) is read as ``DAY TO SECOND``.
    Raises ``ParseException`` for any other text.
    """
    m = _WRITTEN.fullmatch(text)
    if m is None:
        return unit_to_unit(text, "DAY", "SECOND")[0]
    return unit_to_unit(m.group(1), m.group(2), m.group(3) or m.group(2))[0]

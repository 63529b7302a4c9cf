"""Spark's ANSI ``INTERVAL`` literals: their units, their texts, their values.

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

Each gives ``(value, start field, end field, year_month)``: a day-time interval in
microseconds with its fields (``DAY`` 0 .. ``SECOND`` 3, as ``DayTimeIntervalType(start,
end)``: the widest and narrowest unit written; weeks count as days, milliseconds and
microseconds as seconds), or a year-month interval in months (``YEAR`` 0, ``MONTH`` 1, as
``YearMonthIntervalType``).

Invariants
----------
* One literal is of one kind: year-month and day-time units together raise Spark's
  "Cannot mix year-month and day-time fields".
* Values are exact: decimal text is read as ``Decimal``; a fraction is allowed on seconds
  only, down to the microsecond; months fit an int.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation

from dstream.sql.errors import ParseException
from dstream.sql.formatting import FIELD_MICROS
from dstream.sql.kernels.year_month import INT_MAX, INT_MIN, invalid_format, parse_year_month

__all__ = ["FIELDS", "is_unit", "multi_unit", "parse_day_time", "parse_interval_text", "unit_text", "unit_to_unit"]

#: The fields of a day-time interval, in DayTimeIntervalType's order.
FIELDS = ("DAY", "HOUR", "MINUTE", "SECOND")

#: unit word (singular) -> (microseconds in one, the field it belongs to).
_UNITS: dict[str, tuple[int, int]] = {
    **{name: (FIELD_MICROS[field], field) for field, name in enumerate(FIELDS)},
    "WEEK": (7 * FIELD_MICROS[0], 0),
    "MILLISECOND": (1_000, 3),
    "MICROSECOND": (1, 3),
}
#: year-month unit word (singular) -> (months in one, its field: YEAR 0, MONTH 1).
_YM_UNITS = {"YEAR": (12, 0), "MONTH": (1, 1)}
_YEAR_MONTH = ("YEAR", "YEARS", "MONTH", "MONTHS")
_MAX_MICROS = (1 << 63) - 1


def _singular(word: str) -> str:
    upper = word.upper()
    return upper[:-1] if upper.endswith("S") and upper[:-1] in _UNITS else upper


def _invalid(text: str, why: str) -> ParseException:
    return ParseException(f"Cannot parse the INTERVAL value {text!r}: {why}.", "INVALID_INTERVAL_FORMAT",
                          {"input": text})


def is_unit(word: str) -> bool:
    """Whether ``word`` names an interval unit (``hour``, ``MINUTES``..., also year and month)."""
    return _singular(word) in _UNITS or word.upper() in _YEAR_MONTH


def _amount_of(value: str, unit: str, context: str) -> tuple[int, int, bool]:
    """``(amount, field, year_month)`` of one value-unit pair: microseconds or months."""
    upper = unit.upper()
    if upper in _YEAR_MONTH:
        name = upper.rstrip("S")
        try:
            amount = Decimal(value.strip())
        except InvalidOperation:
            amount = Decimal("NaN")
        if not amount.is_finite():
            raise invalid_format(f" {value} {unit}", "INVALID_VALUE", f"Invalid value {value}.")
        if amount != amount.to_integral_value():
            raise invalid_format(f" {value} {unit}", "INVALID_FRACTION", f"{unit.lower()} cannot have fractional part.")
        per_unit, field = _YM_UNITS[name]
        return int(amount) * per_unit, field, True
    name = _singular(unit)
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
    return int(micros), field, False


def _checked(micros: int, context: str) -> int:
    if abs(micros) > _MAX_MICROS:
        raise _invalid(context, "it is out of the range of an interval (about 292,000 years)")
    return micros


def multi_unit(pairs: Sequence[tuple[str, str]], context: str) -> tuple[int, int, int, bool]:
    """``(value, start field, end field, year_month)`` of value-unit pairs (``[("1", "hour"), ("30", "minutes")]``).

    A unit may come more than once (``INTERVAL 1 MONTH 1 MONTH`` is two months), as in Spark.
    """
    total, fields, kinds = 0, [], set()
    for value, unit in pairs:
        amount, field, year_month = _amount_of(value, unit, context)
        total += amount
        fields.append(field)
        kinds.add(year_month)
    if len(kinds) > 1:
        raise ParseException(f"Cannot mix year-month and day-time fields: interval {context}.",
                             "_LEGACY_ERROR_TEMP_0029", {"literal": f"interval {context}"})
    if True in kinds:
        if not INT_MIN <= total <= INT_MAX:
            text = " " + " ".join(f"{v} {u}" for v, u in pairs)
            raise invalid_format(text, "ARITHMETIC_EXCEPTION", f"Uncaught arithmetic exception while parsing '{text}'.")
        return total, min(fields), max(fields), True
    return _checked(total, context), min(fields), max(fields), False


_PAIR = re.compile(r"\s*([+-]?\s*\d+(?:\.\d*)?|[+-]?\s*\.\d+)\s*([A-Za-z]+)")


def unit_text(text: str) -> tuple[int, int, int, bool]:
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


def unit_to_unit(text: str, start: str, end: str) -> tuple[int, int, int, bool]:
    """``(value, start field, end field, year_month)`` of ``INTERVAL 'text' start TO end`` (or of one unit)."""
    upper_start, upper_end = start.upper(), end.upper()
    if (upper_start, upper_end) == ("YEAR", "MONTH"):
        return parse_year_month(text, 0, 1, ParseException), 0, 1, True
    if upper_start in _YEAR_MONTH or upper_end in _YEAR_MONTH:
        raise invalid_format(text, "UNSUPPORTED_FROM_TO_EXPRESSION",
                             f"Cannot support (interval '{text}' {start.lower()} to {end.lower()}) expression.",
                             ParseException)
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
    return _checked(sign * int(total), text), first, last, False


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


def parse_day_time(text: str, start: int, end: int) -> int:
    """The microseconds of ``text`` cast to ``DayTimeIntervalType(start, end)``: the target's own form
    (``'1 02:03:04'`` for DAY TO SECOND) or it wrapped as Spark writes it (``INTERVAL '1 02:03:04' DAY TO
    SECOND``), with the target's fields. Raises ``ParseException`` (``INVALID_INTERVAL_FORMAT``)."""
    first, last = FIELDS[start], FIELDS[end]
    m = _WRITTEN.fullmatch(text)
    if m is None:
        return unit_to_unit(text.strip(), first, last)[0]
    written = (m.group(2).upper(), (m.group(3) or m.group(2)).upper())
    if written != (first, last):
        unit = first if start == end else f"{first} TO {last}"
        raise _invalid(text, f"it is not an INTERVAL {unit}")
    return unit_to_unit(m.group(1), first, last)[0]

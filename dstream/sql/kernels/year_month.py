"""Year-month intervals as values: their text, and moving dates and wall times by months.

What this module owns
---------------------
* :func:`parse_year_month`: the months of a year-month interval's text as Spark reads it
  in a cast and in ``INTERVAL '1-2' YEAR TO MONTH``: ``[+|-]y-m`` (``YEAR TO MONTH``),
  ``[+|-]y`` (``YEAR``), ``[+|-]m`` (``MONTH``), or the same wrapped as Spark writes it,
  ``INTERVAL [+|-]'[+|-]1-2' YEAR TO MONTH``.
* :func:`shift_days` and :func:`shift_micros`: dates (days since the epoch) and wall
  times (microseconds) moved by whole months, as Java's ``plusMonths``: the same day of
  the month, or the month's last day when it is shorter (Jan 31 + 1 month = Feb 29 in 2024).
* :func:`shift_dated`: a date or timestamp array moved by months, days and microseconds,
  as Spark's ``timestampAddInterval``: a zoned timestamp's wall clock moves in the session
  time zone (a wall time a DST change skips moves forward by the gap, as Java's ``atZone``).

Invariants
----------
* A year-month interval is a count of months in an ``int`` (Java's): anything outside
  ``[-2**31, 2**31 - 1]`` is refused, never wrapped.
* Pure functions of their arguments, safe in tasks.
"""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from dstream.sql.errors import IllegalArgumentException
from dstream.sql.kernels.cast_text import local_to_utc

__all__ = ["INT_MAX", "INT_MIN", "DAY_MICROS", "invalid_format", "month_index", "month_start", "parse_year_month",
           "shift_dated", "shift_days", "shift_micros"]

INT_MAX, INT_MIN = 2**31 - 1, -(2**31)
DAY_MICROS = 86_400_000_000

_FORMS = {(0, 1): ("y-m", r"(?P<y>\d+)-(?P<m>\d+)"), (0, 0): ("y", r"(?P<y>\d+)"), (1, 1): ("m", r"(?P<m>\d+)")}
_NAMES = ("YEAR", "MONTH")


def invalid_format(text: str, sub_class: str, detail: str,
                   error: type[Exception] = IllegalArgumentException) -> Exception:
    """Spark's ``INVALID_INTERVAL_FORMAT.<sub_class>`` error for ``text``."""
    return error(f"Error parsing '{text}' to interval. Please ensure that the "
                 "value provided is in a valid format for defining an interval. You can reference the "
                 f"documentation for the correct format. {detail}", f"INVALID_INTERVAL_FORMAT.{sub_class}",
                 {"input": text})


def parse_year_month(text: str, start: int, end: int, error: type[Exception] = IllegalArgumentException) -> int:
    """The months of ``text`` read as an interval of the fields ``start`` to ``end`` (0 year, 1 month).

    Raises ``error`` (``INVALID_INTERVAL_FORMAT``) for text of another form, a month field
    above 11, or a value beyond an int of months.
    """
    form, body = _FORMS[(start, end)]
    unit = _NAMES[start] if start == end else f"{_NAMES[start]} TO {_NAMES[end]}"
    quoted = rf"(?P<s1>[+-])?'(?P<s2>[+-])?{body}'"
    unit_words = unit.replace(" ", r"\s+")
    m = (re.fullmatch(rf"(?P<s2>[+-])?{body}", text.strip())
         or re.fullmatch(rf"INTERVAL\s*{quoted}\s+{unit_words}", text.strip(), re.IGNORECASE))
    if m is None:
        example = {"y-m": "1-2", "y": "1", "m": "1"}[form]
        raise invalid_format(text, "UNMATCHED_FORMAT_STRING",
                             f"Interval string does not match year-month format of `[+|-]{form}`, "
                             f"`INTERVAL [+|-]'[+|-]{form}' {unit}` when cast to {_type_text(start, end)}: {text} "
                             f"(as in '{example}' or INTERVAL '{example}' {unit}).", error)
    groups = m.groupdict()
    negative = (groups.get("s1") == "-") != (groups.get("s2") == "-")
    years, months = int(groups.get("y") or 0), int(groups.get("m") or 0)
    if form == "y-m" and months > 11:
        raise invalid_format(text, "INTERVAL_PARSING",
                             f"Error parsing interval year-month string: month {months} outside range [0, 11].", error)
    total = years * 12 + months
    total = -total if negative else total
    if not INT_MIN <= total <= INT_MAX:
        raise invalid_format(text, "INTERVAL_PARSING",
                             "Error parsing interval year-month string: the interval is beyond an int of months "
                             "(178956970 years and 7 months).", error)
    return total


def _type_text(start: int, end: int) -> str:
    first, last = _NAMES[start].lower(), _NAMES[end].lower()
    return f"interval {first}" if start == end else f"interval {first} to {last}"


def month_index(days: np.ndarray) -> np.ndarray:
    """Months since 1970-01 of each day (days since the epoch)."""
    return days.astype("datetime64[D]").astype("datetime64[M]").astype(np.int64)


def month_start(months: np.ndarray) -> np.ndarray:
    """The first day (days since the epoch) of each month index."""
    return months.astype("datetime64[M]").astype("datetime64[D]").astype(np.int64)


def shift_days(days: np.ndarray, months: np.ndarray) -> np.ndarray:
    """Days since the epoch moved by ``months`` (int64 arrays of one length, or ``months`` a scalar)."""
    source = month_index(days)
    day_of_month = days - month_start(source)
    target = source + months
    first = month_start(target)
    length = month_start(target + 1) - first
    return first + np.minimum(day_of_month, length - 1)


def shift_micros(micros: np.ndarray, months: np.ndarray) -> np.ndarray:
    """Wall times (microseconds since the epoch) moved by ``months``; the time of day is kept."""
    days = np.floor_divide(micros, DAY_MICROS)
    return shift_days(days, months) * DAY_MICROS + (micros - days * DAY_MICROS)


def shift_dated(dated: pa.Array, months: np.ndarray, days: np.ndarray | int = 0, micros: np.ndarray | int = 0,
                time_zone: str = "UTC") -> np.ndarray:
    """The values of a ``date32`` or timestamp array moved by ``months``, then ``days``, then ``micros``.

    Returns int64 days since the epoch for dates (``micros`` is not applied), microseconds
    for timestamps; a null is read as 0 (the caller keeps the validity). A timestamp with
    a zone moves on the wall clock of ``time_zone``, one without moves as it is.
    """
    if pa.types.is_date32(dated.type):
        start = dated.cast(pa.int32()).cast(pa.int64()).fill_null(0).to_numpy(zero_copy_only=False)
        return shift_days(start, months) + days
    instants = dated.cast(pa.int64()).fill_null(0)
    if dated.type.tz is None:
        return shift_micros(instants.to_numpy(zero_copy_only=False), months) + days * DAY_MICROS + micros
    wall = pc.local_timestamp(instants.cast(pa.timestamp("us", tz=time_zone))).cast(pa.int64())
    walls = shift_micros(wall.to_numpy(zero_copy_only=False), months) + days * DAY_MICROS
    return local_to_utc(pa.array(walls), time_zone).to_numpy(zero_copy_only=False) + micros

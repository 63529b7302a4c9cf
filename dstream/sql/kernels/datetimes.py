"""Spark 4's pattern-based date and time functions: ``to_timestamp``, ``to_date``, ``date_format``,
``unix_timestamp``, ``from_unixtime``.

What this module owns
---------------------
Parsing strings with a Spark datetime pattern into instants (``timestamp[us, tz=UTC]``)
or dates, and formatting instants or dates with a pattern, in the session time zone.
Without a pattern, ``to_timestamp``/``to_date`` are ``CAST`` (:mod:`.cast`), as in Spark.

Spark's rules (java.time, strict resolver, ``spark.sql.legacy.timeParserPolicy=CORRECTED``):
the whole text must match the pattern (case-insensitive); fields absent from the pattern
default to 1970-01-01 00:00:00; ``hh`` without ``a`` is a morning hour; a field out of
range, an impossible date (``2019-02-29``) or a day name that contradicts the date make the
text unparseable; a text with an offset (``XXX``, ``Z``...) or zone (``z``, ``VV``) is at
that offset, otherwise it is wall time in ``time_zone`` (gaps move forward, overlaps take
the earlier instant). Unparseable text under ANSI raises ``CANNOT_PARSE_TIMESTAMP`` with
java.time's message (``Text 'x' could not be parsed at index 0``); otherwise it gives NULL.

Vectorized: the pattern becomes one regex (:mod:`.datetime_pattern`) run by Arrow's
``extract_regex``; the fields are converted with Arrow arithmetic (Arrow's ``strptime``
is not used: it accepts one-digit months for ``%m``, skips blanks and has no fractions,
where Spark's parser is strict). Formatting is vectorized too (:mod:`.datetime_format`).
Per-row Python: only the explanation of the first unparseable text under ANSI; texts
with a zone name (``z``, ``VV``) are converted once per distinct zone.

Invariants
----------
* Outputs have the inputs' length; NULL in gives NULL out.
* Instants are ``timestamp("us", tz="UTC")``; fractions beyond microseconds are truncated.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from dstream.sql.errors import DateTimeException
from dstream.sql.kernels.cast import cast
from dstream.sql.kernels.cast_text import days_from_civil, local_to_utc
from dstream.sql.kernels.datetime_format import floor_div, format_local
from dstream.sql.kernels.datetime_pattern import MONTHS, WEEKDAYS, Token, failure_index, parse_regex, tokenize
from dstream.sql.timezones import arrow_zone, is_utc

__all__ = ["to_timestamp", "to_date", "date_format", "unix_timestamp", "from_unixtime", "cannot_parse_timestamp"]

_US = 1_000_000
_DAY_US = 86_400 * _US
_TS = pa.timestamp("us", tz="UTC")
#: Zone abbreviations java.time reads for ``z`` (it resolves them to these regions).
_ABBREVIATIONS = {"PST": "America/Los_Angeles", "PDT": "America/Los_Angeles", "MST": "America/Denver",
                  "MDT": "America/Denver", "CST": "America/Chicago", "CDT": "America/Chicago",
                  "EST": "America/New_York", "EDT": "America/New_York", "CET": "Europe/Paris",
                  "CEST": "Europe/Paris", "JST": "Asia/Tokyo", "IST": "Asia/Kolkata", "Z": "UTC"}


def cannot_parse_timestamp(text: str, detail: str) -> DateTimeException:
    """``CANNOT_PARSE_TIMESTAMP`` with java.time's message ``Text '<text>' could not be parsed<detail>``."""
    shown = text if len(text) <= 64 else text[:64] + "..."
    message = f"Text '{shown}' could not be parsed{detail}"
    func = "`try_to_timestamp`"
    return DateTimeException(f"{message}. Use {func} to tolerate invalid input string and return NULL instead.",
                             "CANNOT_PARSE_TIMESTAMP", {"message": message, "func": func})


def _as_strings(values: Any) -> pa.Array:
    a = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    if not isinstance(a, pa.Array):
        a = pa.array(a, pa.string())
    return a if a.type == pa.string() else pc.cast(a, pa.string())


class _Parsed:
    """The fields of texts matched against a pattern, and the checks java.time's resolver makes."""

    def __init__(self, texts: pa.Array, pattern: str) -> None:
        self.tokens = tokenize(pattern, True)
        self.parts = pc.extract_regex(texts, parse_regex(pattern))
        self.matched = pc.fill_null(pc.is_valid(self.parts), False)
        self.checks: list[tuple[pa.Array, str, str]] = []  # (bad mask, field name, valid range)
        self.extra_bad: list[tuple[pa.Array, pa.Array]] = []  # (bad mask, per-row detail)

    def text(self, letters: str) -> tuple[Token, pa.Array] | None:
        """The last field token of one of ``letters`` and its matched text ("" where absent)."""
        for index in range(len(self.tokens) - 1, -1, -1):
            token = self.tokens[index]
            if token.kind in letters:
                return token, pc.fill_null(self.parts.field(f"{token.kind}{index}"), "")
        return None

    def number(self, letters: str, default: int) -> tuple[Token | None, pa.Array]:
        found = self.text(letters)
        if found is None:
            return None, pa.repeat(pa.scalar(default, pa.int64()), len(self.parts))
        token, text = found
        present = pc.not_equal(text, "")
        return token, pc.cast(pc.if_else(present, text, str(default)), pa.int64())

    def check(self, values: pa.Array, lo: int, hi: int, name: str, span: str | None = None) -> None:
        bad = pc.or_(pc.less(values, lo), pc.greater(values, hi))
        self.checks.append((bad, name, span or f"{lo} - {hi}"))

    def named(self, letters: str, names: tuple[str, ...], default: int) -> pa.Array:
        found = self.text(letters)
        if found is None:
            return pa.repeat(pa.scalar(default, pa.int64()), len(self.parts))
        token, text = found
        index = pc.index_in(pc.utf8_lower(text), value_set=pa.array([n.lower() for n in names]))
        return pc.cast(pc.fill_null(pc.add(index, 1), default), pa.int64())


def _year(p: _Parsed) -> pa.Array:
    token, year = p.number("y", 1970)
    if token is not None and token.count == 2:
        year = pc.add(year, 2000)
    era = p.text("G")
    if era is not None:
        bc = pc.is_in(pc.utf8_lower(era[1]), value_set=pa.array(["bc", "before christ"]))
        year = pc.if_else(bc, pc.subtract(1, year), year)
    return year


def _hour(p: _Parsed) -> pa.Array:
    token_h, hour_of_day = p.number("H", 0)
    if token_h is not None:
        p.check(hour_of_day, 0, 23, "HourOfDay")
        return hour_of_day
    token_k, clock_day = p.number("k", 24)
    if token_k is not None:
        p.check(clock_day, 1, 24, "ClockHourOfDay")
        return pc.if_else(pc.equal(clock_day, 24), 0, clock_day)
    token, value = p.number("h", 12)
    if token is not None:
        p.check(value, 1, 12, "ClockHourOfAmPm")
        hour = pc.if_else(pc.equal(value, 12), 0, value)
    else:
        token, hour = p.number("K", 0)
        if token is None:
            return hour
        p.check(hour, 0, 11, "HourOfAmPm")
    ampm = p.text("a")
    if ampm is not None:
        hour = pc.if_else(pc.equal(pc.utf8_lower(ampm[1]), "pm"), pc.add(hour, 12), hour)
    return hour


def _leap(y: pa.Array) -> pa.Array:
    def divisible(k: int) -> pa.Array:
        return pc.equal(pc.subtract(y, pc.multiply(floor_div(y, k), k)), 0)

    return pc.and_(divisible(4), pc.or_(pc.invert(divisible(100)), divisible(400)))


def _days(p: _Parsed, year: pa.Array) -> pa.Array:
    found = p.text("ML")
    if found is not None and found[0].count >= 3:
        month = p.named("ML", MONTHS if found[0].count == 4 else tuple(m[:3] for m in MONTHS), 1)
    else:
        month = p.number("ML", 1)[1]
    p.check(month, 1, 12, "MonthOfYear")
    _, day = p.number("d", 1)
    p.check(day, 1, 31, "DayOfMonth", "1 - 28/31")
    safe_month = pc.if_else(pc.and_(pc.greater_equal(month, 1), pc.less_equal(month, 12)), month, 1)
    lengths = pc.take(pa.array([31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31], pa.int64()),
                      pc.subtract(safe_month, 1))
    lengths = pc.add(lengths, pc.cast(pc.and_(_leap(year), pc.equal(month, 2)), pa.int64()))
    impossible = pc.and_(pc.less_equal(day, 31), pc.greater(day, lengths))
    month_name = pc.take(pa.array([m.upper() for m in MONTHS]), pc.subtract(safe_month, 1))
    detail = pc.binary_join_element_wise(": Invalid date '", month_name, " ", pc.cast(day, pa.string()), "'", "")
    p.extra_bad.append((impossible, detail))
    day = pc.if_else(impossible, 1, day)
    token_doy, doy = p.number("D", 1)
    days = days_from_civil(year, safe_month, day)
    if token_doy is not None:
        p.check(doy, 1, 366, "DayOfYear", "1 - 365/366")
        too_late = pc.and_(pc.equal(doy, 366), pc.invert(_leap(year)))
        p.extra_bad.append((too_late, pc.binary_join_element_wise(
            ": Invalid date 'DayOfYear 366' as '", pc.cast(year, pa.string()), "' is not a leap year", "")))
        days = pc.add(days_from_civil(year, pa.repeat(pa.scalar(1, pa.int64()), len(year)),
                                      pa.repeat(pa.scalar(1, pa.int64()), len(year))), pc.subtract(doy, 1))
    weekday = p.text("E")
    if weekday is not None:
        given = pc.index_in(pc.utf8_slice_codeunits(pc.utf8_lower(weekday[1]), 0, 3),
                            value_set=pa.array([d[:3].lower() for d in WEEKDAYS]))
        actual = pc.subtract(pc.add(days, 3), pc.multiply(floor_div(pc.add(days, 3), 7), 7))  # Monday = 0
        conflict = pc.not_equal(pc.cast(given, pa.int64()), actual)
        p.extra_bad.append((conflict, pc.binary_join_element_wise(
            ": Conflict found: Field DayOfWeek ", pc.cast(pc.add(actual, 1), pa.string()),
            " differs from DayOfWeek ", pc.cast(pc.add(pc.cast(given, pa.int64()), 1), pa.string()),
            " derived from the text", "")))
    return days


def _offsets(p: _Parsed) -> tuple[pa.Array, pa.Array]:
    """Offset seconds given in the text (``X``, ``x``, ``Z``) and the mask of rows that gave one."""
    found = p.text("XxZ")
    n = len(p.parts)
    if found is None:
        return pa.repeat(pa.scalar(0, pa.int64()), n), pa.repeat(False, n)
    text = pc.replace_substring_regex(found[1], "^(?i)GMT", "")
    zulu = pc.or_(pc.equal(pc.utf8_upper(text), "Z"), pc.and_(pc.equal(text, ""), pc.not_equal(found[1], "")))
    parts = pc.extract_regex(text, r"^(?P<s>[+-])(?P<h>[0-9]{2}):?(?P<m>[0-9]{2})?:?(?P<x>[0-9]{2})?$")

    def num(name: str) -> pa.Array:
        t = pc.fill_null(parts.field(name), "")
        return pc.cast(pc.if_else(pc.equal(t, ""), "0", t), pa.int64())

    seconds = pc.add(pc.add(pc.multiply(num("h"), 3600), pc.multiply(num("m"), 60)), num("x"))
    p.check(pc.fill_null(pc.if_else(zulu, 0, num("h")), 0), -18, 18, "OffsetHours")
    seconds = pc.if_else(pc.equal(parts.field("s"), "-"), pc.negate(seconds), seconds)
    given = pc.or_(zulu, pc.is_valid(parts))
    return pc.fill_null(pc.if_else(zulu, 0, seconds), 0), pc.fill_null(given, False)


def _zone_named(p: _Parsed, local: pa.Array, utc: pa.Array) -> tuple[pa.Array, pa.Array]:
    """Rows whose text names a zone (``z``, ``VV``): instants per distinct zone, and unknown-zone rows."""
    found = p.text("zV")
    n = len(local)
    unknown = pa.repeat(False, n)
    if found is None:
        return utc, unknown
    zone = found[1]
    for name in pc.unique(zone).to_pylist():
        if not name:
            continue
        rows = pc.equal(zone, name)
        target = _ABBREVIATIONS.get(name.upper(), name)
        try:
            converted = local_to_utc(local, arrow_zone(target))
        except Exception:  # noqa: BLE001 - an unknown zone text is unparseable text, not an error of ours
            unknown = pc.or_(unknown, rows)
            continue
        utc = pc.if_else(rows, converted, utc)
    return utc, unknown


def _parse(texts: pa.Array, pattern: str, time_zone: str) -> tuple[pa.Array, pa.Array, _Parsed]:
    """UTC microseconds of ``texts`` (garbage where not ok) and the ok mask."""
    p = _Parsed(texts, pattern)
    year = _year(p)
    days = _days(p, year)
    hour = _hour(p)
    _, minute = p.number("m", 0)
    p.check(minute, 0, 59, "MinuteOfHour")
    _, second = p.number("s", 0)
    p.check(second, 0, 59, "SecondOfMinute")
    fraction = p.text("S")
    micros = pa.repeat(pa.scalar(0, pa.int64()), len(texts)) if fraction is None else pc.cast(
        pc.utf8_rpad(pc.utf8_slice_codeunits(fraction[1], 0, 6), 6, "0"), pa.int64())
    ok = p.matched
    for bad, _name, _span in p.checks:
        ok = pc.and_(ok, pc.invert(bad))
    for bad, _detail in p.extra_bad:
        ok = pc.and_(ok, pc.invert(bad))
    seconds = pc.add(pc.add(pc.multiply(hour, 3600), pc.multiply(minute, 60)), second)
    local = pc.add(pc.add(pc.multiply(days, _DAY_US), pc.multiply(seconds, _US)), micros)
    local = pc.if_else(ok, local, 0)
    offset, given = _offsets(p)
    zone = arrow_zone(time_zone)
    in_session = local if is_utc(time_zone) else local_to_utc(local, zone)
    utc = pc.if_else(given, pc.subtract(local, pc.multiply(offset, _US)), in_session)
    utc, unknown = _zone_named(p, local, utc)
    ok = pc.and_(ok, pc.invert(unknown))
    p.extra_bad.append((unknown, pa.repeat(pa.scalar(": Unable to parse the time zone", pa.string()), len(texts))))
    return utc, ok, p


def _explain(p: _Parsed, texts: pa.Array, row: int, pattern: str) -> DateTimeException:
    text = texts[row].as_py()
    if not p.matched[row].as_py():
        index, trailing = failure_index(text, pattern)
        return cannot_parse_timestamp(text, f", unparsed text found at index {index}" if trailing
                                      else f" at index {index}")
    for bad, name, span in p.checks:
        if bad[row].as_py():
            value = _field_value(p, name, row)
            return cannot_parse_timestamp(text, f": Invalid value for {name} (valid values {span}): {value}")
    for bad, detail in p.extra_bad:
        if bad[row].as_py():
            return cannot_parse_timestamp(text, str(detail[row].as_py()))
    return cannot_parse_timestamp(text, f" at index {failure_index(text, pattern)[0]}")


def _field_value(p: _Parsed, name: str, row: int) -> str:
    letters = {"MonthOfYear": "ML", "DayOfMonth": "d", "HourOfDay": "H", "ClockHourOfDay": "k",
               "ClockHourOfAmPm": "h", "HourOfAmPm": "K", "MinuteOfHour": "m", "SecondOfMinute": "s",
               "DayOfYear": "D", "OffsetHours": "XxZ"}[name]
    found = p.text(letters)
    return "" if found is None else str(int(found[1][row].as_py().lstrip("+-")[:2] if name == "OffsetHours"
                                            else found[1][row].as_py()))


def to_timestamp(values: Any, fmt: str | None, time_zone: str, ansi: bool) -> pa.Array:
    """Spark's ``to_timestamp(s[, fmt])``.

    Parameters
    ----------
    values : pa.Array
        string.
    fmt : str or None
        A Spark datetime pattern; ``None`` parses as ``CAST(s AS TIMESTAMP)``.
    time_zone : str
        The session time zone: texts without an offset are wall time there.
    ansi : bool
        Unparseable text raises ``CANNOT_PARSE_TIMESTAMP`` (``CAST_INVALID_INPUT`` without
        ``fmt``) when true, gives NULL otherwise.

    Returns
    -------
    pa.Array
        ``timestamp[us, tz=UTC]``.
    """
    texts = _as_strings(values)
    if fmt is None:
        return cast(texts, pa.string(), _TS, "ansi" if ansi else "legacy", time_zone)
    utc, ok, parsed = _parse(texts, fmt, time_zone)
    bad = pc.and_(pc.is_valid(texts), pc.invert(ok))
    if ansi and pc.any(bad).as_py():
        raise _explain(parsed, texts, int(pc.indices_nonzero(bad)[0].as_py()), fmt)
    keep = pc.and_(pc.is_valid(texts), ok)
    return pc.cast(pc.if_else(keep, utc, pa.scalar(None, pa.int64())), _TS)


def to_date(values: Any, fmt: str | None, ansi: bool, time_zone: str = "UTC") -> pa.Array:
    """Spark's ``to_date(s[, fmt])``: the date of the parsed instant in ``time_zone`` (``date32``).

    Parameters
    ----------
    values : pa.Array
        string.
    fmt : str or None
        A Spark datetime pattern; ``None`` parses as ``CAST(s AS DATE)``.
    ansi : bool
        Unparseable text raises (see :func:`to_timestamp`) when true, gives NULL otherwise.
    time_zone : str
        The session time zone (matters only for texts with an offset).

    Returns
    -------
    pa.Array
        date32.
    """
    texts = _as_strings(values)
    mode = "ansi" if ansi else "legacy"
    if fmt is None:
        return cast(texts, pa.string(), pa.date32(), mode, time_zone)
    return cast(to_timestamp(texts, fmt, time_zone, ansi), _TS, pa.date32(), mode, time_zone)


def _local_and_offset(values: Any, time_zone: str) -> tuple[pa.Array, pa.Array]:
    """Wall-clock microseconds in ``time_zone`` and each instant's offset (seconds) there."""
    a = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    zone = arrow_zone(time_zone)
    if pa.types.is_date(a.type):
        local = pc.multiply(pc.cast(pc.cast(a, pa.int32()), pa.int64()), _DAY_US)
        utc = local if is_utc(time_zone) else local_to_utc(local, zone)
    elif pa.types.is_timestamp(a.type) and a.type.tz is None:
        local = pc.cast(pc.cast(a, pa.timestamp("us")), pa.int64())
        utc = local if is_utc(time_zone) else local_to_utc(local, zone)
    elif pa.types.is_timestamp(a.type):
        utc = pc.cast(pc.cast(a, pa.timestamp("us", tz="UTC")), pa.int64())
        wall = pc.local_timestamp(pc.cast(pc.cast(utc, _TS), pa.timestamp("us", tz=zone)))
        local = pc.cast(pc.cast(wall, pa.timestamp("us")), pa.int64())
    else:
        raise TypeError(f"date_format needs timestamps or dates, not {a.type}")
    return local, floor_div(pc.subtract(local, utc), _US)


def date_format(values: Any, fmt: str, time_zone: str) -> pa.Array:
    """Spark's ``date_format(ts, fmt)``: instants (or dates) as text in ``time_zone``.

    Parameters
    ----------
    values : pa.Array
        ``timestamp`` (with zone: instants; without: wall times) or ``date32``.
    fmt : str
        A Spark datetime pattern.
    time_zone : str
        The session time zone.

    Returns
    -------
    pa.Array
        string.
    """
    local, offset = _local_and_offset(values, time_zone)
    return format_local(local, offset, fmt, arrow_zone(time_zone))


def unix_timestamp(values: Any, fmt: str, time_zone: str, ansi: bool = False) -> pa.Array:
    """Spark's ``unix_timestamp(s, fmt)``: seconds since the epoch (floored), int64.

    Parameters
    ----------
    values : pa.Array
        string (parsed with ``fmt``), or timestamps / dates (converted).
    fmt : str
        A Spark datetime pattern.
    time_zone : str
        The session time zone.
    ansi : bool
        Unparseable text raises ``CANNOT_PARSE_TIMESTAMP`` when true (Spark's ANSI mode).

    Returns
    -------
    pa.Array
        int64.
    """
    a = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    if pa.types.is_string(a.type) or pa.types.is_large_string(a.type):
        instants = to_timestamp(a, fmt, time_zone, ansi)
    elif pa.types.is_date(a.type):
        instants = cast(a, pa.date32(), _TS, "ansi", time_zone)
    else:
        instants = cast(a, a.type, _TS, "ansi", time_zone)
    return floor_div(pc.cast(instants, pa.int64()), _US)


def from_unixtime(values: Any, fmt: str, time_zone: str) -> pa.Array:
    """Spark's ``from_unixtime(seconds, fmt)``: seconds since the epoch as text in ``time_zone``.

    Parameters
    ----------
    values : pa.Array
        integral seconds.
    fmt : str
        A Spark datetime pattern.
    time_zone : str
        The session time zone.

    Returns
    -------
    pa.Array
        string.
    """
    a = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    micros = pc.multiply_checked(pc.cast(a, pa.int64()), _US)
    return date_format(pc.cast(micros, _TS), fmt, time_zone)

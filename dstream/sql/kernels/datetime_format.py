"""Formatting instants with Spark's datetime patterns (``date_format``, ``from_unixtime``, JSON's timestamps).

What this module owns
---------------------
:func:`format_local(local_us, offset_s, pattern, zone_id)`: the text of wall-clock
microseconds ``local_us`` (int64) whose zone offset is ``offset_s`` seconds, each pattern
letter printed as java.time prints it for Spark: ``yyyy`` zero-padded, ``yy`` the last two
digits, ``MMM``/``MMMM`` English month names, ``E``..``EEE``/``EEEE`` day names, ``a``
``AM``/``PM``, ``h`` 1-12, ``k`` 1-24, ``K`` 0-11, ``S..S`` the fraction truncated (padded
with zeros past microseconds), ``X`` ``Z`` for a zero offset, ``x``/``Z`` never, ``ZZZZ``
``GMT+08:00``, ``z`` the zone's abbreviation, ``VV`` the zone id, ``O`` ``GMT+8``, ``Q`` the
quarter, ``G`` ``AD``. Optional sections ``[...]`` always print (every field of an
instant is available).

Everything is vectorized (one Arrow string array per token, joined at the end);
``z`` reads the abbreviation with Arrow's ``strftime``.

Invariants
----------
* Null inputs give null texts; the output has the input's length.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from dstream.sql.kernels.datetime_pattern import MONTHS, WEEKDAYS, Token, tokenize

__all__ = ["format_local", "floor_div"]

_US = 1_000_000
_DAY_US = 86_400 * _US


def floor_div(x: pa.Array, k: int) -> pa.Array:
    """``x // k`` rounded toward negative infinity (int64)."""
    q = pc.divide(x, k)
    fix = pc.and_(pc.less(x, 0), pc.not_equal(pc.multiply(q, k), x))
    return pc.if_else(fix, pc.subtract(q, 1), q)


def _num(values: pa.Array, width: int) -> pa.Array:
    text = pc.cast(values, pa.string())
    return pc.utf8_lpad(text, width, "0") if width > 1 else text


def _names(index: pa.Array, names: tuple[str, ...]) -> pa.Array:
    return pc.take(pa.array(names, pa.string()), index)


class _Fields:
    """Calendar fields of wall-clock microseconds, computed once each on first use."""

    def __init__(self, local_us: pa.Array, offset_s: pa.Array, zone_id: str) -> None:
        self.local_us = local_us
        self.offset_s = offset_s
        self.zone_id = zone_id
        self.ts = pc.cast(local_us, pa.timestamp("us"))
        self._cache: dict[str, pa.Array] = {}

    def get(self, name: str) -> pa.Array:
        if name not in self._cache:
            self._cache[name] = self._compute(name)
        return self._cache[name]

    def _compute(self, name: str) -> pa.Array:
        simple = {"year": pc.year, "month": pc.month, "day": pc.day, "doy": pc.day_of_year, "hour": pc.hour,
                  "minute": pc.minute, "second": pc.second, "quarter": pc.quarter}
        if name in simple:
            return pc.cast(simple[name](self.ts), pa.int64())
        if name == "dow":
            return pc.cast(pc.day_of_week(self.ts), pa.int64())  # Monday = 0
        if name == "micros":
            return pc.subtract(self.local_us, pc.multiply(floor_div(self.local_us, _US), _US))
        raise KeyError(name)


def _year(f: _Fields, n: int) -> pa.Array:
    year = f.get("year")
    if n == 2:
        return _num(pc.subtract(year, pc.multiply(floor_div(year, 100), 100)), 2)
    return _num(year, n)


def _fraction(f: _Fields, n: int) -> pa.Array:
    digits = _num(f.get("micros"), 6)
    return pc.utf8_slice_codeunits(digits, 0, n) if n <= 6 else pc.utf8_rpad(digits, n, "0")


def _hour(f: _Fields, kind: str, n: int) -> pa.Array:
    hour = f.get("hour")
    twelve = pc.subtract(hour, pc.multiply(floor_div(hour, 12), 12))
    if kind == "h":
        value = pc.if_else(pc.equal(twelve, 0), 12, twelve)
    elif kind == "K":
        value = twelve
    elif kind == "k":
        value = pc.if_else(pc.equal(hour, 0), 24, hour)
    else:
        value = hour
    return _num(value, n)


def _offset_parts(offset_s: pa.Array) -> tuple[pa.Array, pa.Array, pa.Array, pa.Array]:
    sign = pc.if_else(pc.less(offset_s, 0), "-", "+")
    magnitude = pc.abs(offset_s)
    hours = _num(pc.divide(magnitude, 3600), 2)
    minutes = _num(pc.divide(pc.subtract(magnitude, pc.multiply(pc.divide(magnitude, 3600), 3600)), 60), 2)
    seconds = _num(pc.subtract(magnitude, pc.multiply(pc.divide(magnitude, 60), 60)), 2)
    return sign, hours, minutes, seconds


def _join(*parts: pa.Array | str) -> pa.Array:
    return pc.binary_join_element_wise(*parts, "")


def _offset(f: _Fields, token: Token) -> pa.Array:
    c, n = token.kind, token.count
    off = f.offset_s
    sign, hh, mm, ss = _offset_parts(off)
    has_minutes = pc.not_equal(pc.subtract(off, pc.multiply(pc.divide(off, 3600), 3600)), 0)
    has_seconds = pc.not_equal(pc.subtract(off, pc.multiply(pc.divide(off, 60), 60)), 0)
    if c == "Z" and n == 4:
        text = _join("GMT", sign, hh, ":", mm)
        return pc.if_else(pc.equal(off, 0), "GMT", text)
    if c == "O":
        short = _join("GMT", sign, pc.cast(pc.divide(pc.abs(off), 3600), pa.string()))
        text = pc.if_else(has_minutes, _join(short, ":", mm), short)
        return pc.if_else(pc.equal(off, 0), "GMT", text)
    if c == "Z":
        c, n = ("X", 5) if n == 5 else ("x", 2)
    shapes = {1: pc.if_else(has_minutes, _join(sign, hh, mm), _join(sign, hh)),
              2: _join(sign, hh, mm), 3: _join(sign, hh, ":", mm),
              4: pc.if_else(has_seconds, _join(sign, hh, mm, ss), _join(sign, hh, mm)),
              5: pc.if_else(has_seconds, _join(sign, hh, ":", mm, ":", ss), _join(sign, hh, ":", mm))}
    text = shapes[n]
    if c == "X":
        return pc.if_else(pc.equal(off, 0), "Z", text)
    return text


def _zone_abbreviation(f: _Fields) -> pa.Array:
    utc = pc.cast(pc.subtract(f.local_us, pc.multiply(f.offset_s, _US)), pa.timestamp("us", tz=f.zone_id))
    return pc.strftime(utc, format="%Z")


def _piece(f: _Fields, token: Token) -> pa.Array | str:
    c, n = token.kind, token.count
    if c == "'":
        return token.text
    if c == "y":
        return _year(f, n)
    if c in "ML":
        month = f.get("month")
        if n >= 3:
            names = MONTHS if n == 4 else tuple(m[:3] for m in MONTHS)
            return _names(pc.subtract(month, 1), names)
        return _num(month, n)
    fields = {"d": "day", "D": "doy", "m": "minute", "s": "second"}
    if c in fields:
        return _num(f.get(fields[c]), n)
    if c in "HhkK":
        return _hour(f, c, n)
    if c == "S":
        return _fraction(f, n)
    if c == "a":
        return pc.if_else(pc.less(f.get("hour"), 12), "AM", "PM")
    if c == "E":
        return _names(f.get("dow"), WEEKDAYS if n >= 4 else tuple(d[:3] for d in WEEKDAYS))
    if c in "Qq":  # the quarter: 4, 04, Q4, 4th quarter (q is Java's standalone form, the same in English)
        if n <= 2:
            return _num(f.get("quarter"), n)
        if n == 3:
            return _join("Q", pc.cast(f.get("quarter"), pa.string()))
        return _names(pc.subtract(f.get("quarter"), 1), ("1st quarter", "2nd quarter", "3rd quarter", "4th quarter"))
    if c == "G":
        return "Anno Domini" if n == 4 else "AD"
    if c == "V":
        return f.zone_id
    if c == "z":
        return _zone_abbreviation(f)
    return _offset(f, token)


def format_local(local_us: pa.Array, offset_s: pa.Array, pattern: str, zone_id: str) -> pa.Array:
    """Texts of wall-clock microseconds in Spark's ``pattern``.

    Parameters
    ----------
    local_us : pa.Array
        int64 wall-clock microseconds since 1970-01-01T00:00 (nulls allowed).
    offset_s : pa.Array
        int64 zone offsets in seconds of each instant (for ``X``, ``x``, ``Z``, ``O``, ``z``).
    pattern : str
        A Spark datetime pattern.
    zone_id : str
        The zone (an Arrow time zone string), printed by ``VV`` and used by ``z``.

    Returns
    -------
    pa.Array
        string.
    """
    tokens = [t for t in tokenize(pattern, False) if t.kind not in "[]"]
    fields = _Fields(local_us, offset_s, zone_id)
    pieces = [_piece(fields, t) for t in tokens]
    valid = pc.is_valid(local_us)
    if not any(isinstance(p, (pa.Array, pa.ChunkedArray)) for p in pieces):
        text = "".join(str(p) for p in pieces)
        return pc.if_else(valid, pa.scalar(text, pa.string()), pa.scalar(None, pa.string()))
    return pc.if_else(valid, _join(*pieces), pa.scalar(None, pa.string()))

"""Spark 4's parsing of strings by ``CAST``: to integral, floating, decimal, boolean, date and timestamp.

What this module owns
---------------------
``parse_string(a, to, mode, time_zone) -> (values, bad)`` and
``parse_decimal_strings(a) -> (exact Decimals, bad)``: the parsed values (NULL where
malformed) and the mask of rows that were malformed (non-NULL input that does not parse), so
:mod:`.cast` can raise ``CAST_INVALID_INPUT`` (ANSI) or keep the NULLs (try/legacy).
Also the vectorized calendar helpers :func:`days_from_civil` and :func:`local_to_utc`.

Spark's rules: whitespace (and control characters) around the text is ignored;
integral: ``[+-]?digits`` only under ANSI and try (``'3.9'`` is malformed; out of range is
malformed too), legacy also accepts and truncates a fraction (``'3.9'`` -> 3);
floating: Java's number syntax (an ``f``/``d`` suffix allowed) and ``inf``, ``+inf``,
``infinity``, ``-inf``, ``-infinity``, ``nan`` in any case;
boolean: ``t true y yes 1`` / ``f false n no 0`` in any case;
date: ``yyyy``, ``yyyy-[m]m``, ``yyyy-[m]m-[d]d`` optionally followed by `` `` or ``T`` and
anything; timestamp: a date, then ``[ T][h]h[:[m]m[:[s]s[.fraction]]]`` and an optional zone
(``Z``, ``UTC``, ``GMT``, ``[+-]h[h][[:]mm]``, or a region such as ``Europe/Paris``); without a
zone the text is wall time in ``time_zone`` (gaps move forward, overlaps take the earlier
instant, as java.time). Fractions beyond microseconds are truncated.

Per-row Python: string -> decimal (exact ``Decimal`` with HALF_UP), and timestamps whose
text names a region zone; everything else is vectorized.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

import pyarrow as pa
import pyarrow.compute as pc

from dstream.sql.kernels.sparktypes import INT_RANGES, is_integral

__all__ = ["parse_string", "parse_decimal_strings", "days_from_civil", "local_to_utc", "trim_spark", "WHITESPACE"]

# Spark trims every character up to and including the space (controls, tabs, newlines).
WHITESPACE = "".join(chr(c) for c in range(33))
_US = 1_000_000
_DAY_US = 86_400 * _US


def trim_spark(a: pa.Array) -> pa.Array:
    """``a`` without leading and trailing characters <= U+0020."""
    return pc.utf8_trim(a, characters=WHITESPACE)


def _bad(a: pa.Array, parsed_ok: pa.Array) -> pa.Array:
    """Rows with a non-NULL input that did not parse."""
    return pc.and_(pc.is_valid(a), pc.invert(pc.fill_null(parsed_ok, False)))


def _null_where(values: pa.Array, mask: pa.Array) -> pa.Array:
    return pc.if_else(mask, pa.scalar(None, values.type), values)


def _to_integral(a: pa.Array, t: pa.DataType, mode: str) -> tuple[pa.Array, pa.Array]:
    s = trim_spark(a)
    if mode == "legacy":
        # Legacy toInt: a fractional part of digits is dropped ('3.9' -> 3, '.5' -> 0).
        s = pc.replace_substring_regex(s, r"^([+-]?\d+)\.\d*$", r"\1")
        s = pc.replace_substring_regex(s, r"^([+-]?)\.\d+$", r"\10")
    ok = pc.match_substring_regex(s, r"^[+-]?\d+$")
    body = pc.replace_substring_regex(pc.if_else(ok, s, "0"), r"^\+", "")
    body = pc.replace_substring_regex(body, r"^(-?)0+(\d)", r"\1\2")
    short = pc.less_equal(pc.utf8_length(body), 20)
    ok = pc.and_(ok, short)
    wide = pc.cast(pc.if_else(ok, body, "0"), pa.decimal128(21, 0))
    lo, hi = INT_RANGES[t]
    in_range = pc.and_(pc.greater_equal(wide, pa.scalar(Decimal(lo), pa.decimal128(21, 0))),
                       pc.less_equal(wide, pa.scalar(Decimal(hi), pa.decimal128(21, 0))))
    ok = pc.and_(ok, in_range)
    values = pc.cast(pc.if_else(ok, wide, pa.scalar(Decimal(0), pa.decimal128(21, 0))), t)
    bad = _bad(a, ok)
    return _null_where(values, pc.or_(bad, pc.is_null(a))), bad


_FLOAT_RE = r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fFdD]?$"
_SPECIALS = {"inf": "inf", "+inf": "inf", "infinity": "inf", "+infinity": "inf", "-inf": "-inf",
             "-infinity": "-inf", "nan": "nan"}


def _to_floating(a: pa.Array, t: pa.DataType) -> tuple[pa.Array, pa.Array]:
    s = trim_spark(a)
    lower = pc.utf8_lower(s)
    special = pc.is_in(lower, value_set=pa.array(list(_SPECIALS)))
    numeric = pc.match_substring_regex(s, _FLOAT_RE)
    # Java's own spellings (NaN, Infinity) are covered by the case-insensitive specials.
    ok = pc.or_(special, numeric)
    mapped = pc.replace_substring_regex(lower, r"^(\+?)(inf|infinity)$", "inf")
    mapped = pc.replace_substring_regex(mapped, r"^-(inf|infinity)$", "-inf")
    mapped = pc.replace_substring_regex(mapped, r"([0-9.])[fd]$", r"\1")
    values = pc.cast(pc.if_else(ok, mapped, "0"), pa.float64())
    if t != pa.float64():
        values = pc.cast(values, t, safe=False)
    bad = _bad(a, ok)
    return _null_where(values, pc.or_(bad, pc.is_null(a))), bad


def parse_decimal_strings(a: pa.Array) -> tuple[list[Decimal | None], pa.Array]:
    """The exact ``Decimal`` of each string (not yet fitted to a type) and the malformed mask (per row)."""
    out: list[Decimal | None] = []
    bad: list[bool] = []
    for v in a.to_pylist():
        if v is None:
            out.append(None)
            bad.append(False)
            continue
        text = v.strip(WHITESPACE)
        try:
            d = Decimal(text) if text and text.lower().lstrip("+-") not in ("nan", "inf", "infinity", "snan") \
                and "_" not in text else None
        except InvalidOperation:
            d = None
        out.append(d)
        bad.append(d is None)
    return out, pa.array(bad, pa.bool_())


_TRUE = ["t", "true", "y", "yes", "1"]
_FALSE = ["f", "false", "n", "no", "0"]


def _to_boolean(a: pa.Array) -> tuple[pa.Array, pa.Array]:
    lower = pc.utf8_lower(trim_spark(a))
    is_true = pc.is_in(lower, value_set=pa.array(_TRUE))
    is_false = pc.is_in(lower, value_set=pa.array(_FALSE))
    ok = pc.or_(is_true, is_false)
    bad = _bad(a, ok)
    return _null_where(is_true, pc.or_(bad, pc.is_null(a))), bad


# ---------------------------------------------------------------------------------------------- calendar

def _floordiv(x: pa.Array, k: int) -> pa.Array:
    q = pc.divide(x, k)  # truncates toward zero
    fix = pc.and_(pc.less(x, 0), pc.not_equal(pc.multiply(q, k), x))
    return pc.if_else(fix, pc.subtract(q, 1), q)


def days_from_civil(y: pa.Array, m: pa.Array, d: pa.Array) -> pa.Array:
    """Days since 1970-01-01 of the proleptic Gregorian dates ``y-m-d`` (int64 arrays; no validation)."""
    y, m, d = (pc.cast(v, pa.int64()) for v in (y, m, d))
    y = pc.subtract(y, pc.cast(pc.less_equal(m, 2), pa.int64()))
    era = _floordiv(y, 400)
    yoe = pc.subtract(y, pc.multiply(era, 400))
    mp = pc.if_else(pc.greater(m, 2), pc.subtract(m, 3), pc.add(m, 9))
    doy = pc.add(pc.divide(pc.add(pc.multiply(mp, 153), 2), 5), pc.subtract(d, 1))
    doe = pc.add(pc.subtract(pc.add(pc.multiply(yoe, 365), pc.divide(yoe, 4)), pc.divide(yoe, 100)), doy)
    return pc.subtract(pc.add(pc.multiply(era, 146097), doe), 719468)


def _valid_ymd(y: pa.Array, m: pa.Array, d: pa.Array) -> pa.Array:
    leap = pc.and_(pc.equal(pc.subtract(y, pc.multiply(_floordiv(y, 4), 4)), 0),
                   pc.or_(pc.not_equal(pc.subtract(y, pc.multiply(_floordiv(y, 100), 100)), 0),
                          pc.equal(pc.subtract(y, pc.multiply(_floordiv(y, 400), 400)), 0)))
    month_ok = pc.and_(pc.greater_equal(m, 1), pc.less_equal(m, 12))
    lengths = pa.array([31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31], pa.int64())
    dim = pc.take(lengths, pc.subtract(pc.if_else(month_ok, m, 1), 1))
    dim = pc.add(dim, pc.cast(pc.and_(leap, pc.equal(m, 2)), pa.int64()))
    return pc.and_(month_ok, pc.and_(pc.greater_equal(d, 1), pc.less_equal(d, dim)))


def local_to_utc(local_us: pa.Array, time_zone: str) -> pa.Array:
    """UTC microseconds of wall-clock microseconds in ``time_zone``, as Java's ``LocalDateTime.atZone``.

    In an overlap (clocks go back) the earlier instant; in a gap (clocks go forward) the wall time
    is moved forward by the gap's length: 02:30 on a night that skips 02:00-03:00 is 03:30.
    """
    local = pc.cast(local_us, pa.int64())
    earliest = pc.assume_timezone(pc.cast(local, pa.timestamp("us")), timezone=time_zone, ambiguous="earliest",
                                  nonexistent="earliest")
    # Arrow's "earliest" for a gap is the last instant before it, so its offset is the one before the
    # gap; the wall time read with that offset is the instant Java gives. Elsewhere this is the identity.
    instant = pc.cast(pc.cast(earliest, pa.timestamp("us")), pa.int64())
    offset = pc.subtract(pc.cast(pc.local_timestamp(earliest), pa.int64()), instant)
    return pc.subtract(local, offset)


_DATE_RE = r"^(?P<y>[+-]?\d{4,7})(?:-(?P<m>\d{1,2})(?:-(?P<d>\d{1,2})(?:[ T].*)?)?)?$"
_TS_RE = (r"^(?P<y>[+-]?\d{4,7})(?:-(?P<m>\d{1,2})(?:-(?P<d>\d{1,2}))?)?"
          r"(?:[ T](?:(?P<h>\d{1,2})(?::(?P<mi>\d{1,2})(?::(?P<s>\d{1,2})(?:\.(?P<f>\d*))?)?)?)?)?"
          r" ?(?P<z>Z|[+-]\d{1,2}(?::?\d{2})?|[A-Za-z][A-Za-z0-9_/+\-:]*)?$")


def _int_field(parts: pa.StructArray, name: str, default: int) -> pa.Array:
    text = parts.field(name)
    text = pc.if_else(pc.equal(text, ""), str(default), text)
    return pc.cast(pc.fill_null(text, str(default)), pa.int64())


def _ymd(parts: pa.StructArray) -> tuple[pa.Array, pa.Array, pa.Array, pa.Array]:
    y = _int_field(parts, "y", 1970)
    m = _int_field(parts, "m", 1)
    d = _int_field(parts, "d", 1)
    return y, m, d, _valid_ymd(y, m, d)


def _to_date(a: pa.Array) -> tuple[pa.Array, pa.Array]:
    parts = pc.extract_regex(trim_spark(a), _DATE_RE)
    y, m, d, ok = _ymd(parts)
    ok = pc.and_(pc.is_valid(parts), ok)
    days = days_from_civil(pc.if_else(ok, y, 1970), pc.if_else(ok, m, 1), pc.if_else(ok, d, 1))
    bad = _bad(a, ok)
    values = pc.cast(pc.cast(days, pa.int32()), pa.date32())
    return _null_where(values, pc.or_(bad, pc.is_null(a))), bad


def _zone_offsets(zone: pa.Array) -> tuple[pa.Array, pa.Array]:
    """Offset seconds of ``Z``/``UTC``/``[+-]h[h][[:]mm]`` zones, and the mask of zones given that way."""
    utc = pc.is_in(pc.utf8_upper(zone), value_set=pa.array(["Z", "UTC", "GMT", "UT"]))
    parts = pc.extract_regex(zone, r"^(?P<sign>[+-])(?P<h>\d{1,2}):?(?P<mi>\d{2})?$")
    sign = pc.if_else(pc.equal(parts.field("sign"), "-"), -1, 1)
    seconds = pc.add(pc.multiply(_int_field(parts, "h", 0), 3600), pc.multiply(_int_field(parts, "mi", 0), 60))
    fixed = pc.is_valid(parts)
    offset = pc.if_else(fixed, pc.multiply(seconds, pc.cast(sign, pa.int64())), 0)
    return offset, pc.or_(utc, fixed)


def _to_timestamp(a: pa.Array, t: pa.DataType, time_zone: str) -> tuple[pa.Array, pa.Array]:
    parts = pc.extract_regex(trim_spark(a), _TS_RE)
    y, m, d, ok = _ymd(parts)
    h, mi, s = _int_field(parts, "h", 0), _int_field(parts, "mi", 0), _int_field(parts, "s", 0)
    frac = pc.utf8_rpad(pc.utf8_slice_codeunits(pc.fill_null(parts.field("f"), ""), 0, 6), 6, "0")
    ok = pc.and_(pc.and_(pc.is_valid(parts), ok),
                 pc.and_(pc.less(h, 24), pc.and_(pc.less(mi, 60), pc.less(s, 60))))
    days = days_from_civil(pc.if_else(ok, y, 1970), pc.if_else(ok, m, 1), pc.if_else(ok, d, 1))
    seconds = pc.add(pc.add(pc.multiply(h, 3600), pc.multiply(mi, 60)), s)
    local = pc.add(pc.add(pc.multiply(days, _DAY_US), pc.multiply(seconds, _US)), pc.cast(frac, pa.int64()))
    local = pc.if_else(ok, local, 0)
    if t.tz is None:
        values = local
    else:
        zone = parts.field("z")
        offset, fixed = _zone_offsets(pc.fill_null(zone, ""))
        no_zone = pc.or_(pc.is_null(zone), pc.equal(zone, ""))
        fixed = pc.and_(fixed, pc.invert(no_zone))
        values = pc.if_else(no_zone, local_to_utc(local, time_zone),
                            pc.subtract(local, pc.multiply(offset, _US)))
        named = pc.and_(pc.and_(ok, pc.invert(no_zone)), pc.invert(fixed))
        if pc.any(named).as_py():
            values, ok = _named_zones(values, ok, named, local, zone)
    bad = _bad(a, ok)
    out = pc.cast(pc.cast(values, pa.int64()), t)
    return _null_where(out, pc.or_(bad, pc.is_null(a))), bad


def _named_zones(values: pa.Array, ok: pa.Array, named: pa.Array, local: pa.Array,
                 zone: pa.Array) -> tuple[pa.Array, pa.Array]:
    """Per row: wall times followed by a region name (``Europe/Paris``) or an unknown zone (malformed)."""
    idx = pc.indices_nonzero(named)
    fixed_values: list[int | None] = []
    for lu, z in zip(pc.take(local, idx).to_pylist(), pc.take(zone, idx).to_pylist()):
        try:
            fixed_values.append(local_to_utc(pa.array([lu], pa.int64()), z)[0].as_py())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError, ValueError):
            fixed_values.append(None)
    fixed = pa.array(fixed_values, pa.int64())
    values = pc.replace_with_mask(values, named, fixed)
    ok = pc.replace_with_mask(ok, named, pc.is_valid(fixed))
    return values, ok


def parse_string(a: pa.Array, t: pa.DataType, mode: str, time_zone: str) -> tuple[pa.Array, pa.Array]:
    """Parse strings ``a`` as Arrow type ``t`` with Spark's rules.

    Parameters
    ----------
    a : pa.Array
        string.
    t : pa.DataType
        Target Arrow type (integral, floating, boolean, date32, timestamp, binary; decimals:
        :func:`parse_decimal_strings`).
    mode : str
        ``"ansi"``, ``"legacy"`` or ``"try"`` (legacy integral parsing accepts a fraction).
    time_zone : str
        Session time zone for timestamps without a zone.

    Returns
    -------
    (values, bad)
        ``values`` NULL where malformed, ``bad`` the boolean mask of malformed non-NULL inputs.
    """
    if is_integral(t):
        return _to_integral(a, t, mode)
    if pa.types.is_floating(t):
        return _to_floating(a, t)
    if pa.types.is_boolean(t):
        return _to_boolean(a)
    if pa.types.is_date(t):
        return _to_date(a)
    if pa.types.is_timestamp(t):
        return _to_timestamp(a, t, time_zone)
    if pa.types.is_binary(t):
        return pc.cast(a, t), pa.repeat(False, len(a))
    raise TypeError(f"cannot cast STRING to {t}")

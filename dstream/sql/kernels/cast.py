"""Spark 4's ``CAST`` over pyarrow arrays, in ANSI, legacy and try modes.

What this module owns
---------------------
``cast(a, from_dt, to_dt, mode="ansi", time_zone="UTC") -> pa.Array``: ``from_dt`` may be
``None`` (the array's own type); types are Spark ``DataType`` objects or ``pa.DataType``;
``mode`` is ``"ansi"`` (errors), ``"legacy"`` (``spark.sql.ansi.enabled=false``: NULL on
malformed input, integral narrowing wraps, floating -> integral saturates) or ``"try"``
(``try_cast``: NULL on any failure). Also ``to_string(a, time_zone)``.

Spark's rules (beyond :mod:`.cast_text`, which parses strings):
* floating -> integral truncates toward zero; out of range or NaN raises ``CAST_OVERFLOW``
  (ANSI); legacy saturates to int/bigint (NaN -> 0) and wraps from int to tinyint/smallint;
* integral narrowing: ``CAST_OVERFLOW`` (ANSI), wraps (legacy);
* -> decimal: HALF_UP to the scale, too wide -> ``NUMERIC_VALUE_OUT_OF_RANGE`` (ANSI) else NULL;
  a double converts through its shortest text (``0.1`` is exactly ``0.1``); NaN and the
  infinities are NULL, under ANSI too;
* numeric -> boolean is ``x != 0`` (NaN is true); boolean -> numeric is 1/0;
* timestamp -> integral: seconds since the epoch, floored; -> double: seconds with fraction;
  numeric -> timestamp: seconds; date <-> timestamp through midnight in ``time_zone``;
* -> string: doubles and floats as Java prints them, timestamps ``yyyy-MM-dd HH:mm:ss`` with the
  fraction's trailing zeros dropped (wall time in ``time_zone``), binary decoded as UTF-8
  (invalid bytes -> U+FFFD), arrays ``[1, null]``, structs ``{1, a}``, maps ``{a -> 1}``.

Per-row Python: double/float -> decimal, string -> decimal, decimal -> integral values
beyond bigint under legacy, binary that is not valid UTF-8, nested types -> string (the
element values themselves are converted vectorized), and doubles outside Java's plain range
when printed (see :mod:`.javafmt`).
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from dstream.sql.formatting import format_day_time_interval
from dstream.sql.kernels.arith import _decimal_rows, as_array, fit_decimal
from dstream.sql.kernels.cast_text import parse_decimal_strings, parse_string
from dstream.sql.kernels.conditions import cast_invalid_input, cast_overflow
from dstream.sql.kernels.javafmt import doubles_to_strings
from dstream.sql.kernels.sparktypes import INT_RANGES, arrow_type, is_integral

__all__ = ["cast", "to_string"]

_US = 1_000_000
_MODES = ("ansi", "legacy", "try")


def _first(a: pa.Array, mask: pa.Array) -> Any:
    return a[int(pc.indices_nonzero(pc.fill_null(mask, False))[0].as_py())].as_py()


def _settle(src: pa.Array, values: pa.Array, bad: pa.Array, mode: str, error: Any) -> pa.Array:
    """``values`` with the ``bad`` rows raising ``error(first bad value)`` under ANSI or NULL otherwise."""
    bad = pc.fill_null(bad, False)
    if not pc.any(bad).as_py():
        return values
    if mode == "ansi":
        raise error(_first(src, bad))
    return pc.if_else(bad, pa.scalar(None, values.type), values)


def cast(a: Any, from_dt: Any, to_dt: Any, mode: str = "ansi", time_zone: str = "UTC") -> pa.Array:
    """Spark's ``CAST(a AS to_dt)``.

    Parameters
    ----------
    a : pa.Array
        The values.
    from_dt : DataType, pa.DataType or None
        Their Spark type (``None``: the array's Arrow type).
    to_dt : DataType or pa.DataType
        The target type.
    mode : {"ansi", "legacy", "try"}
        ANSI raises ``CAST_INVALID_INPUT`` / ``CAST_OVERFLOW`` / ``NUMERIC_VALUE_OUT_OF_RANGE``;
        legacy and try give NULL (legacy wraps integral narrowing).
    time_zone : str
        The session time zone (timestamps <-> strings and dates).

    Returns
    -------
    pa.Array
        Of ``to_dt``'s Arrow type.
    """
    if mode not in _MODES:
        raise ValueError(f"cast mode must be one of {_MODES}, not {mode!r}")
    x = as_array(a)
    src = arrow_type(from_dt) if from_dt is not None else x.type
    dst = arrow_type(to_dt)
    if pa.types.is_large_string(src):
        x, src = pc.cast(x, pa.string()), pa.string()
    if x.type != src:
        x = pc.cast(x, src)
    if src == dst:
        return x
    if src == pa.null():
        return pa.nulls(len(x), dst)
    if pa.types.is_string(dst) or pa.types.is_large_string(dst):
        return pc.cast(to_string(x, time_zone), dst)
    if pa.types.is_list(src) and pa.types.is_list(dst):
        return _list_cast(x, from_dt, to_dt, mode, time_zone)
    if pa.types.is_map(src) and pa.types.is_map(dst):
        return _map_cast(x, from_dt, to_dt, mode, time_zone)
    if pa.types.is_struct(src) and pa.types.is_struct(dst) and src.num_fields == dst.num_fields:
        return _struct_cast(x, from_dt, to_dt, mode, time_zone)
    if pa.types.is_string(src):
        return _from_string(x, dst, mode, time_zone)
    if pa.types.is_boolean(dst):
        return pc.not_equal(x, pa.scalar(0, pa.int8()).cast(x.type) if not pa.types.is_decimal(x.type)
                            else pa.scalar(Decimal(0), x.type))
    if pa.types.is_boolean(src):
        as_int = pc.cast(x, pa.int8())
        return fit_decimal(as_int, dst, mode == "ansi") if pa.types.is_decimal(dst) else pc.cast(as_int, dst)
    if pa.types.is_timestamp(src) and not pa.types.is_timestamp(dst) and not pa.types.is_date(dst):
        return _from_timestamp(x, dst, mode)
    if is_integral(dst):
        return _to_integral(x, src, dst, mode)
    if pa.types.is_floating(dst):
        if pa.types.is_decimal(src):
            # Through the exact decimal text: Arrow's own decimal-to-double cast multiplies by a power
            # of ten and can miss by an ulp (2.675 became 2.6750000000000003); parsing the text rounds
            # correctly, as Java's BigDecimal.doubleValue does.
            return pc.cast(pc.cast(x, pa.string()), dst)
        return pc.cast(x, dst, safe=False)
    if pa.types.is_decimal(dst):
        return _to_decimal(x, src, dst, mode)
    if pa.types.is_date(dst) or pa.types.is_timestamp(dst):
        return _to_datetime(x, src, dst, time_zone, mode)
    if pa.types.is_binary(dst) and pa.types.is_binary(src):
        return x
    raise TypeError(f"cannot cast {src} to {dst}")


def _list_cast(x: pa.Array, from_dt: Any, to_dt: Any, mode: str, time_zone: str) -> pa.Array:
    """``array<a>`` to ``array<b>``: each element cast with Spark's rules, the lists' shape and nulls kept."""
    from_element = getattr(from_dt, "elementType", None) or x.type.value_type
    to_element = getattr(to_dt, "elementType", None) or arrow_type(to_dt).value_type
    # The offsets index the whole child array, so the whole child is cast (a slice's too).
    values = cast(x.values, from_element, to_element, mode, time_zone)
    mask = x.is_null() if x.null_count else None
    return pa.ListArray.from_arrays(x.offsets, values, type=arrow_type(to_dt), mask=mask)


def _map_cast(x: pa.Array, from_dt: Any, to_dt: Any, mode: str, time_zone: str) -> pa.Array:
    """``map<k, v>`` to ``map<k2, v2>``: keys and values cast with Spark's rules, entries and nulls kept."""
    if x.offset:
        x = pa.concat_arrays([x])  # keys/items and offsets then index the same, unsliced child
    dst = arrow_type(to_dt)
    keys = cast(x.keys, getattr(from_dt, "keyType", None) or x.type.key_type,
                getattr(to_dt, "keyType", None) or dst.key_type, mode, time_zone)
    items = cast(x.items, getattr(from_dt, "valueType", None) or x.type.item_type,
                 getattr(to_dt, "valueType", None) or dst.item_type, mode, time_zone)
    return pa.MapArray.from_arrays(x.offsets, keys, items, type=dst, mask=x.is_null() if x.null_count else None)


def _struct_cast(x: pa.Array, from_dt: Any, to_dt: Any, mode: str, time_zone: str) -> pa.Array:
    """``struct<a: t1, ...>`` to ``struct<b: t2, ...>``: field by field in order (Spark's rule), named
    as the target, the struct's nulls kept."""
    if x.offset:
        x = pa.concat_arrays([x])
    dst = arrow_type(to_dt)
    sources = [f.dataType for f in from_dt.fields] if hasattr(from_dt, "fields") else [f.type for f in x.type]
    targets = [f.dataType for f in to_dt.fields] if hasattr(to_dt, "fields") else [f.type for f in dst]
    children = [cast(x.field(i), sources[i], targets[i], mode, time_zone) for i in range(dst.num_fields)]
    return pa.StructArray.from_arrays(children, fields=list(dst), mask=x.is_null() if x.null_count else None)


def _from_string(x: pa.Array, dst: pa.DataType, mode: str, time_zone: str) -> pa.Array:
    def invalid(v: Any) -> Exception:
        return cast_invalid_input(v, pa.string(), dst)

    if pa.types.is_decimal(dst):
        exact, bad = parse_decimal_strings(x)
        if mode == "ansi" and pc.any(bad).as_py():
            raise invalid(_first(x, bad))
        return _decimal_rows(exact, dst, mode == "ansi")
    values, bad = parse_string(x, dst, mode, time_zone)
    return _settle(x, values, bad, mode, invalid)


def _to_integral(x: pa.Array, src: pa.DataType, dst: pa.DataType, mode: str) -> pa.Array:
    lo, hi = INT_RANGES[dst]

    def overflow(v: Any) -> Exception:
        return cast_overflow(v, src, dst)

    if is_integral(src):
        bad = pc.or_(pc.less(x, lo), pc.greater(x, hi))
        wrapped = pc.cast(x, dst, safe=False)  # drops high bits: Java's narrowing
        return wrapped if mode == "legacy" else _settle(x, wrapped, bad, mode, overflow)
    if pa.types.is_floating(src):
        d = pc.cast(x, pa.float64())
        # Spark's check: floor(x) <= MAX and ceil(x) >= MIN, compared as doubles (so 2^63 passes for bigint).
        fits = pc.and_(pc.less_equal(pc.floor(d), float(hi)), pc.greater_equal(pc.ceil(d), float(lo)))
        if mode == "legacy":
            return _saturate(d, dst)
        return _settle(x, _saturate(d, dst), pc.invert(fits), mode, overflow)
    if pa.types.is_decimal(src):
        wide = pa.decimal128(38, src.scale)
        x38 = pc.cast(x, wide)
        bad = pc.or_(pc.less_equal(x38, pa.scalar(Decimal(lo - 1), wide)),
                     pc.greater_equal(x38, pa.scalar(Decimal(hi + 1), wide)))
        safe = pc.if_else(bad, pa.scalar(Decimal(0), wide), x38)
        truncated = pc.cast(pc.cast(safe, pa.int64(), safe=False), dst, safe=False)
        if mode == "legacy" and pc.any(bad).as_py():
            vals = [None if v is None else _wrap(int(v), dst) for v in x.to_pylist()]
            return pa.array(vals, dst)
        return _settle(x, truncated, bad, mode, overflow)
    raise TypeError(f"cannot cast {src} to {dst}")


def _wrap(v: int, t: pa.DataType) -> int:
    bits = t.bit_width
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >= 1 << (bits - 1) else v


def _saturate(d: pa.Array, dst: pa.DataType) -> pa.Array:
    """Java's ``(int)``/``(long)`` of doubles (NaN -> 0, saturating), then narrowing to tinyint/smallint."""
    base = pa.int64() if dst == pa.int64() else pa.int32()
    lo, hi = INT_RANGES[base]
    t = pc.trunc(pc.if_else(pc.is_nan(d), 0.0, d))
    top = pc.greater_equal(t, float(hi))
    bottom = pc.less_equal(t, float(lo))
    clamped = pc.if_else(pc.or_(top, bottom), 0.0, t)
    ints = pc.cast(clamped, pa.int64(), safe=False)
    ints = pc.if_else(top, pa.scalar(hi, pa.int64()), pc.if_else(bottom, pa.scalar(lo, pa.int64()), ints))
    return pc.cast(pc.cast(ints, base), dst, safe=False)


def _to_decimal(x: pa.Array, src: pa.DataType, dst: pa.DataType, mode: str) -> pa.Array:
    ansi = mode == "ansi"
    if is_integral(src) or pa.types.is_decimal(src):
        return fit_decimal(x, dst, ansi)
    if pa.types.is_floating(src):
        # NaN and the infinities are null even under ANSI: Spark's cast catches the
        # NumberFormatException BigDecimal throws for them (PySpark 4.0.1 returns NULL).
        exact = [None if v is None or v != v or v in (math.inf, -math.inf) else Decimal(repr(v))
                 for v in x.to_pylist()]
        return _decimal_rows(exact, dst, ansi)
    if pa.types.is_timestamp(src):
        return fit_decimal(pc.cast(_from_timestamp(x, pa.float64(), mode), pa.decimal128(38, 6)), dst, ansi)
    raise TypeError(f"cannot cast {src} to {dst}")


def _from_timestamp(x: pa.Array, dst: pa.DataType, mode: str) -> pa.Array:
    us = pc.cast(x, pa.int64())
    if pa.types.is_floating(dst):
        return pc.cast(pc.divide(pc.cast(us, pa.float64()), float(_US)), dst)
    q = pc.divide(us, _US)
    seconds = pc.if_else(pc.and_(pc.less(us, 0), pc.not_equal(pc.multiply(q, _US), us)), pc.subtract(q, 1), q)
    if pa.types.is_decimal(dst):
        return _to_decimal(pc.cast(us, pa.decimal128(38, 0)), pa.decimal128(38, 0), dst, mode)
    return _to_integral(seconds, pa.int64(), dst, mode)


def _to_datetime(x: pa.Array, src: pa.DataType, dst: pa.DataType, time_zone: str, mode: str) -> pa.Array:
    from dstream.sql.kernels.cast_text import local_to_utc

    if pa.types.is_date(src):
        local = pc.multiply(pc.cast(pc.cast(x, pa.int32()), pa.int64()), 86_400 * _US)
        us = local_to_utc(local, time_zone) if dst.tz else local
        return pc.cast(us, dst)
    if pa.types.is_timestamp(src):
        local = _wall_time(x, time_zone)
        if pa.types.is_date(dst):
            return pc.cast(pc.cast(local, pa.timestamp("us")), pa.date32())
        us = pc.cast(pc.cast(local, pa.timestamp("us")), pa.int64())
        return pc.cast(local_to_utc(us, time_zone) if dst.tz else us, dst)
    if pa.types.is_timestamp(dst) and is_integral(src):
        # Seconds, exact in int64; Spark's SECONDS.toMicros saturates instead of overflowing.
        seconds = pc.cast(x, pa.int64())
        limit = (2**63 - 1) // _US
        clipped = pc.max_element_wise(pc.min_element_wise(seconds, limit), -limit)
        us = pc.multiply(clipped, _US)
        return pc.cast(pc.if_else(pc.greater(seconds, limit), 2**63 - 1,
                                  pc.if_else(pc.less(seconds, -limit), -2**63, us)), dst)
    if pa.types.is_timestamp(dst) and (pa.types.is_floating(src) or pa.types.is_decimal(src)):
        d = pc.cast(x, pa.float64(), safe=False)
        # NaN and infinities are malformed (CAST_INVALID_INPUT); a finite value whose microseconds
        # leave the long range overflows (CAST_OVERFLOW, reported as Spark does: the microseconds to BIGINT).
        d = _settle(x, d, pc.invert(pc.is_finite(d)), mode, lambda v: cast_invalid_input(v, src, dst))
        us = pc.multiply(d, float(_US))
        outside = pc.or_(pc.greater_equal(us, 2.0**63), pc.less(us, -(2.0**63)))
        us = _settle(us, us, outside, mode, lambda v: cast_overflow(v, pa.float64(), pa.int64()))
        return pc.cast(pc.cast(us, pa.int64(), safe=False), dst)
    raise TypeError(f"cannot cast {src} to {dst}")


# ---------------------------------------------------------------------------------------------- to string

def _wall_time(x: pa.Array, time_zone: str) -> pa.Array:
    """Naive wall-clock timestamps of ``x`` in ``time_zone`` (timestamp_ntz values are already wall time)."""
    if x.type.tz is None:
        return x
    return pc.local_timestamp(pc.cast(x, pa.timestamp("us", tz=time_zone)))


def to_string(a: Any, time_zone: str = "UTC") -> pa.Array:
    """Spark's ``CAST(a AS STRING)`` of any supported type.

    Parameters
    ----------
    a : pa.Array
    time_zone : str
        Timestamps are printed as wall time in this zone.

    Returns
    -------
    pa.Array
        string.
    """
    x = as_array(a)
    t = x.type
    if pa.types.is_string(t):
        return x
    if pa.types.is_large_string(t) or t == pa.null():
        return pc.cast(x, pa.string())
    if pa.types.is_floating(t):
        return doubles_to_strings(x)
    if pa.types.is_timestamp(t):
        local = _wall_time(x, time_zone)
        text = pc.strftime(pc.cast(local, pa.timestamp("us")), format="%Y-%m-%d %H:%M:%S")
        text = pc.replace_substring_regex(text, r"\.?0+$", "")
        return text
    if pa.types.is_duration(t):
        micros = pc.cast(x, pa.duration("us")).cast(pa.int64()).to_pylist()
        # The Arrow array carries no interval fields: the text is DAY TO SECOND, Spark's default.
        return pa.array([None if m is None else format_day_time_interval(m) for m in micros], pa.string())
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        try:
            return pc.cast(pc.cast(x, pa.binary()), pa.string())
        except pa.ArrowInvalid:
            return pa.array([None if v is None else v.decode("utf-8", "replace") for v in x.to_pylist()], pa.string())
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_map(t) or pa.types.is_struct(t):
        return _nested_to_string(x, time_zone)
    if isinstance(t, pa.ExtensionType):  # a variant (inside an array, map or struct): its cast to string
        from dstream.sql.variant.arrow import parts  # noqa: PLC0415 - variants are rare in casts
        from dstream.sql.variant.render import variant_text  # noqa: PLC0415

        return pa.array([None if p is None else variant_text(p[0], p[1], time_zone) for p in parts(x)], pa.string())
    return pc.cast(x, pa.string())


def _texts(a: pa.Array, time_zone: str) -> list[str]:
    return ["null" if v is None else v for v in to_string(a, time_zone).to_pylist()]


def _nested_to_string(x: pa.Array, time_zone: str) -> pa.Array:
    t = x.type
    valid = x.is_valid().to_pylist()
    out: list[str | None] = []
    if pa.types.is_struct(t):
        fields = [_texts(x.field(i), time_zone) for i in range(t.num_fields)]
        for row, ok in enumerate(valid):
            out.append("{" + ", ".join(f[row] for f in fields) + "}" if ok else None)
        return pa.array(out, pa.string())
    if pa.types.is_map(t):
        # Arrow has no list kernels for maps: read the entries through the offsets, which index the
        # whole (unsliced) key and item children; null slots' entries are skipped by position.
        offsets = x.offsets.to_pylist()
        start, stop = offsets[0], offsets[-1]
        keys = _texts(x.keys.slice(start, stop - start), time_zone)
        items = _texts(x.items.slice(start, stop - start), time_zone)
        entries = [f"{k} -> {v}" for k, v in zip(keys, items)]
        for a, b, ok in zip(offsets, offsets[1:], valid):
            out.append("{" + ", ".join(entries[a - start:b - start]) + "}" if ok else None)
        return pa.array(out, pa.string())
    lengths = pc.fill_null(pc.list_value_length(x), 0).to_pylist()
    parts = _texts(x.flatten(), time_zone)
    pos = 0
    for n, ok in zip(lengths, valid):
        out.append("[" + ", ".join(parts[pos:pos + n]) + "]" if ok else None)
        pos += n if ok else 0
    return pa.array(out, pa.string())

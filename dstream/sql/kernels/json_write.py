"""Spark 4's ``to_json``: structs, arrays and maps as compact JSON text (Jackson's generator as Spark uses it).

What this module owns
---------------------
``to_json(values, dt, options=None, time_zone="UTC") -> string array``:
``{"a":1,"b":"x"}`` with no spaces; NULL struct fields are left out (``ignoreNullFields``,
default true), NULL array elements and map values are ``null``; strings escaped as Jackson
does (``\\"``, ``\\\\``, ``\\n``..., other control characters ``\\u00XX`` with upper-case
hex, everything else as is); doubles and floats as Java prints them, NaN and infinities
quoted (``"NaN"``); decimals plain; dates ``yyyy-MM-dd`` and timestamps
``yyyy-MM-dd'T'HH:mm:ss.SSSXXX`` in ``time_zone`` (Spark's defaults ``dateFormat`` and
``timestampFormat`` = ``yyyy-MM-dd'T'HH:mm:ss[.SSS][XXX]``, whose optional sections always
print for an instant: ``2026-01-01T00:00:00.000Z``; timestamp_ntz without the offset);
binary as base64; map keys as their text.

Vectorized: every leaf column becomes an array of JSON fragments with Arrow kernels
(escaping, number and date formatting). Per-row Python: joining the fragments of
structs, arrays and maps, and base64 of binary values.

Invariants
----------
* The output has the input's length; a NULL value gives NULL (not ``"null"``).
"""

from __future__ import annotations

import base64
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from dstream.sql.kernels.javafmt import doubles_to_strings

__all__ = ["to_json", "escape_strings"]

_SIMPLE_ESCAPES = {'\\': '\\\\', '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_DEFAULT_TS = "yyyy-MM-dd'T'HH:mm:ss[.SSS][XXX]"
_DEFAULT_NTZ = "yyyy-MM-dd'T'HH:mm:ss[.SSS]"


def escape_strings(a: pa.Array) -> pa.Array:
    """Strings as quoted JSON string literals (Jackson's escapes), vectorized."""
    text = a
    for raw, escaped in _SIMPLE_ESCAPES.items():
        text = pc.replace_substring(text, raw, escaped)
    controls = pc.match_substring_regex(text, "[\\x00-\\x1f]")
    if pc.any(controls).as_py():
        for code in range(32):
            ch = chr(code)
            if ch not in _SIMPLE_ESCAPES:
                text = pc.replace_substring(text, ch, f"\\u{code:04X}")
    return pc.binary_join_element_wise('"', text, '"', "")


def _quote(a: pa.Array) -> pa.Array:
    return pc.binary_join_element_wise('"', a, '"', "")


def _floats(a: pa.Array) -> pa.Array:
    text = doubles_to_strings(a)
    special = pc.or_(pc.is_nan(a), pc.is_inf(a))
    return pc.if_else(special, _quote(text), text)


class _Writer:
    def __init__(self, options: dict[str, str], time_zone: str) -> None:
        self.options = options
        self.time_zone = options.get("timeZone", time_zone)
        self.ignore_nulls = options.get("ignoreNullFields", "true").strip().lower() != "false"

    def fragments(self, a: pa.Array) -> list[str | None]:
        """The JSON text of every value of ``a`` (None for NULL)."""
        t = a.type
        if isinstance(t, pa.ExtensionType):  # a variant: its own JSON, as Spark embeds it
            from dstream.sql.variant.arrow import parts  # noqa: PLC0415 - variants are rare in to_json
            from dstream.sql.variant.render import spark_json  # noqa: PLC0415

            return [None if p is None else spark_json(p[0], p[1], self.time_zone) for p in parts(a)]
        if pa.types.is_struct(t):
            return self.struct(a)
        if pa.types.is_map(t):
            return self.mapping(a)
        if pa.types.is_list(t) or pa.types.is_large_list(t):
            return self.listing(a)
        return self.leaf(a).to_pylist()

    def leaf(self, a: pa.Array) -> pa.Array:
        from dstream.sql.kernels import datetimes as dt_kernels  # noqa: PLC0415 - only for dates and timestamps

        t = a.type
        if pa.types.is_string(t) or pa.types.is_large_string(t):
            return escape_strings(pc.cast(a, pa.string()))
        if pa.types.is_boolean(t):
            return pc.if_else(a, "true", "false")
        if pa.types.is_floating(t):
            return _floats(a)
        if pa.types.is_integer(t) or pa.types.is_decimal(t):
            return pc.cast(a, pa.string())
        if pa.types.is_date(t):
            return _quote(dt_kernels.date_format(a, self.options.get("dateFormat", "yyyy-MM-dd"), self.time_zone))
        if pa.types.is_timestamp(t):
            default = _DEFAULT_TS if t.tz is not None else _DEFAULT_NTZ
            fmt = self.options.get("timestampFormat" if t.tz is not None else "timestampNTZFormat", default)
            return _quote(dt_kernels.date_format(a, fmt, self.time_zone))
        if pa.types.is_binary(t) or pa.types.is_large_binary(t):
            return pa.array([None if v is None else '"' + base64.b64encode(v).decode("ascii") + '"'
                             for v in a.to_pylist()], pa.string())
        if t == pa.null():
            return pa.nulls(len(a), pa.string())
        raise TypeError(f"to_json cannot write {t}")

    def struct(self, a: pa.Array) -> list[str | None]:
        t = a.type
        names = [escape_strings(pa.array([t.field(i).name]))[0].as_py() for i in range(t.num_fields)]
        children = [self.fragments(child) for child in a.flatten()]
        valid = a.is_valid().to_pylist()
        out: list[str | None] = []
        for row, ok in enumerate(valid):
            if not ok:
                out.append(None)
                continue
            items = []
            for name, child in zip(names, children):
                value = child[row]
                if value is None and self.ignore_nulls:
                    continue
                items.append(f"{name}:{'null' if value is None else value}")
            out.append("{" + ",".join(items) + "}")
        return out

    def listing(self, a: pa.Array) -> list[str | None]:
        offsets = a.offsets.to_pylist()
        items = self.fragments(a.values)
        return [None if not ok else "[" + ",".join("null" if v is None else v for v in items[lo:hi]) + "]"
                for ok, lo, hi in zip(a.is_valid().to_pylist(), offsets, offsets[1:])]

    def mapping(self, a: pa.Array) -> list[str | None]:
        offsets = a.offsets.to_pylist()
        keys_array = a.keys
        if not (pa.types.is_string(keys_array.type) or pa.types.is_large_string(keys_array.type)):
            from dstream.sql.kernels.cast import to_string  # noqa: PLC0415 - only for non-string map keys

            keys_array = to_string(keys_array, self.time_zone)
        keys = escape_strings(pc.cast(keys_array, pa.string())).to_pylist()
        items = self.fragments(a.items)
        out: list[str | None] = []
        for ok, lo, hi in zip(a.is_valid().to_pylist(), offsets, offsets[1:]):
            if not ok:
                out.append(None)
                continue
            pairs = [f"{k}:{'null' if v is None else v}" for k, v in zip(keys[lo:hi], items[lo:hi])]
            out.append("{" + ",".join(pairs) + "}")
        return out


def to_json(values: Any, dt: Any = None, options: dict[str, str] | None = None, time_zone: str = "UTC") -> pa.Array:
    """Spark's ``to_json(value)`` of structs, arrays, maps or variants.

    Parameters
    ----------
    values : pa.Array
        struct, list or map values.
    dt : DataType, optional
        Their Spark type (the Arrow type carries everything needed; accepted for the caller's contract).
    options : dict, optional
        ``timestampFormat``, ``timestampNTZFormat``, ``dateFormat``, ``ignoreNullFields``, ``timeZone``.
    time_zone : str
        The session time zone (timestamps are written as wall time there, with its offset).

    Returns
    -------
    pa.Array
        string.
    """
    a = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    return pa.array(_Writer(dict(options or {}), time_zone).fragments(a), pa.string())

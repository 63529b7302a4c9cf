"""``parse_json``: JSON text to a variant, with the number types Spark chooses.

What this module owns
---------------------
:func:`parse_json` reads one JSON value (leading and trailing whitespace allowed; what
follows a complete object, array or string is not read, as Spark's streaming parser stops
there) and encodes it:

* an integer that fits 64 bits is the narrowest integer type; a longer one is a decimal of
  scale 0 when it has at most 38 digits, else a double;
* a number with a fraction and no exponent is a decimal of its written digits and scale
  (``1.50`` is ``DECIMAL(3,2)``) when both fit 38, else a double; one with an exponent is
  a double;
* strings, booleans and null as themselves; object keys are numbered in the order met.

Text that is no JSON value (``{``, ``''``, ``NaN``, ``01``, a duplicate key) raises
:class:`MalformedJsonError`; the expressions turn it into Spark's
``MALFORMED_RECORD_IN_PARSING`` (``parse_json``) or a null (``try_parse_json``).

Invariants
----------
* Equal texts give equal bytes, and the bytes are Spark's (see :mod:`.format`).
* Only the standard library's JSON scanner reads the text: numbers reach this module as
  their written digits, so no value is rounded on the way.
"""

from __future__ import annotations

import json
import struct
from decimal import Decimal, InvalidOperation
from itertools import accumulate
from typing import Any

from . import format as vf
from .format import VariantBuilder

__all__ = ["MalformedJsonError", "parse_json", "append_json_number", "document_text"]

_WHITESPACE = " \t\n\r"
_INT64 = 1 << 63


class MalformedJsonError(ValueError):
    """The text is not one JSON value (or it repeats a key)."""


class _Float(str):
    """A JSON number with a fraction or an exponent, as written."""


class _BigInt(str):
    """A JSON integer too long for 64 bits, as written."""


class _Object(list[tuple[str, Any]]):
    """A JSON object's ``(key, value)`` pairs, in the written order."""


def _pairs(pairs: list[tuple[str, Any]]) -> _Object:
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise MalformedJsonError(f"duplicate key {key!r}")
        seen.add(key)
    return _Object(pairs)


def _integer(text: str) -> int | _BigInt:
    digits = len(text) - (text[0] == "-")
    if digits < 19:
        return int(text)
    if digits > 40:
        return _BigInt(text)
    value = int(text)
    return value if -_INT64 <= value < _INT64 else _BigInt(text)


def _constant(name: str) -> Any:
    raise MalformedJsonError(f"{name} is not JSON")


_DECODER = json.JSONDecoder(object_pairs_hook=_pairs, parse_float=_Float, parse_int=_integer,
                            parse_constant=_constant)


def document_text(value: Any) -> str:
    """A JSON document decoded with ``parse_float=Decimal`` as JSON text again, its numbers as
    written (``2.50`` stays ``2.50``): what a VARIANT field of a JSON reader parses."""
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(k) + ":" + document_text(v) for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(document_text(v) for v in value) + "]"
    if isinstance(value, Decimal):
        return str(value)
    return json.dumps(value)


def _number_parts(text: str) -> tuple[int, int, int] | None:
    """``(unscaled, scale, precision)`` of a number without exponent that fits a decimal, else ``None``."""
    if "e" in text or "E" in text:
        return None
    try:
        number = Decimal(text)
    except InvalidOperation as exc:
        raise MalformedJsonError(f"{text!r} is not a number") from exc
    sign, digits, exponent = number.as_tuple()
    assert isinstance(exponent, int)
    scale = max(-exponent, 0)
    unscaled = int("".join(map(str, digits))) * 10 ** max(exponent, 0)
    precision = len(str(unscaled))
    if scale > 38 or precision > 38:
        return None
    return (-unscaled if sign else unscaled), scale, precision


def append_json_number(builder: VariantBuilder, text: str) -> None:
    """Append a number written as ``text`` (no exponent: decimal if it fits 38 digits, else double)."""
    parts = _number_parts(text)
    if parts is None:
        builder.append_double(float(text))
    else:
        builder.append_decimal(*parts)


def _number(text: str) -> bytes:
    if "e" in text or "E" in text:
        return _DOUBLE + struct.pack("<d", float(text))
    whole, _, fraction = text.partition(".")
    unscaled = int(whole + fraction)  # JSON's grammar: digits, one optional point, no exponent here
    precision = len(str(abs(unscaled)))
    scale = len(fraction)
    if scale > 38 or precision > 38:
        return _DOUBLE + struct.pack("<d", float(text))
    for type_id, limit, width in _DECIMALS:
        if scale <= limit and precision <= limit:
            return bytes((type_id << 2, scale)) + unscaled.to_bytes(width, "little", signed=True)
    raise AssertionError("unreachable: 38 digits fit DECIMAL16")


_SMALL_INTS = {v: bytes((vf.INT1 << 2, v & 0xFF)) for v in range(-128, 128)}
_NULL, _TRUE, _FALSE = bytes((vf.NULL << 2,)), bytes((vf.TRUE << 2,)), bytes((vf.FALSE << 2,))
_LONG_STR = bytes((vf.LONG_STR << 2,))
_DOUBLE = bytes((vf.DOUBLE << 2,))
_DECIMALS = ((vf.DECIMAL4, 9, 4), (vf.DECIMAL8, 18, 8), (vf.DECIMAL16, 38, 16))


def _width_bytes(values: list[int], width: int) -> bytes:
    if width == 1:
        return bytes(values)
    return b"".join(v.to_bytes(width, "little") for v in values)


def _encode(value: Any, keys: dict[str, int]) -> bytes:
    """The encoding of a decoded JSON value (bottom-up: each container's header before its parts)."""
    kind = type(value)
    if kind is str:
        data = value.encode("utf-8", "surrogatepass")
        if len(data) <= 0x3F:
            return bytes(((len(data) << 2) | vf.SHORT_STR,)) + data
        return _LONG_STR + len(data).to_bytes(4, "little") + data
    if kind is int:
        small = _SMALL_INTS.get(value)
        if small is not None:
            return small
        builder = VariantBuilder()
        builder.append_long(value)
        return builder.value_bytes()
    if value is None:
        return _NULL
    if kind is bool:
        return _TRUE if value else _FALSE
    if kind is _Float or kind is _BigInt:
        return _number(value)
    if kind is _Object:
        names = [key for key, _ in value]
        ids = []
        parts = []
        for key, item in value:  # a key is numbered before the keys inside its value, as Spark's builder does
            key_id = keys.get(key)
            if key_id is None:
                key_id = keys[key] = len(keys)
            ids.append(key_id)
            parts.append(_encode(item, keys))
        order = sorted(range(len(names)), key=names.__getitem__ if "".join(names).isascii()
                       else (lambda i: vf.java_order(names[i])))
        return _container(parts, order, ids)
    return _container([_encode(item, keys) for item in value], None, None)


def _container(parts: list[bytes], order: list[int] | None, ids: list[int] | None) -> bytes:
    """An object (``order``: its fields by key, ``ids`` their key ids) or an array of encoded ``parts``."""
    offsets = list(accumulate(map(len, parts), initial=0))  # each part's start, then the total
    count = len(parts)
    size = offsets[-1]
    if count <= 0xFF and size <= 0xFF:  # one-byte counts, offsets (and ids): most small documents
        if order is None:
            return bytes((vf.ARRAY, count, *offsets)) + b"".join(parts)
        assert ids is not None
        if max(ids, default=0) <= 0xFF:
            return bytes((vf.OBJECT, count, *[ids[i] for i in order], *[offsets[i] for i in order], size)) + \
                b"".join(parts)
    large = count > 0xFF
    offset_width = vf.int_width(size)
    count_bytes = count.to_bytes(4 if large else 1, "little")
    if order is None:
        header = bytes(((int(large) << 4) | ((offset_width - 1) << 2) | vf.ARRAY,))
        head = header + count_bytes + _width_bytes(offsets, offset_width)
    else:
        assert ids is not None
        id_width = vf.int_width(max(ids, default=0))
        header = bytes(((int(large) << 6) | ((id_width - 1) << 4) | ((offset_width - 1) << 2) | vf.OBJECT,))
        head = (header + count_bytes + _width_bytes([ids[i] for i in order], id_width)
                + _width_bytes([offsets[i] for i in order] + [size], offset_width))
    return head + b"".join(parts)


#: Metadata by key sequence: the documents of a column mostly share a few.
_METADATA: dict[tuple[str, ...], bytes] = {}


def _metadata(keys: dict[str, int]) -> bytes:
    sequence = tuple(keys)
    found = _METADATA.get(sequence)
    if found is None:
        if len(_METADATA) >= 1024:
            _METADATA.clear()
        found = _METADATA[sequence] = vf.encode_metadata(sequence)
    return found


def parse_json(text: str) -> tuple[bytes, bytes]:
    """The ``(value, metadata)`` of the JSON value ``text`` holds.

    Raises
    ------
    MalformedJsonError
        When ``text`` holds no JSON value, or an object repeats a key.
    """
    begin = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        parsed, end = _DECODER.raw_decode(text, begin)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise MalformedJsonError(str(exc)) from exc
    if end < len(text) and type(parsed) is not str and not isinstance(parsed, list) and text[end] not in _WHITESPACE:
        # A number or a literal must be followed by whitespace at the top level (Jackson's
        # rule): "01", "1x" and "truex" are errors, where "[1]x" and '"a"b' are read.
        raise MalformedJsonError(f"unexpected character {text[end]!r} after the value")
    keys: dict[str, int] = {}
    value = _encode(parsed, keys)
    return vf.checked(value, _metadata(keys))

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
from decimal import Decimal, InvalidOperation
from typing import Any

from .format import VariantBuilder

__all__ = ["MalformedJsonError", "parse_json", "append_json_number"]

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


def append_json_number(builder: VariantBuilder, text: str) -> None:
    """Append a number written as ``text`` (no exponent: decimal if it fits 38 digits, else double)."""
    if "e" not in text and "E" not in text:
        try:
            number = Decimal(text)
        except InvalidOperation as exc:
            raise MalformedJsonError(f"{text!r} is not a number") from exc
        sign, digits, exponent = number.as_tuple()
        assert isinstance(exponent, int)
        scale = max(-exponent, 0)
        unscaled = int("".join(map(str, digits))) * 10 ** max(exponent, 0)
        precision = len(str(unscaled))
        if scale <= 38 and precision <= 38:
            builder.append_decimal(-unscaled if sign else unscaled, scale, precision)
            return
    builder.append_double(float(text))


def _append(builder: VariantBuilder, value: Any) -> None:
    if isinstance(value, str):
        if isinstance(value, _Float | _BigInt):
            append_json_number(builder, value)
        else:
            builder.append_string(value)
    elif value is None:
        builder.append_null()
    elif value is True or value is False:
        builder.append_bool(value)
    elif isinstance(value, int):
        builder.append_long(value)
    elif isinstance(value, _Object):
        start = builder.position
        fields = []
        for key, item in value:
            fields.append((key, builder.add_key(key), builder.position - start))
            _append(builder, item)
        builder.finish_object(start, fields)
    else:
        start = builder.position
        offsets = []
        for item in value:
            offsets.append(builder.position - start)
            _append(builder, item)
        builder.finish_array(start, offsets)


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
    builder = VariantBuilder()
    _append(builder, parsed)
    return builder.result()

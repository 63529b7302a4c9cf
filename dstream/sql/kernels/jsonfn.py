"""Spark 4's ``from_json`` and ``to_json`` over pyarrow arrays.

What this module owns
---------------------
``from_json(values, schema, options) -> array of schema's Arrow type`` (Spark's JSON reader in
PERMISSIVE mode, one document per string) and ``to_json(values, dt, options, time_zone)``
(the writing half lives in :mod:`.json_write`).

Spark's reading rules (Jackson as Spark configures it):
* NULL or blank text gives NULL; the first JSON value of the text is read and anything after
  it is ignored.
* Struct schema: a JSON object gives a struct whose fields are taken by exact name (the last of
  duplicate keys wins, unknown keys are skipped, missing fields are NULL); a value that does
  not convert to its field's type leaves that field NULL and keeps the others (partial
  results); malformed text or a non-object gives a struct of NULLs, not NULL.
* Array schema: a JSON array; an object when the elements are structs gives a one-element
  array; anything else gives NULL. Map schema: a JSON object with string keys.
* Conversions: integral types take JSON integers in range; floating types take any number
  and the strings ``NaN``, ``Infinity``, ``-Infinity`` (also ``INF``, ``+INF``, ``-INF``);
  decimals take numbers and numeric strings (HALF_UP to the scale, too wide is NULL); boolean
  takes ``true``/``false``; string takes a string, or the compact JSON text of any other
  value (``1``, ``1.5``, ``{"x":1}``; doubles as Java prints them); binary takes base64;
  date and timestamp take strings (``dateFormat`` / ``timestampFormat`` options when given,
  else CAST's forms; wall times in the ``timeZone`` option, default UTC), and a timestamp
  also takes integral seconds since the epoch.

Per-row Python: the whole of ``from_json`` (decoding with the stdlib's C ``json`` decoder,
then converting the Python values); Arrow's JSON reader cannot keep the good rows of a
block with a malformed one, nor read one document per row.

Not supported: ``allowSingleQuotes`` (Jackson's default accepts ``{'a': 1}``; here such text
is malformed), ``mode`` other than PERMISSIVE, ``columnNameOfCorruptRecord``.

Invariants
----------
* The output has the input's length and exactly the Arrow type of ``schema``.
"""

from __future__ import annotations

import base64
import binascii
import json
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

import pyarrow as pa

from dstream.sql.arrow_convert import to_arrow_type
from dstream.sql.kernels.cast_text import parse_string
from dstream.sql.kernels.javafmt import java_double_str
from dstream.sql.kernels.json_write import to_json
from dstream.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    ByteType,
    DataType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    MapType,
    ShortType,
    StringType,
    StructType,
    TimestampNTZType,
    TimestampType,
    VariantType,
)
from dstream.sql.variant.arrow import python_array

__all__ = ["from_json", "to_json"]

_JSON_WHITESPACE = " \t\n\r"
_INT_RANGES: dict[type, tuple[int, int]] = {ByteType: (-(2**7), 2**7 - 1), ShortType: (-(2**15), 2**15 - 1),
                                            IntegerType: (-(2**31), 2**31 - 1), LongType: (-(2**63), 2**63 - 1)}
_SPECIAL_FLOATS = {"nan": float("nan"), "infinity": float("inf"), "+infinity": float("inf"),
                   "-infinity": float("-inf"), "inf": float("inf"), "+inf": float("inf"), "-inf": float("-inf")}


class _BadValueError(Exception):
    """A JSON value that does not convert to the requested type."""


class _Reader:
    """Converts decoded JSON values to the Python values of a Spark type."""

    def __init__(self, options: dict[str, str]) -> None:
        self.time_zone = options.get("timeZone", "UTC")
        self.date_format = options.get("dateFormat")
        self.timestamp_format = options.get("timestampFormat")

    def convert(self, value: Any, dt: DataType) -> Any:
        if value is None:
            return None
        if isinstance(dt, VariantType):
            from dstream.sql.variant.parse import document_text, parse_json  # noqa: PLC0415 - variants are rare here

            encoded = parse_json(document_text(value))
            return {"value": encoded[0], "metadata": encoded[1]}
        if isinstance(dt, StructType):
            if not isinstance(value, dict):
                raise _BadValueError
            return self.struct(value, dt)
        if isinstance(dt, ArrayType):
            if isinstance(value, dict) and isinstance(dt.elementType, StructType):
                return [self.struct(value, dt.elementType)]
            if not isinstance(value, list):
                raise _BadValueError
            return [self.convert(v, dt.elementType) for v in value]
        if isinstance(dt, MapType):
            if not isinstance(value, dict):
                raise _BadValueError
            return [(k, self.convert(v, dt.valueType)) for k, v in value.items()]
        return self.atomic(value, dt)

    def struct(self, value: dict[str, Any], dt: StructType) -> dict[str, Any]:
        row: dict[str, Any] = {}
        for field in dt.fields:
            if field.name in value:
                try:
                    row[field.name] = self.convert(value[field.name], field.dataType)
                except _BadValueError:
                    row[field.name] = None  # partial results: the other fields stay
        return row

    def atomic(self, value: Any, dt: DataType) -> Any:
        if isinstance(dt, StringType):
            return value if isinstance(value, str) else _compact(value)
        if isinstance(dt, BooleanType):
            if isinstance(value, bool):
                return value
            raise _BadValueError
        if type(dt) in _INT_RANGES:
            lo, hi = _INT_RANGES[type(dt)]
            if isinstance(value, int) and not isinstance(value, bool) and lo <= value <= hi:
                return value
            raise _BadValueError
        if isinstance(dt, (DoubleType, FloatType)):
            return _floating(value)
        if isinstance(dt, DecimalType):
            return _decimal(value, dt)
        if isinstance(dt, BinaryType):
            if isinstance(value, str):
                try:
                    return base64.b64decode(value, validate=False)
                except (binascii.Error, ValueError):
                    raise _BadValueError from None
            raise _BadValueError
        if isinstance(dt, (DateType, TimestampType, TimestampNTZType)):
            return self.datetime(value, dt)
        raise _BadValueError

    def datetime(self, value: Any, dt: DataType) -> Any:
        if isinstance(dt, TimestampType) and isinstance(value, int) and not isinstance(value, bool):
            return value * 1_000_000
        if not isinstance(value, str):
            raise _BadValueError
        from dstream.sql.kernels import datetimes as dt_kernels  # noqa: PLC0415 - only for dates in JSON

        text = pa.array([value], pa.string())
        if isinstance(dt, DateType):
            parsed = (dt_kernels.to_date(text, self.date_format, False, self.time_zone) if self.date_format
                      else parse_string(text, pa.date32(), "try", self.time_zone)[0])
        elif isinstance(dt, TimestampType) and self.timestamp_format:
            parsed = dt_kernels.to_timestamp(text, self.timestamp_format, self.time_zone, False)
        else:
            parsed = parse_string(text, to_arrow_type(dt), "try", self.time_zone)[0]
        result = parsed[0].as_py()
        if result is None:
            raise _BadValueError
        return result


def _floating(value: Any) -> float:
    if isinstance(value, bool):
        raise _BadValueError
    if isinstance(value, (int, float, Decimal)):
        return float(value)
    if isinstance(value, str) and value.lower() in _SPECIAL_FLOATS:
        return _SPECIAL_FLOATS[value.lower()]
    raise _BadValueError


def _decimal(value: Any, dt: DecimalType) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, (int, Decimal, str)):
        raise _BadValueError
    try:
        exact = Decimal(value.strip()) if isinstance(value, str) else Decimal(value)
        if not exact.is_finite():
            raise _BadValueError
        fitted = exact.quantize(Decimal(1).scaleb(-dt.scale), rounding=ROUND_HALF_UP)
    except InvalidOperation:
        raise _BadValueError from None
    if len(fitted.as_tuple().digits) > dt.precision and fitted != 0:
        raise _BadValueError
    return fitted


def _compact(value: Any) -> str:
    """Jackson's compact text of a decoded JSON value (a string field holding a non-string value)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (float, Decimal)):
        number = float(value)
        if number != number or number in (float("inf"), float("-inf")):
            return '"' + java_double_str(number) + '"'
        return java_double_str(number)
    if isinstance(value, list):
        return "[" + ",".join("null" if v is None else _compact(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + ("null" if v is None else _compact(v))
                              for k, v in value.items()) + "}"
    return json.dumps(value, ensure_ascii=False)


def _decoder() -> json.JSONDecoder:
    # Decimals keep numbers exact for DECIMAL fields; NaN/Infinity tokens are Jackson's non-numeric numbers.
    return json.JSONDecoder(parse_float=Decimal, parse_constant=float)


def from_json(values: Any, schema: DataType, options: dict[str, str] | None = None) -> pa.Array:
    """Spark's ``from_json(s, schema)`` in PERMISSIVE mode.

    Parameters
    ----------
    values : pa.Array
        string, one JSON document per row.
    schema : DataType
        ``StructType``, ``ArrayType`` or ``MapType`` (string keys).
    options : dict, optional
        Spark's JSON options: ``timeZone``, ``dateFormat``, ``timestampFormat``.

    Returns
    -------
    pa.Array
        Of ``to_arrow_type(schema)``.
    """
    a = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    reader = _Reader(dict(options or {}))
    decoder = _decoder()
    is_struct = isinstance(schema, StructType)
    out: list[Any] = []
    for text in a.to_pylist():
        stripped = None if text is None else text.strip(_JSON_WHITESPACE)
        if not stripped:
            out.append(None)
            continue
        try:
            doc, _ = decoder.raw_decode(stripped)
        except ValueError:
            out.append({} if is_struct else None)  # a malformed record: all fields NULL
            continue
        if doc is None:
            out.append(None)
            continue
        try:
            out.append(reader.convert(doc, schema))
        except _BadValueError:
            out.append({} if is_struct else None)
    return python_array(out, to_arrow_type(schema))

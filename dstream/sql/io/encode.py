"""Values to text the way Spark's CSV and JSON writers print them.

What this module owns
---------------------
The text of one value in a written file: doubles as Java's ``Double.toString``
(``1.0``, ``1.0E10``, ``1.0E-4``), booleans ``true``/``false``, timestamps in Spark's
default write pattern ``yyyy-MM-dd'T'HH:mm:ss.SSSXXX`` in the writer's zone, dates
``yyyy-MM-dd``, or the writer's ``dateFormat``/``timestampFormat``/``timestampNTZFormat``
(top-level columns); CSV quoting (only when needed, or every field with ``quoteAll``; quotes
escaped with the escape character; empty strings as ``emptyValue``) and JSON objects without
spaces, without null fields unless ``ignoreNullFields`` is false.

Invariants
----------
* Encoders are pure functions of the value and the options; no state between rows.
"""

from __future__ import annotations

import datetime
import decimal
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

import pyarrow as pa

from dstream.sql.formatting import format_day_time_interval
from dstream.sql.io.files import option, option_bool
from dstream.sql.kernels.datetimes import date_format

__all__ = ["java_double", "value_encoder", "CsvDialect", "csv_field", "json_text", "format_temporal_columns"]

_MICROSECOND = datetime.timedelta(microseconds=1)


def java_double(x: float) -> str:
    """``Double.toString`` of a Python float."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    digits, exponent = _shortest(abs(x))
    sign = "-" if x < 0 else ""
    if 1e-3 <= abs(x) < 1e7:
        point = exponent + 1
        if point <= 0:
            text = "0." + "0" * -point + digits
        elif point >= len(digits):
            text = digits + "0" * (point - len(digits)) + ".0"
        else:
            text = digits[:point] + "." + digits[point:]
        return sign + text
    mantissa = digits[0] + "." + (digits[1:] or "0")
    return f"{sign}{mantissa}E{exponent}"


def _shortest(x: float) -> tuple[str, int]:
    """The shortest round-trip digits of ``x`` and the exponent of the first one."""
    text = f"{x!r}"
    mantissa, _, exp = text.partition("e")
    whole, _, frac = mantissa.partition(".")
    exponent = int(exp or 0) + len(whole) - 1
    digits = (whole + frac).lstrip("0")
    exponent -= len(whole + frac) - len((whole + frac).lstrip("0"))
    return digits.rstrip("0") or "0", exponent


def _timestamp_text(value: datetime.datetime, zone: ZoneInfo | None) -> str:
    if zone is not None and value.tzinfo is not None:
        value = value.astimezone(zone)
    text = value.strftime("%Y-%m-%dT%H:%M:%S") + f".{value.microsecond // 1000:03d}"
    if value.tzinfo is None:
        return text
    offset = value.utcoffset() or datetime.timedelta(0)
    if not offset:
        return text + "Z"
    minutes = int(offset.total_seconds()) // 60
    sign = "+" if minutes >= 0 else "-"
    return f"{text}{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def value_encoder(t: pa.DataType, time_zone: str) -> Callable[[Any], Any]:
    """A function from one non-null Python value of Arrow type ``t`` to its written text (or JSON value)."""
    if pa.types.is_floating(t):
        return lambda v: java_double(float(v))
    if pa.types.is_boolean(t):
        return lambda v: "true" if v else "false"
    if pa.types.is_timestamp(t):
        zone = ZoneInfo(time_zone) if t.tz else None
        return lambda v: _timestamp_text(v, zone)
    if pa.types.is_date(t):
        return lambda v: v.isoformat()
    if pa.types.is_decimal(t):
        return lambda v: format(v, "f")
    if pa.types.is_duration(t):
        # Arrow keeps no interval fields: written as DAY TO SECOND, which any day-time interval reads back.
        return lambda v: format_day_time_interval(v // _MICROSECOND)
    return str


class _Raw(str):
    """Text spliced into JSON output as is (a number in Java's format)."""


def _json_value(value: Any, t: pa.DataType, time_zone: str, keep_nulls: bool = False) -> Any:
    if value is None:
        return None
    if isinstance(t, pa.ExtensionType):  # a variant, embedded as its own JSON (as Spark writes it)
        from dstream.sql.variant.render import spark_json  # noqa: PLC0415 - variants are rare in files

        return _Raw(spark_json(bytes(value.value), bytes(value.metadata), time_zone))
    if pa.types.is_struct(t):
        return {f.name: _json_value(value[f.name], f.type, time_zone, keep_nulls) for f in t
                if keep_nulls or value.get(f.name) is not None}
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [_json_value(v, t.value_type, time_zone, keep_nulls) for v in value]
    if pa.types.is_map(t):
        return {str(k): _json_value(v, t.item_type, time_zone, keep_nulls) for k, v in value}
    if pa.types.is_floating(t):
        text = java_double(float(value))
        return text if text in ("NaN", "Infinity", "-Infinity") else _Raw(text)
    if pa.types.is_decimal(t):
        return _Raw(format(value, "f"))
    if pa.types.is_timestamp(t) or pa.types.is_date(t) or pa.types.is_duration(t):
        return value_encoder(t, time_zone)(value)
    if isinstance(value, (bytes, bytearray)):
        import base64
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, decimal.Decimal):
        return _Raw(format(value, "f"))
    return value


def _dump(value: Any) -> str:
    if isinstance(value, _Raw):
        return str(value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k, ensure_ascii=False)}:{'null' if v is None else _dump(v)}"
                              for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join("null" if v is None else _dump(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def json_text(row: dict[str, Any], schema: pa.Schema, time_zone: str, ignore_null_fields: bool = True) -> str:
    """One row as Spark's JSON writer prints it: ``{"a":1,"b":"x"}``.

    Null fields (of the row and of its structs) are omitted unless ``ignore_null_fields``
    is false (the writer's ``ignoreNullFields=False``), which writes them as ``null``.
    """
    keep = not ignore_null_fields
    return _dump({f.name: _json_value(row[f.name], f.type, time_zone, keep) for f in schema
                  if keep or row[f.name] is not None})


@dataclass(frozen=True)
class CsvDialect:
    """How the CSV writer prints fields (its options, with Spark's defaults).

    Attributes
    ----------
    sep, quote, escape : str
        The separator, the quote and the escape of a quote inside quotes.
    null_value : str
        The text of a null (``nullValue``, default empty).
    empty_value : str or None
        The text of an empty string (``emptyValue``); ``None`` is Spark's default, ``""``.
    quote_all : bool
        ``quoteAll``: every field quoted, not only those that need it.
    trim_leading, trim_trailing : bool
        ``ignoreLeadingWhiteSpace``/``ignoreTrailingWhiteSpace`` (both true when writing).
    """

    sep: str = ","
    quote: str = '"'
    escape: str = "\\"
    null_value: str = ""
    empty_value: str | None = None
    quote_all: bool = False
    trim_leading: bool = True
    trim_trailing: bool = True

    @classmethod
    def of(cls, options: Mapping[str, Any]) -> CsvDialect:
        """The dialect of a write's options (case-insensitive names)."""
        return cls(option(options, "sep") or option(options, "delimiter") or ",", option(options, "quote", '"') or '"',
                   option(options, "escape", "\\") or "\\", option(options, "nullValue", "") or "",
                   option(options, "emptyValue"), option_bool(options, "quoteAll"),
                   option_bool(options, "ignoreLeadingWhiteSpace", True),
                   option_bool(options, "ignoreTrailingWhiteSpace", True))


def csv_field(text: str | None, dialect: CsvDialect) -> str:
    """One CSV field: quoted when it holds the separator, the quote or a line break (or always, with ``quoteAll``)."""
    quote = dialect.quote
    if text is None:
        return quote + dialect.null_value + quote if dialect.quote_all else dialect.null_value
    if dialect.trim_leading:
        text = text.lstrip()
    if dialect.trim_trailing:
        text = text.rstrip()
    if text == "":
        if dialect.empty_value is None:
            return quote + quote  # Spark's default: a quoted empty field, unlike a null's unquoted one
        text = dialect.empty_value
    if dialect.quote_all or any(c in text for c in (dialect.sep, quote, "\n", "\r")):
        escape = dialect.escape
        if escape and escape != quote:
            # Inside quotes the escape character is escaped too (Spark's charToEscapeQuoteEscaping),
            # so a value ending with it does not escape the closing quote.
            text = text.replace(escape, escape + escape)
        return quote + text.replace(quote, escape + quote) + quote
    return text


def _pattern_option(t: pa.DataType) -> str | None:
    """The writer option naming the pattern of a temporal type (``None`` for other types)."""
    if pa.types.is_date(t):
        return "dateFormat"
    if pa.types.is_timestamp(t):
        return "timestampFormat" if t.tz else "timestampNTZFormat"
    return None


def format_temporal_columns(table: pa.Table, options: Mapping[str, Any], time_zone: str) -> pa.Table:
    """``table`` with its top-level dates and timestamps as text, where the writer has a pattern for them.

    ``dateFormat`` formats dates, ``timestampFormat`` timestamps, ``timestampNTZFormat``
    timestamps without a zone (Spark's pattern letters, in ``time_zone``). Columns without
    a pattern keep their type (and their default text); values nested in structs or arrays
    keep the default text.
    """
    columns = []
    changed = False
    for fld, column in zip(table.schema, table.columns):
        name = _pattern_option(fld.type)
        pattern = option(options, name) if name else None
        if pattern:
            column = date_format(column, pattern, time_zone)
            changed = True
        columns.append(column)
    if not changed:
        return table
    return pa.Table.from_arrays(columns, names=table.schema.names)

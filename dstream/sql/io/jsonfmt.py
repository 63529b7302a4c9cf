"""The JSON source: JSON Lines (or one document per file with ``multiLine``), Spark's inference.

What this module owns
---------------------
:class:`JsonFormat`: inference gives struct fields sorted by name at every level, integers
``bigint`` (``decimal(p,0)`` beyond it), other numbers ``double``, objects structs, arrays
arrays, conflicting types ``string``, all-null fields ``string``; a malformed line adds a
``_corrupt_record`` string column (``columnNameOfCorruptRecord``). ``primitivesAsString``,
``mode``, ``multiLine``, ``timestampFormat``/``dateFormat``, ``encoding``.

Invariants
----------
* Reads convert each value to the schema's type or mark the record malformed. Under
  PERMISSIVE a malformed record keeps the top-level fields that convert (Spark's partial
  results; the others null, everything null when the line is no JSON object) and its
  text goes to the corrupt-record column; DROPMALFORMED drops it, FAILFAST raises.
* A string field of the schema reads any JSON value: a non-string value as its JSON text.
* Clean files of plain types are parsed by pyarrow; everything else by :mod:`json`.
"""

from __future__ import annotations

import datetime
import decimal
import io
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.json as pajson

from dstream.sql.io.base import FileFormat, Filter, time_zone_option
from dstream.sql.io.csvfmt import malformed_error
from dstream.sql.io.files import FileSplit, option, option_bool, read_line_range
from dstream.sql.io.strconv import ParseOptions, _value_parser
from dstream.sql.variant.arrow import VARIANT_ARROW, has_variant, is_variant, storage_type, variant_array
from dstream.sql.variant.parse import MalformedJsonError, document_text, parse_json

__all__ = ["JsonFormat", "infer_json_type", "inferred_json_type", "inferred_schema_of", "merge_json_types",
           "nulls_as_strings", "records_of_texts"]

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


class _MalformedError(Exception):
    """A value that does not fit the schema."""


def _sorted_struct(fields: Sequence[pa.Field]) -> pa.DataType:
    return pa.struct(sorted(fields, key=lambda f: f.name))


def infer_json_type(value: Any, primitives_as_string: bool = False) -> pa.DataType:
    """The Arrow type Spark's JSON inference gives one parsed value (``null`` for None)."""
    if value is None:
        return pa.null()
    if isinstance(value, bool):
        return pa.string() if primitives_as_string else pa.bool_()
    if isinstance(value, int):
        if primitives_as_string:
            return pa.string()
        if -2**63 <= value < 2**63:
            return pa.int64()
        digits = len(str(abs(value)))
        return pa.decimal128(digits, 0) if digits <= 38 else pa.float64()
    if isinstance(value, float):
        return pa.string() if primitives_as_string else pa.float64()
    if isinstance(value, str):
        return pa.string()
    if isinstance(value, list):
        element: pa.DataType = pa.null()
        for item in value:
            element = merge_json_types(element, infer_json_type(item, primitives_as_string))
        return pa.list_(pa.field("element", element))
    if isinstance(value, dict):
        return _sorted_struct([pa.field(k, infer_json_type(v, primitives_as_string)) for k, v in value.items()])
    return pa.string()


def _numeric(t: pa.DataType) -> bool:
    return pa.types.is_int64(t) or pa.types.is_float64(t) or pa.types.is_decimal(t)


def merge_json_types(a: pa.DataType, b: pa.DataType) -> pa.DataType:
    """The type two inferred JSON types meet at (Spark's JSON ``compatibleType``)."""
    if a == b:
        return a
    if pa.types.is_null(a):
        return b
    if pa.types.is_null(b):
        return a
    if _numeric(a) and _numeric(b):
        if pa.types.is_float64(a) or pa.types.is_float64(b):
            return pa.float64()
        precision = max(t.precision if pa.types.is_decimal(t) else 20 for t in (a, b))
        return pa.decimal128(precision, 0) if precision <= 38 else pa.float64()
    if pa.types.is_struct(a) and pa.types.is_struct(b):
        merged = {f.name: f.type for f in a}
        for fld in b:
            merged[fld.name] = merge_json_types(merged[fld.name], fld.type) if fld.name in merged else fld.type
        return _sorted_struct([pa.field(k, v) for k, v in merged.items()])
    if pa.types.is_list(a) and pa.types.is_list(b):
        return pa.list_(pa.field("element", merge_json_types(a.value_type, b.value_type)))
    return pa.string()


def nulls_as_strings(t: pa.DataType) -> pa.DataType:
    """Unknown (null) types become strings, at every level, struct fields sorted by name, as Spark's
    JSON and XML inference end."""
    if pa.types.is_null(t):
        return pa.string()
    if pa.types.is_list(t):
        return pa.list_(pa.field("element", nulls_as_strings(t.value_type)))
    if pa.types.is_struct(t):
        return _sorted_struct([pa.field(f.name, nulls_as_strings(f.type)) for f in t])
    return t


def inferred_schema_of(merged: pa.DataType, corrupt_column: str | None) -> pa.Schema:
    """The schema a JSON or XML inference ends with: the fields of ``merged`` with nulls as strings,
    and the ``corrupt_column`` (a string, in name order) when a record was malformed."""
    fields = list(nulls_as_strings(merged))
    if corrupt_column is not None and corrupt_column not in [f.name for f in fields]:
        fields = sorted(fields + [pa.field(corrupt_column, pa.string())], key=lambda f: f.name)
    return pa.schema(fields)


def inferred_json_type(value: Any, primitives_as_string: bool = False) -> pa.DataType:
    """The type Spark's JSON inference ends with for one parsed value (nulls as strings)."""
    return nulls_as_strings(infer_json_type(value, primitives_as_string))


_PLAIN = (pa.types.is_boolean, pa.types.is_int64, pa.types.is_float64, pa.types.is_string, pa.types.is_null)


def _plain(t: pa.DataType) -> bool:
    if pa.types.is_list(t):
        return _plain(t.value_type)
    if pa.types.is_struct(t):
        return all(_plain(f.type) for f in t)
    return any(check(t) for check in _PLAIN)


def records_of_texts(texts: Iterable[str]) -> Iterator[tuple[str, Any]]:
    """``(text, parsed value or malformed marker)`` per string, each string one record (blank ones
    skipped): the records of ``spark.read.json(rdd)``, where a string may span several lines."""
    for text in texts:
        if not text.strip():
            continue
        try:
            yield text, json.loads(text)
        except ValueError:
            yield text, _MalformedError(text)


class JsonFormat(FileFormat):
    """JSON Lines (``spark.read.json``)."""

    name = "json"
    text_intervals = True
    title = "JSON"
    extension = "json"

    def splittable_with(self, options: Mapping[str, Any]) -> bool:
        """JSON Lines split by byte ranges; ``multiLine`` documents do not."""
        return not option_bool(options, "multiLine")

    # --------------------------------------------------------------- parsing
    def _pieces(self, data: bytes, options: Mapping[str, Any]) -> list[str]:
        text = data.decode(option(options, "encoding") or "utf-8", errors="replace")
        if option_bool(options, "multiLine"):
            return [text] if text.strip() else []
        return [ln for ln in text.splitlines() if ln.strip()]

    def _records(self, data: bytes, options: Mapping[str, Any], exact: bool = False) -> Iterator[tuple[str, Any]]:
        """``(text, parsed value or _MalformedError)`` per record of a split (``exact``: numbers
        with a fraction as Decimals, as written, for VARIANT fields)."""
        multi_line = option_bool(options, "multiLine")
        for piece in self._pieces(data, options):
            try:
                yield piece, json.loads(piece, parse_float=decimal.Decimal) if exact else json.loads(piece)
            except ValueError:
                if multi_line:
                    # Spark's parser reads a multiLine file's first JSON value and ignores what follows.
                    try:
                        yield piece, json.JSONDecoder().raw_decode(piece.lstrip())[0]
                        continue
                    except ValueError:
                        pass
                yield piece, _MalformedError(piece)

    def _fast_table(self, data: bytes, schema: pa.Schema | None) -> pa.Table | None:
        try:
            parse = pajson.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore") if schema \
                else pajson.ParseOptions()
            return pajson.read_json(io.BytesIO(data), pajson.ReadOptions(use_threads=False), parse)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
            return None

    # --------------------------------------------------------------- inference
    def _infer_data_schema(self, files: Sequence[str], options: Mapping[str, Any]) -> pa.Schema:
        single = option(options, "singleVariantColumn")
        if single:  # each record one variant: nothing to infer
            return pa.schema([pa.field(single, VARIANT_ARROW)])
        merged: pa.DataType = pa.struct([])
        corrupt = False
        simple = not option_bool(options, "primitivesAsString") and not option_bool(options, "multiLine") and (
            (option(options, "encoding") or "utf-8").lower().replace("-", "") == "utf8")
        for path in files:
            data = read_line_range(FileSplit(path))
            table = self._fast_table(data, None) if simple else None
            if table is not None and _plain(pa.struct(list(table.schema))):
                merged = merge_json_types(merged, _sorted_struct(list(table.schema)))
                continue
            found, bad = self.infer_records(self._records(data, options), options)
            merged, corrupt = merge_json_types(merged, found), corrupt or bad
        return self.inferred_schema(merged, corrupt, options)

    def infer_records(self, records: Iterable[tuple[str, Any]], options: Mapping[str, Any]) -> tuple[pa.DataType, bool]:
        """The struct type ``records`` (from :meth:`_records` or :func:`records_of_texts`) infer, and
        whether one of them is no JSON object (a corrupt record); merge results with :func:`merge_json_types`."""
        primitives = option_bool(options, "primitivesAsString")
        mode = (option(options, "mode") or "PERMISSIVE").upper()
        merged: pa.DataType = pa.struct([])
        corrupt = False
        for _, value in records:
            for row in value if isinstance(value, list) else [value]:
                if isinstance(row, dict):
                    merged = merge_json_types(merged, infer_json_type(row, primitives))
                elif mode == "FAILFAST":
                    # Spark's inference fails naming the corrupt-record column, not the record.
                    raise malformed_error(option(options, "columnNameOfCorruptRecord") or "_corrupt_record")
                elif mode != "DROPMALFORMED":  # DROPMALFORMED infers from the good records only
                    corrupt = True
        return merged, corrupt

    def inferred_schema(self, merged: pa.DataType, corrupt: bool, options: Mapping[str, Any]) -> pa.Schema:
        """The schema inference ends with: nulls as strings, and the corrupt-record column if a record was."""
        corrupt_name = option(options, "columnNameOfCorruptRecord", "_corrupt_record") or "_corrupt_record"
        return inferred_schema_of(merged, corrupt_name if corrupt else None)

    # --------------------------------------------------------------- reads
    def _read_data(self, split: FileSplit, schema: pa.Schema, columns: Sequence[str], options: Mapping[str, Any],
                   filters: Sequence[Filter] | None) -> Iterator[pa.RecordBatch]:
        yield from self.read_bytes(read_line_range(split), schema, options)

    def read_bytes(self, data: bytes, schema: pa.Schema, options: Mapping[str, Any]) -> Iterator[pa.RecordBatch]:
        """The rows of ``data`` (JSON Lines, or one document with ``multiLine``) as batches of ``schema``."""
        corrupt = option(options, "columnNameOfCorruptRecord", "_corrupt_record") or "_corrupt_record"
        data_fields = [f for f in schema if f.name != corrupt]
        single = option(options, "singleVariantColumn")
        if single:
            yield self._single_variants(data, schema, single, options)
            return
        if any(has_variant(f.type) for f in data_fields):
            yield from self.read_records(self._records(data, options, exact=True), schema, options)
            return
        if (not option_bool(options, "multiLine") and not option_bool(options, "primitivesAsString")
                and all(_plain(f.type) for f in data_fields) and data_fields
                and (option(options, "encoding") or "utf-8").lower().replace("-", "") == "utf8"):
            table = self._fast_table(data, pa.schema(data_fields))
            if table is not None:
                yield from self._conform(table, schema).to_batches()
                return
        yield from self.read_records(self._records(data, options), schema, options)

    def read_records(self, records: Iterable[tuple[str, Any]], schema: pa.Schema,
                     options: Mapping[str, Any]) -> Iterator[pa.RecordBatch]:
        """``(text, parsed value)`` records as batches of ``schema``, under the ``mode`` option."""
        corrupt = option(options, "columnNameOfCorruptRecord", "_corrupt_record") or "_corrupt_record"
        corrupt = corrupt if corrupt in schema.names else ""
        data_fields = [f for f in schema if f.name != corrupt]
        mode = (option(options, "mode") or "PERMISSIVE").upper()
        parse = ParseOptions(time_zone=time_zone_option(options), timestamp_format=option(options, "timestampFormat"),
                             date_format=option(options, "dateFormat"))
        rows: list[dict[str, Any]] = []
        for text, value in records:
            objects = value if isinstance(value, list) else [value]
            try:
                converted = [_convert_row(r, data_fields, parse) for r in objects]
            except _MalformedError:
                if mode == "FAILFAST":
                    raise malformed_error(text) from None
                if mode == "PERMISSIVE" and isinstance(value, list):
                    rows.append({corrupt: text} if corrupt else {})  # a bad array is one bad record
                elif mode == "PERMISSIVE":
                    # Spark's partial results: the fields that convert keep their values.
                    for r in objects:
                        partial = _partial_row(r, data_fields, parse)
                        rows.append({**partial, corrupt: text} if corrupt else partial)
                continue
            rows.extend(converted)
        if any(has_variant(f.type) for f in schema):  # Arrow builds no extension type: storage, then a view
            storage = pa.RecordBatch.from_pylist(rows, schema=pa.schema([f.with_type(storage_type(f.type))
                                                                         for f in schema]))
            yield pa.RecordBatch.from_arrays([c.view(f.type) for c, f in zip(storage.columns, schema)], schema=schema)
            return
        yield pa.RecordBatch.from_pylist(rows, schema=schema)

    def _single_variants(self, data: bytes, schema: pa.Schema, name: str,
                         options: Mapping[str, Any]) -> pa.RecordBatch:
        """``singleVariantColumn``: each record parsed whole into one variant (malformed: null)."""
        mode = (option(options, "mode") or "PERMISSIVE").upper()
        values: list[tuple[bytes, bytes] | None] = []
        for piece in self._pieces(data, options):
            try:
                values.append(parse_json(piece))
            except MalformedJsonError:
                if mode == "FAILFAST":
                    raise malformed_error(piece) from None
                if mode != "DROPMALFORMED":
                    values.append(None)
        column = variant_array(values)
        return pa.RecordBatch.from_arrays([column if f.name == name else pa.nulls(len(column), f.type)
                                           for f in schema], schema=schema)

    def _conform(self, table: pa.Table, schema: pa.Schema) -> pa.Table:
        arrays = [table.column(f.name) if f.name in table.schema.names else pa.nulls(table.num_rows, f.type)
                  for f in schema]
        return pa.Table.from_arrays([a.cast(f.type) for a, f in zip(arrays, schema)], schema=schema)


def _partial_row(value: Any, fields: Sequence[pa.Field], parse: ParseOptions) -> dict[str, Any]:
    """A malformed record's fields that do convert (the others null); nothing when it is no object."""
    if not isinstance(value, dict):
        return {}
    out: dict[str, Any] = {}
    for f in fields:
        try:
            out[f.name] = _convert(value.get(f.name), f.type, parse)
        except _MalformedError:
            out[f.name] = None
    return out


def _convert_row(value: Any, fields: Sequence[pa.Field], parse: ParseOptions) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _MalformedError(value)
    return {f.name: _convert(value.get(f.name), f.type, parse) for f in fields}


_SPECIAL = {"NaN": float("nan"), "Infinity": float("inf"), "+Infinity": float("inf"), "-Infinity": float("-inf"),
            "INF": float("inf"), "+INF": float("inf"), "-INF": float("-inf")}


def _convert(value: Any, t: pa.DataType, parse: ParseOptions) -> Any:
    """One parsed JSON value as a Python value of Arrow type ``t``, or :class:`_MalformedError`."""
    if value is None:
        return None
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    if pa.types.is_boolean(t):
        if isinstance(value, bool):
            return value
    elif pa.types.is_integer(t):
        if isinstance(value, int) and not isinstance(value, bool):
            bits = t.bit_width
            if -2**(bits - 1) <= value < 2**(bits - 1):
                return value
    elif is_variant(t):
        return dict(zip(("value", "metadata"), parse_json(document_text(value)), strict=True))
    elif pa.types.is_floating(t):
        if isinstance(value, (int, float, decimal.Decimal)) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, str) and value in _SPECIAL:
            return _SPECIAL[value]
    elif pa.types.is_decimal(t):
        if isinstance(value, (int, float, decimal.Decimal)) and not isinstance(value, bool):
            number = decimal.Decimal(str(value)).quantize(decimal.Decimal(1).scaleb(-t.scale), decimal.ROUND_HALF_UP)
            if len(number.as_tuple().digits) <= t.precision:
                return number
    elif pa.types.is_timestamp(t) or pa.types.is_date(t) or pa.types.is_duration(t):
        if isinstance(value, str):
            try:
                stamp: Any = _value_parser(t, parse)(value)
            except ValueError:
                raise _MalformedError(value) from None
            if pa.types.is_date(t):
                return datetime.date(1970, 1, 1) + datetime.timedelta(days=int(stamp))
            if pa.types.is_duration(t):
                return datetime.timedelta(microseconds=int(stamp))
            return _EPOCH + datetime.timedelta(microseconds=int(stamp))
    elif pa.types.is_struct(t):
        if isinstance(value, dict):
            return {f.name: _convert(value.get(f.name), f.type, parse) for f in t}
    elif pa.types.is_list(t) or pa.types.is_large_list(t):
        if isinstance(value, list):
            return [_convert(v, t.value_type, parse) for v in value]
    elif pa.types.is_map(t):
        if isinstance(value, dict):
            return [(k, _convert(v, t.item_type, parse)) for k, v in value.items()]
    elif pa.types.is_null(t):
        return None
    raise _MalformedError(value)

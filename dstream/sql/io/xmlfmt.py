"""The XML source and sink (``spark.read.xml``, ``df.write.xml``), Spark 4's built-in XML format.

What this module owns
---------------------
:class:`XmlFormat`: reads the elements named by ``rowTag`` (required) as rows, with the
inference and conversion rules of :mod:`.xml_records`; a record that is no well-formed
XML, or whose value does not fit the schema, is malformed: under ``PERMISSIVE`` (the
default) its text goes to the corrupt-record column (added to an inferred schema when
such a record was seen) and its bad values are null, ``DROPMALFORMED`` drops it,
``FAILFAST`` fails the read. One split per file. Writes one document per part file: the
declaration (``declaration``), ``rootTag`` (``ROWS``) around one ``rowTag`` (``ROW``)
element per row, four spaces of indent per level; :func:`element_text` is one row's
element (``to_xml``).

Invariants
----------
* Written fields follow the schema's order: fields named with ``attributePrefix`` become
  attributes, the ``valueTag`` field the element's text, arrays repeat their element
  (an array inside an array writes ``arrayElementName`` items), maps one element per key.
  Nulls are left out unless ``nullValue`` is set, then written as that text.
* Text escapes ``&`` and ``<`` (``>`` and quotes are written as they are, as Spark's
  writer does); attribute values also escape ``"``. Numbers, booleans, dates and
  timestamps print as the CSV and JSON writers print them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import pyarrow as pa

from dstream.sql.io.base import FileFormat, Filter, time_zone_option
from dstream.sql.io.csvfmt import malformed_error
from dstream.sql.io.encode import format_temporal_columns, value_encoder
from dstream.sql.io.files import FileSplit, option, read_line_range
from dstream.sql.io.jsonfmt import inferred_schema_of
from dstream.sql.io.xml_infer import infer_element, infer_records, merge_xml_types
from dstream.sql.io.xml_records import RowConverter, XmlOptions, XmlRecord, document_records, parse_record

__all__ = ["XmlFormat", "element_text", "infer_xml_record", "records_of_strings", "xml_inferred_schema", "xml_rows"]

_INDENT = "    "


def _decoded(data: bytes, options: Mapping[str, Any]) -> str:
    encoding = option(options, "charset") or option(options, "encoding") or "utf-8"
    text = data.decode(encoding, errors="replace")
    return text[1:] if text.startswith("\ufeff") else text


def xml_inferred_schema(merged: pa.DataType, malformed: bool, opts: XmlOptions) -> pa.Schema:
    """The schema an XML inference ends with: unknown types as strings, and under ``PERMISSIVE``
    the corrupt-record column when a record was malformed."""
    return inferred_schema_of(merged, opts.corrupt_column if malformed and opts.mode == "PERMISSIVE" else None)


def _failing_fast(records: Iterable[XmlRecord | str]) -> Iterator[XmlRecord | str]:
    for record in records:
        if isinstance(record, str):
            raise malformed_error(record)
        yield record


def infer_xml_record(text: str, opts: XmlOptions) -> tuple[pa.DataType | None, bool]:
    """The struct type one record infers (``None`` when it is malformed) and whether it was."""
    record = parse_record(text, opts.ignore_namespace)
    if record is None:
        return None, True
    return infer_element(record.element, opts, top=True), False


def records_of_strings(texts: Iterable[str], opts: XmlOptions) -> Iterator[XmlRecord | str]:
    """Each string as one record (its element, or its text when it is no well-formed XML)."""
    for text in texts:
        record = parse_record(text, opts.ignore_namespace)
        yield text if record is None else record


def xml_rows(records: Iterable[XmlRecord | str], schema: pa.Schema, opts: XmlOptions) -> list[dict[str, Any]]:
    """The rows of ``records`` (row elements, or malformed records' texts) for ``schema``, under ``mode``."""
    corrupt = opts.corrupt_column if opts.corrupt_column in schema.names else ""
    convert = RowConverter([f for f in schema if f.name != corrupt], opts)
    rows = []
    for record in records:
        row, bad = convert(None if isinstance(record, str) else record)
        if bad:
            text = record if isinstance(record, str) else record.outer_xml()
            if opts.mode == "FAILFAST":
                raise malformed_error(text)
            if opts.mode == "DROPMALFORMED":
                continue
            if corrupt:
                row[corrupt] = text
        elif corrupt:
            row[corrupt] = None
        rows.append(row)
    return rows


class XmlFormat(FileFormat):
    """XML documents (``spark.read.xml``): one row per ``rowTag`` element."""

    name = "xml"
    title = "XML"
    extension = "xml"
    splittable = False

    def _infer_data_schema(self, files: Sequence[str], options: Mapping[str, Any]) -> pa.Schema:
        opts = XmlOptions.of(options)
        merged: pa.DataType = pa.struct([])
        corrupt = False
        for path in files:
            records = document_records(_decoded(read_line_range(FileSplit(path)), options), opts)
            if opts.mode == "FAILFAST":
                records = _failing_fast(records)
            found, bad = infer_records(records, opts)
            merged = merge_xml_types(merged, found, opts.value_tag)
            corrupt = corrupt or bad
        return xml_inferred_schema(merged, corrupt, opts)

    def _read_data(self, split: FileSplit, schema: pa.Schema, columns: Sequence[str], options: Mapping[str, Any],
                   filters: Sequence[Filter] | None) -> Iterator[pa.RecordBatch]:
        opts = XmlOptions.of({"timeZone": time_zone_option(options), **options})
        records = document_records(_decoded(read_line_range(split), options), opts)
        yield pa.RecordBatch.from_pylist(xml_rows(records, schema, opts), schema=schema)

    # ------------------------------------------------------------------ writes
    def file_bytes(self, table: pa.Table, options: Mapping[str, Any]) -> bytes:
        """One part file: the declaration, the root element, one row element per row."""
        opts = XmlOptions.of({"timeZone": time_zone_option(options), **options}, reading=False)
        lines = [f"<?xml {opts.declaration}?>"] if opts.declaration else []
        lines.append(f"<{opts.root_tag}>")
        table = format_temporal_columns(table, options, opts.parse.time_zone)
        schema = pa.struct(list(table.schema))
        for row in table.to_pylist():
            lines.append(element_text(opts.row_tag, row, schema, opts, 1))
        lines.append(f"</{opts.root_tag}>")
        return "\n".join(lines).encode(option(options, "charset") or option(options, "encoding") or "utf-8")


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;")


def _attribute(text: str) -> str:
    return _escape(text).replace('"', "&quot;")


def _scalar(value: Any, t: pa.DataType, opts: XmlOptions) -> str:
    if isinstance(value, str):
        return value
    return str(value_encoder(t, opts.parse.time_zone)(value))


def element_text(name: str, value: Any, t: pa.DataType, opts: XmlOptions, depth: int = 0) -> str:
    """The element ``name`` holding ``value`` of type ``t`` (a row: a struct), indented ``depth`` levels."""
    pad = _INDENT * depth
    if value is None:
        return f"{pad}<{name}>{_escape(opts.null_value)}</{name}>" if opts.null_value is not None else ""
    if pa.types.is_struct(t):
        attrs, text, children = [], None, []
        for fld in t:
            item = value.get(fld.name)
            if opts.attribute_prefix and fld.name.startswith(opts.attribute_prefix) and fld.name != opts.value_tag:
                shown = opts.null_value if item is None else _scalar(item, fld.type, opts)
                if shown is not None:
                    attrs.append(f' {fld.name[len(opts.attribute_prefix):]}="{_attribute(shown)}"')
            elif fld.name == opts.value_tag:
                text = None if item is None else _escape(_scalar(item, fld.type, opts))
            else:
                children.extend(_field_elements(fld.name, item, fld.type, opts, depth + 1))
        head = f"{pad}<{name}{''.join(attrs)}"
        if not children:
            return f"{head}>{text}</{name}>" if text is not None else f"{head}/>"
        return f"{head}>{text or ''}\n" + "\n".join(children) + f"\n{pad}</{name}>"
    if pa.types.is_map(t):
        children = [c for k, v in value for c in _field_elements(str(k), v, t.item_type, opts, depth + 1)]
        return f"{pad}<{name}>\n" + "\n".join(children) + f"\n{pad}</{name}>" if children else f"{pad}<{name}/>"
    if pa.types.is_list(t) or pa.types.is_large_list(t):  # an array in an array: its items
        children = [c for v in value for c in _field_elements(opts.array_element_name, v, t.value_type, opts,
                                                               depth + 1)]
        return f"{pad}<{name}>\n" + "\n".join(children) + f"\n{pad}</{name}>" if children else f"{pad}<{name}/>"
    return f"{pad}<{name}>{_escape(_scalar(value, t, opts))}</{name}>"


def _field_elements(name: str, value: Any, t: pa.DataType, opts: XmlOptions, depth: int) -> list[str]:
    """The elements of one field: an array repeats its element, a null writes nothing (or ``nullValue``)."""
    if value is not None and (pa.types.is_list(t) or pa.types.is_large_list(t)):
        return [e for e in (element_text(name, v, t.value_type, opts, depth) for v in value) if e]
    text = element_text(name, value, t, opts, depth)
    return [text] if text else []

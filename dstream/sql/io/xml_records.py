"""XML records as Spark's XML source sees them: cut out by their row tag, parsed, typed, converted.

What this module owns
---------------------
* :class:`XmlOptions`: the reader's and writer's options with Spark's defaults (``rowTag``,
  ``attributePrefix`` ``_``, ``valueTag`` ``_VALUE``, ``excludeAttribute``,
  ``ignoreSurroundingSpaces`` (on), ``ignoreNamespace``, ``nullValue``, ``inferSchema``,
  ``mode``, ``columnNameOfCorruptRecord``, ``timestampFormat``/``dateFormat``).
* :func:`record_texts`: the text of every element named by the row tag, at any depth
  (an element inside another row element belongs to that row), in file order.
* :func:`parse_record`: one record's element tree, or ``None`` for text that is no well-formed
  XML (a malformed record). Prefixes stay in names (``ns:q``) unless ``ignoreNamespace``.
* :func:`infer_element` / :func:`merge_xml_types`: Spark's XML
  inference: a leaf's text is ``bigint``, ``double``, ``boolean``, ``date``, ``timestamp`` or
  ``string`` (empty: unknown, ``string`` in the end); attributes are fields named with the
  prefix; a child that repeats is an array; text beside children or attributes is the
  value tag's field (an array when it comes in several pieces); struct fields sorted by name.
* :func:`convert_row`: a record's values for a schema, or :class:`XmlMalformedError`.

Invariants
----------
* Whitespace-only text between elements is layout, never a value; other text is trimmed
  when ``ignoreSurroundingSpaces`` is on.
* Types meet as Spark's ``compatibleType``: ``bigint`` and ``double`` at ``double``, ``date``
  and ``timestamp`` at ``timestamp``, a value and an array of it at the array, a value and
  a struct with the value tag at that struct; anything else at ``string``.
* A string field whose element has children reads the element's inner XML text.
"""

from __future__ import annotations

import datetime
import re
import xml.parsers.expat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from dstream.sql.errors import AnalysisException
from dstream.sql.io.files import option, option_bool
from dstream.sql.io.strconv import ParseOptions, _default_timestamp, _value_parser

__all__ = ["XmlMalformedError", "XmlOptions", "Element", "convert_row", "infer_element", "merge_xml_types",
           "parse_record", "record_texts"]

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
_LONG = re.compile(r"[+-]?[0-9]+")
_DOUBLE = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
#: A boolean's texts (any case), read as Spark's XML source reads them.
_BOOLEAN_TEXTS = {"true": True, "false": False}
_JAVA_DOUBLE = re.compile(r"[+-]?(NaN|Infinity|([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?)[fFdD]?")


class XmlMalformedError(Exception):
    """A record that is no well-formed XML, or a value that does not fit the schema."""


@dataclass(frozen=True)
class XmlOptions:
    """The XML options of one read or write (Spark's names and defaults)."""

    row_tag: str = "ROW"
    root_tag: str = "ROWS"
    attribute_prefix: str = "_"
    value_tag: str = "_VALUE"
    exclude_attribute: bool = False
    trim: bool = True
    ignore_namespace: bool = False
    null_value: str | None = None
    infer_types: bool = True
    mode: str = "PERMISSIVE"
    corrupt_column: str = "_corrupt_record"
    parse: ParseOptions = ParseOptions()
    declaration: str = 'version="1.0" encoding="UTF-8" standalone="yes"'
    array_element_name: str = "item"

    @classmethod
    def of(cls, options: Mapping[str, Any], reading: bool = True) -> XmlOptions:
        """The options of a reader or writer; a read without ``rowTag`` is refused as Spark refuses it."""
        row_tag = option(options, "rowTag")
        if reading and not row_tag:
            raise AnalysisException(
                "`rowTag` option is required for reading/writing files in XML format. Name the element that "
                "holds one row, e.g. .option('rowTag', 'book').", "XML_ROW_TAG_MISSING", {})
        declaration = option(options, "declaration")
        return cls(
            row_tag=row_tag or "ROW", root_tag=option(options, "rootTag") or "ROWS",
            attribute_prefix=option(options, "attributePrefix", "_") or "",
            value_tag=option(options, "valueTag") or "_VALUE",
            exclude_attribute=option_bool(options, "excludeAttribute"),
            trim=option_bool(options, "ignoreSurroundingSpaces", True),
            ignore_namespace=option_bool(options, "ignoreNamespace"),
            null_value=option(options, "nullValue"),
            infer_types=option_bool(options, "inferSchema", True),
            mode=(option(options, "mode") or "PERMISSIVE").upper(),
            corrupt_column=option(options, "columnNameOfCorruptRecord") or "_corrupt_record",
            parse=ParseOptions(time_zone=option(options, "timeZone") or "UTC",
                               timestamp_format=option(options, "timestampFormat"),
                               date_format=option(options, "dateFormat")),
            declaration=cls.declaration if declaration is None else declaration,
            array_element_name=option(options, "arrayElementName") or "item")


# ------------------------------------------------------------------------------ cutting records
def record_texts(text: str, row_tag: str) -> Iterator[str]:
    """The text of each ``row_tag`` element of ``text`` (outermost ones), in order; comments,
    CDATA sections and processing instructions are skipped over."""
    tag = re.escape(row_tag)
    token = re.compile(
        r"<!--.*?-->|<!\[CDATA\[.*?\]\]>|<\?.*?\?>"
        rf"|(?P<close></{tag}\s*>)"
        rf"|(?P<open><{tag}(?:\s+[^\s=/>]+\s*=\s*(?:\"[^\"]*\"|'[^']*'))*\s*(?P<empty>/?)>)", re.S)
    depth = 0
    start = 0
    for match in token.finditer(text):
        if match.group("open"):
            if depth == 0:
                start = match.start()
            if match.group("empty"):
                if depth == 0:
                    yield match.group(0)
                continue
            depth += 1
        elif match.group("close") and depth:
            depth -= 1
            if depth == 0:
                yield text[start:match.end()]


# ------------------------------------------------------------------------------ parsing
class Element:
    """One element: its name, attributes, child elements and non-layout text pieces."""

    __slots__ = ("name", "attrs", "children", "texts", "source", "inner")

    def __init__(self, name: str, attrs: dict[str, str], source: bytes) -> None:
        self.name = name
        self.attrs = attrs
        self.children: list[Element] = []
        self.texts: list[str] = []
        self.source = source
        self.inner = (0, 0)  # byte range of the content, between the start and end tags

    def inner_xml(self) -> str:
        """The element's content as written (a string field of an element with children)."""
        return self.source[self.inner[0]:self.inner[1]].decode("utf-8", errors="replace")


def parse_record(text: str, ignore_namespace: bool = False) -> Element | None:
    """The tree of one record (``None`` when it is no well-formed XML)."""
    data = text.encode("utf-8")
    parser = xml.parsers.expat.ParserCreate()
    stack: list[Element] = []
    pieces: list[str] = []
    root: list[Element] = []

    def local(name: str) -> str:
        return name.rsplit(":", 1)[-1] if ignore_namespace else name

    def flush() -> None:
        if pieces and stack:
            joined = "".join(pieces)
            if joined.strip():
                stack[-1].texts.append(joined)
        pieces.clear()

    def start(name: str, attrs: dict[str, str]) -> None:
        flush()
        element = Element(local(name), {local(k): v for k, v in attrs.items()
                                        if k != "xmlns" and not k.startswith("xmlns:")}, data)
        tag_end = _start_tag_end(data, parser.CurrentByteIndex)
        element.inner = (tag_end, tag_end)
        if stack:
            stack[-1].children.append(element)
        else:
            root.append(element)
        stack.append(element)

    def end(name: str) -> None:
        flush()
        element = stack.pop()
        if element.inner[0] >= 0:
            element.inner = (element.inner[0], parser.CurrentByteIndex)

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = pieces.append
    try:
        parser.Parse(data, True)
    except xml.parsers.expat.ExpatError:
        return None
    return root[0] if root else None


def _start_tag_end(data: bytes, start: int) -> int:
    """Where the content after the start tag at ``start`` begins; -1 for an empty-element tag
    (``<a/>``). The tag ends at its first ``>`` outside quoted attribute values."""
    i, quote = start, 0
    while i < len(data):
        c = data[i]
        if quote:
            quote = 0 if c == quote else quote
        elif c in (34, 39):  # " and '
            quote = c
        elif c == 62:  # >
            return -1 if data[i - 1] == 47 else i + 1  # / before >
        i += 1
    return len(data)


def _text(element: Element, opts: XmlOptions) -> str:
    joined = "".join(element.texts)
    return joined.strip() if opts.trim else joined


# ------------------------------------------------------------------------------ inference
def _infer_text(text: str | None, opts: XmlOptions) -> pa.DataType:
    if text is None or text == "":  # (the nullValue text is inferred as any text, as Spark does)
        return pa.null()
    if not opts.infer_types:
        return pa.string()
    value = text.strip()
    if _LONG.fullmatch(value):
        return pa.int64() if -2**63 <= int(value) < 2**63 else pa.float64()
    if _DOUBLE.fullmatch(value):
        return pa.float64()
    if value.lower() in _BOOLEAN_TEXTS:
        return pa.bool_()
    if _DATE.fullmatch(value) and opts.parse.date_format in (None, "yyyy-MM-dd"):
        try:
            datetime.date.fromisoformat(value)
            return pa.date32()
        except ValueError:
            pass
    if opts.parse.timestamp_format is None:
        try:
            if _default_timestamp(value, datetime.timezone.utc) is not None:  # type: ignore[arg-type]
                return pa.timestamp("us", tz="UTC")
        except ValueError:
            pass
    return pa.string()


def infer_element(element: Element, opts: XmlOptions, top: bool = False) -> pa.DataType:
    """The type of one element's value (a row's is always a struct, ``top``)."""
    attrs = {} if opts.exclude_attribute else element.attrs
    if not element.children and not attrs and not top:
        return _infer_text(_text(element, opts), opts)
    fields: dict[str, pa.DataType] = {}
    for name, value in attrs.items():
        fields[opts.attribute_prefix + name] = _infer_text(value.strip() if opts.trim else value, opts)
    seen: dict[str, int] = {}
    for child in element.children:
        t = infer_element(child, opts)
        seen[child.name] = seen.get(child.name, 0) + 1
        if seen[child.name] == 1:
            fields[child.name] = t
        else:
            before = fields[child.name]
            element_type = before.value_type if seen[child.name] > 2 else before
            fields[child.name] = pa.list_(pa.field("element", merge_xml_types(element_type, t, opts.value_tag)))
    texts = [t.strip() if opts.trim else t for t in element.texts]
    if len(texts) == 1:
        fields[opts.value_tag] = merge_xml_types(fields.get(opts.value_tag, pa.null()), _infer_text(texts[0], opts),
                                                 opts.value_tag)
    elif texts:
        merged: pa.DataType = pa.null()
        for text in texts:
            merged = merge_xml_types(merged, _infer_text(text, opts), opts.value_tag)
        fields[opts.value_tag] = pa.list_(pa.field("element", merged))
    return pa.struct(sorted((pa.field(k, v) for k, v in fields.items()), key=lambda f: f.name))


def _rank(t: pa.DataType) -> int | None:
    return 0 if pa.types.is_int64(t) else 1 if pa.types.is_float64(t) else None


def merge_xml_types(a: pa.DataType, b: pa.DataType, value_tag: str = "_VALUE") -> pa.DataType:
    """The type two inferred XML types meet at (see the module doc)."""
    if a == b:
        return a
    if pa.types.is_null(a):
        return b
    if pa.types.is_null(b):
        return a
    if _rank(a) is not None and _rank(b) is not None:
        return pa.float64()
    if {pa.types.is_date(a) or pa.types.is_timestamp(a), pa.types.is_date(b) or pa.types.is_timestamp(b)} == {True}:
        return pa.timestamp("us", tz="UTC")
    if pa.types.is_struct(a) and pa.types.is_struct(b):
        merged = {f.name: f.type for f in a}
        for fld in b:
            merged[fld.name] = merge_xml_types(merged[fld.name], fld.type, value_tag) if fld.name in merged \
                else fld.type
        return pa.struct(sorted((pa.field(k, v) for k, v in merged.items()), key=lambda f: f.name))
    if pa.types.is_list(a) and pa.types.is_list(b):
        return pa.list_(pa.field("element", merge_xml_types(a.value_type, b.value_type, value_tag)))
    if pa.types.is_list(a) or pa.types.is_list(b):
        listed, other = (a, b) if pa.types.is_list(a) else (b, a)
        return pa.list_(pa.field("element", merge_xml_types(listed.value_type, other, value_tag)))
    if pa.types.is_struct(a) or pa.types.is_struct(b):
        struct, other = (a, b) if pa.types.is_struct(a) else (b, a)
        if struct.get_field_index(value_tag) >= 0:
            return merge_xml_types(struct, pa.struct([pa.field(value_tag, other)]), value_tag)
    return pa.string()


# ------------------------------------------------------------------------------ conversion
def _convert_text(text: str | None, t: pa.DataType, opts: XmlOptions) -> Any:
    if text is None or (opts.null_value is not None and text == opts.null_value):
        return None
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return text
    value = text.strip()
    if value == "":
        return None
    if pa.types.is_boolean(t):
        if value.lower() in _BOOLEAN_TEXTS:
            return _BOOLEAN_TEXTS[value.lower()]
    elif pa.types.is_integer(t):
        if _LONG.fullmatch(value) and -2**(t.bit_width - 1) <= int(value) < 2**(t.bit_width - 1):
            return int(value)
    elif pa.types.is_floating(t):
        if _JAVA_DOUBLE.fullmatch(value):
            return float(value.rstrip("fFdD"))
    elif pa.types.is_date(t) or pa.types.is_timestamp(t) or pa.types.is_decimal(t) or pa.types.is_binary(t):
        try:
            parsed: Any = _value_parser(t, opts.parse)(value)
        except (ValueError, ArithmeticError):
            raise XmlMalformedError(value) from None
        if pa.types.is_date(t):
            return datetime.date(1970, 1, 1) + datetime.timedelta(days=int(parsed))
        if pa.types.is_timestamp(t):
            return _EPOCH + datetime.timedelta(microseconds=int(parsed))
        return parsed
    raise XmlMalformedError(value)


def _convert(elements: list[Element], t: pa.DataType, opts: XmlOptions) -> Any:
    """The value of a field from the child elements of its name (an array takes them all)."""
    if not elements:
        return None
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [_convert_one(e, t.value_type, opts) for e in elements]
    return _convert_one(elements[-1], t, opts)


def _convert_one(element: Element, t: pa.DataType, opts: XmlOptions) -> Any:
    if pa.types.is_struct(t):
        return convert_fields(element, list(t), opts)
    if pa.types.is_map(t):
        return [(c.name, _convert_one(c, t.item_type, opts)) for c in element.children]
    if pa.types.is_list(t) or pa.types.is_large_list(t):  # an array in an array: the writer's item elements
        return [_convert_one(c, t.value_type, opts) for c in element.children]
    if element.children:
        if pa.types.is_string(t):
            inner = element.inner_xml()
            return inner.strip() if opts.trim else inner
        raise XmlMalformedError(element.name)
    return _convert_text(_text(element, opts), t, opts)


def convert_fields(element: Element, fields: list[pa.Field], opts: XmlOptions,
                   failed: list[str] | None = None) -> dict[str, Any]:
    """The element's values for ``fields``: attributes by prefix, children by name, text by the
    value tag. A value that does not fit raises, or with ``failed`` is null and its name noted."""
    by_name: dict[str, list[Element]] = {}
    for child in element.children:
        by_name.setdefault(child.name, []).append(child)
    prefix = opts.attribute_prefix
    out: dict[str, Any] = {}
    for fld in fields:
        try:
            if fld.name == opts.value_tag and fld.name not in by_name:
                texts = [t.strip() if opts.trim else t for t in element.texts]
                if pa.types.is_list(fld.type):
                    out[fld.name] = [_convert_text(t, fld.type.value_type, opts) for t in texts] if texts else None
                else:
                    out[fld.name] = _convert_text("".join(texts), fld.type, opts) if texts else None
            elif fld.name in by_name:
                out[fld.name] = _convert(by_name[fld.name], fld.type, opts)
            elif (not opts.exclude_attribute and fld.name.startswith(prefix)
                  and fld.name[len(prefix):] in element.attrs):
                raw = element.attrs[fld.name[len(prefix):]]
                out[fld.name] = _convert_text(raw.strip() if opts.trim else raw, fld.type, opts)
            else:
                out[fld.name] = None
        except XmlMalformedError:
            if failed is None:
                raise
            failed.append(fld.name)
            out[fld.name] = None
    return out


def convert_row(element: Element | None, fields: list[pa.Field], opts: XmlOptions) -> tuple[dict[str, Any], bool]:
    """A record's row for ``fields`` and whether it was malformed (its bad values null)."""
    if element is None:
        return {f.name: None for f in fields}, True
    failed: list[str] = []
    return convert_fields(element, fields, opts, failed), bool(failed)

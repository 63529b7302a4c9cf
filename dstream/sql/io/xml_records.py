"""XML records as Spark's XML source sees them: cut out by their row tag, parsed, typed, converted.

What this module owns
---------------------
* :class:`XmlOptions`: the reader's and writer's options with Spark's defaults (``rowTag``,
  ``attributePrefix`` ``_``, ``valueTag`` ``_VALUE``, ``excludeAttribute``,
  ``ignoreSurroundingSpaces`` (on), ``ignoreNamespace``, ``nullValue``, ``inferSchema``,
  ``mode``, ``columnNameOfCorruptRecord``, ``timestampFormat``/``dateFormat``).
* :func:`document_records`: the rows of a file: its elements named by the row tag, at any
  depth (an element inside a row belongs to that row), in file order. A well-formed file is
  parsed once; otherwise :func:`record_texts` cuts each row's text out and each is parsed
  alone (:func:`parse_record`), a malformed one given as its text.
* :class:`XmlRecord`: a parsed row, an ElementTree element, and its text as written;
  prefixes stay in names (``ns:q``) unless ``ignoreNamespace``, ``xmlns`` declarations are
  no attributes.
* :class:`RowConverter`: a schema compiled once into converters: a record's values, and
  whether one did not fit.

Invariants
----------
* Whitespace-only text between elements is layout, never a value; other text is trimmed
  when ``ignoreSurroundingSpaces`` is on.
* A string field whose element has children reads the element's inner XML text.
"""

from __future__ import annotations

import datetime
import re
import xml.etree.ElementTree as ET  # noqa: N817 - the module's usual name
import xml.parsers.expat
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from dstream.sql.errors import AnalysisException
from dstream.sql.io.files import option, option_bool
from dstream.sql.io.strconv import ParseOptions, _value_parser

__all__ = ["RowConverter", "XmlMalformedError", "XmlOptions", "XmlRecord", "document_records", "parse_record",
           "record_texts", "text_of", "texts_of"]

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
_LONG = re.compile(r"[+-]?[0-9]+")
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
# Rows are ElementTree elements: built by its C parser when a document declares no namespace
# (4x quicker than expat's Python callbacks), else by expat with prefixes kept, into the C
# TreeBuilder. Inference and conversion read them directly: element.tag, .attrib, its
# children, and the text pieces of texts_of().

class XmlRecord:
    """One row: its ``element``, and how to show it (or a part of it) as written."""

    __slots__ = ("element", "_document", "_index")

    def __init__(self, element: ET.Element, document: _Document, index: int) -> None:
        self.element = element
        self._document = document
        self._index = index

    def outer_xml(self) -> str:
        """The row as written, tags included (a malformed row's corrupt-record text)."""
        return self._document.written(self._index, self.element, True)

    def inner_xml(self, node: ET.Element) -> str:
        """The content of ``node`` (the row or an element in it) as written."""
        return self._document.written(self._index, node, False)


class _Document:
    """Where the rows of one parse were written: expat's byte offsets of every element, or, for
    rows the C parser built (it keeps none), the rows' texts, cut out again when first needed
    and parsed by expat to find an element's offsets."""

    def __init__(self, source: bytes = b"", positions: dict[int, tuple[int, int]] | None = None,
                 text: str = "", row_tag: str = "", rows: list[ET.Element] | None = None) -> None:
        self._source = source
        self._positions = positions
        self._text = text
        self._row_tag = row_tag
        self._rows = rows or []
        self._row_texts: list[str] | None = None

    def written(self, index: int, node: ET.Element, outer: bool) -> str:
        if self._positions is not None:
            source, (start, end) = self._source, self._positions[id(node)]
        else:
            source, start, end = self._reparsed(index, node)
        content = _start_tag_end(source, start)
        if outer:
            stop = source.find(b">", end) + 1 if content >= 0 else -content
            return source[start:stop].decode("utf-8", errors="replace")
        return "" if content < 0 else source[content:end].decode("utf-8", errors="replace")

    def _reparsed(self, index: int, node: ET.Element) -> tuple[bytes, int, int]:
        if self._row_texts is None:
            self._row_texts = list(record_texts(self._text, self._row_tag))
        data = self._row_texts[index].encode("utf-8")
        positions: dict[int, tuple[int, int]] = {}
        again = _build(data, None, False, positions)[0]
        for child_index in _path_to(self._rows[index], node) or []:
            again = again[child_index]
        start, end = positions[id(again)]
        return data, start, end


def _path_to(root: ET.Element, node: ET.Element) -> list[int] | None:
    """The child indices leading from ``root`` to ``node`` (``None`` if it is not below it)."""
    if root is node:
        return []
    for i, child in enumerate(root):
        found = _path_to(child, node)
        if found is not None:
            return [i, *found]
    return None


def texts_of(element: ET.Element) -> list[str]:
    """The element's text pieces that are no layout: before its first child, after each child."""
    out = []
    text = element.text
    if text and not text.isspace():
        out.append(text)
    for child in element:
        tail = child.tail
        if tail and not tail.isspace():
            out.append(tail)
    return out


def text_of(element: ET.Element, opts: XmlOptions) -> str:
    """A leaf element's text (trimmed when ``ignoreSurroundingSpaces``)."""
    text = element.text
    if not text or text.isspace():
        return ""
    return text.strip() if opts.trim else text


def _build(data: bytes, row_tag: str | None, ignore_namespace: bool,
           positions: dict[int, tuple[int, int]]) -> list[ET.Element]:
    """The rows of ``data`` parsed by expat (prefixes kept): with a ``row_tag``, the outermost
    elements of that name; without one, the document element. Each element's start and end tag
    offsets go to ``positions`` (by ``id``). Raises ``xml.parsers.expat.ExpatError`` for text
    that is no well-formed XML."""
    parser = xml.parsers.expat.ParserCreate()
    parser.buffer_text = True
    rows: list[ET.Element] = []
    depth = [0]
    builder: list[ET.TreeBuilder] = []
    starts: list[tuple[ET.Element, int]] = []

    def local(name: str) -> str:
        return name.rsplit(":", 1)[-1] if ignore_namespace else name

    def start(name: str, attrs: dict[str, str]) -> None:
        name = local(name)
        if not depth[0]:
            if row_tag is not None and name != row_tag:
                return  # outside every row
            builder[:] = [ET.TreeBuilder()]
        depth[0] += 1
        if attrs:
            attrs = {local(k): v for k, v in attrs.items() if k != "xmlns" and not k.startswith("xmlns:")}
        starts.append((builder[0].start(name, attrs), parser.CurrentByteIndex))

    def end(name: str) -> None:
        if depth[0]:
            depth[0] -= 1
            element = builder[0].end(local(name))
            _, began = starts.pop()
            positions[id(element)] = (began, parser.CurrentByteIndex)
            if not depth[0]:
                rows.append(builder[0].close())

    def text(piece: str) -> None:
        if depth[0]:
            builder[0].data(piece)

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    parser.Parse(data, True)
    return rows


def parse_record(text: str, ignore_namespace: bool = False) -> XmlRecord | None:
    """One record's element (``None`` when it is no well-formed XML)."""
    data = text.encode("utf-8")
    positions: dict[int, tuple[int, int]] = {}
    try:
        rows = _build(data, None, ignore_namespace, positions)
    except xml.parsers.expat.ExpatError:
        return None
    return XmlRecord(rows[0], _Document(data, positions), 0) if rows else None


_PROLOG = re.compile(r"\A\s*(<\?xml[^>]*\?>)?", re.S)
_WRAPPER = "dstream-document"


def _tree_rows(node: ET.Element, row_tag: str) -> Iterator[ET.Element]:
    for child in node:
        if child.tag == row_tag:
            yield child
        else:
            yield from _tree_rows(child, row_tag)


def document_records(text: str, opts: XmlOptions) -> Iterator[XmlRecord | str]:
    """The records of a file's ``text``: each row, or for a malformed record its text.

    The document is parsed once (wrapped in one element, so rows need no common root); only
    when that fails are the rows cut out of the text and parsed one by one, so that one
    malformed record spoils only itself.
    """
    body = text[_PROLOG.match(text).end():]  # type: ignore[union-attr]
    wrapped = f"<{_WRAPPER}>{body}</{_WRAPPER}>"
    if "<!DOCTYPE" not in body and "xmlns" not in body:
        # A prefix without a declaration fails the C parser: expat, below, keeps it as written.
        try:
            found = list(_tree_rows(ET.fromstring(wrapped), opts.row_tag))
        except (ET.ParseError, RecursionError):
            pass
        else:
            document = _Document(text=text, row_tag=opts.row_tag, rows=found)
            yield from (XmlRecord(element, document, i) for i, element in enumerate(found))
            return
    if "<!DOCTYPE" not in body:
        data = wrapped.encode("utf-8")
        positions: dict[int, tuple[int, int]] = {}
        try:
            rows = _build(data, opts.row_tag, opts.ignore_namespace, positions)
        except xml.parsers.expat.ExpatError:
            pass
        else:
            document = _Document(data, positions)
            yield from (XmlRecord(element, document, i) for i, element in enumerate(rows))
            return
    for record_text in record_texts(text, opts.row_tag):
        record = parse_record(record_text, opts.ignore_namespace)
        yield record_text if record is None else record


def _start_tag_end(data: bytes, start: int) -> int:
    """Where the content after the start tag at ``start`` begins, or for an empty-element tag
    (``<a/>``) minus where the tag ends. The tag ends at its first ``>`` outside quotes."""
    close = data.find(b">", start)
    if close < 0:
        return len(data)
    tag = data[start:close]
    if b'"' in tag or b"'" in tag:  # a '>' may sit in a quoted value: walk the tag
        i, quote = start, 0
        while i < len(data):
            c = data[i]
            if quote:
                quote = 0 if c == quote else quote
            elif c in (34, 39):  # " and '
                quote = c
            elif c == 62:  # >
                break
            i += 1
        close = i
    return -(close + 1) if data[close - 1] == 47 else close + 1  # / before >: no content


# ------------------------------------------------------------------------------ conversion
# A schema is compiled once into converter functions (per field, per type), so that a row's
# values are read without deciding each value's type again.

_Inner = Callable[[ET.Element], str]
_Text = Callable[[str | None], Any]
_Value = Callable[[ET.Element, _Inner], Any]


def _text_converter(t: pa.DataType, opts: XmlOptions) -> _Text:
    """A function from an element's or attribute's text to a value of ``t`` (or XmlMalformedError)."""
    null_value = opts.null_value
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return lambda text: None if text is None or text == null_value else text
    if pa.types.is_boolean(t):
        def parse(value: str) -> Any:
            found = _BOOLEAN_TEXTS.get(value.lower())
            if found is None:
                raise XmlMalformedError(value)
            return found
    elif pa.types.is_integer(t):
        low, high = -2**(t.bit_width - 1), 2**(t.bit_width - 1)

        def parse(value: str) -> Any:
            if _LONG.fullmatch(value) and low <= int(value) < high:
                return int(value)
            raise XmlMalformedError(value)
    elif pa.types.is_floating(t):
        def parse(value: str) -> Any:
            if _JAVA_DOUBLE.fullmatch(value):
                return float(value.rstrip("fFdD"))
            raise XmlMalformedError(value)
    elif pa.types.is_date(t) or pa.types.is_timestamp(t) or pa.types.is_decimal(t) or pa.types.is_binary(t):
        read = _value_parser(t, opts.parse)
        date, stamp = pa.types.is_date(t), pa.types.is_timestamp(t)

        def parse(value: str) -> Any:
            try:
                parsed: Any = read(value)
            except (ValueError, ArithmeticError):
                raise XmlMalformedError(value) from None
            if date:
                return datetime.date(1970, 1, 1) + datetime.timedelta(days=int(parsed))
            if stamp:
                return _EPOCH + datetime.timedelta(microseconds=int(parsed))
            return parsed
    else:
        def parse(value: str) -> Any:
            raise XmlMalformedError(value)

    def convert(text: str | None) -> Any:
        if text is None or text == null_value:
            return None
        value = text.strip()
        return None if value == "" else parse(value)
    return convert


def _value_converter(t: pa.DataType, opts: XmlOptions) -> _Value:
    """A function from one element to a value of ``t``."""
    if pa.types.is_struct(t):
        fields = _FieldsConverter(list(t), opts)
        return lambda element, inner: fields(element, inner, None)
    if pa.types.is_map(t):
        item = _value_converter(t.item_type, opts)
        return lambda element, inner: [(c.tag, item(c, inner)) for c in element]
    if pa.types.is_list(t) or pa.types.is_large_list(t):  # an array in an array: the writer's item elements
        each = _value_converter(t.value_type, opts)
        return lambda element, inner: [each(c, inner) for c in element]
    text = _text_converter(t, opts)
    string, trim = pa.types.is_string(t) or pa.types.is_large_string(t), opts.trim

    def leaf(element: ET.Element, inner: _Inner) -> Any:
        if len(element):
            if not string:
                raise XmlMalformedError(element.tag)
            written = inner(element)
            return written.strip() if trim else written
        return text(text_of(element, opts))
    return leaf


class _FieldsConverter:
    """The values of a struct's ``fields`` from an element: attributes by prefix, children by
    name (an array takes them all, another type the last), text by the value tag."""

    def __init__(self, fields: list[pa.Field], opts: XmlOptions) -> None:
        self._opts = opts
        self._fields: list[tuple[str, str | None, bool, Any, Any]] = []
        prefix = opts.attribute_prefix
        for fld in fields:
            listed = pa.types.is_list(fld.type) or pa.types.is_large_list(fld.type)
            attribute = (fld.name[len(prefix):] if not opts.exclude_attribute and fld.name.startswith(prefix)
                         else None)
            value = _value_converter(fld.type.value_type if listed else fld.type, opts)
            text = _text_converter(fld.type.value_type if listed else fld.type, opts)
            self._fields.append((fld.name, attribute, listed, value, text))

    def __call__(self, element: ET.Element, inner: _Inner, failed: list[str] | None) -> dict[str, Any]:
        opts = self._opts
        by_name: dict[str, list[ET.Element]] = {}
        for child in element:
            by_name.setdefault(child.tag, []).append(child)
        attrs = element.attrib
        out: dict[str, Any] = {}
        for name, attribute, listed, value, text in self._fields:
            try:
                children = by_name.get(name)
                if children is not None:
                    out[name] = [value(c, inner) for c in children] if listed else value(children[-1], inner)
                elif name == opts.value_tag:
                    pieces = [t.strip() if opts.trim else t for t in texts_of(element)]
                    out[name] = None if not pieces else [text(p) for p in pieces] if listed else text("".join(pieces))
                elif attribute is not None and attribute in attrs:
                    raw = attrs[attribute]
                    out[name] = text(raw.strip() if opts.trim else raw)
                else:
                    out[name] = None
            except XmlMalformedError:
                if failed is None:
                    raise
                failed.append(name)
                out[name] = None
        return out


class RowConverter:
    """A schema's ``fields`` compiled once: called with a record, its row and whether it was
    malformed (no well-formed XML, ``None``, or a value that did not fit, left null)."""

    def __init__(self, fields: list[pa.Field], opts: XmlOptions) -> None:
        self._names = [f.name for f in fields]
        self._fields = _FieldsConverter(fields, opts)

    def __call__(self, record: XmlRecord | None) -> tuple[dict[str, Any], bool]:
        if record is None:
            return dict.fromkeys(self._names), True
        failed: list[str] = []
        return self._fields(record.element, record.inner_xml, failed), bool(failed)

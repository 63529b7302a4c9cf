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
* :class:`Element`: a parsed element; prefixes stay in names (``ns:q``) unless
  ``ignoreNamespace``, ``xmlns`` declarations are no attributes.
* :func:`convert_row`: a record's values for a schema, and whether a value did not fit.

Invariants
----------
* Whitespace-only text between elements is layout, never a value; other text is trimmed
  when ``ignoreSurroundingSpaces`` is on.
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
from dstream.sql.io.strconv import ParseOptions, _value_parser

__all__ = ["XmlMalformedError", "XmlOptions", "Element", "convert_fields", "convert_row", "document_records",
           "parse_record", "record_texts", "text_of"]

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
class Element:
    """One element: its name, attributes, child elements and non-layout text pieces; ``start``
    and ``end`` locate its start tag and its end tag (the same for ``<a/>``) in ``source``."""

    __slots__ = ("name", "attrs", "children", "texts", "source", "start", "end")

    def __init__(self, name: str, attrs: dict[str, str], source: bytes, start: int) -> None:
        self.name = name
        self.attrs = attrs
        self.children: list[Element] = []
        self.texts: list[str] = []
        self.source = source
        self.start = start
        self.end = start

    def inner_xml(self) -> str:
        """The element's content as written (a string field of an element with children)."""
        content = _start_tag_end(self.source, self.start)
        return "" if content < 0 else self.source[content:self.end].decode("utf-8", errors="replace")

    def outer_xml(self) -> str:
        """The element as written, tags included (a malformed row's corrupt-record text)."""
        content = _start_tag_end(self.source, self.start)
        stop = self.source.find(b">", self.end) + 1 if content >= 0 else -content
        return self.source[self.start:stop].decode("utf-8", errors="replace")


def _build(data: bytes, row_tag: str | None, ignore_namespace: bool) -> list[Element]:
    """The rows of ``data`` parsed by expat: with a ``row_tag``, the outermost elements of that
    name (nothing outside them is kept); without one, the document element. Raises
    ``xml.parsers.expat.ExpatError`` for text that is no well-formed XML."""
    parser = xml.parsers.expat.ParserCreate()
    parser.buffer_text = True
    rows: list[Element] = []
    stack: list[Element] = []
    pieces: list[str] = []
    push, pop, keep = stack.append, stack.pop, pieces.append

    def local(name: str) -> str:
        return name.rsplit(":", 1)[-1] if ignore_namespace else name

    def text(piece: str) -> None:
        if stack:
            keep(piece)

    def start(name: str, attrs: dict[str, str]) -> None:
        # Closures, not methods: a file of rows calls this for every element.
        if ignore_namespace:
            name = local(name)
        if not stack and row_tag is not None and name != row_tag:
            return  # outside every row
        if pieces:
            joined = "".join(pieces)
            if joined.strip():
                stack[-1].texts.append(joined)
            pieces.clear()
        if attrs:
            attrs = {local(k): v for k, v in attrs.items() if k != "xmlns" and not k.startswith("xmlns:")}
        element = Element(name, attrs, data, parser.CurrentByteIndex)
        (stack[-1].children if stack else rows).append(element)
        push(element)

    def end(name: str) -> None:
        if stack:
            if pieces:
                joined = "".join(pieces)
                if joined.strip():
                    stack[-1].texts.append(joined)
                pieces.clear()
            pop().end = parser.CurrentByteIndex

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    parser.Parse(data, True)
    return rows


def parse_record(text: str, ignore_namespace: bool = False) -> Element | None:
    """The tree of one record (``None`` when it is no well-formed XML)."""
    try:
        rows = _build(text.encode("utf-8"), None, ignore_namespace)
    except xml.parsers.expat.ExpatError:
        return None
    return rows[0] if rows else None


_PROLOG = re.compile(r"\A\s*(<\?xml[^>]*\?>)?", re.S)
_WRAPPER = "dstream-document"


def document_records(text: str, opts: XmlOptions) -> Iterator[Element | str]:
    """The records of a file's ``text``: each row element, or for a malformed record its text.

    The document is parsed once (wrapped in one element, so rows need no common root); only
    when that fails are the rows cut out of the text and parsed one by one, so that one
    malformed record spoils only itself.
    """
    body = text[_PROLOG.match(text).end():]  # type: ignore[union-attr]
    if "<!DOCTYPE" not in body:
        try:
            rows = _build(f"<{_WRAPPER}>{body}</{_WRAPPER}>".encode(), opts.row_tag, opts.ignore_namespace)
        except xml.parsers.expat.ExpatError:
            pass
        else:
            yield from rows
            return
    for record in record_texts(text, opts.row_tag):
        element = parse_record(record, opts.ignore_namespace)
        yield record if element is None else element


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


def text_of(element: Element, opts: XmlOptions) -> str:
    """A leaf element's text (trimmed when ``ignoreSurroundingSpaces``)."""
    joined = "".join(element.texts)
    return joined.strip() if opts.trim else joined


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
    return _convert_text(text_of(element, opts), t, opts)


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

"""Spark's XML schema inference: the types of parsed records, and where two types meet.

What this module owns
---------------------
:func:`infer_records` (the struct type of a file's or a partition's records, and whether
one was malformed), :func:`infer_element` (one element) and :func:`merge_xml_types` (two
inferred types). A leaf's text is ``bigint``, ``double``, ``boolean``, ``date``
(``yyyy-MM-dd``), ``timestamp`` or ``string`` (an empty one unknown, ``string`` in the end);
attributes are fields named with the prefix; a child that repeats is an array; text beside
children or attributes is the value tag's field (an array when children split it); struct
fields are sorted by name.

Invariants
----------
* Types meet as Spark's ``compatibleType``: ``bigint`` and ``double`` at ``double``, ``date``
  and ``timestamp`` at ``timestamp``, a value and an array at the array of where they meet,
  a value and a struct with the value tag at that struct; anything else at ``string``.
* Inference works on hashable type descriptions (``"long"``, ``("array", t)``,
  ``("struct", ((name, t), ...))``): rows of one shape describe themselves with the same
  tuples, and where two descriptions meet is remembered, so a file of like rows costs one
  merge per row, a dictionary hit. Arrow types are made once, at the end.
"""

from __future__ import annotations

import datetime
import re
import xml.etree.ElementTree as ET  # noqa: N817 - the module's usual name
from collections.abc import Iterable
from typing import Any

import pyarrow as pa

from dstream.sql.io.strconv import _default_timestamp
from dstream.sql.io.xml_records import XmlOptions, XmlRecord, text_of, texts_of

__all__ = ["infer_element", "infer_records", "merge_xml_types"]

_LONG = re.compile(r"[+-]?[0-9]+")
_DOUBLE = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_BOOLEAN_TEXTS = frozenset({"true", "false"})
_ARROW = {"null": pa.null(), "long": pa.int64(), "double": pa.float64(), "boolean": pa.bool_(),
          "date": pa.date32(), "timestamp": pa.timestamp("us", tz="UTC"), "string": pa.string()}
_MEMO_LIMIT = 4096
_merged: dict[tuple[Any, Any, str], Any] = {}


def _text_type(text: str | None, opts: XmlOptions) -> str:
    if text is None or text == "":  # (the nullValue text is inferred as any text, as Spark does)
        return "null"
    if not opts.infer_types:
        return "string"
    value = text.strip()
    if _LONG.fullmatch(value):
        return "long" if -2**63 <= int(value) < 2**63 else "double"
    if _DOUBLE.fullmatch(value):
        return "double"
    if value.lower() in _BOOLEAN_TEXTS:
        return "boolean"
    if _DATE.fullmatch(value) and opts.parse.date_format in (None, "yyyy-MM-dd"):
        try:
            datetime.date.fromisoformat(value)
            return "date"
        except ValueError:
            pass
    if opts.parse.timestamp_format is None:
        try:
            if _default_timestamp(value, datetime.timezone.utc) is not None:  # type: ignore[arg-type]
                return "timestamp"
        except ValueError:
            pass
    return "string"


def _describe(element: ET.Element, opts: XmlOptions, top: bool = False) -> Any:
    attrs = {} if opts.exclude_attribute else element.attrib
    if not len(element) and not attrs and not top:
        return _text_type(text_of(element, opts), opts)
    fields: dict[str, Any] = {}
    for name, value in attrs.items():
        fields[opts.attribute_prefix + name] = _text_type(value.strip() if opts.trim else value, opts)
    repeated: set[str] = set()
    for child in element:
        t = _describe(child, opts)
        name = child.tag
        if name not in fields:
            fields[name] = t
        elif name in repeated:
            fields[name] = ("array", _merge(fields[name][1], t, opts.value_tag))
        else:
            repeated.add(name)
            fields[name] = ("array", _merge(fields[name], t, opts.value_tag))
    texts = [t.strip() if opts.trim else t for t in texts_of(element)]
    if len(texts) == 1:
        fields[opts.value_tag] = _merge(fields.get(opts.value_tag, "null"), _text_type(texts[0], opts),
                                        opts.value_tag)
    elif texts:
        merged: Any = "null"
        for text in texts:
            merged = _merge(merged, _text_type(text, opts), opts.value_tag)
        fields[opts.value_tag] = ("array", merged)
    return ("struct", tuple(sorted(fields.items())))


def _merge(a: Any, b: Any, value_tag: str) -> Any:
    if a == b:
        return a
    key = (a, b, value_tag)
    found = _merged.get(key)
    if found is None:
        if len(_merged) >= _MEMO_LIMIT:
            _merged.clear()
        found = _merged[key] = _meet(a, b, value_tag)
    return found


def _meet(a: Any, b: Any, value_tag: str) -> Any:
    if a == "null":
        return b
    if b == "null":
        return a
    kinds = {a if isinstance(a, str) else a[0], b if isinstance(b, str) else b[0]}
    if kinds == {"long", "double"}:
        return "double"
    if kinds == {"date", "timestamp"}:
        return "timestamp"
    if kinds == {"struct"}:
        fields = dict(a[1])
        for name, t in b[1]:
            fields[name] = _merge(fields[name], t, value_tag) if name in fields else t
        return ("struct", tuple(sorted(fields.items())))
    if kinds == {"array"}:
        return ("array", _merge(a[1], b[1], value_tag))
    if "array" in kinds:
        listed, other = (a, b) if not isinstance(a, str) and a[0] == "array" else (b, a)
        return ("array", _merge(listed[1], other, value_tag))
    if "struct" in kinds:
        struct, other = (a, b) if not isinstance(a, str) and a[0] == "struct" else (b, a)
        if any(name == value_tag for name, _ in struct[1]):
            return _merge(struct, ("struct", ((value_tag, other),)), value_tag)
    return "string"


def _arrow(t: Any) -> pa.DataType:
    if isinstance(t, str):
        return _ARROW[t]
    if t[0] == "array":
        return pa.list_(pa.field("element", _arrow(t[1])))
    return pa.struct([pa.field(name, _arrow(v)) for name, v in t[1]])


def _description(t: pa.DataType) -> Any:
    for name, arrow in _ARROW.items():
        if t == arrow:
            return name
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return ("array", _description(t.value_type))
    if pa.types.is_struct(t):
        return ("struct", tuple(sorted((f.name, _description(f.type)) for f in t)))
    return "string"


def infer_element(element: ET.Element, opts: XmlOptions, top: bool = False) -> pa.DataType:
    """The type of one element's value (a row's is always a struct, ``top``)."""
    return _arrow(_describe(element, opts, top))


def infer_records(records: Iterable[XmlRecord | str], opts: XmlOptions) -> tuple[pa.DataType, bool]:
    """The struct type ``records`` (rows, or a malformed record's text) infer, and whether one
    was malformed; merge results with :func:`merge_xml_types`."""
    merged: Any = ("struct", ())
    malformed = False
    for record in records:
        if isinstance(record, str):
            malformed = True
            continue
        merged = _merge(merged, _describe(record.element, opts, top=True), opts.value_tag)
    return _arrow(merged), malformed


def merge_xml_types(a: pa.DataType, b: pa.DataType, value_tag: str = "_VALUE") -> pa.DataType:
    """The type two inferred XML types meet at (see the module doc)."""
    return _arrow(_merge(_description(a), _description(b), value_tag))

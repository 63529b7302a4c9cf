"""``from_xml``, ``to_xml`` and ``schema_of_xml``: one XML element in a string column.

What this module owns
---------------------
* :class:`FromXml` parses each value as one element (its own tag is not checked) into
  ``schema``'s fields with the XML reader's rules: attributes by prefix, children by name,
  text by the value tag. Under ``PERMISSIVE`` (the default) text that is no well-formed
  XML, or a value that does not fit, gives null fields (the corrupt-record field, if the
  schema has one, holds the text); ``FAILFAST`` raises. A null string gives null.
* :class:`ToXml` writes a struct as one ``rowTag`` (``ROW``) element, as the XML writer
  writes a row, without a declaration; a null struct gives null.
* :func:`xml_schema_text` is ``schema_of_xml``: the DDL of the type the reader infers for
  the element (``STRUCT<a: BIGINT, b: ARRAY<STRING>>``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from ..types import DataType, StringType, StructType
from .base import EvalContext, Expression
from .cast import cast_to

__all__ = ["FromXml", "ToXml", "xml_schema_text"]


def _values(array: Any) -> list[Any]:
    return (array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array).to_pylist()


class FromXml(Expression):
    """``from_xml(s, schema, options)`` (see the module doc)."""

    def __init__(self, child: Expression, schema: StructType, options: dict[str, str] | None = None) -> None:
        self.children = (child,)
        self.schema = schema
        self.options = dict(options or {})

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return FromXml(children[0], self.schema, self.options)

    def data_type(self) -> DataType:
        return self.schema

    @property
    def nullable(self) -> bool:
        return True

    def sql(self) -> str:
        return f"from_xml({self.children[0].sql()})"

    def coerce(self) -> Expression:
        child = cast_to(self.children[0], StringType())
        return self if child is self.children[0] else FromXml(child, self.schema, self.options)

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - light import at run time only
        from ..io.csvfmt import malformed_error  # noqa: PLC0415 - the io package loads when used
        from ..io.xml_records import RowConverter, XmlOptions, parse_record  # noqa: PLC0415

        opts = XmlOptions.of({"timeZone": ctx.time_zone, **self.options}, reading=False)
        struct_type = to_arrow_type(self.schema)
        corrupt = opts.corrupt_column if struct_type.get_field_index(opts.corrupt_column) >= 0 else ""
        convert = RowConverter([f for f in struct_type if f.name != corrupt], opts)
        out: list[dict[str, Any] | None] = []
        for text in _values(self.children[0].eval(batch, ctx)):
            if text is None:
                out.append(None)
                continue
            row, bad = convert(parse_record(text, opts.ignore_namespace))  # (None: malformed)
            if bad and opts.mode == "FAILFAST":
                raise malformed_error(text)
            if corrupt:
                row[corrupt] = text if bad else None
            out.append(row)
        return pa.array(out, struct_type)

    def _options(self) -> Any:
        return (self.schema.simpleString(), tuple(sorted(self.options.items())))


class ToXml(Expression):
    """``to_xml(struct, options)`` (see the module doc)."""

    def __init__(self, child: Expression, options: dict[str, str] | None = None) -> None:
        self.children = (child,)
        self.options = dict(options or {})

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return ToXml(children[0], self.options)

    def data_type(self) -> DataType:
        return StringType()

    @property
    def nullable(self) -> bool:
        return True

    def sql(self) -> str:
        return f"to_xml({self.children[0].sql()})"

    def check_input_types(self) -> None:
        from .checks import mismatch, quoted_type  # noqa: PLC0415 - light import

        dt = self.children[0].data_type()
        if not isinstance(dt, StructType):
            raise mismatch(self, "UNEXPECTED_INPUT_TYPE", f'the parameter requires the "STRUCT" type, however '
                           f'"{self.children[0].sql()}" has the type {quoted_type(dt)}')

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        from ..io.xml_records import XmlOptions  # noqa: PLC0415 - the io package loads when used
        from ..io.xmlfmt import element_text  # noqa: PLC0415

        opts = XmlOptions.of({"timeZone": ctx.time_zone, **self.options}, reading=False)
        structs = self.children[0].eval(batch, ctx)
        struct_type = structs.type
        return pa.array([None if v is None else element_text(opts.row_tag, v, struct_type, opts)
                         for v in _values(structs)], pa.string())

    def _options(self) -> Any:
        return tuple(sorted(self.options.items()))


def xml_schema_text(record: str, options: dict[str, str] | None = None) -> str:
    """``schema_of_xml(record)``: the DDL of the element's inferred type."""
    from ..arrow_convert import from_arrow_type  # noqa: PLC0415 - light import
    from ..errors import AnalysisException  # noqa: PLC0415 - the error path only
    from ..io.jsonfmt import nulls_as_strings  # noqa: PLC0415 - the io package loads when used
    from ..io.xml_records import XmlOptions  # noqa: PLC0415
    from ..io.xmlfmt import infer_xml_record  # noqa: PLC0415
    from ..schema_tree import type_sql  # noqa: PLC0415

    found, _ = infer_xml_record(record, XmlOptions.of(dict(options or {}), reading=False))
    if found is None:
        raise AnalysisException(
            f"schema_of_xml needs one well-formed XML element as a string literal, got {record!r}. Pass a sample "
            "record, e.g. schema_of_xml(lit('<p><a>1</a></p>')).", "INVALID_XML_SCHEMA", {"xml": record})
    return type_sql(from_arrow_type(nulls_as_strings(found)))

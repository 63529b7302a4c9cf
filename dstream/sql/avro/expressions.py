"""``from_avro`` and ``to_avro`` as expressions: a column of Avro binaries to values, and back.

What this module owns
---------------------
* :class:`FromAvro`: each binary decoded with the given schema into the Spark type
  :func:`.schema.to_spark_type` gives it (null for null); with the option ``avroSchema``,
  read as that schema by Avro's resolution rules (:mod:`.resolve`), into its type. ``mode`` ``FAILFAST`` (the
  default) fails the query on bytes the schema cannot read, naming the option that
  tolerates them; ``PERMISSIVE`` (and any other mode but ``DROPMALFORMED``, which is
  refused, as Spark refuses it) gives null, or a struct of nulls when the result is a
  struct.
* :class:`ToAvro`: each value encoded with the given schema, or without one with the
  schema Spark derives from the column's type (:func:`.schema.from_spark_type`); null
  stays null. A given schema must fit the column's type as Spark requires: the same
  Avro type for each Spark type (INT only as ``int``, BIGINT only as ``long``...), a
  record with exactly the struct's fields, matched by name, an enum or string for a
  STRING; a union of one type with ``null``, or of several types for a struct of one
  nullable member per type (the first member set is written). A misfit is refused when
  the expression is made.

Invariants
----------
* Schemas are parsed and checked once, when the expression is made; a task only decodes
  or encodes.
* The generated names are Spark's: ``from_avro(v, <schema>, NULL)`` (the options as
  ``map(k, v, ...)``), ``to_avro(v, NULL)`` or ``to_avro(v, <schema>)``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from ..arrow_convert import to_arrow_type
from ..errors import AnalysisException, SparkRuntimeException
from ..expressions.base import EvalContext, Expression
from ..expressions.checks import mismatch, quoted_type
from ..types import (
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
    NullType,
    ShortType,
    StringType,
    StructType,
    TimestampNTZType,
    TimestampType,
)
from .codec import MalformedAvroError, decode, encode
from .resolve import decode_as
from .schema import Node, from_spark_type, parse, to_spark_type, widened

__all__ = ["FromAvro", "ToAvro", "check_fits"]

_FAILFAST = "FAILFAST"


class FromAvro(Expression):
    """``from_avro(data, jsonFormatSchema, options)`` (see the module doc)."""

    def __init__(self, child: Expression, schema: str, options: Mapping[str, str] | None = None) -> None:
        self.children = (child,)
        self.schema = schema
        self.options = dict(options or {})
        self.mode = str(self.options.get("mode", _FAILFAST)).upper()
        if self.mode == "DROPMALFORMED":
            raise AnalysisException(
                "The function `from_avro` doesn't support the DROPMALFORMED mode. Acceptable modes are PERMISSIVE "
                "and FAILFAST.", "PARSE_MODE_UNSUPPORTED", {"funcName": "`from_avro`", "mode": "DROPMALFORMED"})
        self.node = parse(schema)
        # With avroSchema the data (written with `schema`) is read as that evolved schema.
        self.reader = parse(self.options["avroSchema"]) if "avroSchema" in self.options else None
        self.result_type, _ = to_spark_type(self.reader or self.node)

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return FromAvro(children[0], self.schema, self.options)

    def data_type(self) -> DataType:
        return self.result_type

    @property
    def nullable(self) -> bool:
        return True

    def _options(self) -> Any:
        return (self.schema, tuple(sorted(self.options.items())))

    def sql(self) -> str:
        shown = "NULL" if not self.options else \
            "map(" + ", ".join(f"{k}, {v}" for k, v in self.options.items()) + ")"
        return f"from_avro({self.children[0].sql()}, {self.schema}, {shown})"

    def check_input_types(self) -> None:
        dt = self.children[0].data_type()
        if not isinstance(dt, BinaryType | NullType):
            raise mismatch(self, "UNEXPECTED_INPUT_TYPE",
                           f'The first parameter requires the "BINARY" type, however "{self.children[0].sql()}" '
                           f"has the type {quoted_type(dt)}")

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        node, reader, failfast = self.node, self.reader, self.mode == _FAILFAST
        malformed = _malformed_value(self.result_type)
        out: list[Any] = []
        for data in self.children[0].eval(batch, ctx).to_pylist():
            if data is None:
                out.append(None)
                continue
            try:
                out.append(decode(data, node) if reader is None else decode_as(data, node, reader))
            except MalformedAvroError as exc:
                if failfast:
                    raise SparkRuntimeException(
                        "Malformed records are detected in record parsing. Current parse Mode: FAILFAST. To process "
                        f"malformed records as null result, try setting the option 'mode' as 'PERMISSIVE'. ({exc})",
                        "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION",
                        {"badRecord": repr(bytes(data)[:64]), "failFastMode": _FAILFAST}) from None
                out.append(malformed)
        return pa.array(out, to_arrow_type(self.result_type))


def _malformed_value(dt: DataType) -> Any:
    """What ``PERMISSIVE`` gives for bytes it cannot read: a struct of nulls, else null (Spark's)."""
    return {f.name: None for f in dt.fields} if isinstance(dt, StructType) else None


class ToAvro(Expression):
    """``to_avro(data, jsonFormatSchema)`` (see the module doc)."""

    def __init__(self, child: Expression, schema: str | None = None) -> None:
        self.children = (child,)
        self.schema = schema or None
        self._node: Node | None = None

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return ToAvro(children[0], self.schema)

    def data_type(self) -> DataType:
        return BinaryType()

    @property
    def nullable(self) -> bool:
        return self.children[0].nullable

    def _options(self) -> Any:
        return (self.schema,)

    def sql(self) -> str:
        return f"to_avro({self.children[0].sql()}, {self.schema if self.schema is not None else 'NULL'})"

    @property
    def node(self) -> Node:
        """The schema values are written with (given, or derived from the input's type)."""
        if self._node is None:
            child = self.children[0]
            self._node = from_spark_type(child.data_type(), child.nullable) if self.schema is None else \
                parse(self.schema)
        return self._node

    def check_input_types(self) -> None:
        child = self.children[0]
        if self.schema is None:
            self._node = None
            self.node  # noqa: B018 - deriving the schema refuses a type Avro cannot hold
            return
        self._node = parse(self.schema)
        check_fits(child.data_type(), self._node)

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        node = self.node
        out: list[bytes | None] = []
        for value in self.children[0].eval(batch, ctx).to_pylist():
            if value is None:
                out.append(None)
                continue
            try:
                out.append(encode(value, node))
            except MalformedAvroError as exc:
                raise SparkRuntimeException(
                    f"Cannot write the value to Avro with the schema {node.to_json_text()}: {exc}.",
                    "AVRO_INCOMPATIBLE_VALUE", {"schema": node.to_json_text()}) from None
        return pa.array(out, pa.binary())


# Spark type -> the Avro kinds it may be written as (Spark's AvroSerializer pairs).
_FITS: dict[type, tuple[str, ...]] = {
    NullType: ("null",), BooleanType: ("boolean",), ByteType: ("int",), ShortType: ("int",),
    IntegerType: ("int",), LongType: ("long",), FloatType: ("float",), DoubleType: ("double",),
    StringType: ("string", "enum"), BinaryType: ("bytes", "fixed"), DateType: ("int",),
    TimestampType: ("long",), TimestampNTZType: ("long",), DecimalType: ("bytes", "fixed"),
}


def _fits(dt: DataType, node: Node) -> bool:
    """Whether Spark writes ``dt`` with the Avro type ``node`` (see the module doc)."""
    if node.kind == "union":
        present = [b for b in node.branches if b.kind != "null"]
        if len(present) > 1 and not widened(present):
            # A union of several types takes a struct of one nullable member per type, in order.
            return isinstance(dt, StructType) and len(dt.fields) == len(present) and \
                all(f.nullable and _fits(f.dataType, b) for f, b in zip(dt.fields, present))
        if not present:
            return isinstance(dt, NullType)
        node = present[0] if len(present) == 1 else next(b for b in present if _fits(dt, b)) \
            if any(_fits(dt, b) for b in present) else present[0]
    kinds = _FITS.get(type(dt))
    if kinds is not None:
        decimal_ok = node.kind not in ("bytes", "fixed") or isinstance(dt, DecimalType) == (node.logical == "decimal")
        return node.kind in kinds and decimal_ok
    if isinstance(dt, ArrayType) and node.kind == "array":
        assert node.items is not None
        return _fits(dt.elementType, node.items)
    if isinstance(dt, MapType) and node.kind == "map" and isinstance(dt.keyType, StringType):
        assert node.items is not None
        return _fits(dt.valueType, node.items)
    if isinstance(dt, StructType) and node.kind == "record":
        avro_fields = dict(node.fields)
        return sorted(avro_fields) == sorted(f.name for f in dt.fields) and \
            all(_fits(f.dataType, avro_fields[f.name]) for f in dt.fields)
    return False


def check_fits(dt: DataType, node: Node) -> None:
    """Refuse ``node`` as the Avro schema of values of ``dt`` unless Spark writes ``dt`` with it."""
    if not _fits(dt, node):
        raise _incompatible(dt, node)


def _incompatible(dt: DataType, node: Node) -> AnalysisException:
    shown = quoted_type(dt)[1:-1]
    return AnalysisException(
        f"Cannot convert SQL type {shown} to Avro type {node.to_json_text()}. Give a schema whose types are those "
        "Spark writes the column's types as (INT as int, BIGINT as long, STRING as string or enum, a struct as a "
        "record of the same field names, a nullable value as a union with null), or cast the column first.",
        "AVRO_INCOMPATIBLE_SCHEMA", {"sqlType": quoted_type(dt), "avroType": node.to_json_text()})

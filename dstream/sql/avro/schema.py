"""Avro schemas: parsed from their JSON, and mapped to and from Spark's types as Spark maps them.

What this module owns
---------------------
* :func:`parse`: an Avro schema in JSON (a string) as a tree of :class:`Node` s. Named
  types (records, enums, fixed) resolve by full name, relative names against the
  enclosing namespace, as the Avro specification says.
* :func:`to_spark_type`: the Spark type of a schema (Spark's ``SchemaConverters.toSqlType``):
  ``int`` INT (``date``: DATE), ``long`` BIGINT (``timestamp-*``: TIMESTAMP,
  ``local-timestamp-*``: TIMESTAMP_NTZ), ``bytes``/``fixed`` BINARY (``decimal``:
  DECIMAL), ``string`` and ``enum`` STRING, records STRUCT, arrays ARRAY, maps MAP with
  STRING keys. A union with ``null`` is its other branch, nullable; ``int`` with ``long``
  is BIGINT, ``float`` with ``double`` DOUBLE; other unions are a STRUCT of ``member0``,
  ``member1``... (nullable), one per non-null branch.
* :func:`from_spark_type`: the Avro schema ``to_avro`` writes a Spark type with when no
  schema is given (``SchemaConverters.toAvroType``): a nullable type is the union
  ``[type, "null"]``; structs are records named after their field, the top one
  ``topLevelRecord``; DECIMAL is a ``fixed`` of the bytes its precision needs.

Invariants
----------
* A schema that refers to itself (a recursive record) is refused: a Spark type cannot
  hold it.
* Errors name the schema's problem and the fix; they are ``AnalysisException`` s, raised
  when the expression is made.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from ..errors import AnalysisException
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
    StructField,
    StructType,
    TimestampNTZType,
    TimestampType,
)

__all__ = ["Node", "from_spark_type", "members", "parse", "to_spark_type", "widened"]

PRIMITIVES = frozenset({"null", "boolean", "int", "long", "float", "double", "bytes", "string"})


@dataclass(eq=False)
class Node:
    """One Avro type.

    ``kind`` is a primitive's name or ``record``, ``enum``, ``fixed``, ``array``, ``map``,
    ``union``; ``logical`` the logical type, if any (``decimal``, ``date``...).
    """

    kind: str
    logical: str | None = None
    name: str = ""  # full name of a named type
    fields: list[tuple[str, Node]] = field(default_factory=list)  # record
    symbols: list[str] = field(default_factory=list)  # enum
    size: int = 0  # fixed
    precision: int = 0  # decimal
    scale: int = 0  # decimal
    items: Node | None = None  # array items, map values
    branches: list[Node] = field(default_factory=list)  # union
    defaults: dict[str, Any] = field(default_factory=dict)  # record: field name -> its JSON default
    default: Any = None  # enum: the symbol a reader takes for a symbol it does not know

    def to_json_text(self) -> str:
        """The schema as compact Avro JSON (what a container file's header and Spark's messages show)."""
        return json.dumps(self.to_json(), separators=(",", ":"))

    def to_json(self, seen: set[str] | None = None) -> Any:
        """The schema as Avro JSON (a named type written in full once, then by name)."""
        seen = set() if seen is None else seen
        if self.kind in PRIMITIVES:
            return self.kind if self.logical is None else {"type": self.kind, "logicalType": self.logical}
        if self.kind == "union":
            return [b.to_json(seen) for b in self.branches]
        if self.kind == "array":
            assert self.items is not None
            return {"type": "array", "items": self.items.to_json(seen)}
        if self.kind == "map":
            assert self.items is not None
            return {"type": "map", "values": self.items.to_json(seen)}
        if self.name in seen:
            return self.name
        seen.add(self.name)
        namespace, _, short = self.name.rpartition(".")
        out: dict[str, Any] = {"type": self.kind, "name": short}
        if namespace:
            out["namespace"] = namespace
        if self.kind == "record":
            out["fields"] = [{"name": n, "type": t.to_json(seen)} for n, t in self.fields]
        elif self.kind == "enum":
            out["symbols"] = list(self.symbols)
        else:
            out["size"] = self.size
            if self.logical == "decimal":
                out.update(logicalType="decimal", precision=self.precision, scale=self.scale)
        return out


def _invalid(text: str, reason: str) -> AnalysisException:
    shown = text if len(text) <= 200 else text[:200] + "..."
    return AnalysisException(
        f"The Avro schema {shown} is invalid: {reason}. Give the schema as Avro's JSON (see the Avro "
        "specification's \"Schema Declaration\").", "AVRO_INVALID_SCHEMA", {"schema": shown})


def parse(text: str) -> Node:
    """The schema ``text`` (Avro JSON) as a tree (see the module doc)."""
    try:
        document = json.loads(text)
    except (TypeError, ValueError) as exc:
        raise _invalid(str(text), f"it is not JSON ({exc})") from None
    names: dict[str, Node] = {}
    try:
        return _parse(document, "", names)
    except ValueError as exc:
        raise _invalid(text, str(exc)) from None


def _full_name(name: str, namespace: str) -> str:
    return name if "." in name or not namespace else f"{namespace}.{name}"


def _parse(doc: Any, namespace: str, names: dict[str, Node]) -> Node:
    if isinstance(doc, str):
        if doc in PRIMITIVES:
            return Node(doc)
        for candidate in (_full_name(doc, namespace), doc):
            if candidate in names:
                return names[candidate]
        raise ValueError(f'"{doc}" is not a defined name')
    if isinstance(doc, list):
        return Node("union", branches=[_parse(b, namespace, names) for b in doc])
    if not isinstance(doc, dict) or "type" not in doc:
        raise ValueError(f"{json.dumps(doc)} is no type: a type is a name, a list (a union) or an object with \"type\"")
    kind = doc["type"]
    if not isinstance(kind, str):
        return _parse(kind, namespace, names)  # {"type": {...}} or {"type": [...]}
    logical = doc.get("logicalType")
    if kind in PRIMITIVES:
        node = Node(kind, logical if isinstance(logical, str) else None)
        if node.logical == "decimal":
            _decimal_parts(node, doc)
        return node
    if kind in ("array", "map"):
        key = "items" if kind == "array" else "values"
        if key not in doc:
            raise ValueError(f'an {kind} needs "{key}"')
        return Node(kind, items=_parse(doc[key], namespace, names))
    if kind not in ("record", "error", "enum", "fixed"):
        return _parse(kind, namespace, names)  # a name given as {"type": "name"}
    name = doc.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError(f'a {kind} needs a "name"')
    given = doc.get("namespace")
    space = given if isinstance(given, str) else namespace
    full = _full_name(name, space)
    if full in names:
        raise ValueError(f'the name "{full}" is defined twice')
    node = Node("record" if kind == "error" else kind, name=full)
    names[full] = node
    inner = full.rpartition(".")[0]
    if node.kind == "record":
        fields = doc.get("fields")
        if not isinstance(fields, list):
            raise ValueError(f'the record "{full}" needs a list of "fields"')
        for f in fields:
            if not isinstance(f, dict) or not isinstance(f.get("name"), str) or "type" not in f:
                raise ValueError(f'a field of "{full}" needs a "name" and a "type"')
            node.fields.append((f["name"], _parse(f["type"], inner, names)))
            if "default" in f:
                node.defaults[f["name"]] = f["default"]
    elif node.kind == "enum":
        symbols = doc.get("symbols")
        if not isinstance(symbols, list) or not all(isinstance(s, str) for s in symbols):
            raise ValueError(f'the enum "{full}" needs a list of "symbols"')
        node.symbols = list(symbols)
        node.default = doc.get("default") if doc.get("default") in node.symbols else None
    else:
        size = doc.get("size")
        if not isinstance(size, int) or size < 0:
            raise ValueError(f'the fixed "{full}" needs a "size"')
        node.size = size
        node.logical = logical if isinstance(logical, str) else None
        if node.logical == "decimal":
            _decimal_parts(node, doc)
    return node


def _decimal_parts(node: Node, doc: dict[str, Any]) -> None:
    precision, scale = doc.get("precision"), doc.get("scale", 0)
    if not isinstance(precision, int) or not isinstance(scale, int) or not 0 <= scale <= precision:
        node.logical = None  # Avro ignores an invalid logical type: the plain type stays
        return
    node.precision, node.scale = precision, scale


def to_spark_type(node: Node) -> tuple[DataType, bool]:
    """The Spark type of ``node`` and whether it is nullable (a union with ``null``)."""
    return _spark(node, set())


def _spark(node: Node, path: set[str]) -> tuple[DataType, bool]:
    kind, logical = node.kind, node.logical
    if kind == "null":
        return NullType(), True
    if kind == "boolean":
        return BooleanType(), False
    if kind == "int":
        return (DateType() if logical == "date" else IntegerType()), False
    if kind == "long":
        if logical in ("timestamp-millis", "timestamp-micros"):
            return TimestampType(), False
        if logical in ("local-timestamp-millis", "local-timestamp-micros"):
            return TimestampNTZType(), False
        return LongType(), False
    if kind == "float":
        return FloatType(), False
    if kind == "double":
        return DoubleType(), False
    if kind in ("bytes", "fixed"):
        if logical == "decimal" and node.precision <= 38:
            return DecimalType(node.precision, node.scale), False
        return BinaryType(), False
    if kind in ("string", "enum"):
        return StringType(), False
    if kind == "array":
        assert node.items is not None
        item, item_nullable = _spark(node.items, path)
        return ArrayType(item, item_nullable), False
    if kind == "map":
        assert node.items is not None
        value, value_nullable = _spark(node.items, path)
        return MapType(StringType(), value, value_nullable), False
    if kind == "record":
        if node.name in path:
            raise AnalysisException(
                f"Found recursive reference in Avro schema, which can not be processed by Spark: {node.name}. "
                "A Spark type cannot nest without end: give a schema whose records do not contain themselves.",
                "AVRO_RECURSIVE_SCHEMA", {"name": node.name})
        inner = path | {node.name}
        fields = []
        for name, child in node.fields:
            dt, nullable = _spark(child, inner)
            fields.append(StructField(name, dt, nullable))
        return StructType(fields), False
    return _union(node, path)


def _union(node: Node, path: set[str]) -> tuple[DataType, bool]:
    present = [b for b in node.branches if b.kind != "null"]
    nullable = len(present) < len(node.branches)
    if not present:
        return NullType(), True
    if len(present) == 1:
        return _spark(present[0], path)[0], nullable
    if widened(present):
        return (LongType() if present[0].kind in ("int", "long") else DoubleType()), nullable
    members = [StructField(f"member{i}", _spark(b, path)[0], True) for i, b in enumerate(present)]
    return StructType(members), nullable


def widened(present: list[Node]) -> bool:
    """Whether a union's non-null branches read as one type (``int``/``long`` as BIGINT, ``float``/``double``
    as DOUBLE) rather than a struct of members."""
    kinds = {b.kind for b in present if b.logical is None}
    return len(present) == 2 and kinds in ({"int", "long"}, {"float", "double"})


def members(present: list[Node], chosen: Node, value: Any) -> dict[str, Any]:
    """The struct a union of several types is read as: ``value`` in the member of the ``chosen`` branch."""
    return {f"member{i}": (value if b is chosen else None) for i, b in enumerate(present)}


def from_spark_type(dt: DataType, nullable: bool, name: str = "topLevelRecord", namespace: str = "") -> Node:
    """The Avro schema Spark writes ``dt`` with (see the module doc)."""
    node = _avro(dt, name, namespace)
    return Node("union", branches=[node, Node("null")]) if nullable else node


def _avro(dt: DataType, name: str, namespace: str) -> Node:
    if isinstance(dt, BooleanType):
        return Node("boolean")
    if isinstance(dt, ByteType | ShortType | IntegerType):
        return Node("int")
    if isinstance(dt, LongType):
        return Node("long")
    if isinstance(dt, DateType):
        return Node("int", "date")
    if isinstance(dt, TimestampType):
        return Node("long", "timestamp-micros")
    if isinstance(dt, TimestampNTZType):
        return Node("long", "local-timestamp-micros")
    if isinstance(dt, FloatType):
        return Node("float")
    if isinstance(dt, DoubleType):
        return Node("double")
    if isinstance(dt, DecimalType):
        size = min_bytes_for_precision(dt.precision)
        # Spark names the fixed after its field, ".fixed" added: no clash with a record of that name.
        return Node("fixed", "decimal", name=f"{namespace}.{name}.fixed" if namespace else f"{name}.fixed",
                    size=size, precision=dt.precision, scale=dt.scale)
    if isinstance(dt, BinaryType):
        return Node("bytes")
    if isinstance(dt, StringType):
        return Node("string")
    if isinstance(dt, NullType):
        return Node("null")
    if isinstance(dt, ArrayType):
        return Node("array", items=from_spark_type(dt.elementType, dt.containsNull, name, namespace))
    if isinstance(dt, MapType):
        if not isinstance(dt.keyType, StringType):
            raise AnalysisException(
                f"Cannot convert SQL type {dt.simpleString()} to Avro: Avro map keys are strings. Cast the keys "
                "to STRING first (transform_keys(m, (k, v) -> CAST(k AS STRING))).", "AVRO_UNSUPPORTED_TYPE",
                {"type": dt.simpleString()})
        return Node("map", items=from_spark_type(dt.valueType, dt.valueContainsNull, name, namespace))
    if isinstance(dt, StructType):
        inner = f"{namespace}.{name}" if namespace else name
        node = Node("record", name=_full_name(name, namespace))
        node.fields = [(f.name, from_spark_type(f.dataType, f.nullable, f.name, inner)) for f in dt.fields]
        return node
    raise AnalysisException(
        f"Cannot convert SQL type {dt.simpleString()} to Avro: Avro has no such type. Convert the column "
        "(to a STRING, or its parts) before to_avro.", "AVRO_UNSUPPORTED_TYPE", {"type": dt.simpleString()})


def min_bytes_for_precision(precision: int) -> int:
    """The fewest bytes of a two's complement integer holding every unscaled value of ``precision`` digits."""
    size = 1
    while math.pow(2.0, 8 * size - 1) < math.pow(10.0, precision):
        size += 1
    return size

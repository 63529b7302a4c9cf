"""Schemas as text: printSchema's tree, and Spark's SQL/DDL text of types and fields.

What this module owns
---------------------
:func:`tree_string`, the body of ``StructType.treeString`` (``root``, then ``|-- name:
type (nullable = true)`` lines, nested types indented); :func:`type_sql`, Spark's
``DataType.sql`` (``BIGINT``, ``DECIMAL(10,2)``, ``STRUCT<a: INT NOT NULL>``), and
:func:`field_sql`, a field's DDL (``StructType.toDDL``). They read the types by their
``typeName()`` and attributes (``fields``, ``elementType``, ``keyType``...), so they need
no import of :mod:`dstream.sql.types`, which imports them.

Invariants
----------
* Control characters in field names are escaped (``\\n``), so each field stays on one
  line, as Spark prints them.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["field_sql", "tree_string", "type_sql"]

_META_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\f": "\\f", "\b": "\\b", "\v": "\\v", "\a": "\\a"}


def _escape_meta(name: str) -> str:
    return "".join(_META_ESCAPES.get(ch, ch) for ch in name)


def tree_string(schema: Any, level: int | None = None) -> str:
    """The lines of ``schema`` (a StructType) down to ``level`` (all when ``None`` or not positive)."""
    depth = level if level is not None and level > 0 else 1 << 31
    out = ["root\n"]
    for field in schema.fields:
        _field_lines(field, " |", out, depth)
    return "".join(out)


def _field_lines(field: Any, prefix: str, out: list[str], depth: int) -> None:
    if depth <= 0:
        return
    out.append(f"{prefix}-- {_escape_meta(field.name)}: {field.dataType._tree_name()} "
               f"(nullable = {str(field.nullable).lower()})\n")
    _nested_lines(field.dataType, prefix + "    |", out, depth - 1)


def _nested_lines(dt: Any, prefix: str, out: list[str], depth: int) -> None:
    if depth <= 0:
        return
    kind = dt.typeName()
    if kind == "struct":
        for field in dt.fields:
            _field_lines(field, prefix, out, depth)
    elif kind == "array":
        out.append(f"{prefix}-- element: {dt.elementType._tree_name()} "
                   f"(containsNull = {str(dt.containsNull).lower()})\n")
        _nested_lines(dt.elementType, prefix + "    |", out, depth - 1)
    elif kind == "map":
        out.append(f"{prefix}-- key: {dt.keyType._tree_name()}\n")
        _nested_lines(dt.keyType, prefix + "    |", out, depth - 1)
        out.append(f"{prefix}-- value: {dt.valueType._tree_name()} "
                   f"(valueContainsNull = {str(dt.valueContainsNull).lower()})\n")
        _nested_lines(dt.valueType, prefix + "    |", out, depth - 1)


def type_sql(dt: Any) -> str:
    """Spark's SQL text of a type (``DataType.sql``): ``INT``, ``DECIMAL(10,2)``, ``STRUCT<a: INT NOT NULL>``."""
    kind = dt.typeName()
    if kind == "decimal":
        return f"DECIMAL({dt.precision},{dt.scale})"
    if kind == "array":
        return f"ARRAY<{type_sql(dt.elementType)}>"
    if kind == "map":
        return f"MAP<{type_sql(dt.keyType)}, {type_sql(dt.valueType)}>"
    if kind == "struct":
        return "STRUCT<" + ", ".join(field_sql(f, ": ") for f in dt.fields) + ">"
    return str(dt.simpleString()).upper()  # Spark's names: BIGINT, TINYINT, VOID, TIMESTAMP_NTZ...


def field_sql(field: Any, sep: str = " ") -> str:
    """A field as Spark's DDL writes it: ``name TYPE [NOT NULL] [COMMENT '...']``, ``sep`` after the name."""
    name = field.name if re.fullmatch(r"[A-Za-z_]\w*", field.name, re.ASCII) else f"`{field.name.replace('`', '``')}`"
    comment = (field.metadata or {}).get("comment")
    quoted = "" if comment is None else " COMMENT '" + str(comment).replace("\\", "\\\\").replace("'", "\\'") + "'"
    return f"{name}{sep}{type_sql(field.dataType)}" + ("" if field.nullable else " NOT NULL") + quoted

"""``schema_of_variant`` and ``schema_of_variant_agg``: the SQL type a variant's values have.

What this module owns
---------------------
:func:`schema_of` describes one variant as a type tree: ``VOID`` for a variant null,
``BIGINT`` for every integer width, ``DOUBLE``, ``FLOAT``, ``DECIMAL(p,s)`` of the digits
without trailing zeros (``1.50`` is ``DECIMAL(2,1)``, ``100.0`` ``DECIMAL(3,0)``),
``STRING``, ``BOOLEAN``, ``DATE``, ``TIMESTAMP``, ``TIMESTAMP_NTZ``, ``BINARY``,
``ARRAY<t>`` with the elements' types merged, ``OBJECT<k: t, ...>`` in key order.

:func:`merge` is Spark's merge of two such types: equal types stay, ``VOID`` gives way,
integers and decimals widen to a decimal holding both (a double past 38 digits), numbers
meet floats and doubles as the wider of them, dates meet timestamps as timestamps, arrays
merge their elements, objects their fields by name; anything else is ``VARIANT``.

:func:`type_text` prints a tree as Spark does (``OBJECT<a: BIGINT, `a b`: STRING>``).

Invariants
----------
* A type tree is a tuple: ``(name,)``, ``("DECIMAL", p, s)``, ``("ARRAY", t)`` or
  ``("OBJECT", ((key, t), ...))`` with keys in Java's string order.
"""

from __future__ import annotations

import re
from typing import Any

from . import format as vf

__all__ = ["schema_of", "merge", "type_text", "VOID"]

VOID = ("VOID",)
_VARIANT = ("VARIANT",)
_BIGINT = ("BIGINT",)
_NAMES = {vf.NULL: "VOID", vf.TRUE: "BOOLEAN", vf.FALSE: "BOOLEAN", vf.DOUBLE: "DOUBLE", vf.FLOAT: "FLOAT",
          vf.DATE: "DATE", vf.TIMESTAMP: "TIMESTAMP", vf.TIMESTAMP_NTZ: "TIMESTAMP_NTZ", vf.BINARY: "BINARY",
          vf.LONG_STR: "STRING", vf.UUID: "UUID", vf.INT1: "BIGINT", vf.INT2: "BIGINT", vf.INT4: "BIGINT",
          vf.INT8: "BIGINT"}
_PLAIN_NAME = re.compile(r"[a-zA-Z0-9_]+")
_TIMES = {"DATE": 0, "TIMESTAMP_NTZ": 1, "TIMESTAMP": 2}


def schema_of(value: bytes, metadata: bytes) -> Any:
    """The type tree of a variant (see the module doc)."""
    return _schema(value, vf.metadata_keys(metadata), 0)


def _schema(value: bytes, keys: list[str], pos: int) -> Any:
    kind = vf.scalar_kind(value, pos)
    if kind == -2:
        fields = {}
        for key_id, at in vf.object_fields(value, pos):
            if key_id >= len(keys):
                raise vf.malformed()
            fields[keys[key_id]] = _schema(value, keys, at)
        return ("OBJECT", tuple(fields.items()))
    if kind == -3:
        element: Any = VOID
        for at in vf.array_elements(value, pos):
            element = merge(element, _schema(value, keys, at))
        return ("ARRAY", element)
    if kind in (vf.DECIMAL4, vf.DECIMAL8, vf.DECIMAL16):
        _, precision, scale = vf.stripped_decimal(value, pos)
        return ("DECIMAL", precision, scale)
    name = _NAMES.get(kind)
    if name is None:
        raise vf.malformed()
    return (name,)


def _decimal_of(t: Any) -> tuple[int, int] | None:
    if t == _BIGINT:
        return 20, 0
    return (t[1], t[2]) if t[0] == "DECIMAL" else None


def merge(a: Any, b: Any) -> Any:
    """Spark's merge of two variant types (see the module doc)."""
    if a == b:
        return a
    if a == VOID:
        return b
    if b == VOID:
        return a
    da, db = _decimal_of(a), _decimal_of(b)
    if da is not None and db is not None:
        scale = max(da[1], db[1])
        whole = max(da[0] - da[1], db[0] - db[1])
        return ("DOUBLE",) if whole + scale > 38 else ("DECIMAL", whole + scale, scale)
    names = {a[0], b[0]}
    if names <= {"BIGINT", "DECIMAL", "FLOAT", "DOUBLE"}:
        return ("FLOAT",) if names == {"BIGINT", "FLOAT"} else ("DOUBLE",)
    if names <= set(_TIMES):
        return max(a, b, key=lambda t: _TIMES[t[0]])
    if a[0] == b[0] == "ARRAY":
        return ("ARRAY", merge(a[1], b[1]))
    if a[0] == b[0] == "OBJECT":
        fields = dict(a[1])
        for key, t in b[1]:
            fields[key] = merge(fields[key], t) if key in fields else t
        ordered = sorted(fields.items(), key=lambda kv: vf.java_order(kv[0]))
        return ("OBJECT", tuple(ordered))
    return _VARIANT


def _quoted(name: str) -> str:
    if _PLAIN_NAME.fullmatch(name) and not name.isdigit():
        return name
    return "`" + name.replace("`", "``") + "`"


def type_text(t: Any) -> str:
    """The tree as Spark prints it: ``ARRAY<DECIMAL(21,1)>``, ``OBJECT<a: BIGINT, `a b`: VOID>``."""
    if t[0] == "DECIMAL":
        return f"DECIMAL({t[1]},{t[2]})"
    if t[0] == "ARRAY":
        return f"ARRAY<{type_text(t[1])}>"
    if t[0] == "OBJECT":
        return "OBJECT<" + ", ".join(f"{_quoted(k)}: {type_text(v)}" for k, v in t[1]) + ">"
    return str(t[0])

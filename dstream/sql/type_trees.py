"""Spark types from the trees the DDL parser makes (``_parse_datatype_string``, ``fromDDL``) and from JSON.

What this module owns
---------------------
:func:`type_from_tree`: a tree of :mod:`dstream.sql.ddl` as the ``DataType`` it describes;
decimal precision and scale are checked here, with Spark's errors. :func:`type_from_json`:
the type of a ``jsonValue()`` (``DataType.fromJson``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from dstream.sql import ddl
from dstream.sql.errors import ParseException, PySparkValueError

__all__ = ["holds_type", "type_from_json", "type_from_tree"]

_DECIMAL_JSON = re.compile(r"decimal\(\s*(\d+)\s*,\s*(-?\d+)\s*\)")

#: simpleString -> atomic type class, made on the first call from the types module given.
_atomic_by_simple_string: dict[str, Any] = {}


def type_from_tree(tree: Any, types: Any) -> Any:
    """The Spark type of a tree of :mod:`dstream.sql.ddl` (``("atomic", "int")``, ``("array", t)``...).

    ``types`` is the module :mod:`dstream.sql.types`, given by it: this module cannot import
    the module that imports it.
    """
    kind = tree[0]
    if kind == "atomic":
        if not _atomic_by_simple_string:
            _atomic_by_simple_string.update({t().simpleString(): t for t in types._ATOMIC_TYPES})
        return _atomic_by_simple_string[tree[1]]()
    if kind == "decimal":
        precision, scale = tree[1], tree[2]
        if precision > 38:
            raise ParseException(f"Decimal precision {precision} exceeds max precision 38.",
                                 "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION",
                                 {"precision": str(precision), "maxPrecision": "38"})
        if scale > precision:
            raise ParseException(f"Decimal scale ({scale}) cannot be greater than precision ({precision}).",
                                 "INVALID_DECIMAL_SCALE", {"scale": str(scale), "precision": str(precision)})
        return types.DecimalType(precision, scale)
    if kind == "interval":
        return types.DayTimeIntervalType(tree[1], tree[2])
    if kind == "ym_interval":
        return types.YearMonthIntervalType(tree[1], tree[2])
    if kind in ("char", "varchar"):
        return (types.CharType if kind == "char" else types.VarcharType)(tree[1])
    if kind == "array":
        return types.ArrayType(type_from_tree(tree[1], types))
    if kind == "map":
        return types.MapType(type_from_tree(tree[1], types), type_from_tree(tree[2], types))
    fields = []
    for name, sub, nullable, comment in tree[1]:
        metadata = {"comment": comment} if comment is not None else None
        fields.append(types.StructField(name, type_from_tree(sub, types), nullable, metadata))
    return types.StructType(fields)


def type_from_json(json_value: Any, types: Any) -> Any:
    """The Spark type of a JSON value as ``jsonValue()`` writes it (``"integer"``, ``{"type": "struct", ...}``).

    ``types`` is the module :mod:`dstream.sql.types`, as for :func:`type_from_tree`.
    """
    if isinstance(json_value, str):
        atomic = types._ATOMIC_BY_JSON_NAME.get(json_value)
        if atomic is not None:
            return atomic()
        if json_value == "decimal":
            return types.DecimalType()
        m = _DECIMAL_JSON.fullmatch(json_value)
        if m:
            return types.DecimalType(int(m.group(1)), int(m.group(2)))
        if json_value.startswith(("interval ", "char(", "varchar(")):
            return type_from_tree(ddl.parse_data_type(json_value), types)
        raise PySparkValueError(f"Could not parse datatype: {json_value}.", "CANNOT_PARSE_DATATYPE",
                                {"msg": json_value})
    kind = json_value.get("type") if isinstance(json_value, dict) else None
    complex_type = {"array": types.ArrayType, "map": types.MapType, "struct": types.StructType}.get(str(kind))
    if complex_type is not None:
        return complex_type.fromJson(json_value)
    raise PySparkValueError(f"Could not parse datatype: {json_value!r}.", "CANNOT_PARSE_DATATYPE",
                            {"msg": repr(json_value)})


def holds_type(dt: Any, test: Callable[[Any], bool]) -> bool:
    """Whether ``dt`` passes ``test`` or holds, in an array, a map or a struct, a type that does."""
    if test(dt):
        return True
    inner = [getattr(dt, name) for name in ("elementType", "keyType", "valueType") if hasattr(dt, name)]
    inner += [f.dataType for f in getattr(dt, "fields", ())]
    return any(holds_type(t, test) for t in inner)

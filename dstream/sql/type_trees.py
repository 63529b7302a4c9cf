"""Spark types from the trees the DDL parser makes (``_parse_datatype_string``, ``fromDDL``).

What this module owns
---------------------
:func:`type_from_tree`: a tree of :mod:`dstream.sql.ddl` as the ``DataType`` it describes;
decimal precision and scale are checked here, with Spark's errors.
"""

from __future__ import annotations

from typing import Any

from dstream.sql.errors import ParseException
from dstream.sql.types import (
    _ATOMIC_TYPES,
    ArrayType,
    DataType,
    DayTimeIntervalType,
    DecimalType,
    MapType,
    StructField,
    StructType,
)

__all__ = ["type_from_tree"]

_ATOMIC_BY_SIMPLE_STRING: dict[str, type[DataType]] = {t().simpleString(): t for t in _ATOMIC_TYPES}


def type_from_tree(tree: Any) -> DataType:
    """The Spark type of a tree of :mod:`dstream.sql.ddl` (``("atomic", "int")``, ``("array", t)``...)."""
    kind = tree[0]
    if kind == "atomic":
        return _ATOMIC_BY_SIMPLE_STRING[tree[1]]()
    if kind == "decimal":
        precision, scale = tree[1], tree[2]
        if precision > 38:
            raise ParseException(f"Decimal precision {precision} exceeds max precision 38.",
                                 "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION",
                                 {"precision": str(precision), "maxPrecision": "38"})
        if scale > precision:
            raise ParseException(f"Decimal scale ({scale}) cannot be greater than precision ({precision}).",
                                 "INVALID_DECIMAL_SCALE", {"scale": str(scale), "precision": str(precision)})
        return DecimalType(precision, scale)
    if kind == "interval":
        return DayTimeIntervalType(tree[1], tree[2])
    if kind == "array":
        return ArrayType(type_from_tree(tree[1]))
    if kind == "map":
        return MapType(type_from_tree(tree[1]), type_from_tree(tree[2]))
    fields = []
    for name, sub, nullable, comment in tree[1]:
        metadata = {"comment": comment} if comment is not None else None
        fields.append(StructField(name, type_from_tree(sub), nullable, metadata))
    return StructType(fields)

"""Spark 4's table of casts: which ``CAST(x AS t)`` exist (an impossible one fails analysis).

What this module owns
---------------------
:func:`can_cast` (ANSI): anything to a string; strings to binaries, booleans, dates,
timestamps and numbers; numbers among themselves and to booleans and timestamps;
booleans and timestamps to numbers; dates and timestamps among themselves; intervals to
intervals; arrays, maps and structs field by field; variants to any type a variant
converts to and from the atomic types (see :mod:`dstream.sql.variant.casting`).

Invariants
----------
* A leaf of the expressions: it imports the types and their rules only, so the cast
  expression and the variant conversions can share it.
"""

from __future__ import annotations

from ..types import (
    AnsiIntervalType,
    ArrayType,
    BinaryType,
    BooleanType,
    DataType,
    DateType,
    MapType,
    NullType,
    StringType,
    StructType,
    TimestampNTZType,
    TimestampType,
    VariantType,
)
from ..variant.casting import castable_to_variant, variant_target_ok
from .coercion import is_numeric
from .interval_cast import interval_castable

__all__ = ["can_cast", "implicit_cast_ok"]


def can_cast(src: DataType, dst: DataType) -> bool:
    """Whether Spark 4 (ANSI) has a cast from ``src`` to ``dst``."""
    if isinstance(src, VariantType) and not isinstance(dst, VariantType):
        return variant_target_ok(dst)
    if isinstance(dst, VariantType) and not isinstance(src, (VariantType, NullType)):
        return castable_to_variant(src)
    interval = interval_castable(src, dst)
    if interval is not None and not isinstance(src, NullType):
        return interval
    if src == dst or isinstance(src, NullType) or isinstance(dst, StringType):
        return True
    if isinstance(src, StringType):
        return isinstance(dst, (BinaryType, BooleanType, DateType, TimestampType, TimestampNTZType)) or is_numeric(dst)
    if isinstance(dst, BooleanType):
        return is_numeric(src)
    if is_numeric(dst):
        return is_numeric(src) or isinstance(src, (BooleanType, TimestampType))
    if isinstance(dst, TimestampType):
        return isinstance(src, (DateType, TimestampNTZType)) or is_numeric(src)
    if isinstance(dst, TimestampNTZType):
        return isinstance(src, (DateType, TimestampType))
    if isinstance(dst, DateType):
        return isinstance(src, (TimestampType, TimestampNTZType))
    if isinstance(src, ArrayType) and isinstance(dst, ArrayType):
        return can_cast(src.elementType, dst.elementType)
    if isinstance(src, MapType) and isinstance(dst, MapType):
        return can_cast(src.keyType, dst.keyType) and can_cast(src.valueType, dst.valueType)
    if isinstance(src, StructType) and isinstance(dst, StructType):
        return len(src.fields) == len(dst.fields) and all(
            can_cast(a.dataType, b.dataType) for a, b in zip(src.fields, dst.fields))
    return False


def implicit_cast_ok(src: DataType, dst: DataType) -> bool:
    """Whether a function's argument of type ``src`` may be cast to ``dst`` without being asked.

    An explicit cast turns an interval into a number and back (``CAST(INTERVAL 1 YEAR AS INT)``);
    Spark never does that for a function's argument: ``date_add(d, INTERVAL 1 MONTH)`` is an error.
    """
    interval_src, interval_dst = isinstance(src, AnsiIntervalType), isinstance(dst, AnsiIntervalType)
    return interval_src == interval_dst or isinstance(src, NullType) or isinstance(dst, StringType)

"""Spark's implicit type widening: the common type two columns' types can meet at.

What this module owns
---------------------
:func:`widen_type`, the rule ``union``, ``coalesce``, ``CASE WHEN`` branches and
``IN`` lists share (Spark's ``findWiderTypeForTwo`` under ANSI): ``NULL`` fits
anything; integral types widen byte < short < int < long; any integral with a
fractional type gives double (float with float stays float); decimals meet
integrals as decimals wide enough for both; equal types (arrays, maps, structs by
element) meet at themselves; everything else has no common type.

Invariants
----------
* ``widen_type(a, b) == widen_type(b, a)``; ``widen_type(a, a) == a``.
* A result of ``None`` means "incompatible": callers raise ``DATATYPE_MISMATCH`` or
  ``INCOMPATIBLE_COLUMN_TYPE``; nothing is silently cast to string.
"""

from __future__ import annotations

from ..types import (
    ArrayType,
    ByteType,
    DataType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    MapType,
    NullType,
    ShortType,
    StructField,
    StructType,
)

__all__ = ["widen_type"]

_INTEGRAL_RANK = {ByteType: 1, ShortType: 2, IntegerType: 3, LongType: 4}
#: Digits needed to hold every value of an integral type as a decimal.
_INTEGRAL_DIGITS = {ByteType: 3, ShortType: 5, IntegerType: 10, LongType: 20}


def _decimal_for(dt: DataType) -> DecimalType | None:
    if isinstance(dt, DecimalType):
        return dt
    digits = _INTEGRAL_DIGITS.get(type(dt))
    return None if digits is None else DecimalType(digits, 0)


def widen_type(a: DataType, b: DataType) -> DataType | None:
    """The narrowest type both ``a`` and ``b`` convert to without loss, or ``None``."""
    if a == b:
        return a
    if isinstance(a, NullType):
        return b
    if isinstance(b, NullType):
        return a
    ra, rb = _INTEGRAL_RANK.get(type(a)), _INTEGRAL_RANK.get(type(b))
    if ra is not None and rb is not None:
        return a if ra >= rb else b
    fractional = (FloatType, DoubleType)
    if isinstance(a, fractional) or isinstance(b, fractional):
        other = b if isinstance(a, fractional) else a
        if isinstance(other, fractional) or ra is not None or rb is not None or isinstance(other, DecimalType):
            return FloatType() if isinstance(a, FloatType) and isinstance(b, FloatType) else DoubleType()
        return None
    da, db = _decimal_for(a), _decimal_for(b)
    if da is not None and db is not None:
        scale = max(da.scale, db.scale)
        integral = max(da.precision - da.scale, db.precision - db.scale)
        return DecimalType(min(38, integral + scale), scale)
    if isinstance(a, ArrayType) and isinstance(b, ArrayType):
        element = widen_type(a.elementType, b.elementType)
        return None if element is None else ArrayType(element, a.containsNull or b.containsNull)
    if isinstance(a, MapType) and isinstance(b, MapType):
        key, value = widen_type(a.keyType, b.keyType), widen_type(a.valueType, b.valueType)
        if key is None or value is None:
            return None
        return MapType(key, value, a.valueContainsNull or b.valueContainsNull)
    if isinstance(a, StructType) and isinstance(b, StructType) and len(a.fields) == len(b.fields):
        fields = []
        for fa, fb in zip(a.fields, b.fields):
            dt = widen_type(fa.dataType, fb.dataType)
            if dt is None or fa.name.lower() != fb.name.lower():
                return None
            fields.append(StructField(fa.name, dt, fa.nullable or fb.nullable))
        return StructType(fields)
    return None

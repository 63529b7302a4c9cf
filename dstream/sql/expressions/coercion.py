"""Spark 4's implicit type coercion (ANSI mode): which type two operands meet at.

What this module owns
---------------------
The type lattice the operator, predicate and conditional nodes coerce with: numeric
widening (``tinyint < smallint < int < bigint < decimal < float < double``), the
decimal result types of arithmetic (Spark's ``DecimalPrecision``), the common type of
several branches (``coalesce``, ``CASE``, ``IN``, ``greatest``), and :func:`type_sql`,
the upper-case type text of ``CAST(a AS INT)`` and of error messages.

Invariants
----------
* Functions here are pure and look only at types, never at data.
* ``NullType`` (``lit(None)``) meets any type at that type.
* Strings meet numbers at the number's type in comparisons and at ``double`` in
  arithmetic (documented choices: see :func:`comparison_type`).
"""

from __future__ import annotations

from ..schema_tree import type_sql
from ..types import (
    AnsiIntervalType,
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

__all__ = [
    "MAX_PRECISION",
    "bounded_decimal",
    "comparison_type",
    "decimal_of",
    "find_common_type",
    "is_integral",
    "is_numeric",
    "type_sql",
    "wider_numeric",
]

MAX_PRECISION = 38
_MIN_ADJUSTED_SCALE = 6

_INTEGRAL_RANK: dict[type, int] = {ByteType: 0, ShortType: 1, IntegerType: 2, LongType: 3}
_INTEGRAL_DECIMAL_PRECISION: dict[type, int] = {ByteType: 3, ShortType: 5, IntegerType: 10, LongType: 20}


def is_integral(dt: DataType) -> bool:
    """Whether ``dt`` is tinyint, smallint, int or bigint."""
    return type(dt) in _INTEGRAL_RANK


def is_numeric(dt: DataType) -> bool:
    """Whether ``dt`` is a number type (integral, decimal, float, double)."""
    return is_integral(dt) or isinstance(dt, (DecimalType, FloatType, DoubleType))


def _rank(dt: DataType) -> int:
    if is_integral(dt):
        return _INTEGRAL_RANK[type(dt)]
    if isinstance(dt, DecimalType):
        return 4
    if isinstance(dt, FloatType):
        return 5
    return 6


def decimal_of(dt: DataType) -> DecimalType:
    """The decimal type that holds every value of an integral or decimal type exactly."""
    if isinstance(dt, DecimalType):
        return dt
    return DecimalType(_INTEGRAL_DECIMAL_PRECISION[type(dt)], 0)


def bounded_decimal(precision: int, scale: int) -> DecimalType:
    """``DECIMAL(precision, scale)`` capped at 38 digits (Spark's ``DecimalType.bounded``)."""
    return DecimalType(min(precision, MAX_PRECISION), min(scale, MAX_PRECISION))


def adjust_precision_scale(precision: int, scale: int) -> DecimalType:
    """Spark's result type when an arithmetic result needs more than 38 digits.

    The integral digits are kept and the scale shrinks, down to 6 digits at least
    (``spark.sql.decimalOperations.allowPrecisionLoss``, on by default).
    """
    if precision <= MAX_PRECISION:
        return DecimalType(precision, scale)
    if scale < 0:
        return DecimalType(MAX_PRECISION, scale)
    int_digits = precision - scale
    min_scale = min(scale, _MIN_ADJUSTED_SCALE)
    adjusted = max(MAX_PRECISION - int_digits, min_scale)
    return DecimalType(MAX_PRECISION, adjusted)


def wider_decimal(a: DecimalType, b: DecimalType) -> DecimalType:
    """The decimal type holding both: the larger scale and the larger integral part."""
    scale = max(a.scale, b.scale)
    int_digits = max(a.precision - a.scale, b.precision - b.scale)
    return bounded_decimal(int_digits + scale, scale)


def wider_numeric(a: DataType, b: DataType) -> DataType:
    """The type two numbers meet at: the wider in ``tinyint < ... < double``."""
    if type(a) is type(b) and not isinstance(a, DecimalType):
        return a
    if isinstance(a, DecimalType) or isinstance(b, DecimalType):
        if isinstance(a, (FloatType, DoubleType)) or isinstance(b, (FloatType, DoubleType)):
            return DoubleType()
        return wider_decimal(decimal_of(a), decimal_of(b))
    if {type(a), type(b)} in ({FloatType, IntegerType}, {FloatType, LongType}):
        return DoubleType()  # ANSI: an int or bigint does not fit a float exactly
    return a if _rank(a) >= _rank(b) else b


def _is_datetime(dt: DataType) -> bool:
    return isinstance(dt, (DateType, TimestampType, TimestampNTZType))


def _wider_datetime(a: DataType, b: DataType) -> DataType:
    if type(a) is type(b):
        return a
    if isinstance(a, TimestampType) or isinstance(b, TimestampType):
        return TimestampType()
    return TimestampNTZType()


def wider_interval(a: AnsiIntervalType, b: AnsiIntervalType) -> AnsiIntervalType:
    """The interval type of one kind spanning both types' fields (``HOUR`` and ``MINUTE TO SECOND``:
    ``HOUR TO SECOND``; ``YEAR`` and ``MONTH``: ``YEAR TO MONTH``)."""
    return type(a)(min(a.startField, b.startField), max(a.endField, b.endField))


def find_common_type(types: list[DataType]) -> DataType | None:
    """The type several values meet at (``coalesce``, ``CASE`` branches, ``IN`` lists), or ``None``.

    Numbers widen, dates widen to timestamps, intervals of one kind to the span of both
    types' fields, ``void`` meets anything, arrays and maps
    meet element-wise; otherwise the types must be equal. A string meets an integral type
    at ``bigint``, a fractional one at ``double``, a date, timestamp, boolean or binary at
    that type, as Spark 4's ANSI coercion does (comparisons differ: :func:`comparison_type`).
    """
    result: DataType = NullType()
    for dt in types:
        common = _common_of_two(result, dt)
        if common is None:
            return None
        result = common
    return result


def _common_of_two(a: DataType, b: DataType) -> DataType | None:
    if isinstance(a, NullType):
        return b
    if isinstance(b, NullType):
        return a
    if a == b:
        return a
    if is_numeric(a) and is_numeric(b):
        return wider_numeric(a, b)
    if _is_datetime(a) and _is_datetime(b):
        return _wider_datetime(a, b)
    if isinstance(a, AnsiIntervalType) and type(a) is type(b):
        return wider_interval(a, b)
    if isinstance(a, StringType) and not isinstance(b, StringType):
        return _string_meets(b)
    if isinstance(b, StringType):
        return _string_meets(a)
    if isinstance(a, ArrayType) and isinstance(b, ArrayType):
        elem = _common_of_two(a.elementType, b.elementType)
        return None if elem is None else ArrayType(elem, a.containsNull or b.containsNull)
    if isinstance(a, MapType) and isinstance(b, MapType):
        key = _common_of_two(a.keyType, b.keyType)
        value = _common_of_two(a.valueType, b.valueType)
        if key is None or value is None:
            return None
        return MapType(key, value, a.valueContainsNull or b.valueContainsNull)
    if isinstance(a, StructType) and isinstance(b, StructType) and len(a.fields) == len(b.fields):
        fields = []
        for fa, fb in zip(a.fields, b.fields):
            if fa.name.lower() != fb.name.lower():
                return None
            ft = _common_of_two(fa.dataType, fb.dataType)
            if ft is None:
                return None
            fields.append(StructField(fa.name, ft, fa.nullable or fb.nullable))
        return StructType(fields)
    return None


def _string_meets(other: DataType) -> DataType | None:
    """The type a string and ``other`` widen to (Spark 4's ANSI ``findWiderTypeForString``):
    an integral type meets it at ``bigint``, a fractional one (decimals too) at ``double``,
    a date, timestamp, boolean or binary at that type; an interval or a nested type not at all."""
    if is_integral(other):
        return LongType()
    if is_numeric(other):
        return DoubleType()
    if _is_datetime(other) or isinstance(other, (BooleanType, BinaryType)):
        return other
    return None


def comparison_type(a: DataType, b: DataType) -> DataType | None:
    """The type both sides of ``=``, ``<``... are cast to, or ``None`` if they cannot compare.

    Choice (Spark 4, ANSI): a string compared with a number, a date, a timestamp or a
    boolean is cast to the other side's type, so ``'1.5' = 1`` raises
    ``CAST_INVALID_INPUT`` under ANSI (the string is not an ``INT``) instead of comparing
    as doubles; ``try_cast`` or an explicit cast picks another type.
    """
    if isinstance(a, StringType) and _compares_as_itself(b):
        return b
    if isinstance(b, StringType) and _compares_as_itself(a):
        return a
    if isinstance(a, BinaryType) and isinstance(b, BinaryType):
        return a
    return find_common_type([a, b])


def _compares_as_itself(dt: DataType) -> bool:
    # Compared with a string, these keep their type (the string is cast to it), where
    # find_common_type widens a string and an int to bigint.
    return is_numeric(dt) or _is_datetime(dt) or isinstance(dt, BooleanType)



"""Which types convert to and from VARIANT: the analysis rules of casts and ``variant_get``.

What this module owns
---------------------
* :func:`variant_target_ok`: a variant converts to any type but void and intervals, maps
  only when keyed by strings (checked through arrays, maps and structs).
* :func:`castable_to_variant`: atomic types (not void nor intervals) and arrays of them cast
  to VARIANT; ``to_variant_object`` also takes structs and string-keyed maps (``objects``).

Invariants
----------
* A leaf: it imports the types only, so the cast expression and the conversions can both use it.
"""

from __future__ import annotations

from ..errors import AnalysisException
from ..type_trees import holds_type
from ..types import ArrayType, DataType, DayTimeIntervalType, MapType, NullType, StringType, StructType, VariantType

__all__ = ["variant_target_ok", "castable_to_variant", "contains_variant", "set_operation_error"]


def variant_target_ok(dt: DataType) -> bool:
    """Whether a variant converts to ``dt`` (no void or interval, maps keyed by strings)."""
    if isinstance(dt, (NullType, DayTimeIntervalType)):
        return False
    if isinstance(dt, MapType):
        return isinstance(dt.keyType, StringType) and variant_target_ok(dt.valueType)
    if isinstance(dt, ArrayType):
        return variant_target_ok(dt.elementType)
    return not isinstance(dt, StructType) or all(variant_target_ok(f.dataType) for f in dt.fields)


def castable_to_variant(dt: DataType, objects: bool = False) -> bool:
    """Whether Spark casts ``dt`` to VARIANT (``objects``: also structs and string-keyed maps,
    as ``to_variant_object`` takes them)."""
    if isinstance(dt, (NullType, DayTimeIntervalType)):
        return False
    if isinstance(dt, ArrayType):
        return castable_to_variant(dt.elementType, objects)
    if isinstance(dt, StructType):
        return objects and all(castable_to_variant(f.dataType, objects) for f in dt.fields)
    if isinstance(dt, MapType):
        return objects and isinstance(dt.keyType, StringType) and castable_to_variant(dt.valueType, objects)
    return True


def contains_variant(dt: DataType) -> bool:
    """Whether ``dt`` is or holds VARIANT (which has no ordering, equality or hash)."""
    return holds_type(dt, lambda t: isinstance(t, VariantType))


def set_operation_error(name: str, dt: DataType) -> AnalysisException:
    """Spark's error for a DISTINCT, INTERSECT or EXCEPT over a column holding VARIANT."""
    from ..schema_tree import type_sql  # noqa: PLC0415 - the error path only

    return AnalysisException(
        "The feature is not supported: Cannot have VARIANT type columns in DataFrame which calls set operations "
        f'(INTERSECT, EXCEPT, etc.), but the type of column `{name}` is "{type_sql(dt)}".',
        "UNSUPPORTED_FEATURE.SET_OPERATION_ON_VARIANT_TYPE", {"colName": f"`{name}`", "dataType": f'"{type_sql(dt)}"'})

"""Schema inference from Python values, by PySpark's rules (``_infer_type``, ``_infer_schema``, ``_merge_type``).

What this module owns
---------------------
What createDataFrame(data) without a schema decides: each value's type (``int`` is
``LongType``, ``float`` ``DoubleType``, ``Decimal`` ``DecimalType(38,18)``, any datetime
``TimestampType``...), each record's struct (dict keys sorted, Row and namedtuple names kept,
tuples named ``_1``, ``_2``...), and the merge of all records' structs into one schema.

Invariants
----------
* ``NullType`` (from ``None``) merges with anything, an atomic type with ``string`` at
  ``string`` (PySpark 4); otherwise two types merge only if they are the same class,
  structs field by field by name, or ``CANNOT_MERGE_TYPE`` is raised.
* ``infer_schema`` never returns a schema with ``NullType`` left in it: it raises
  ``CANNOT_DETERMINE_TYPE`` as PySpark does.
"""

from __future__ import annotations

import array
import datetime
import decimal
from collections.abc import Iterable
from typing import Any

from dstream.sql.errors import PySparkTypeError, PySparkValueError
from dstream.sql.types import (
    ArrayType,
    AtomicType,
    BinaryType,
    BooleanType,
    ByteType,
    DataType,
    DateType,
    DayTimeIntervalType,
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
    VariantType,
    VariantVal,
)

__all__ = ["infer_type", "infer_schema", "infer_record_schema", "merge_type", "has_nulltype"]

# Looked up by exact type, as PySpark does: a subclass (an IntEnum, a str subclass) is not inferred this way.
_TYPE_MAPPINGS: dict[type, type[DataType]] = {
    type(None): NullType,
    bool: BooleanType,
    int: LongType,
    float: DoubleType,
    str: StringType,
    bytearray: BinaryType,
    bytes: BinaryType,
    decimal.Decimal: DecimalType,
    datetime.date: DateType,
    datetime.datetime: TimestampType,
    datetime.timedelta: DayTimeIntervalType,
    VariantVal: VariantType,
}

# array.array typecodes and the element type PySpark infers for them.
_ARRAY_TYPECODES: dict[str, type[DataType]] = {
    "b": ByteType, "h": ShortType, "i": IntegerType, "l": LongType, "q": LongType,
    "B": ShortType, "H": IntegerType, "I": LongType, "f": FloatType, "d": DoubleType, "u": StringType,
}


def infer_type(obj: Any, prefer_timestamp_ntz: bool = False) -> DataType:
    """The Spark type PySpark infers for one Python value.

    Parameters
    ----------
    obj : object
        The value.
    prefer_timestamp_ntz : bool, optional
        Infer naive datetimes as TimestampNTZType (``spark.sql.timestampType`` = TIMESTAMP_NTZ).

    Raises
    ------
    PySparkTypeError
        ``UNSUPPORTED_DATA_TYPE`` for a value with no Spark type.
    """
    mapped = _TYPE_MAPPINGS.get(type(obj))
    if mapped is DecimalType:
        # Each Decimal has its own precision and scale; PySpark picks the widest common one.
        return DecimalType(38, 18)
    if mapped is TimestampType and prefer_timestamp_ntz and obj.tzinfo is None:
        return TimestampNTZType()
    if mapped is not None:
        return mapped()
    if isinstance(obj, dict):
        key_type: DataType = NullType()
        value_type: DataType = NullType()
        for key, value in obj.items():
            if key is not None:
                key_type = merge_type(key_type, infer_type(key, prefer_timestamp_ntz))
            if value is not None:
                value_type = merge_type(value_type, infer_type(value, prefer_timestamp_ntz))
        return MapType(key_type, value_type, True)
    if isinstance(obj, list):
        element: DataType = NullType()
        for v in obj:
            element = merge_type(element, infer_type(v, prefer_timestamp_ntz))
        return ArrayType(element, True)
    if isinstance(obj, array.array):
        if obj.typecode in _ARRAY_TYPECODES:
            return ArrayType(_ARRAY_TYPECODES[obj.typecode](), False)
        raise PySparkTypeError(f"array.array of typecode {obj.typecode!r} has no Spark type.",
                               "UNSUPPORTED_DATA_TYPE", {"data_type": f"array({obj.typecode})"})
    try:
        return infer_record_schema(obj, prefer_timestamp_ntz=prefer_timestamp_ntz)
    except PySparkTypeError as e:
        if e.getCondition() != "CANNOT_INFER_SCHEMA_FOR_TYPE":
            raise
        raise PySparkTypeError(f"Unsupported DataType `{type(obj).__name__}`.", "UNSUPPORTED_DATA_TYPE",
                               {"data_type": type(obj).__name__}) from None


def infer_record_schema(row: Any, names: list[str] | None = None, prefer_timestamp_ntz: bool = False) -> StructType:
    """The struct PySpark infers for one record.

    A dict gives its keys sorted; a Row or namedtuple its names in order; another tuple or
    list ``names`` (completed with ``_n``) or ``_1``, ``_2``...; an object its attributes sorted.

    Raises
    ------
    PySparkTypeError
        ``CANNOT_INFER_SCHEMA_FOR_TYPE`` for a record of another kind, ``CANNOT_INFER_TYPE_FOR_FIELD``
        for a field whose value has no type.
    """
    items: Iterable[tuple[Any, Any]]
    if isinstance(row, dict):
        items = sorted(row.items())
    elif isinstance(row, (tuple, list)):
        if hasattr(row, "__fields__"):
            items = zip(row.__fields__, tuple(row))
        elif hasattr(row, "_fields"):
            items = zip(row._fields, tuple(row))
        else:
            if names is None:
                names = [f"_{i}" for i in range(1, len(row) + 1)]
            elif len(names) < len(row):
                names = list(names) + [f"_{i}" for i in range(len(names) + 1, len(row) + 1)]
            items = zip(names, row)
    elif hasattr(row, "__dict__"):
        items = sorted(row.__dict__.items())
    else:
        raise PySparkTypeError(f"Can not infer schema for type: `{type(row).__name__}`.",
                               "CANNOT_INFER_SCHEMA_FOR_TYPE", {"data_type": type(row).__name__})
    fields = []
    for name, value in items:
        try:
            fields.append(StructField(name, infer_type(value, prefer_timestamp_ntz), True))
        except PySparkTypeError as e:
            if e.getCondition() == "NOT_STR":
                raise
            raise PySparkTypeError(f"Unable to infer the type of the field `{name}`.", "CANNOT_INFER_TYPE_FOR_FIELD",
                                   {"field_name": str(name)}) from e
    return StructType(fields)


def merge_type(a: DataType, b: DataType, name: str | None = None) -> DataType:
    """The one type covering ``a`` and ``b``, as PySpark's ``_merge_type``.

    Raises
    ------
    PySparkTypeError
        ``CANNOT_MERGE_TYPE`` when the two are different (non-null) types.
    """
    if isinstance(a, NullType):
        return b
    if isinstance(b, NullType):
        return a
    if isinstance(a, TimestampType) and isinstance(b, TimestampNTZType):
        return a
    if isinstance(a, TimestampNTZType) and isinstance(b, TimestampType):
        return b
    # PySpark 4: an atomic type meets a string at string (the values are cast).
    if isinstance(a, AtomicType) and isinstance(b, StringType):
        return b
    if isinstance(a, StringType) and isinstance(b, AtomicType):
        return a
    if type(a) is not type(b):
        prefix = f"{name}: " if name is not None else ""
        raise PySparkTypeError(f"{prefix}Can not merge type `{type(a).__name__}` and `{type(b).__name__}`.",
                               "CANNOT_MERGE_TYPE", {"data_type1": type(a).__name__, "data_type2": type(b).__name__})
    if isinstance(a, StructType):
        assert isinstance(b, StructType)
        other = {f.name: f.dataType for f in b.fields}
        fields = [StructField(f.name, merge_type(f.dataType, other.get(f.name, NullType()), _field_name(name, f.name)))
                  for f in a.fields]
        seen = {f.name for f in fields}
        fields.extend(StructField(n, t) for n, t in other.items() if n not in seen)
        return StructType(fields)
    if isinstance(a, ArrayType):
        assert isinstance(b, ArrayType)
        return ArrayType(merge_type(a.elementType, b.elementType, f"element in array {name}"), True)
    if isinstance(a, MapType):
        assert isinstance(b, MapType)
        return MapType(merge_type(a.keyType, b.keyType, f"key of map {name}"),
                       merge_type(a.valueType, b.valueType, f"value of map {name}"), True)
    return a


def _field_name(parent: str | None, field: str) -> str:
    return f"field {field}" if parent is None else f"field {field} in {parent}"


def has_nulltype(dt: DataType) -> bool:
    """Whether ``NullType`` is left anywhere in the type (a column whose type could not be determined)."""
    if isinstance(dt, StructType):
        return any(has_nulltype(f.dataType) for f in dt.fields)
    if isinstance(dt, ArrayType):
        return has_nulltype(dt.elementType)
    if isinstance(dt, MapType):
        return has_nulltype(dt.keyType) or has_nulltype(dt.valueType)
    return isinstance(dt, NullType)


def infer_schema(records: Iterable[Any], names: list[str] | None = None,
                 prefer_timestamp_ntz: bool = False) -> StructType:
    """The schema of a local dataset: every record's struct, merged, as createDataFrame(data) infers it.

    Parameters
    ----------
    records : iterable
        The records (dicts, Rows, namedtuples, tuples, lists or objects).
    names : list of str, optional
        Column names for tuple and list records (PySpark's ``schema=["a", "b"]``).
    prefer_timestamp_ntz : bool, optional
        Infer naive datetimes as TimestampNTZType.

    Raises
    ------
    PySparkValueError
        ``CANNOT_INFER_EMPTY_SCHEMA`` without records; ``CANNOT_DETERMINE_TYPE`` when a column is
        ``None`` in every record.
    PySparkTypeError
        When records cannot be merged (``CANNOT_MERGE_TYPE``) or have no schema.
    """
    schema: DataType | None = None
    for record in records:
        struct = infer_record_schema(record, names, prefer_timestamp_ntz)
        schema = struct if schema is None else merge_type(schema, struct)
    if schema is None:
        raise PySparkValueError("Can not infer schema from an empty dataset.", "CANNOT_INFER_EMPTY_SCHEMA", {})
    if has_nulltype(schema):
        raise PySparkValueError("Some of types cannot be determined after inferring.", "CANNOT_DETERMINE_TYPE", {})
    assert isinstance(schema, StructType)
    return schema

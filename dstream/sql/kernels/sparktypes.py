"""The bridge between target types as the caller gives them and Arrow types.

What this module owns
---------------------
:func:`arrow_type` turns a Spark ``DataType`` (any object whose class is named as
PySpark's: ``IntegerType``, ``DecimalType`` with ``precision``/``scale``...) or a
``pa.DataType`` into the Arrow type the spec maps it to, without importing
``dstream.sql.types`` (the kernels sit below it in the import graph).
:func:`sql_name` gives the upper-case SQL name Spark's messages use (``"INT"``,
``"BIGINT"``, ``"DECIMAL(10,2)"``).

Invariants
----------
* Timestamps are ``timestamp("us", tz="UTC")``; timestamp_ntz is ``timestamp("us")``.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

__all__ = ["arrow_type", "sql_name", "is_integral", "is_floating", "INT_RANGES"]

_SIMPLE: dict[str, pa.DataType] = {
    "NullType": pa.null(),
    "BooleanType": pa.bool_(),
    "ByteType": pa.int8(),
    "ShortType": pa.int16(),
    "IntegerType": pa.int32(),
    "LongType": pa.int64(),
    "FloatType": pa.float32(),
    "DoubleType": pa.float64(),
    "StringType": pa.string(),
    "BinaryType": pa.binary(),
    "DateType": pa.date32(),
    "TimestampType": pa.timestamp("us", tz="UTC"),
    "TimestampNTZType": pa.timestamp("us"),
    "YearMonthIntervalType": pa.int32(),  # months
}

# Inclusive bounds of each integral Arrow type.
INT_RANGES: dict[pa.DataType, tuple[int, int]] = {
    pa.int8(): (-(2**7), 2**7 - 1),
    pa.int16(): (-(2**15), 2**15 - 1),
    pa.int32(): (-(2**31), 2**31 - 1),
    pa.int64(): (-(2**63), 2**63 - 1),
}


def arrow_type(dt: Any) -> pa.DataType:
    """The Arrow type of a Spark ``DataType`` object or of a ``pa.DataType`` (returned as is).

    Parameters
    ----------
    dt : DataType or pa.DataType
        The type; Spark types are recognised by class name (PySpark's names).

    Returns
    -------
    pa.DataType
    """
    if isinstance(dt, pa.DataType):
        return dt
    name = type(dt).__name__
    if name in _SIMPLE:
        return _SIMPLE[name]
    if name == "DecimalType":
        return pa.decimal128(int(dt.precision), int(dt.scale))
    if name == "ArrayType":
        return pa.list_(pa.field("element", arrow_type(dt.elementType)))
    if name == "MapType":
        return pa.map_(arrow_type(dt.keyType), arrow_type(dt.valueType))
    if name == "StructType":
        return pa.struct([pa.field(f.name, arrow_type(f.dataType), f.nullable) for f in dt.fields])
    if name == "VariantType":
        from dstream.sql.variant.arrow import VARIANT_ARROW  # noqa: PLC0415 - variants are rare in kernels

        return VARIANT_ARROW
    raise TypeError(f"no Arrow type for {dt!r}")


def is_integral(t: pa.DataType) -> bool:
    """Whether ``t`` is one of Spark's integral types (int8..int64)."""
    return t in INT_RANGES


def is_floating(t: pa.DataType) -> bool:
    """Whether ``t`` is float32 or float64."""
    return bool(pa.types.is_floating(t))


def sql_name(t: Any) -> str:
    """Spark's SQL name of a type, as its error messages print it (``"INT"``, ``"DECIMAL(10,2)"``)."""
    t = arrow_type(t)
    names = {pa.int8(): "TINYINT", pa.int16(): "SMALLINT", pa.int32(): "INT", pa.int64(): "BIGINT",
             pa.float32(): "FLOAT", pa.float64(): "DOUBLE", pa.string(): "STRING", pa.large_string(): "STRING",
             pa.binary(): "BINARY", pa.bool_(): "BOOLEAN", pa.date32(): "DATE", pa.null(): "VOID"}
    if t in names:
        return names[t]
    if pa.types.is_decimal(t):
        return f"DECIMAL({t.precision},{t.scale})"
    if pa.types.is_timestamp(t):
        return "TIMESTAMP" if t.tz else "TIMESTAMP_NTZ"
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return f"ARRAY<{sql_name(t.value_type)}>"
    if pa.types.is_map(t):
        return f"MAP<{sql_name(t.key_type)}, {sql_name(t.item_type)}>"
    if pa.types.is_struct(t):
        inner = ", ".join(f"{t.field(i).name}: {sql_name(t.field(i).type)}" for i in range(t.num_fields))
        return f"STRUCT<{inner}>"
    return str(t).upper()

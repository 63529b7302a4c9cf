"""Checking Python values against a schema (PySpark's ``verifySchema``) and readying them for Arrow.

What this module owns
---------------------
One converter per data type, built once per schema: it rejects what PySpark's
``_make_type_verifier`` rejects, with PySpark's error conditions and messages (naming the
field, the type and the value), and returns the value in the form ``pyarrow.array``
takes for the type's Arrow counterpart: timestamps as microseconds since the epoch (a
naive datetime is a wall time in the session zone), maps as lists of pairs, structs as
tuples in field order.

Invariants
----------
* Types are checked exactly as PySpark does: by exact Python type (``True`` is not an
  ``int`` for ``LongType``, ``1`` is not a ``float`` for ``DoubleType``), except that
  ``StringType`` accepts any value and stores its string form.
* With ``verify=False`` values are only converted, never checked.
* A converter never mutates its input.
"""

from __future__ import annotations

import array
import datetime
import decimal
from collections.abc import Callable
from typing import Any

from dstream.sql.errors import ArithmeticException, PySparkTypeError, PySparkValueError
from dstream.sql.types import (
    ArrayType,
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
    StructType,
    TimestampNTZType,
    TimestampType,
    VariantType,
    VariantVal,
)

__all__ = ["make_converter", "struct_values", "Converter"]

Converter = Callable[[Any], Any]

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
_EPOCH_NAIVE = datetime.datetime(1970, 1, 1)
_MICROSECOND = datetime.timedelta(microseconds=1)

_ACCEPTABLE: dict[type[DataType], tuple[type, ...]] = {
    BooleanType: (bool,),
    ByteType: (int,),
    ShortType: (int,),
    IntegerType: (int,),
    LongType: (int,),
    FloatType: (float,),
    DoubleType: (float,),
    DecimalType: (decimal.Decimal,),
    BinaryType: (bytearray, bytes),
    DateType: (datetime.date, datetime.datetime),
    TimestampType: (datetime.datetime,),
    TimestampNTZType: (datetime.datetime,),
    DayTimeIntervalType: (datetime.timedelta,),
    NullType: (type(None),),
    VariantType: (VariantVal,),
}
_INT_BOUNDS: dict[type[DataType], tuple[int, int]] = {
    ByteType: (-(1 << 7), (1 << 7) - 1),
    ShortType: (-(1 << 15), (1 << 15) - 1),
    IntegerType: (-(1 << 31), (1 << 31) - 1),
    LongType: (-(1 << 63), (1 << 63) - 1),
}


def _unacceptable(dt: DataType, obj: Any, name: str | None) -> PySparkTypeError:
    params = {"data_type": repr(dt), "obj": repr(obj), "obj_type": str(type(obj))}
    text = f"{dt!r} can not accept object {obj!r} in type {type(obj)}."
    if name is None:
        return PySparkTypeError(text, "FIELD_DATA_TYPE_UNACCEPTABLE", params)
    return PySparkTypeError(f"{name}: {text}", "FIELD_DATA_TYPE_UNACCEPTABLE_WITH_NAME",
                            {"field_name": name, **params})


def _not_nullable(name: str | None) -> PySparkValueError:
    if name is None:
        return PySparkValueError("Field is not nullable, but got None.", "FIELD_NOT_NULLABLE", {})
    return PySparkValueError(f"{name}: This field is not nullable, but got None.", "FIELD_NOT_NULLABLE_WITH_NAME",
                             {"field_name": name})


def _child_name(name: str | None, field: str) -> str:
    return f"field {field}" if name is None else f"field {field} in {name}"


def make_converter(dt: DataType, nullable: bool, name: str | None, zone: datetime.tzinfo,
                   verify: bool = True) -> Converter | None:
    """The converter of values of type ``dt``, or ``None`` when values go to Arrow as they are.

    Parameters
    ----------
    dt : DataType
        The declared type.
    nullable : bool
        Whether ``None`` is accepted.
    name : str or None
        How error messages name the value (``"field a"``, ``"element in array field a"``).
    zone : datetime.tzinfo
        The session time zone: the zone naive datetimes of TimestampType are wall times in.
    verify : bool, optional
        Check types, ranges and nullability as PySpark's ``verifySchema`` (default), or only convert.
    """
    convert = _value_converter(dt, name, zone, verify)
    if not verify:
        if convert is None:
            return None
        inner = convert
        return lambda v: None if v is None else inner(v)
    if isinstance(dt, StringType):
        check_null_only = True
    else:
        check_null_only = False
    accepted = _ACCEPTABLE.get(type(dt))
    bounds = _INT_BOUNDS.get(type(dt))

    def check(v: Any) -> Any:
        if v is None:
            if nullable:
                return None
            raise _not_nullable(name)
        if not check_null_only and accepted is not None and type(v) not in accepted:
            raise _unacceptable(dt, v, name)
        if bounds is not None and not bounds[0] <= v <= bounds[1]:
            raise PySparkValueError(f"{name or 'obj'}: object of {type(dt).__name__} out of range, got: {v}",
                                    "VALUE_OUT_OF_BOUNDS",
                                    {"arg_name": name or "obj", "lower_bound": str(bounds[0]),
                                     "upper_bound": str(bounds[1]), "actual": str(v)})
        return v if convert is None else convert(v)

    return check


def _value_converter(dt: DataType, name: str | None, zone: datetime.tzinfo, verify: bool) -> Converter | None:
    """The conversion of one non-null value (checked by the caller), ``None`` for the identity."""
    if isinstance(dt, StringType):
        return _to_string
    if isinstance(dt, BinaryType):
        return lambda v: bytes(v) if type(v) is bytearray else v
    if isinstance(dt, DateType):
        return lambda v: v.date() if isinstance(v, datetime.datetime) else v
    if isinstance(dt, TimestampType):
        return _timestamp_converter(zone)
    if isinstance(dt, TimestampNTZType):
        return lambda v: (v.replace(tzinfo=None) - _EPOCH_NAIVE) // _MICROSECOND
    if isinstance(dt, DecimalType):
        return _decimal_converter(dt, name)
    if isinstance(dt, ArrayType):
        return _array_converter(dt, name, zone, verify)
    if isinstance(dt, MapType):
        return _map_converter(dt, name, zone, verify)
    if isinstance(dt, StructType):
        return _struct_converter(dt, name, zone, verify)
    if isinstance(dt, VariantType):
        return lambda v: {"value": bytes(v.value), "metadata": bytes(v.metadata)}
    return None


def _to_string(v: Any) -> str:
    # PySpark's StringType takes any value and the JVM stores its toString(): booleans print as Java does.
    if type(v) is str:
        return v
    if type(v) is bool:
        return "true" if v else "false"
    return str(v)


def _timestamp_converter(zone: datetime.tzinfo) -> Converter:
    def convert(v: datetime.datetime) -> int:
        # A naive value is a wall time in the session zone; fold picks the instant of a repeated
        # hour and a wall time in a gap moves forward by the gap, as Java's ZonedDateTime does.
        if v.tzinfo is not None:
            return (v - _EPOCH) // _MICROSECOND
        aware = v.replace(tzinfo=zone)
        if v.fold and aware.astimezone(datetime.timezone.utc).astimezone(zone).replace(tzinfo=None) != v:
            # fold=1 in a gap would move the time back; Java moves every gap time forward.
            aware = aware.replace(fold=0)
        return (aware - _EPOCH) // _MICROSECOND

    return convert


def _decimal_converter(dt: DecimalType, name: str | None) -> Converter:
    quantum = decimal.Decimal(1).scaleb(-dt.scale)
    max_int_digits = dt.precision - dt.scale

    def convert(v: decimal.Decimal) -> decimal.Decimal:
        if not v.is_finite():
            raise PySparkValueError(f"{name or 'value'}: {v!r} is not a finite decimal; {dt!r} holds only numbers.",
                                    "FIELD_DATA_TYPE_UNACCEPTABLE", {"data_type": repr(dt), "obj": repr(v)})
        exponent = v.as_tuple().exponent
        if isinstance(exponent, int) and exponent < -dt.scale:
            # The JVM sets the scale with HALF_UP rounding when it receives a Python Decimal.
            v = v.quantize(quantum, rounding=decimal.ROUND_HALF_UP)
        if v and v.adjusted() + 1 > max_int_digits:
            raise ArithmeticException(
                f"{name or 'value'}: {v} cannot be represented as Decimal({dt.precision}, {dt.scale}).",
                "NUMERIC_VALUE_OUT_OF_RANGE",
                {"value": str(v), "precision": str(dt.precision), "scale": str(dt.scale)})
        return v

    return convert


def _array_converter(dt: ArrayType, name: str | None, zone: datetime.tzinfo, verify: bool) -> Converter:
    element = make_converter(dt.elementType, dt.containsNull, f"element in array {name}", zone, verify)

    def convert(v: Any) -> Any:
        if verify and not isinstance(v, (list, tuple, array.array)):
            raise _unacceptable(dt, v, name)
        if element is None:
            return v if type(v) is list else list(v)
        return [element(x) for x in v]

    return convert


def _map_converter(dt: MapType, name: str | None, zone: datetime.tzinfo, verify: bool) -> Converter:
    key = make_converter(dt.keyType, False, f"key of map {name}", zone, verify)
    value = make_converter(dt.valueType, dt.valueContainsNull, f"value of map {name}", zone, verify)

    def convert(v: Any) -> Any:
        if verify and not isinstance(v, dict):
            raise _unacceptable(dt, v, name)
        if not verify and v is not None and any(k is None for k in v):
            raise _not_nullable(f"key of map {name}")
        return [(k if key is None else key(k), x if value is None else value(x)) for k, x in v.items()]

    return convert


def _struct_converter(dt: StructType, name: str | None, zone: datetime.tzinfo, verify: bool) -> Converter:
    fields = [make_converter(f.dataType, f.nullable, _child_name(name, f.name), zone, verify) for f in dt.fields]
    names = dt.names

    def convert(v: Any) -> tuple[Any, ...]:
        values = struct_values(v, names, name, dt)
        return tuple(x if f is None else f(x) for f, x in zip(fields, values))

    return convert


def struct_values(obj: Any, names: list[str], name: str | None, dt: DataType) -> tuple[Any, ...] | list[Any]:
    """The field values of one struct value, in field order.

    A dict is read by field name, a tuple, list or Row by position (as PySpark's ``toInternal``),
    any other object by its attributes.

    Raises
    ------
    PySparkValueError
        When a tuple or list has another length than the struct.
    PySparkTypeError
        When the object is none of those.
    """
    if isinstance(obj, (tuple, list)):
        if len(obj) != len(names):
            text = f"Length of object ({len(obj)}) does not match with length of fields ({len(names)})."
            params = {"object_length": str(len(obj)), "field_length": str(len(names))}
            if name is None:
                raise PySparkValueError(text, "FIELD_STRUCT_LENGTH_MISMATCH", params)
            raise PySparkValueError(f"{name}: {text}", "FIELD_STRUCT_LENGTH_MISMATCH_WITH_NAME",
                                    {"field_name": name, **params})
        return obj
    if isinstance(obj, dict):
        return [obj.get(n) for n in names]
    if obj is not None and hasattr(obj, "__dict__"):
        attrs = obj.__dict__
        return [attrs.get(n) for n in names]
    raise PySparkTypeError(f"`StructType` can not accept object `{obj}` in type `{type(obj).__name__}`.",
                           "CANNOT_ACCEPT_OBJECT_IN_TYPE",
                           {"data_type": "StructType", "obj_name": str(obj), "obj_type": type(obj).__name__})

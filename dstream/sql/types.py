"""Spark SQL data types under PySpark's names: ``IntegerType()``, ``StructType([...])``...

What this module owns
---------------------
The classes a schema is made of (``pyspark.sql.types``): the atomic types, ``DecimalType``,
``CharType``/``VarcharType``, ``ArrayType``, ``MapType``, ``StructField`` and ``StructType``
(the base classes and the interval types are :mod:`dstream.sql.type_base`'s and
:mod:`dstream.sql.interval_types`', exported here as PySpark exports them), with PySpark 4's reprs,
``simpleString()`` (``bigint``, ``array<int>``, ``struct<a:int>``), ``typeName()``, JSON form
(``json()``/``fromJson``), printSchema's tree text (``StructType.treeString()``) and the DDL
parser (``_parse_datatype_string("a int, b string")``, in :mod:`dstream.sql.ddl`).

Invariants
----------
* Types compare and hash by value; the types without parameters are singletons
  (``IntegerType() is IntegerType()``), as in PySpark.
* ``StructType.names`` always lists ``fields``' names in order (``add`` keeps both).
* Types are immutable once built, except ``StructType.add``, which PySpark also has.
* ``char(n)``/``varchar(n)`` stay themselves in schemas parsed here; data holds them as
  strings (:func:`_without_char_varchar` is Spark's rule for the types of data).
"""

from __future__ import annotations

import json as _json
import sys
from collections.abc import Iterator
from typing import Any

from dstream.sql import ddl
from dstream.sql.errors import PySparkTypeError, PySparkValueError
from dstream.sql.interval_types import (
    AnsiIntervalType,
    CalendarIntervalType,
    DayTimeIntervalType,
    YearMonthIntervalType,
)
from dstream.sql.schema_tree import field_sql, tree_string
from dstream.sql.type_base import (
    PARSERS,
    AtomicType,
    DataType,
    FractionalType,
    IntegralType,
    NullType,
    NumericType,
    ParameterizedAtomicType,
    _Singleton,
)
from dstream.sql.type_trees import type_from_json, type_from_tree

__all__ = [
    "AnsiIntervalType",
    "ArrayType",
    "AtomicType",
    "BinaryType",
    "BooleanType",
    "ByteType",
    "CalendarIntervalType",
    "CharType",
    "DataType",
    "DateType",
    "DayTimeIntervalType",
    "DecimalType",
    "DoubleType",
    "FloatType",
    "FractionalType",
    "IntegerType",
    "IntegralType",
    "LongType",
    "MapType",
    "NullType",
    "NumericType",
    "Row",
    "ShortType",
    "StringType",
    "StructField",
    "StructType",
    "TimestampNTZType",
    "TimestampType",
    "VarcharType",
    "VariantType",
    "VariantVal",
    "YearMonthIntervalType",
]


class StringType(AtomicType, metaclass=_Singleton):
    """Unicode text."""


class _LengthLimitedString(ParameterizedAtomicType):
    def __init__(self, length: int) -> None:
        self.length = length

    def simpleString(self) -> str:  # noqa: N802 - PySpark's name
        """``char(5)``, ``varchar(10)``."""
        return f"{self.typeName()}({self.length})"

    def _parameters(self) -> tuple[Any, ...]:
        return (self.length,)


class CharType(_LengthLimitedString):
    """Text of a fixed length (``char(5)``), as a table's column declares it.

    As in Spark, a DataFrame holds it as a string: a schema, a cast or a reader given
    ``char(n)`` gets ``StringType``.
    """


class VarcharType(_LengthLimitedString):
    """Text of at most ``length`` characters (``varchar(10)``), as a table's column declares it.

    As in Spark, a DataFrame holds it as a string: a schema, a cast or a reader given
    ``varchar(n)`` gets ``StringType``.
    """


def _map_leaves(dt: Any, fn: Any) -> Any:
    """``dt`` rebuilt with ``fn`` applied to every type that is not an array, a map or a struct."""
    if isinstance(dt, ArrayType):
        return ArrayType(_map_leaves(dt.elementType, fn), dt.containsNull)
    if isinstance(dt, MapType):
        return MapType(_map_leaves(dt.keyType, fn), _map_leaves(dt.valueType, fn), dt.valueContainsNull)
    if isinstance(dt, StructType):
        return StructType([StructField(f.name, _map_leaves(f.dataType, fn), f.nullable, f.metadata)
                           for f in dt.fields])
    return fn(dt)


def _without_char_varchar(dt: Any) -> Any:
    """``dt`` with every ``char(n)``/``varchar(n)`` inside replaced by ``string`` (Spark's rule for the
    types of data: only a table's declaration keeps them)."""
    return _map_leaves(dt, lambda t: StringType() if isinstance(t, _LengthLimitedString) else t)


class BinaryType(AtomicType, metaclass=_Singleton):
    """A byte string."""


class BooleanType(AtomicType, metaclass=_Singleton):
    """``True``/``False``."""


class DateType(AtomicType, metaclass=_Singleton):
    """A calendar date (``datetime.date``)."""

    #: ``datetime.date(1970, 1, 1).toordinal()``: the epoch as PySpark counts days from it.
    EPOCH_ORDINAL = 719163


class TimestampType(AtomicType, metaclass=_Singleton):
    """An instant, shown as a wall time in the session time zone (``datetime.datetime``)."""


class TimestampNTZType(AtomicType, metaclass=_Singleton):
    """A wall-clock time without a time zone (naive ``datetime.datetime``)."""

    @classmethod
    def typeName(cls) -> str:  # noqa: N802 - PySpark's name
        """``timestamp_ntz``."""
        return "timestamp_ntz"


class VariantType(AtomicType, metaclass=_Singleton):
    """Semi-structured values (``parse_json``'s result); collected as :class:`VariantVal`."""


class DecimalType(FractionalType):
    """A fixed-point decimal (``decimal.Decimal``) of ``precision`` digits, ``scale`` after the point.

    Parameters
    ----------
    precision : int, optional
        The most digits a value has (at most 38), 10 by default.
    scale : int, optional
        The digits after the point, 0 by default.
    """

    def __init__(self, precision: int = 10, scale: int = 0) -> None:
        self.precision = precision
        self.scale = scale
        self.hasPrecisionInfo = True

    def simpleString(self) -> str:  # noqa: N802 - PySpark's name
        """``decimal(p,s)``."""
        return f"decimal({int(self.precision)},{int(self.scale)})"

    def jsonValue(self) -> str:  # noqa: N802 - PySpark's name
        """``decimal(p,s)``."""
        return self.simpleString()

    def __repr__(self) -> str:
        return f"DecimalType({int(self.precision)},{int(self.scale)})"

    def _tree_name(self) -> str:
        return self.simpleString()


class DoubleType(FractionalType, metaclass=_Singleton):
    """A 64-bit float."""


class FloatType(FractionalType, metaclass=_Singleton):
    """A 32-bit float."""


class ByteType(IntegralType):
    """A signed 8-bit integer."""

    _sql_name = "tinyint"


class ShortType(IntegralType):
    """A signed 16-bit integer."""

    _sql_name = "smallint"


class IntegerType(IntegralType):
    """A signed 32-bit integer."""

    _sql_name = "int"


class LongType(IntegralType):
    """A signed 64-bit integer."""

    _sql_name = "bigint"


def _require_type(value: Any, arg_name: str) -> None:
    if not isinstance(value, DataType):
        raise PySparkTypeError(f"Argument `{arg_name}` should be a DataType, got {type(value).__name__}.",
                               "NOT_DATATYPE", {"arg_name": arg_name, "arg_type": type(value).__name__})


class ArrayType(DataType):
    """A list of values of one type.

    Parameters
    ----------
    elementType : DataType
        The type of the elements.
    containsNull : bool, optional
        Whether an element may be ``None`` (True by default).
    """

    def __init__(self, elementType: DataType, containsNull: bool = True) -> None:  # noqa: N803 - PySpark's names
        _require_type(elementType, "elementType")
        self.elementType = elementType
        self.containsNull = containsNull

    def simpleString(self) -> str:  # noqa: N802 - PySpark's name
        """``array<element>``."""
        return f"array<{self.elementType.simpleString()}>"

    def __repr__(self) -> str:
        return f"ArrayType({self.elementType!r}, {self.containsNull})"

    def jsonValue(self) -> dict[str, Any]:  # noqa: N802 - PySpark's name
        """``{"type": "array", "elementType": ..., "containsNull": ...}``."""
        return {"type": self.typeName(), "elementType": self.elementType.jsonValue(),
                "containsNull": self.containsNull}

    @classmethod
    def fromJson(cls, json: dict[str, Any]) -> ArrayType:  # noqa: N802 - PySpark's name
        """The array type of its JSON dict."""
        return ArrayType(_parse_datatype_json_value(json["elementType"]), json["containsNull"])

    def needConversion(self) -> bool:  # noqa: N802 - PySpark's name
        """Whether the elements need converting."""
        return self.elementType.needConversion()

    def toNullable(self) -> ArrayType:  # noqa: N802 - PySpark's name
        """The same type with the elements, and every field, element and value inside them, nullable."""
        result: ArrayType = _nullable(self)
        return result


class MapType(DataType):
    """A dict from keys of one type to values of another.

    Parameters
    ----------
    keyType : DataType
        The type of the keys (never ``None``).
    valueType : DataType
        The type of the values.
    valueContainsNull : bool, optional
        Whether a value may be ``None`` (True by default).
    """

    def __init__(self, keyType: DataType, valueType: DataType,  # noqa: N803 - PySpark's names
                 valueContainsNull: bool = True) -> None:  # noqa: N803 - PySpark's names
        _require_type(keyType, "keyType")
        _require_type(valueType, "valueType")
        self.keyType = keyType
        self.valueType = valueType
        self.valueContainsNull = valueContainsNull

    def simpleString(self) -> str:  # noqa: N802 - PySpark's name
        """``map<key,value>``."""
        return f"map<{self.keyType.simpleString()},{self.valueType.simpleString()}>"

    def __repr__(self) -> str:
        return f"MapType({self.keyType!r}, {self.valueType!r}, {self.valueContainsNull})"

    def jsonValue(self) -> dict[str, Any]:  # noqa: N802 - PySpark's name
        """``{"type": "map", "keyType": ..., "valueType": ..., "valueContainsNull": ...}``."""
        return {"type": self.typeName(), "keyType": self.keyType.jsonValue(),
                "valueType": self.valueType.jsonValue(), "valueContainsNull": self.valueContainsNull}

    @classmethod
    def fromJson(cls, json: dict[str, Any]) -> MapType:  # noqa: N802 - PySpark's name
        """The map type of its JSON dict."""
        return MapType(_parse_datatype_json_value(json["keyType"]), _parse_datatype_json_value(json["valueType"]),
                       json["valueContainsNull"])

    def needConversion(self) -> bool:  # noqa: N802 - PySpark's name
        """Whether keys or values need converting."""
        return self.keyType.needConversion() or self.valueType.needConversion()

    def toNullable(self) -> MapType:  # noqa: N802 - PySpark's name
        """The same type with the values, and every field, element and value inside it, nullable."""
        result: MapType = _nullable(self)
        return result


class StructField(DataType):
    """One named, typed column of a :class:`StructType`.

    Parameters
    ----------
    name : str
        The field's name.
    dataType : DataType
        The field's type.
    nullable : bool, optional
        Whether the field may be ``None`` (True by default).
    metadata : dict, optional
        Free-form metadata (``{"comment": ...}``...), ``{}`` by default.
    """

    def __init__(self, name: str, dataType: DataType, nullable: bool = True,  # noqa: N803 - PySpark's names
                 metadata: dict[str, Any] | None = None) -> None:
        _require_type(dataType, "dataType")
        if not isinstance(name, str):
            raise PySparkTypeError(f"Argument `name` should be a str, got {type(name).__name__}.",
                                   "NOT_STR", {"arg_name": "name", "arg_type": type(name).__name__})
        self.name = name
        self.dataType = dataType
        self.nullable = nullable
        self.metadata = metadata or {}

    def simpleString(self) -> str:  # noqa: N802 - PySpark's name
        """``name:type``."""
        return f"{self.name}:{self.dataType.simpleString()}"

    def __repr__(self) -> str:
        return f"StructField('{self.name}', {self.dataType!r}, {self.nullable})"

    def jsonValue(self) -> dict[str, Any]:  # noqa: N802 - PySpark's name
        """``{"name", "type", "nullable", "metadata"}``."""
        return {"name": self.name, "type": self.dataType.jsonValue(), "nullable": self.nullable,
                "metadata": self.metadata}

    @classmethod
    def fromJson(cls, json: dict[str, Any]) -> StructField:  # noqa: N802 - PySpark's name
        """The field of its JSON dict."""
        return StructField(json["name"], _parse_datatype_json_value(json["type"]), json.get("nullable", True),
                           json.get("metadata"))

    @classmethod
    def typeName(cls) -> str:  # noqa: N802 - PySpark's name
        """A field is not a type: PySpark raises here too."""
        raise PySparkTypeError("StructField does not have typeName. Use typeName on its type explicitly instead.",
                               "INVALID_TYPENAME_CALL", {})

    def needConversion(self) -> bool:  # noqa: N802 - PySpark's name
        """Whether the field's values need converting."""
        return self.dataType.needConversion()

class StructType(DataType):
    """A row type: an ordered list of :class:`StructField`.

    Parameters
    ----------
    fields : list of StructField, optional
        The fields, in order (none by default; add more with :meth:`add`).
    """

    def __init__(self, fields: list[StructField] | None = None) -> None:
        self.fields: list[StructField] = list(fields) if fields else []
        for f in self.fields:
            if not isinstance(f, StructField):
                raise PySparkTypeError(f"Argument `fields` should be a list of StructField, got {type(f).__name__}.",
                                       "NOT_LIST_OF_STRUCTFIELD", {"arg_name": "fields"})
        self.names: list[str] = [f.name for f in self.fields]

    def add(self, field: str | StructField, data_type: str | DataType | None = None, nullable: bool = True,
            metadata: dict[str, Any] | None = None) -> StructType:
        """Append a field (a :class:`StructField`, or a name and a type) and return this struct.

        Parameters
        ----------
        field : str or StructField
            The field, or its name.
        data_type : DataType or str, optional
            The field's type (a DataType or its name, ``"integer"``, ``"int"``...) when ``field`` is a name.
        nullable : bool, optional
            Whether the field may be ``None``.
        metadata : dict, optional
            The field's metadata.

        Returns
        -------
        StructType
            ``self``, for chaining.
        """
        if isinstance(field, StructField):
            self.fields.append(field)
            self.names.append(field.name)
            return self
        if not isinstance(field, str) or data_type is None:
            raise PySparkValueError("Must specify DataType if passing name of struct_field to create.",
                                    "ARGUMENT_REQUIRED", {"arg_name": "data_type", "condition": "passing name"})
        if isinstance(data_type, str):
            # PySpark reads a type given by name as a JSON type name ("integer", "string", "decimal(5,2)").
            data_type = _parse_datatype_json_value(data_type)
        return self.add(StructField(field, data_type, nullable, metadata))

    def __iter__(self) -> Iterator[StructField]:
        return iter(self.fields)

    def __len__(self) -> int:
        return len(self.fields)

    def __contains__(self, item: object) -> bool:
        # A name or a whole field; PySpark code writes both `"a" in schema.names` and `"a" in schema`.
        if isinstance(item, str):
            return item in self.names
        return item in self.fields

    def __getitem__(self, key: str | int | slice) -> Any:
        if isinstance(key, str):
            for field in self.fields:
                if field.name == key:
                    return field
            raise KeyError(f"No StructField named {key}")
        if isinstance(key, int):
            try:
                return self.fields[key]
            except IndexError:
                raise IndexError("StructType index out of range") from None
        if isinstance(key, slice):
            return StructType(self.fields[key])
        raise PySparkTypeError(f"Argument `key` should be an int, a slice or a str, got {type(key).__name__}.",
                               "NOT_INT_OR_SLICE_OR_STR", {"arg_name": "key", "arg_type": type(key).__name__})

    def fieldNames(self) -> list[str]:  # noqa: N802 - PySpark's name
        """The field names, in order (a new list)."""
        return list(self.names)

    def toNullable(self) -> StructType:  # noqa: N802 - PySpark's name
        """The same schema with every field, array element and map value nullable, at every depth."""
        return _nullable(self)

    def toDDL(self) -> str:  # noqa: N802 - PySpark's name
        """The schema as a DDL string (``id BIGINT,s STRING``), which ``fromDDL`` reads back."""
        return ",".join(field_sql(f) for f in self.fields)

    def simpleString(self) -> str:  # noqa: N802 - PySpark's name
        """``struct<a:int,b:string>``."""
        return "struct<{}>".format(",".join(f.simpleString() for f in self.fields))

    def __repr__(self) -> str:
        return "StructType([{}])".format(", ".join(repr(f) for f in self.fields))

    def jsonValue(self) -> dict[str, Any]:  # noqa: N802 - PySpark's name
        """``{"type": "struct", "fields": [...]}``."""
        return {"type": self.typeName(), "fields": [f.jsonValue() for f in self.fields]}

    @classmethod
    def fromJson(cls, json: dict[str, Any]) -> StructType:  # noqa: N802 - PySpark's name
        """The struct of its JSON dict."""
        return StructType([StructField.fromJson(f) for f in json["fields"]])

    def treeString(self, level: int | None = None) -> str:  # noqa: N802 - PySpark's name
        """printSchema's text: ``root``, then a ``|-- name: type (nullable = true)`` line per field.

        Nested types are indented under their field.

        Parameters
        ----------
        level : int, optional
            The deepest level printed (all when ``None`` or not positive).
        """
        return tree_string(self, level)

    def needConversion(self) -> bool:  # noqa: N802 - PySpark's name
        """Rows always need converting (tuples to ``Row``)."""
        return True


_ATOMIC_TYPES: tuple[type[DataType], ...] = (
    NullType, StringType, BinaryType, BooleanType, DateType, TimestampType, TimestampNTZType,
    DoubleType, FloatType, ByteType, ShortType, IntegerType, LongType, VariantType, CalendarIntervalType,
)
_ATOMIC_BY_JSON_NAME: dict[str, type[DataType]] = {t.typeName(): t for t in _ATOMIC_TYPES}
_ATOMIC_BY_JSON_NAME["null"] = NullType  # older Spark versions wrote NullType as "null"


def _parse_datatype_json_value(json_value: Any) -> DataType:
    """The type of a JSON value as ``jsonValue()`` writes it."""
    return type_from_json(json_value, sys.modules[__name__])


def _parse_datatype_json_string(json_string: str) -> DataType:
    """The type of a JSON text as ``json()`` writes it."""
    return _parse_datatype_json_value(_json.loads(json_string))


def _parse_datatype_string(s: str) -> DataType:
    """The type a DDL string describes, as PySpark's ``_parse_datatype_string``.

    ``"a int, b string"`` and ``"a: int, b: string"`` give a StructType; ``"int"``, ``"array<int>"``,
    ``"map<string,int>"``, ``"struct<a:int>"``, ``"decimal(10,2)"`` give that type.
    Raises ParseException naming the text when it is not a type.
    """
    return type_from_tree(ddl.parse_schema_or_type(s), sys.modules[__name__])


def _nullable(dt: Any) -> Any:
    if isinstance(dt, StructType):
        return StructType([StructField(f.name, _nullable(f.dataType), True, f.metadata) for f in dt.fields])
    if isinstance(dt, MapType):
        return MapType(_nullable(dt.keyType), _nullable(dt.valueType), True)
    return ArrayType(_nullable(dt.elementType), True) if isinstance(dt, ArrayType) else dt


from dstream.sql.row import Row  # noqa: E402 - PySpark exports Row from the types module too
from dstream.sql.variant.value import VariantVal  # noqa: E402 - PySpark exports it from the types module

PARSERS["json"] = _parse_datatype_json_value
PARSERS["ddl"] = _parse_datatype_string
# The classes defined beside this module belong to it, as all of PySpark's types belong to
# pyspark.sql.types: their module name in reprs, in pickles and in type(x).__module__.
for _cls in (DataType, NullType, AtomicType, NumericType, IntegralType, FractionalType, AnsiIntervalType,
             DayTimeIntervalType, YearMonthIntervalType, CalendarIntervalType):
    _cls.__module__ = __name__

"""Stand-ins for PySpark's type classes until dstream.sql.types lands: same names and attributes.

formatting.py recognises types by class name, so these exercise the same code paths.
"""

from __future__ import annotations

from dataclasses import dataclass, field


class DataType:
    """Base of the stand-in types."""


class StringType(DataType):
    """string"""


class LongType(DataType):
    """bigint"""


class IntegerType(DataType):
    """int"""


class DoubleType(DataType):
    """double"""


class FloatType(DataType):
    """float"""


class BooleanType(DataType):
    """boolean"""


class DateType(DataType):
    """date"""


class TimestampType(DataType):
    """timestamp"""


class BinaryType(DataType):
    """binary"""


@dataclass
class DecimalType(DataType):
    precision: int = 10
    scale: int = 0


@dataclass
class ArrayType(DataType):
    elementType: DataType  # noqa: N815
    containsNull: bool = True  # noqa: N815


@dataclass
class MapType(DataType):
    keyType: DataType  # noqa: N815
    valueType: DataType  # noqa: N815
    valueContainsNull: bool = True  # noqa: N815


@dataclass
class StructField:
    name: str
    dataType: DataType  # noqa: N815
    nullable: bool = True


@dataclass
class StructType(DataType):
    fields: list[StructField] = field(default_factory=list)

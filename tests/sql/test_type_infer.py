"""dstream.sql.type_infer: PySpark's inference rules for createDataFrame(data) without a schema."""

from __future__ import annotations

import array
import collections
import datetime
import decimal

import pytest

from dstream.sql.errors import PySparkTypeError, PySparkValueError
from dstream.sql.row import Row
from dstream.sql.type_infer import infer_schema, infer_type, merge_type
from dstream.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    IntegerType,
    LongType,
    MapType,
    NullType,
    StringType,
    StructField,
    StructType,
    TimestampNTZType,
    TimestampType,
    _parse_datatype_string,
)


def test_infer_type_of_values() -> None:
    cases = [
        (None, NullType()), (True, BooleanType()), (1, LongType()), (1.5, DoubleType()), ("x", StringType()),
        (b"x", BinaryType()), (bytearray(b"x"), BinaryType()), (decimal.Decimal("1.5"), DecimalType(38, 18)),
        (datetime.date(2020, 1, 1), DateType()), (datetime.datetime(2020, 1, 1), TimestampType()),
        (datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc), TimestampType()),
        ([1, None, 2], ArrayType(LongType())), ([], ArrayType(NullType())),
        ({"a": 1, "b": None}, MapType(StringType(), LongType())),
        (array.array("i", [1]), ArrayType(IntegerType(), False)),
        ((1, "x"), _parse_datatype_string("struct<_1: bigint, _2: string>")),
        (Row(b=1, a=Row(c=2.0)), _parse_datatype_string("struct<b: bigint, a: struct<c: double>>")),
    ]
    for value, expected in cases:
        assert infer_type(value) == expected, value
    assert infer_type(datetime.datetime(2020, 1, 1), prefer_timestamp_ntz=True) == TimestampNTZType()


def test_infer_schema_record_kinds() -> None:
    assert infer_schema([{"b": 1, "a": "x"}]).names == ["a", "b"]
    assert infer_schema([Row(b=1, a="x")]).names == ["b", "a"]
    nt = collections.namedtuple("nt", "z y")
    assert infer_schema([nt(1, 2)]).names == ["z", "y"]
    assert infer_schema([(1, 2, 3)], names=["p"]).names == ["p", "_2", "_3"]

    class Obj:
        def __init__(self) -> None:
            self.k = 1
            self.c = "s"

    assert infer_schema([Obj()]) == StructType([StructField("c", StringType()), StructField("k", LongType())])


def test_infer_schema_merges_rows() -> None:
    schema = infer_schema([{"a": None, "b": [None]}, {"a": 1, "b": [2.5], "c": {"k": None}}, {"c": {"k": True}}])
    assert schema == _parse_datatype_string("a bigint, b array<double>, c map<string, boolean>")


@pytest.mark.parametrize(("records", "error", "condition"), [
    ([], PySparkValueError, "CANNOT_INFER_EMPTY_SCHEMA"),
    ([(None,)], PySparkValueError, "CANNOT_DETERMINE_TYPE"),
    ([([],)], PySparkValueError, "CANNOT_DETERMINE_TYPE"),
    ([(1,), ([1],)], PySparkTypeError, "CANNOT_MERGE_TYPE"),
    ([(1,), (1.5,)], PySparkTypeError, "CANNOT_MERGE_TYPE"),
    ([1], PySparkTypeError, "CANNOT_INFER_SCHEMA_FOR_TYPE"),
    ([(object(),)], PySparkTypeError, "CANNOT_INFER_TYPE_FOR_FIELD"),
])
def test_infer_schema_errors(records: list, error: type, condition: str) -> None:
    with pytest.raises(error) as info:
        infer_schema(records)
    assert info.value.getCondition() == condition


def test_merge_type_rules() -> None:
    assert merge_type(NullType(), LongType()) == LongType() and merge_type(LongType(), NullType()) == LongType()
    assert merge_type(TimestampNTZType(), TimestampType()) == TimestampType()
    a = _parse_datatype_string("struct<x: bigint, y: void>")
    b = _parse_datatype_string("struct<y: string, z: double>")
    assert merge_type(a, b) == _parse_datatype_string("struct<x: bigint, y: string, z: double>")
    # PySpark 4: an atomic type meets a string at string, inside arrays too.
    assert merge_type(ArrayType(LongType()), ArrayType(StringType())) == ArrayType(StringType())
    with pytest.raises(PySparkTypeError):
        merge_type(ArrayType(LongType()), LongType())

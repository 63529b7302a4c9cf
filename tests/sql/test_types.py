"""dstream.sql.types: PySpark's reprs, simple strings, JSON, printSchema text and the DDL parser."""

from __future__ import annotations

import json
import pickle

import cloudpickle
import pytest

from dstream.sql.errors import ParseException, PySparkTypeError, PySparkValueError
from dstream.sql.types import (
    ArrayType,
    AtomicType,
    BinaryType,
    BooleanType,
    ByteType,
    DataType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    FractionalType,
    IntegerType,
    IntegralType,
    LongType,
    MapType,
    NullType,
    NumericType,
    Row,
    ShortType,
    StringType,
    StructField,
    StructType,
    TimestampNTZType,
    TimestampType,
    VarcharType,
    _parse_datatype_json_string,
    _parse_datatype_string,
)

ATOMIC = [
    (NullType(), "void", "void", "NullType()"),
    (StringType(), "string", "string", "StringType()"),
    (BinaryType(), "binary", "binary", "BinaryType()"),
    (BooleanType(), "boolean", "boolean", "BooleanType()"),
    (DateType(), "date", "date", "DateType()"),
    (TimestampType(), "timestamp", "timestamp", "TimestampType()"),
    (TimestampNTZType(), "timestamp_ntz", "timestamp_ntz", "TimestampNTZType()"),
    (DecimalType(10, 2), "decimal(10,2)", "decimal", "DecimalType(10,2)"),
    (DoubleType(), "double", "double", "DoubleType()"),
    (FloatType(), "float", "float", "FloatType()"),
    (ByteType(), "tinyint", "byte", "ByteType()"),
    (ShortType(), "smallint", "short", "ShortType()"),
    (IntegerType(), "int", "integer", "IntegerType()"),
    (LongType(), "bigint", "long", "LongType()"),
]


@pytest.mark.parametrize(("dt", "simple", "type_name", "text"), ATOMIC)
def test_atomic_type_strings(dt: DataType, simple: str, type_name: str, text: str) -> None:
    assert dt.simpleString() == simple
    assert dt.typeName() == type_name
    assert repr(dt) == text
    assert DataType.fromJson(json.loads(dt.json())) == dt
    assert _parse_datatype_json_string(dt.json()) == dt


def test_parameterless_types_are_singletons_and_equal_by_value() -> None:
    assert IntegerType() is IntegerType()
    assert DecimalType(10, 2) == DecimalType(10, 2)
    assert DecimalType(10, 2) != DecimalType(10, 3)
    assert hash(DecimalType(5, 1)) == hash(DecimalType(5, 1))
    assert DecimalType() == DecimalType(10, 0)
    assert IntegerType() != LongType()
    assert ArrayType(IntegerType()) == ArrayType(IntegerType(), True)
    assert ArrayType(IntegerType()) != ArrayType(IntegerType(), False)
    assert len({StructType().add("a", "long"), StructType([StructField("a", LongType())])}) == 1


def test_type_hierarchy_as_pyspark() -> None:
    assert isinstance(IntegerType(), IntegralType) and isinstance(IntegerType(), NumericType)
    assert isinstance(DecimalType(), FractionalType) and isinstance(DoubleType(), FractionalType)
    assert isinstance(StringType(), AtomicType) and not isinstance(StringType(), NumericType)
    assert not isinstance(ArrayType(StringType()), AtomicType)


def test_nested_reprs_and_simple_strings() -> None:
    schema = StructType([
        StructField("a", LongType(), True),
        StructField("arr", ArrayType(IntegerType(), False)),
        StructField("m", MapType(StringType(), DecimalType(10, 2)), False),
        StructField("s", StructType([StructField("x", IntegerType()), StructField("y", StringType())])),
    ])
    assert repr(schema) == (
        "StructType([StructField('a', LongType(), True), StructField('arr', ArrayType(IntegerType(), False), True), "
        "StructField('m', MapType(StringType(), DecimalType(10,2), True), False), "
        "StructField('s', StructType([StructField('x', IntegerType(), True), StructField('y', StringType(), True)]), "
        "True)])")
    assert schema.simpleString() == \
        "struct<a:bigint,arr:array<int>,m:map<string,decimal(10,2)>,s:struct<x:int,y:string>>"
    assert StructField("a", LongType()).simpleString() == "a:bigint"


def test_json_is_sparks_and_round_trips() -> None:
    schema = StructType([StructField("a", LongType(), False, {"comment": "c"}),
                         StructField("m", MapType(StringType(), ArrayType(DoubleType(), False)))])
    assert schema.json() == (
        '{"fields":[{"metadata":{"comment":"c"},"name":"a","nullable":false,"type":"long"},'
        '{"metadata":{},"name":"m","nullable":true,"type":{"keyType":"string","type":"map",'
        '"valueContainsNull":true,"valueType":{"containsNull":false,"elementType":"double","type":"array"}}}],'
        '"type":"struct"}')
    assert StructType.fromJson(json.loads(schema.json())) == schema
    assert _parse_datatype_json_string(schema.json()) == schema
    assert _parse_datatype_json_string('"null"') == NullType()
    with pytest.raises(PySparkValueError):
        _parse_datatype_json_string('"int"')


def test_struct_type_access() -> None:
    schema = StructType().add("a", IntegerType()).add(StructField("b", StringType(), False)).add("c", "decimal(5,2)")
    assert schema.names == ["a", "b", "c"] and schema.fieldNames() == ["a", "b", "c"]
    assert schema.fieldNames() is not schema.names
    assert schema["b"] == StructField("b", StringType(), False)
    assert schema[0].name == "a" and schema[-1].dataType == DecimalType(5, 2)
    assert schema[1:] == StructType([StructField("b", StringType(), False), StructField("c", DecimalType(5, 2))])
    assert [f.name for f in schema] == ["a", "b", "c"] and len(schema) == 3
    assert "a" in schema and "z" not in schema and StructField("a", IntegerType()) in schema
    with pytest.raises(KeyError):
        schema["z"]
    with pytest.raises(IndexError):
        schema[3]
    with pytest.raises(TypeError):
        schema[1.5]  # type: ignore[index]
    with pytest.raises(ValueError):
        StructType().add("a")
    with pytest.raises(TypeError):
        StructField("a", "int")  # type: ignore[arg-type]
    with pytest.raises(PySparkTypeError):
        StructField("a", LongType()).typeName()


def test_tree_string_matches_print_schema() -> None:
    schema = _parse_datatype_string(
        "a bigint, s struct<x: int, y: array<struct<z: string>>>, m map<string, array<int>>, "
        "d decimal(10,2) not null, t timestamp, n timestamp_ntz, v void")
    assert schema.treeString() == (
        "root\n"
        " |-- a: long (nullable = true)\n"
        " |-- s: struct (nullable = true)\n"
        " |    |-- x: integer (nullable = true)\n"
        " |    |-- y: array (nullable = true)\n"
        " |    |    |-- element: struct (containsNull = true)\n"
        " |    |    |    |-- z: string (nullable = true)\n"
        " |-- m: map (nullable = true)\n"
        " |    |-- key: string\n"
        " |    |-- value: array (valueContainsNull = true)\n"
        " |    |    |-- element: integer (containsNull = true)\n"
        " |-- d: decimal(10,2) (nullable = false)\n"
        " |-- t: timestamp (nullable = true)\n"
        " |-- n: timestamp_ntz (nullable = true)\n"
        " |-- v: void (nullable = true)\n")
    assert schema.treeString(1).count("\n") == 8
    assert StructType([StructField("a\nb", ByteType())]).treeString() == "root\n |-- a\\nb: byte (nullable = true)\n"


@pytest.mark.parametrize(("text", "expected"), [
    ("int", IntegerType()), ("INTEGER", IntegerType()), ("bigint", LongType()), ("long", LongType()),
    ("tinyint", ByteType()), ("smallint", ShortType()), ("real", FloatType()), ("double", DoubleType()),
    ("string", StringType()), ("varchar(10)", VarcharType(10)), ("binary", BinaryType()), ("boolean", BooleanType()),
    ("date", DateType()), ("timestamp", TimestampType()), ("timestamp_ntz", TimestampNTZType()),
    ("decimal", DecimalType(10, 0)), ("decimal(10,2)", DecimalType(10, 2)), ("numeric(5)", DecimalType(5, 0)),
    ("array<int>", ArrayType(IntegerType())), ("map<string,int>", MapType(StringType(), IntegerType())),
    ("struct<a:int,b:string>", StructType([StructField("a", IntegerType()), StructField("b", StringType())])),
    ("struct<>", StructType()),
    ("a int, b string", StructType([StructField("a", IntegerType()), StructField("b", StringType())])),
    ("a: int, b: string", StructType([StructField("a", IntegerType()), StructField("b", StringType())])),
    ("`weird name` array<map<string, decimal(38,18)>> NOT NULL COMMENT 'it\\'s'",
     StructType([StructField("weird name", ArrayType(MapType(StringType(), DecimalType(38, 18))), False,
                             {"comment": "it's"})])),
    ("int_col int", StructType([StructField("int_col", IntegerType())])),
])
def test_parse_datatype_string(text: str, expected: DataType) -> None:
    assert _parse_datatype_string(text) == expected
    assert DataType.fromDDL(text) == expected


def test_parse_comment_goes_to_metadata() -> None:
    field = _parse_datatype_string("a int comment 'the a'")["a"]
    assert field.metadata == {"comment": "the a"}


@pytest.mark.parametrize(("text", "condition"), [
    ("a foo", "UNSUPPORTED_DATATYPE"), ("array<int", "PARSE_SYNTAX_ERROR"), ("a int,", "PARSE_SYNTAX_ERROR"),
    ("map<int>", "PARSE_SYNTAX_ERROR"), ("a int b", "PARSE_SYNTAX_ERROR"), ("a int; drop", "PARSE_SYNTAX_ERROR"),
    ("a decimal(39,0)", "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION"),
])
def test_parse_errors_name_the_text(text: str, condition: str) -> None:
    with pytest.raises(ParseException) as info:
        _parse_datatype_string(text)
    assert info.value.getCondition() == condition
    if condition != "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION":
        assert text in str(info.value)


def test_types_pickle() -> None:
    schema = _parse_datatype_string("a int, b array<map<string, struct<c: decimal(5,2)>>>")
    assert pickle.loads(pickle.dumps(schema)) == schema
    assert cloudpickle.loads(cloudpickle.dumps(schema)) == schema
    assert pickle.loads(pickle.dumps(IntegerType())) is IntegerType()


def test_row_is_exported_from_types() -> None:
    assert Row(a=1).a == 1


def test_to_ddl_writes_sparks_ddl_that_from_ddl_reads_back() -> None:
    # PySpark 4.0.1: "a INT,b STRUCT<c: STRING, `d e`: ARRAY<INT>>" for the first schema.
    schema = StructType.fromDDL("a int, b struct<c: string, `d e`: array<int>>, m map<string, decimal(10,2)>")
    assert schema.toDDL() == "a INT,b STRUCT<c: STRING, `d e`: ARRAY<INT>>,m MAP<STRING, DECIMAL(10,2)>"
    assert StructType.fromDDL(schema.toDDL()) == schema
    strict = StructType([StructField("id", LongType(), False, {"comment": "it's"}),
                         StructField("t", TimestampNTZType()), StructField("b", ByteType())])
    assert strict.toDDL() == "id BIGINT NOT NULL COMMENT 'it\\'s',t TIMESTAMP_NTZ,b TINYINT"
    assert [(f.name, f.dataType, f.nullable) for f in StructType.fromDDL(strict.toDDL()).fields] == [
        ("id", LongType(), False), ("t", TimestampNTZType(), True), ("b", ByteType(), True)]


def test_to_nullable_makes_every_level_nullable() -> None:
    schema = StructType.fromDDL("a int not null, b array<int>, m map<string, struct<x: int not null>>")
    strict = StructType([StructField("a", IntegerType(), False),
                         StructField("b", ArrayType(IntegerType(), False), False),
                         StructField("m", MapType(StringType(), schema["m"].dataType.valueType, False))])
    # PySpark 4.0.1: StructType([StructField('a', IntegerType(), True), StructField('b', ArrayType(IntegerType(),
    # True), True)]) for the first two fields.
    relaxed = strict.toNullable()
    assert relaxed == StructType([
        StructField("a", IntegerType(), True), StructField("b", ArrayType(IntegerType(), True), True),
        StructField("m", MapType(StringType(), StructType([StructField("x", IntegerType(), True)]), True), True)])
    assert strict["a"].nullable is False  # unchanged
    # ArrayType.toNullable and MapType.toNullable (PySpark 4.0.1's docstring examples and output).
    assert ArrayType(IntegerType(), containsNull=False).toNullable() == ArrayType(IntegerType(), True)
    nested = ArrayType(StructType([StructField("b", IntegerType(), False),
                                   StructField("c", ArrayType(IntegerType(), False))]), False)
    assert repr(nested.toNullable()) == ("ArrayType(StructType([StructField('b', IntegerType(), True), "
                                         "StructField('c', ArrayType(IntegerType(), True), True)]), True)")
    assert repr(MapType(StringType(), ArrayType(IntegerType(), False), False).toNullable()) == \
        "MapType(StringType(), ArrayType(IntegerType(), True), True)"
    assert DateType.EPOCH_ORDINAL == 719163

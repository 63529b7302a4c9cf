"""``from_avro`` and ``to_avro`` against PySpark 4.0.1 with Spark's ``spark-avro`` 4.0.1 module.

The hex strings are the bytes PySpark wrote for the same calls; the errors are the ones it
raised (``dstream`` refuses a misfit schema when the query is defined, Spark when it runs).
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import Row, SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom
from dstream.sql.avro.functions import from_avro, to_avro
from dstream.sql.errors import AnalysisException, SparkRuntimeException
from dstream.sql.streaming import MemoryStream

RECORD = json.dumps({"type": "record", "name": "r", "fields": [
    {"name": "i", "type": "int"}, {"name": "s", "type": ["null", "string"]},
    {"name": "d", "type": ["null", "double"]}, {"name": "b", "type": "boolean"}]})

EVERY_TYPE = json.dumps({"type": "record", "name": "top", "namespace": "ns", "fields": [
    {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-micros"}},
    {"name": "tm", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    {"name": "dt", "type": {"type": "int", "logicalType": "date"}},
    {"name": "dec", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
    {"name": "fx", "type": {"type": "fixed", "name": "f4", "size": 4}},
    {"name": "en", "type": {"type": "enum", "name": "e", "symbols": ["A", "B"]}},
    {"name": "arr", "type": {"type": "array", "items": "long"}},
    {"name": "mp", "type": {"type": "map", "values": ["null", "float"]}},
    {"name": "u", "type": ["int", "string"]},
    {"name": "nested", "type": {"type": "record", "name": "n", "fields": [{"name": "x", "type": "bytes"}]}},
    {"name": "lts", "type": {"type": "long", "logicalType": "local-timestamp-micros"}},
    {"name": "uu", "type": {"type": "string", "logicalType": "uuid"}}]})

# PySpark's bytes for one row of EVERY_TYPE (its map holds "n" then "k"), with the schema and without.
EVERY_TYPE_HEX = ("80d6fd84b8fb860686e4868299638cb5020404d26162636402060204060004026e00026b020000c03f000206737472040001"
                  "80808982e2f586064831323365343536372d653839622d313264332d613435362d343236363134313734303030")
EVERY_TYPE_DERIVED_HEX = (
    "0080d6fd84b8fb860600f0cefd84b8fb8606008cb50200000004d20008616263640002420006020406000004026e02026b000000c03f00"
    "00020006737472000400010080808982e2f58606004831323365343536372d653839622d313264332d613435362d3432363631343137"
    "34303030")


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local[2]").appName("avro").getOrCreate()
    session.conf.set("spark.sql.session.timeZone", "UTC")
    yield session
    session.stop()


@pytest.fixture
def df(spark: SparkSession) -> Any:
    return spark.createDataFrame([(1, "a", 2.5, True), (2, None, None, False)], "i int, s string, d double, b boolean")


def _hex(frame: Any) -> list[str | None]:
    return [None if r[0] is None else bytes(r[0]).hex() for r in frame.collect()]


def test_to_avro_writes_spark_s_bytes(df: Any) -> None:
    # Without a schema, nullable values are unions [type, null]; with one, its unions' order.
    assert _hex(df.select(to_avro(F.struct("*")))) == ["00020002610000000000000004400001", "000402020000"]
    assert _hex(df.select(to_avro("i"))) == ["0002", "0004"]
    assert _hex(df.select(to_avro("s"))) == ["000261", None]
    assert _hex(df.select(to_avro(F.struct("*"), RECORD))) == ["0202026102000000000000044001", "04000000"]
    assert df.select(to_avro(F.struct("*"))).columns == ["to_avro(struct(i, s, d, b), NULL)"]
    assert df.select(to_avro(F.struct("*"), RECORD)).columns == [f"to_avro(struct(i, s, d, b), {RECORD})"]


def test_from_avro_reads_what_to_avro_wrote(df: Any) -> None:
    encoded = df.select(to_avro(F.struct("*"), RECORD).alias("v"))
    decoded = encoded.select(from_avro("v", RECORD).alias("x"))
    assert decoded.schema.simpleString() == "struct<x:struct<i:int,s:string,d:double,b:boolean>>"
    assert decoded.collect() == [Row(x=Row(i=1, s="a", d=2.5, b=True)), Row(x=Row(i=2, s=None, d=None, b=False))]
    assert encoded.select(from_avro("v", RECORD)).columns == [f"from_avro(v, {RECORD}, NULL)"]


def test_every_avro_type_maps_to_spark_s_type_and_bytes(spark: SparkSession) -> None:
    frame = spark.range(1).select(from_avro(F.lit(None).cast("binary"), EVERY_TYPE).alias("x")).select("x.*")
    assert frame.schema.simpleString() == (
        "struct<ts:timestamp,tm:timestamp,dt:date,dec:decimal(9,2),fx:binary,en:string,arr:array<bigint>,"
        "mp:map<string,float>,u:struct<member0:int,member1:string>,nested:struct<x:binary>,lts:timestamp_ntz,"
        "uu:string>")
    utc = datetime.timezone.utc
    row = (datetime.datetime(2024, 1, 2, 3, 4, 5, 123456, tzinfo=utc),
           datetime.datetime(2024, 1, 2, 3, 4, 5, 123000, tzinfo=utc), datetime.date(2024, 2, 29), Decimal("12.34"),
           bytearray(b"abcd"), "B", [1, 2, 3], {"n": None, "k": 1.5}, Row(member0=None, member1="str"),
           Row(x=bytearray(b"\x00\x01")), datetime.datetime(2024, 1, 1), "123e4567-e89b-12d3-a456-426614174000")
    source = spark.createDataFrame([row], frame.schema)
    assert _hex(source.select(to_avro(F.struct("*"), EVERY_TYPE))) == [EVERY_TYPE_HEX]
    assert _hex(source.select(to_avro(F.struct("*")))) == [EVERY_TYPE_DERIVED_HEX]
    back = spark.createDataFrame([(bytes.fromhex(EVERY_TYPE_HEX),)], "v binary").select(
        from_avro("v", EVERY_TYPE).alias("x")).first().x
    assert back == Row(ts=datetime.datetime(2024, 1, 2, 3, 4, 5, 123456),
                       tm=datetime.datetime(2024, 1, 2, 3, 4, 5, 123000), dt=datetime.date(2024, 2, 29),
                       dec=Decimal("12.34"), fx=bytearray(b"abcd"), en="B",
                       arr=[1, 2, 3], mp={"n": None, "k": 1.5}, u=Row(member0=None, member1="str"),
                       nested=Row(x=bytearray(b"\x00\x01")), lts=datetime.datetime(2024, 1, 1),
                       uu="123e4567-e89b-12d3-a456-426614174000")


def test_other_spark_encodings(spark: SparkSession) -> None:
    assert _hex(spark.sql("SELECT to_avro(CAST(-128.5 AS DECIMAL(5,1)))")) == ["fffafb"]  # a fixed of 3 bytes
    assert _hex(spark.sql("""SELECT to_avro(CAST(-128 AS DECIMAL(5,0)),
                          '{"type": "bytes", "logicalType": "decimal", "precision": 5, "scale": 0}')""")) == ["0280"]
    assert _hex(spark.createDataFrame([("B",)], "e string").select(
        to_avro("e", '{"type": "enum", "name": "x", "symbols": ["A", "B"]}'))) == ["02"]
    row = spark.sql("SELECT to_avro(CAST(5 AS TINYINT)), to_avro(CAST(-3 AS SMALLINT)), to_avro(date'2024-02-29'), "
                    "to_avro(timestamp_ntz'2024-01-01 00:00:00'), to_avro(array(1, 2)), "
                    "to_avro(timestamp'2024-01-01 00:00:00 UTC', "
                    "'{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}')").first()
    assert [bytes(v).hex() for v in row] == ["0a", "05", "8cb502", "80808982e2f58606", "04020400", "80d08fa59863"]
    # A record's fields are matched by name: the schema's order is the order written.
    reordered = json.dumps({"type": "record", "name": "r", "fields": [{"name": "s", "type": "string"},
                                                                        {"name": "i", "type": "int"}]})
    assert _hex(spark.createDataFrame([(1, "a")], "i int, s string").select(
        to_avro(F.struct("*"), reordered))) == ["026102"]


def test_sql_functions_and_a_primitive_schema(spark: SparkSession) -> None:
    assert spark.sql("""SELECT from_avro(X'02', '"int"') a""").collect() == [Row(a=1)]
    assert spark.sql("""SELECT from_avro(X'FF', '"string"', map('mode', 'PERMISSIVE')) a""").collect() == [Row(a=None)]
    # int with long reads as BIGINT, float with double as DOUBLE.
    assert spark.sql("""SELECT from_avro(X'0002', '["int", "long"]') a""").collect() == [Row(a=1)]


def test_malformed_data_by_mode(spark: SparkSession) -> None:
    bad = spark.createDataFrame([(bytearray(b"\xff\xff\xff"),)], "v binary")
    with pytest.raises(SparkRuntimeException, match="Malformed records are detected in record parsing. Current parse "
                                                    "Mode: FAILFAST. To process malformed records as null result, try "
                                                    "setting the option 'mode' as 'PERMISSIVE'."):
        bad.select(from_avro("v", RECORD)).collect()
    # PERMISSIVE (and an unknown mode, as in Spark) gives a struct of nulls; a null datum gives null.
    for mode in ("PERMISSIVE", "XYZ"):
        assert bad.select(from_avro("v", RECORD, {"mode": mode}).alias("x")).collect() == \
            [Row(x=Row(i=None, s=None, d=None, b=None))]
    assert spark.createDataFrame([(None,)], "v binary").select(from_avro("v", RECORD).alias("x")).collect() == \
        [Row(x=None)]
    with pytest.raises(AnalysisException) as caught:
        bad.select(from_avro("v", RECORD, {"mode": "DROPMALFORMED"}))
    assert caught.value.getCondition() == "PARSE_MODE_UNSUPPORTED"


def test_an_evolved_schema_reads_old_data(spark: SparkSession) -> None:
    writer = json.dumps({"type": "record", "name": "r", "fields": [
        {"name": "i", "type": "int"}, {"name": "s", "type": ["null", "string"]},
        {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A", "B", "C"]}},
        {"name": "f", "type": "float"}]})
    data = spark.createDataFrame([(1, "a", "B", 1.5), (2, None, "C", 2.5)], "i int, s string, e string, f float")
    encoded = data.select(to_avro(F.struct("*"), writer).alias("v"))

    def read(reader: dict[str, Any], mode: str = "FAILFAST") -> list[Row]:
        return encoded.select(from_avro("v", writer, {"avroSchema": json.dumps(reader), "mode": mode}).alias("x")
                              ).collect()

    # Promotions, defaults, a dropped field, an added enum symbol, another record name.
    evolved = {"type": "record", "name": "other", "fields": [
        {"name": "i", "type": "long"}, {"name": "f", "type": "double"},
        {"name": "n", "type": "string", "default": "dflt"},
        {"name": "m", "type": ["null", "int"], "default": None},
        {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A", "B", "C", "D"]}}]}
    assert read(evolved) == [Row(x=Row(i=1, f=1.5, n="dflt", m=None, e="B")), Row(x=Row(i=2, f=2.5, n="dflt", m=None,
                                                                                       e="C"))]
    shrunk_enum = {"type": "record", "name": "r", "fields": [
        {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A", "B"], "default": "A"}}]}
    assert read(shrunk_enum) == [Row(x=Row(e="B")), Row(x=Row(e="A"))]
    as_bytes = {"type": "record", "name": "r", "fields": [{"name": "s", "type": ["null", "bytes"]}]}
    assert read(as_bytes) == [Row(x=Row(s=bytearray(b"a"))), Row(x=Row(s=None))]
    complex_defaults = {"type": "record", "name": "r", "fields": [
        {"name": "arr", "type": {"type": "array", "items": "int"}, "default": [1, 2]},
        {"name": "rec", "type": {"type": "record", "name": "R2", "fields": [{"name": "q", "type": "int"}]},
         "default": {"q": 7}},
        {"name": "b", "type": "bytes", "default": "\u00ff"}]}
    assert read(complex_defaults) == [Row(x=Row(arr=[1, 2], rec=Row(q=7), b=bytearray(b"\xff")))] * 2
    # Unreadable as the reader's schema: a field without default, a null into a non-union, int as string.
    for reader in ({"type": "record", "name": "r", "fields": [{"name": "z", "type": "int"}]},
                   {"type": "record", "name": "r", "fields": [{"name": "s", "type": "string"}]},
                   {"type": "record", "name": "r", "fields": [{"name": "i", "type": "string"}]}):
        with pytest.raises(SparkRuntimeException, match="Malformed records are detected in record parsing"):
            read(reader)
    assert read(evolved | {"fields": [{"name": "z", "type": "int"}]}, "PERMISSIVE") == [Row(x=Row(z=None))] * 2


@pytest.mark.parametrize(("build", "condition", "text"), [
    (lambda s: s.range(1).select(from_avro(F.lit(b"x"), "{not json")), "AVRO_INVALID_SCHEMA", "it is not JSON"),
    (lambda s: s.range(1).select(from_avro(F.lit(b"x"), '{"type": "record", "name": "r"}')), "AVRO_INVALID_SCHEMA",
     'the record "r" needs a list of "fields"'),
    (lambda s: s.range(1).select(from_avro(
        F.lit(b"x"), '{"type": "record", "name": "r", "fields": [{"name": "a", "type": "zzz"}]}')),
     "AVRO_INVALID_SCHEMA", '"zzz" is not a defined name'),
    (lambda s: s.range(1).select(from_avro(
        F.lit(b"x"), '{"type": "record", "name": "r", "fields": [{"name": "a", "type": ["null", "r"]}]}')),
     "AVRO_RECURSIVE_SCHEMA", "Found recursive reference in Avro schema, which can not be processed by Spark: r"),
    (lambda s: s.range(1).select(from_avro(F.lit("a"), '"int"')), "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
     'The first parameter requires the "BINARY" type, however "a" has the type "STRING"'),
    (lambda s: s.createDataFrame([(1, "a")], "i int, s string").select(to_avro(F.struct("*"), json.dumps(
        {"type": "record", "name": "r",
         "fields": [{"name": "i", "type": "string"}, {"name": "s", "type": "string"}]}))),
     "AVRO_INCOMPATIBLE_SCHEMA", 'Cannot convert SQL type STRUCT<i: INT, s: STRING> to Avro type {"type":"record",'
     '"name":"r","fields":[{"name":"i","type":"string"},{"name":"s","type":"string"}]}'),
    (lambda s: s.createDataFrame([(1, "a")], "i int, s string").select(to_avro(F.struct("*"), json.dumps(
        {"type": "record", "name": "r", "fields": [{"name": "i", "type": "int"}]}))),
     "AVRO_INCOMPATIBLE_SCHEMA", "Cannot convert SQL type STRUCT<i: INT, s: STRING> to Avro type"),
    (lambda s: s.sql("""SELECT to_avro(1, '"long"')"""), "AVRO_INCOMPATIBLE_SCHEMA",
     'Cannot convert SQL type INT to Avro type "long"'),
    (lambda s: s.sql("""SELECT to_avro('a', '"bytes"')"""), "AVRO_INCOMPATIBLE_SCHEMA",
     'Cannot convert SQL type STRING to Avro type "bytes"'),
    (lambda s: s.sql("""SELECT to_avro(named_struct('member0', CAST(NULL AS INT), 'member1', 'x'),
                                       '["int", "string"]')"""),
     "AVRO_INCOMPATIBLE_SCHEMA", 'Cannot convert SQL type STRUCT<member0: INT, member1: STRING NOT NULL> to Avro type '
     '["int","string"]'),
    (lambda s: s.sql("SELECT to_avro(map(1, 2))"), "AVRO_UNSUPPORTED_TYPE", "Avro map keys are strings"),
])
def test_schemas_that_do_not_fit_are_refused_when_the_query_is_defined(spark: SparkSession, build: Any, condition: str,
                                                                      text: str) -> None:
    with pytest.raises(AnalysisException) as caught:
        build(spark)
    assert caught.value.getCondition() == condition
    assert text in str(caught.value)


def test_values_a_schema_cannot_hold_fail_the_query(spark: SparkSession) -> None:
    strict = json.dumps({"type": "record", "name": "r", "fields": [{"name": "i", "type": "int"},
                                                                     {"name": "s", "type": "string"}]})
    nulls = spark.createDataFrame([(None, "a")], "i int, s string").select(to_avro(F.struct("*"), strict))
    with pytest.raises(SparkRuntimeException, match="a null value where the Avro type int has no null"):
        nulls.collect()
    symbols = spark.createDataFrame([("C",)], "e string").select(
        to_avro("e", '{"type": "enum", "name": "x", "symbols": ["A", "B"]}'))
    with pytest.raises(SparkRuntimeException, match='"C" is not a symbol of the enum x'):
        symbols.collect()


def test_a_stream_of_avro_messages_is_decoded(spark: SparkSession) -> None:
    # Kafka's value column, as a MemoryStream of binaries: decoded micro-batch by micro-batch.
    schema = json.dumps({"type": "record", "name": "event", "fields": [{"name": "user", "type": "string"},
                                                                         {"name": "clicks", "type": "long"}]})
    payloads = spark.createDataFrame([("ann", 2), ("bob", 3), ("ann", 5)], "user string, clicks long").select(
        to_avro(F.struct("user", "clicks"), schema).alias("value")).collect()
    stream = MemoryStream("value binary", spark)
    query = (stream.toDF().select(from_avro("value", schema).alias("e")).groupBy("e.user").agg(F.sum("e.clicks"))
             .writeStream.outputMode("complete").format("memory").queryName("avro_clicks").start())
    try:
        stream.addData([(bytes(p.value),) for p in payloads[:2]])
        query.processAllAvailable()
        stream.addData([(bytes(payloads[2].value),)])
        query.processAllAvailable()
        assert sorted(spark.table("avro_clicks").collect()) == [("ann", 7), ("bob", 3)]
    finally:
        query.stop()


# Spark types and values a round trip through to_avro and from_avro must give back.
_SCALARS = [
    ("int", st.integers(-(2**31), 2**31 - 1)), ("bigint", st.integers(-(2**63), 2**63 - 1)),
    ("double", st.floats(allow_nan=False)), ("string", st.text(max_size=8)), ("boolean", st.booleans()),
    ("binary", st.binary(max_size=6).map(bytearray)), ("date", st.dates()),
    ("decimal(12,3)", st.decimals(min_value=-(10**8), max_value=10**8, places=3, allow_nan=False)),
]


@st.composite
def _typed_rows(draw: Any) -> tuple[str, list[tuple[Any, ...]]]:
    picked = draw(st.lists(st.sampled_from(range(len(_SCALARS))), min_size=1, max_size=4))
    columns = [(f"c{i}", _SCALARS[k]) for i, k in enumerate(picked)]
    wrap = draw(st.sampled_from(["plain", "array", "map"]))
    ddl = []
    values = []
    for name, (sql_type, strategy) in columns:
        element = st.none() | strategy
        if wrap == "array":
            ddl.append(f"{name} array<{sql_type}>")
            values.append(st.none() | st.lists(element, max_size=3))
        elif wrap == "map":
            ddl.append(f"{name} map<string,{sql_type}>")
            values.append(st.none() | st.dictionaries(st.text(max_size=3), element, max_size=3))
        else:
            ddl.append(f"{name} {sql_type}")
            values.append(element)
    rows = draw(st.lists(st.tuples(*values), min_size=1, max_size=4))
    return ", ".join(ddl), rows


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=_typed_rows())
def test_to_avro_then_from_avro_gives_the_values_back(spark: SparkSession, data: tuple[str, list[Any]]) -> None:
    ddl, rows = data
    frame = spark.createDataFrame(rows, ddl)
    encoded = frame.select(to_avro(F.struct("*")).alias("v"))
    # The schema to_avro derived, as Spark writes it: nullable columns as [type, "null"].
    from dstream.sql.avro.schema import from_spark_type  # noqa: PLC0415 - the derivation under test

    schema_json = json.dumps(from_spark_type(frame.schema, False).to_json())
    back = encoded.select(from_avro("v", schema_json).alias("x")).select("x.*")
    assert back.schema == frame.schema
    assert back.collect() == frame.collect()

"""VARIANT columns end to end: the functions, casts, show, collect, files; PySpark 4.0.1's answers.

Every expected value below is what PySpark 4.0.1 printed or returned for the same call.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest

from dstream.sql import Row, SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom
from dstream.sql.errors import AnalysisException, SparkRuntimeException
from dstream.sql.types import StructField, StructType, VariantType, VariantVal

DOC = '{"a":1,"b":"x","c":[1,2.5],"d":{"e":true},"f":null,"g":1.5E10,"h":"2024-01-01"}'


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = (SparkSession.builder.master("local[1]").appName("variant-functions")
               .config("spark.sql.session.timeZone", "UTC").getOrCreate())
    session.sql(f"select parse_json('{DOC}') v").createOrReplaceTempView("t")
    yield session
    session.stop()


def _one(spark: SparkSession, sql: str) -> tuple[object, ...]:
    return tuple(spark.sql(sql).collect()[0])


def test_parse_json_collects_variantvals(spark: SparkSession) -> None:
    df = spark.createDataFrame([('{"a":1,"b":[1,2]}',), ('[1,"x"]',), (None,), ('"s"',)], "j string")
    v = df.select(F.parse_json("j").alias("v"))
    assert v.schema == StructType([StructField("v", VariantType(), True)])
    assert v.dtypes == [("v", "variant")] and v.schema.simpleString() == "struct<v:variant>"
    assert v.schema.json() == '{"fields":[{"metadata":{},"name":"v","nullable":true,"type":"variant"}],"type":"struct"}'
    rows = v.collect()
    assert repr(rows[0].v) == ("VariantVal(bytearray(b'\\x02\\x02\\x00\\x01\\x00\\x02\\x0b\\x0c\\x01\\x03\\x02\\x00"
                               "\\x02\\x04\\x0c\\x01\\x0c\\x02'), bytearray(b'\\x01\\x02\\x00\\x01\\x02ab'))")
    assert [str(r.v) for r in rows] == ['{"a":1,"b":[1,2]}', '[1,"x"]', "None", '"s"']
    assert [None if r.v is None else r.v.toPython() for r in rows] == [{"a": 1, "b": [1, 2]}, [1, "x"], None, "s"]
    assert v._show_string(20, 20, False) == (
        "+-----------------+\n|                v|\n+-----------------+\n|{\"a\":1,\"b\":[1,2]}|\n"
        "|          [1,\"x\"]|\n|             NULL|\n|              \"s\"|\n+-----------------+\n")
    assert v.select(F.to_json("v")).collect() == [Row(**{"to_json(v)": t}) for t in
                                                  ['{"a":1,"b":[1,2]}', '[1,"x"]', None, '"s"']]
    assert [r[0] for r in v.select(F.col("v").cast("string")).collect()] == ['{"a":1,"b":[1,2]}', '[1,"x"]', None, "s"]


def test_variantval_methods() -> None:
    v = VariantVal.parseJson('{"b":1,"a":2}')
    assert (v.value, v.metadata) == (b"\x02\x02\x01\x00\x02\x00\x04\x0c\x01\x0c\x02", b"\x01\x02\x00\x01\x02ba")
    assert VariantVal.parseJson("1.50").toPython() == Decimal("1.50")
    assert str(VariantVal.parseJson('["é", 1e3]')) == '["\\u00e9",1000.0]'
    assert VariantVal.parseJson('{"b":[true,null]}').toJson() == '{"b":[true,null]}'


def test_create_dataframe_with_variants(spark: SparkSession) -> None:
    df = spark.createDataFrame([(VariantVal.parseJson('{"a":1}'),)], "v variant")
    assert df.collect() == [Row(v=VariantVal(bytearray(b"\x02\x01\x00\x00\x02\x0c\x01"),
                                             bytearray(b"\x01\x01\x00\x01a")))]
    assert df.selectExpr("variant_get(v, '$.a', 'int')").collect() == [Row(**{"variant_get(v, $.a)": 1})]


@pytest.mark.parametrize(("path", "type_name", "expected"), [
    ("$.a", "int", 1), ("$.a", "string", "1"), ("$.b", "string", "x"), ("$.c", "string", "[1,2.5]"),
    ("$.c[1]", "double", 2.5), ("$.c[1]", "int", 2), ("$.c[5]", "int", None), ("$.d.e", "boolean", True),
    ("$.d", "string", '{"e":true}'), ("$.f", "int", None), ("$.g", "bigint", 15000000000),
    ("$.g", "float", 15000000512.0), ("$.a", "decimal(5,2)", Decimal("1.00")),
    ("$.c", "array<int>", [1, 2]), ("$.c", "array<double>", [1.0, 2.5]), ("$.d", "struct<e:boolean>", Row(e=True)),
    ("$.d", "map<string,string>", {"e": "true"}), ("$['a']", "int", 1), ('$["a"]', "int", 1), ("$.zz", "int", None),
    ("$.d.e", "string", "true"), ("$.d.e", "int", 1), ("$.a.b", "int", None), ("$", "string", DOC),
    ("$.h", "date", datetime.date(2024, 1, 1)),
    ("$.h", "timestamp", datetime.datetime(2024, 1, 1)),
])
def test_variant_get_as_spark(spark: SparkSession, path: str, type_name: str, expected: object) -> None:
    quoted = f'"{path}"' if "'" in path else f"'{path}'"
    got = _one(spark, f"select variant_get(v, {quoted}, '{type_name}'), try_variant_get(v, {quoted}, '{type_name}') "
                      "from t")
    assert got == (expected, expected)


@pytest.mark.parametrize(("sql", "shown", "tried"), [
    ("variant_get(v, '$.b', 'int')", '`"x"` cannot be cast into `"INT"`', None),
    ("variant_get(v, '$.g', 'int')", '`1.5E10` cannot be cast into `"INT"`', None),
    ("variant_get(parse_json('300'), '$', 'tinyint')", '`300` cannot be cast into `"TINYINT"`', None),
    ("variant_get(parse_json('[1,\"a\"]'), '$', 'array<int>')", '`"a"` cannot be cast into `"INT"`', [1, None]),
    ("variant_get(parse_json('{\"a\":1}'), '$', 'array<int>')", '`{"a":1}` cannot be cast into `"ARRAY<INT>"`',
     None),
    ("variant_get(parse_json('123.4'), '$', 'decimal(3,2)')", '`123.4` cannot be cast into `"DECIMAL(3,2)"`', None),
    ("variant_get(parse_json('1'), '$', 'date')", '`1` cannot be cast into `"DATE"`', None),
    ("cast(parse_json('\"x\"') as int)", '`"x"` cannot be cast into `"INT"`', None),
])
def test_invalid_variant_casts(spark: SparkSession, sql: str, shown: str, tried: object) -> None:
    with pytest.raises(SparkRuntimeException, match="INVALID_VARIANT_CAST") as caught:
        spark.sql(f"select {sql} from t").collect()
    assert f"The variant value {shown}. Please use `try_variant_get` instead." in str(caught.value)
    assert _one(spark, f"select try_{sql} from t" if sql.startswith("variant_get") else
                f"select try_cast({sql[5:]} from t") == (tried,)


def test_casts_and_conversions_as_spark(spark: SparkSession) -> None:
    assert _one(spark, "select try_variant_get(parse_json('[1,\"a\"]'), '$', 'array<int>'), "
                       "try_variant_get(parse_json('{\"a\":\"x\"}'), '$', 'struct<a:int>'), "
                       "variant_get(parse_json('{\"a\":1}'), '$', 'struct<a:int,b:string>'), "
                       "variant_get(parse_json('1.9'), '$', 'int'), "
                       "variant_get(parse_json('\"yes\"'), '$', 'boolean'), variant_get(parse_json('1'), '$', "
                       "'timestamp'), variant_get(parse_json('1e10'), '$', 'string')") \
        == ([1, None], Row(a=None), Row(a=1, b=None), 1, True, datetime.datetime(1970, 1, 1, 0, 0, 1),
            "1.0E10")
    assert _one(spark, "select cast(parse_json('1.50') as decimal(5,3)), cast(parse_json('\"7\"') as int), "
                       "cast(parse_json('null') as string), cast(parse_json('{\"a\":1}') as string)") == \
        (Decimal("1.500"), 7, None, '{"a":1}')
    values = _one(spark, "select cast(1 as variant), cast(1.5 as variant), cast(array(1,2) as variant), "
                         "cast(date'2024-01-01' as variant), cast(timestamp'2024-01-01 00:00:00' as variant), "
                         "cast(X'0102' as variant)")
    assert [bytes(v.value) for v in values] == [  # type: ignore[attr-defined]
        b"\x0c\x01", b" \x01\x0f\x00\x00\x00", b"\x03\x02\x00\x02\x04\x0c\x01\x0c\x02", b",\x0bM\x00\x00",
        b"0\x00 !\x10\xd7\r\x06\x00", b"<\x02\x00\x00\x00\x01\x02"]
    assert _one(spark, "select to_json(cast(timestamp'2024-01-01 00:00:00.123456' as variant)), "
                       "to_json(cast(date'2024-01-01' as variant)), to_json(cast(X'0102' as variant)), "
                       "cast(cast(timestamp'2024-01-01 00:00:00' as variant) as string)") == \
        ('"2024-01-01 00:00:00.123456+00:00"', '"2024-01-01"', '"AQI="', "2024-01-01 00:00:00")
    sub = _one(spark, "select variant_get(v, '$.c', 'variant'), variant_get(v, '$.d', 'map<string,variant>') from t")
    assert bytes(sub[0].value) == b"\x03\x02\x00\x02\x08\x0c\x01 \x01\x19\x00\x00\x00"  # type: ignore[attr-defined]
    assert bytes(sub[0].metadata) == b"\x01\x00\x00"  # type: ignore[attr-defined]
    assert str(sub[1]["e"]) == "true"  # type: ignore[index]


def test_schema_of_variant_and_the_others(spark: SparkSession) -> None:
    assert _one(spark, "select schema_of_variant(v), is_variant_null(variant_get(v, '$.f')) from t") \
        == ("OBJECT<a: BIGINT, b: STRING, c: ARRAY<DECIMAL(21,1)>, d: OBJECT<e: BOOLEAN>, f: VOID, g: DOUBLE, "
            "h: STRING>", True)
    assert _one(spark, "select is_variant_null(null), is_variant_null(parse_json('null')), schema_of_variant(null)") \
        == (False, True, None)
    assert _one(spark, "select schema_of_variant_agg(parse_json(j)) from values ('{\"a\":1}'), "
                       "('{\"a\":\"s\",\"b\":[1]}') as s(j)") == ("OBJECT<a: VARIANT, b: ARRAY<BIGINT>>",)
    assert _one(spark, "select schema_of_variant_agg(v) from values (cast(1.5f as variant)), (cast(1 as variant)) "
                       "as s(v)") == ("FLOAT",)
    obj = _one(spark, "select to_variant_object(named_struct('a',1,'b',array(1,2))), to_variant_object(map('k',1))")
    assert [(bytes(o.value), bytes(o.metadata)) for o in obj] == [  # type: ignore[attr-defined]
        (b"\x02\x02\x00\x01\x00\x02\x0b\x0c\x01\x03\x02\x00\x02\x04\x0c\x01\x0c\x02", b"\x01\x02\x00\x01\x02ab"),
        (b"\x02\x01\x00\x00\x02\x0c\x01", b"\x01\x01\x00\x01k")]
    names = spark.range(1).select(F.to_variant_object(F.struct(F.lit(1).alias("x"))), F.try_parse_json(F.lit("{"))
                                  ).columns
    assert names == ["to_variant_object(struct(1 AS x))", "try_parse_json({)"]


@pytest.mark.parametrize(("sql", "condition", "text"), [
    ("select parse_json('{\"a\":1, \"a\":2}')", "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION",
     'Malformed records are detected in record parsing: {"a":1, "a":2}.'),
    ("select variant_get(v, '$.c[-1]', 'int') from t", "INVALID_VARIANT_GET_PATH",
     "The path `$.c[-1]` is not a valid variant extraction path in ``variant_get``."),
    ("select v from t group by v", "GROUP_EXPRESSION_TYPE_IS_NOT_ORDERABLE",
     'The expression "v" cannot be used as a grouping expression because its data type "VARIANT" is not an '
     "orderable data type."),
    ("select v from t order by v", "DATATYPE_MISMATCH.INVALID_ORDERING_TYPE",
     'The `sortorder` does not support ordering on type "VARIANT".'),
    ("select v = v from t", "DATATYPE_MISMATCH.INVALID_ORDERING_TYPE",
     'The `=` does not support ordering on type "VARIANT".'),
    ("select max(v) from t", "DATATYPE_MISMATCH.INVALID_ORDERING_TYPE",
     'The `max` does not support ordering on type "VARIANT".'),
    ("select variant_get(parse_json('{\"a\":1}'), '$', 'map<int,int>')", "DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION",
     'cannot cast "VARIANT" to "MAP<INT, INT>".'),
    ("select cast(map('k',1) as variant)", "DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION",
     'cannot cast "MAP<STRING, INT>" to "VARIANT".'),
    ("select parse_json(1)", "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
     'The first parameter requires the "STRING" type, however "1" has the type "INT".'),
    ("select distinct v from t", "UNSUPPORTED_FEATURE.SET_OPERATION_ON_VARIANT_TYPE",
     'but the type of column `v` is "VARIANT".'),
    ("select array_contains(array(v), v) from t", "DATATYPE_MISMATCH.INVALID_ORDERING_TYPE",
     'The `array_contains` does not support ordering on type "VARIANT".'),
    ("select sort_array(array(v)) from t", "DATATYPE_MISMATCH.INVALID_ORDERING_TYPE",
     'The `sort_array` does not support ordering on type "ARRAY<VARIANT>".'),
    ("select greatest(v, v) from t", "DATATYPE_MISMATCH.INVALID_ORDERING_TYPE",
     'The `greatest` does not support ordering on type "VARIANT".'),
    ("select v in (v) from t", "DATATYPE_MISMATCH.INVALID_ORDERING_TYPE",
     'The `in` does not support ordering on type "VARIANT".'),
    ("select map(v, 1) from t", "DATATYPE_MISMATCH.INVALID_MAP_KEY_TYPE",
     'The key of map cannot be/contain "VARIANT".'),
])
def test_errors_as_spark(spark: SparkSession, sql: str, condition: str, text: str) -> None:
    with pytest.raises((AnalysisException, SparkRuntimeException)) as caught:
        spark.sql(sql).collect()
    assert caught.value.getCondition() == condition
    assert text in str(caught.value)


def test_variants_through_the_engine(spark: SparkSession, tmp_path: Path) -> None:
    v = spark.table("t")
    assert spark.sql("select coalesce(variant_get(v, '$.zz'), parse_json('0')), "
                     "case when true then v end is not null from t").collect()[0][0].toPython() == 0
    assert [str(x) for x in spark.sql("select collect_list(v) from t").first()[0]] == [
        '{"a":1,"b":"x","c":[1,2.5],"d":{"e":true},"f":null,"g":15000000000.0,"h":"2024-01-01"}']
    assert _one(spark, "select count(v), count(distinct v) from t") == (1, 1)
    assert _one(spark, "select from_json('{\"a\":{\"b\":1}}', 'a variant')")[0].a.toPython() == {"b": 1}  # type: ignore
    assert _one(spark, "select concat(v, 'x') from t") == (DOC + "x",)
    assert str(_one(spark, "select map('a', v)['a'] from t")[0]) == str(_one(spark, "select v from t")[0])
    v.write.parquet(str(tmp_path / "p"))
    back = spark.read.parquet(str(tmp_path / "p"))
    assert back.schema == v.schema and back.collect() == v.collect()
    v.write.json(str(tmp_path / "j"))
    written = [line for f in sorted((tmp_path / "j").glob("*.json")) for line in f.read_text().splitlines()]
    assert written == ['{"v":' + DOC + "}"] and json.loads(written[0])["v"]["g"] == 1.5e10
    with pytest.raises(AnalysisException, match="UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE"):
        v.write.csv(str(tmp_path / "c"))


def test_variants_in_aggregates_windows_and_nested_casts(spark: SparkSession) -> None:
    rows = "values (2, parse_json('1')), (1, parse_json('2')) as s(k, v)"
    got = _one(spark, f"select first(v), last(v), max_by(v, k), min_by(v, k) from {rows}")
    assert [str(v) for v in got] == ["1", "2", "1", "2"]
    assert [(k, str(v)) for k, v in spark.sql(f"select k, first(v) over (partition by k order by k) from {rows}"
                                              ).collect()] == [(1, "2"), (2, "1")]
    assert [str(v) for v in _one(spark, "select nvl(v, parse_json('0')), ifnull(null, v) from values "
                                        "(parse_json('1')) as s(v)")] == ["1", "1"]
    assert _one(spark, "select cast(array(parse_json('1')) as string), "
                       "cast(named_struct('v', parse_json('{\"a\":1}')) as string)") == ("[1]", '{{"a":1}}')


def test_variant_explode_as_spark(spark: SparkSession) -> None:
    rows = spark.sql("select * from variant_explode(parse_json('{\"a\":1,\"b\":[2]}'))").collect()
    assert [(r.pos, r.key, bytes(r.value.value), bytes(r.value.metadata)) for r in rows] == [
        (0, "a", b"\x0c\x01", b"\x01\x02\x00\x01\x02ab"),
        (1, "b", b"\x03\x01\x00\x02\x0c\x02", b"\x01\x02\x00\x01\x02ab")]
    assert [(r.pos, r.key, str(r.value)) for r in spark.sql(
        "select * from variant_explode(parse_json('[\"x\",2]'))").collect()] == [(0, None, '"x"'), (1, None, "2")]
    assert spark.sql("select * from variant_explode_outer(parse_json('1'))").collect() == [
        Row(pos=None, key=None, value=None)]
    assert spark.sql("select * from variant_explode(null)").collect() == []
    assert spark.tvf.variant_explode(F.parse_json(F.lit('{"k":true}'))).select("key").collect() == [Row(key="k")]


def test_parquet_files_as_spark_writes_them(spark: SparkSession, tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    # The layout PySpark 4.0.1 writes: a group of two required binaries, the Spark schema in the footer.
    storage = pa.struct([pa.field("value", pa.binary(), False), pa.field("metadata", pa.binary(), False)])
    column = pa.array([{"value": b"\x02\x02\x00\x01\x00\x02\x0f\x0c\x01\x03\x02\x00\x02\x08\x0c\x01 \x01\x19\x00\x00"
                                 b"\x00", "metadata": b"\x01\x02\x00\x01\x02ab"}, None], storage)
    footer = ('{"type":"struct","fields":[{"name":"v","type":"variant","nullable":true,"metadata":{}},'
              '{"name":"n","type":"integer","nullable":false,"metadata":{}}]}')
    table = pa.table({"v": column, "n": pa.array([1, 1], pa.int32())}).replace_schema_metadata(
        {"org.apache.spark.sql.parquet.row.metadata": footer})
    (tmp_path / "spark").mkdir()
    pq.write_table(table, str(tmp_path / "spark" / "part-00000.parquet"))
    read = spark.read.parquet(str(tmp_path / "spark"))
    assert read.schema["v"].dataType == VariantType()
    assert [None if r.v is None else str(r.v) for r in read.collect()] == ['{"a":1,"b":[1,2.5]}', None]
    # Written back: the same layout (required binaries under the group) and the same footer type.
    read.write.parquet(str(tmp_path / "ours"))
    written = pq.read_schema(next((tmp_path / "ours").glob("*.parquet")))
    assert written.field("v").type == storage
    assert json.loads(written.metadata[b"org.apache.spark.sql.parquet.row.metadata"])["fields"][0]["type"] == \
        "variant"


def test_variants_in_udfs_and_streams(spark: SparkSession) -> None:
    from dstream.sql.streaming import MemoryStream

    df = spark.createDataFrame([('{"a":1}',), (None,)], "j string").select(F.parse_json("j").alias("v"))
    seen = F.udf(lambda v: "none" if v is None else f"{type(v).__name__}:{v}", "string")
    made = F.udf(lambda v: VariantVal.parseJson("[1]"), VariantType())
    assert df.select(seen("v"), made("v").alias("m")).collect() == [
        Row(**{"<lambda>(v)": 'VariantVal:{"a":1}', "m": VariantVal(b"\x03\x01\x00\x02\x0c\x01", b"\x01\x00\x00")}),
        Row(**{"<lambda>(v)": "none", "m": VariantVal(b"\x03\x01\x00\x02\x0c\x01", b"\x01\x00\x00")})]
    stream = MemoryStream("j string", spark)
    parsed = stream.toDF().select(F.parse_json("j").alias("v"))
    counts = parsed.groupBy(F.variant_get("v", "$.k", "string").alias("k")).agg(
        F.schema_of_variant_agg("v").alias("s"), F.collect_list("v").alias("vs"))
    query = counts.writeStream.outputMode("complete").format("memory").queryName("variant_counts").start()
    try:
        stream.addData([('{"k":"a","x":1}',), ('{"k":"a","x":"s"}',)])
        query.processAllAvailable(timeout=60)
        stream.addData([('{"k":"a","y":[1]}',)])
        query.processAllAvailable(timeout=60)
        (row,) = spark.table("variant_counts").collect()
    finally:
        query.stop()
    assert row.s == "OBJECT<k: STRING, x: VARIANT, y: ARRAY<BIGINT>>"
    assert [str(v) for v in row.vs] == ['{"k":"a","x":1}', '{"k":"a","x":"s"}', '{"k":"a","y":[1]}']


def test_json_files_read_into_variants(spark: SparkSession, tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "x.json").write_text('{"a":1,"b":[1,2.50]}\n{"a":"x"}\nnot json\n')
    path = str(tmp_path / "in")
    whole = spark.read.option("singleVariantColumn", "v").json(path)
    assert whole.schema == StructType([StructField("v", VariantType(), True)])
    assert [None if r.v is None else str(r.v) for r in whole.collect()] == ['{"a":1,"b":[1,2.50]}', '{"a":"x"}', None]
    with pytest.raises(SparkRuntimeException, match="MALFORMED_RECORD_IN_PARSING"):
        spark.read.option("singleVariantColumn", "v").option("mode", "FAILFAST").json(path).collect()
    fields = spark.read.schema("a variant, b variant").json(path).collect()
    assert [tuple(None if x is None else str(x) for x in r) for r in fields] == [
        ("1", "[1,2.50]"), ('"x"', None), (None, None)]
    assert bytes(fields[0].b.value) == b"\x03\x02\x00\x02\x08\x0c\x01 \x02\xfa\x00\x00\x00"  # 2.50: DECIMAL(3,2)
    assert [r._corrupt_record for r in spark.read.schema("a variant, _corrupt_record string").json(path).collect()] \
        == [None, None, "not json"]
    query = (spark.readStream.option("singleVariantColumn", "v").json(path)
             .select(F.variant_get("v", "$.a", "string").alias("a"))
             .writeStream.format("memory").queryName("variant_lines").trigger(availableNow=True).start())
    assert query.awaitTermination(60)
    assert sorted(spark.table("variant_lines").collect(), key=lambda r: (r.a is None, r.a or "")) == [
        Row(a="1"), Row(a="x"), Row(a=None)]


def test_variants_in_pandas_functions(spark: SparkSession, tmp_path: Path) -> None:
    df = spark.createDataFrame([('{"a":1}',), (None,)], "j string").select(F.parse_json("j").alias("v"))
    shown = F.pandas_udf(lambda s: s.map(str), "string")
    assert [r[0] for r in df.select(shown("v")).collect()] == ['{"a":1}', "None"]  # VariantVals, as PySpark
    back = df.mapInPandas(lambda frames: (f.assign(s=f["v"].map(str)) for f in frames), "v variant, s string")
    assert [(None if r.v is None else r.v.toPython(), r.s) for r in back.collect()] == [({"a": 1}, '{"a":1}'),
                                                                                          (None, "None")]
    assert [str(v) for v in df.toPandas()["v"]] == ['{"a":1}', "None"]
    with pytest.raises(AnalysisException, match="The ORC datasource doesn't support the column `v`"):
        df.write.orc(str(tmp_path / "orc"))

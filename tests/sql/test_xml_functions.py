"""``from_xml``, ``to_xml`` and ``schema_of_xml`` against PySpark 4.0.1's answers, and a round trip
of random rows through ``df.write.xml`` and ``spark.read.xml`` against the rows themselves."""

from __future__ import annotations

import datetime
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import Row, SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom
from dstream.sql.errors import SparkRuntimeException

DOC = "<p><a>1</a><b>x</b><b>y</b></p>"


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = (SparkSession.builder.master("local[1]").appName("xml-functions")
               .config("spark.sql.session.timeZone", "UTC").getOrCreate())
    yield session
    session.stop()


def test_schema_of_xml_and_from_xml(spark: SparkSession) -> None:
    df = spark.createDataFrame([(DOC,)], "x string")
    shown = df.select(F.schema_of_xml(F.lit(DOC)))
    assert shown.columns == [f"schema_of_xml({DOC})"]
    assert shown.first()[0] == "STRUCT<a: BIGINT, b: ARRAY<STRING>>"
    parsed = df.select(F.from_xml("x", "a int, b array<string>").alias("p"))
    assert parsed.schema.simpleString() == "struct<p:struct<a:int,b:array<string>>>"
    assert parsed.collect() == [Row(p=Row(a=1, b=["x", "y"]))]
    assert df.select(F.from_xml("x", F.schema_of_xml(F.lit(DOC))).alias("p")).collect() == [
        Row(p=Row(a=1, b=["x", "y"]))]
    assert spark.sql("select schema_of_xml('<p><a attr=\"1\">2</a></p>') as s").collect() == [
        Row(s="STRUCT<a: STRUCT<_VALUE: BIGINT, _attr: BIGINT>>")]
    assert spark.sql("select schema_of_xml('<p><a>1</a><a>2.5</a><b x=\"1\"/></p>')").first()[0] == \
        "STRUCT<a: ARRAY<DOUBLE>, b: STRUCT<_x: BIGINT>>"
    assert spark.sql("select from_xml('<p><a>1</a></p>', 'a int') as s").collect() == [Row(s=Row(a=1))]


def test_from_xml_malformed_and_null(spark: SparkSession) -> None:
    df = spark.createDataFrame([("<p><a>1</a>",), ("<p><a>x</a></p>",), (None,)], "x string")
    assert [r[0] for r in df.select(F.from_xml("x", "a int")).collect()] == [Row(a=None), Row(a=None), None]
    with pytest.raises(SparkRuntimeException, match="MALFORMED_RECORD_IN_PARSING"):
        df.select(F.from_xml("x", "a int", {"mode": "FAILFAST"})).collect()


def test_to_xml(spark: SparkSession) -> None:
    rows = spark.createDataFrame([(1, "a", [1, 2])], "id int, s string, arr array<int>")
    assert rows.select(F.to_xml(F.struct("id", "s", "arr"))).first()[0] == \
        "<ROW>\n    <id>1</id>\n    <s>a</s>\n    <arr>1</arr>\n    <arr>2</arr>\n</ROW>"
    assert rows.select(F.to_xml(F.struct("id", "s"), {"rowTag": "ROW2"})).first()[0] == \
        "<ROW2>\n    <id>1</id>\n    <s>a</s>\n</ROW2>"
    one = spark.createDataFrame([(1, None), (2, "v")], "id int, s string")
    assert [r[0] for r in one.select(F.to_xml(F.struct("id", "s"))).collect()] == [
        "<ROW>\n    <id>1</id>\n</ROW>", "<ROW>\n    <id>2</id>\n    <s>v</s>\n</ROW>"]
    assert one.select(F.to_xml(F.struct(F.col("id").alias("_a"), F.col("s").alias("_VALUE")))).collect()[1][0] == \
        '<ROW a="2">v</ROW>'
    assert spark.sql("select to_xml(named_struct('a', 1, 'b', array(1,2)))").first()[0] == \
        "<ROW>\n    <a>1</a>\n    <b>1</b>\n    <b>2</b>\n</ROW>"


_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=12)
_ROWS = st.lists(st.tuples(
    st.integers(-2**63, 2**63 - 1) | st.none(),
    _TEXT.filter(lambda s: s == s.strip()) | st.none(),
    st.floats(allow_nan=False, allow_infinity=False) | st.none(),
    st.booleans() | st.none(),
    st.dates(datetime.date(1900, 1, 1), datetime.date(2100, 1, 1)) | st.none(),
    st.lists(st.integers(-1000, 1000), min_size=1, max_size=3) | st.none(),
    st.tuples(st.integers(0, 9), _TEXT.filter(lambda s: s.strip() == s and s != "")) | st.none(),
), max_size=6)
_SCHEMA = "i long, s string, d double, b boolean, dt date, arr array<long>, st struct<_k: long, v: string>"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=_ROWS)
def test_written_rows_read_back(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory,
                                rows: list[tuple]) -> None:
    # The model: what df.write.xml writes, spark.read.xml with the same schema reads back unchanged
    # (strings without surrounding spaces, which the reader trims; empty arrays and structs of nulls
    # write nothing, so they read back as null).
    out = str(tmp_path_factory.mktemp("xml") / "t")
    spark.createDataFrame(rows, _SCHEMA).coalesce(1).write.xml(out, rowTag="r")
    back = spark.read.xml(out, rowTag="r", schema=_SCHEMA).collect()
    assert [tuple(r) for r in back] == [
        (i, s, d, b, dt, arr, None if stt is None else Row(_k=stt[0], v=stt[1])) for i, s, d, b, dt, arr, stt in rows]

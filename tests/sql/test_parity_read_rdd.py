"""``spark.read.json(rdd)`` / ``spark.read.csv(rdd)`` and the JSON parse modes, against PySpark 4.0.1.

Each expected value is what PySpark 4.0.1 printed for the same call (schema as
``simpleString()``, then the collected rows).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dstream.sql import DataFrame, Row, SparkSession
from dstream.sql.errors import SparkRuntimeException


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = (SparkSession.builder.master("local[2]").appName("parity-read-rdd")
               .config("spark.sql.session.timeZone", "UTC").getOrCreate())
    yield session
    session.stop()


def _shown(df: DataFrame) -> tuple[str, list[Row]]:
    return df.schema.simpleString(), df.collect()


def _rdd(spark: SparkSession, items: list[Any], slices: int | None = None) -> Any:
    return spark.sparkContext.parallelize(items, slices)


def test_json_of_an_rdd_of_strings_infers_and_reads(spark: SparkSession) -> None:
    # Was: TypeError 'RDD' object is not iterable.
    assert _shown(spark.read.json(_rdd(spark, ['{"a": 1}', '{"a": 2, "b": "x"}']))) == (
        "struct<a:bigint,b:string>", [Row(a=1, b=None), Row(a=2, b="x")])
    nested = spark.read.json(_rdd(spark, ['{"a": {"y": 1, "x": [1,2]}, "c": 1.5}', '{"a": {"y": 2}, "c": 2}'], 2))
    assert _shown(nested) == ("struct<a:struct<x:array<bigint>,y:bigint>,c:double>",
                              [Row(a=Row(x=[1, 2], y=1), c=1.5), Row(a=Row(x=None, y=2), c=2.0)])


def test_json_rdd_each_string_is_one_record_and_blank_ones_are_skipped(spark: SparkSession) -> None:
    assert _shown(spark.read.json(_rdd(spark, ['{"a":\n 1,\n "b": 2}', '{"a": 3}']))) == (
        "struct<a:bigint,b:bigint>", [Row(a=1, b=2), Row(a=3, b=None)])
    assert _shown(spark.read.json(_rdd(spark, ['{"a": 1}', '{"a": ', "[1,2]", "", "  "]))) == (
        "struct<_corrupt_record:string,a:bigint>",
        [Row(_corrupt_record=None, a=1), Row(_corrupt_record='{"a": ', a=None), Row(_corrupt_record="[1,2]", a=None)])
    # Elements that are not strings are read as their str().
    assert _shown(spark.read.json(_rdd(spark, [1, 2]))) == (
        "struct<_corrupt_record:string>", [Row(_corrupt_record="1"), Row(_corrupt_record="2")])
    assert _shown(spark.read.json(_rdd(spark, [], 2))) == ("struct<>", [])


def test_json_rdd_options_schema_and_modes(spark: SparkSession) -> None:
    data = ['{"a": 1, "b": "x"}', '{"a": "bad"}']
    assert _shown(spark.read.json(_rdd(spark, data), schema="a int, b string")) == (
        "struct<a:int,b:string>", [Row(a=1, b="x"), Row(a=None, b=None)])
    assert _shown(spark.read.json(_rdd(spark, data), schema="a int, b string, _corrupt_record string")) == (
        "struct<a:int,b:string,_corrupt_record:string>",
        [Row(a=1, b="x", _corrupt_record=None), Row(a=None, b=None, _corrupt_record='{"a": "bad"}')])
    assert _shown(spark.read.json(_rdd(spark, ['{"a": 1, "b": true}']), primitivesAsString=True)) == (
        "struct<a:string,b:string>", [Row(a="1", b="true")])
    assert _shown(spark.read.json(_rdd(spark, ['{"t": "2024-01-02T03:04:05"}']), schema="t timestamp")) == (
        "struct<t:timestamp>", [Row(t=datetime.datetime(2024, 1, 2, 3, 4, 5))])
    # DROPMALFORMED infers from the good records only: no corrupt-record column.
    assert _shown(spark.read.json(_rdd(spark, ['{"a": 1}', '{"a": ']), mode="DROPMALFORMED")) == (
        "struct<a:bigint>", [Row(a=1)])
    with pytest.raises(SparkRuntimeException, match="MALFORMED_RECORD_IN_PARSING"):
        spark.read.json(_rdd(spark, ['{"a": 1}', '{"a": ']), mode="FAILFAST")  # fails in inference already


def test_json_rdd_keeps_the_rdd_partitions(spark: SparkSession) -> None:
    assert spark.read.json(_rdd(spark, ['{"a": 1}'] * 6, 3)).rdd.getNumPartitions() == 3


def test_json_file_bad_array_is_one_corrupt_record_and_modes_rule_inference(spark: SparkSession,
                                                                           tmp_path: Path) -> None:
    # An array of non-objects was split into one corrupt row per element; DROPMALFORMED
    # still added a _corrupt_record column; FAILFAST inferred without failing.
    path = tmp_path / "j.json"
    path.write_text('{"a": 1}\n[1,2]\n{"a": \n[{"a": 5}, {"a": 6}]\n')
    assert _shown(spark.read.json(str(path))) == ("struct<_corrupt_record:string,a:bigint>", [
        Row(_corrupt_record=None, a=1), Row(_corrupt_record="[1,2]", a=None), Row(_corrupt_record='{"a": ', a=None),
        Row(_corrupt_record=None, a=5), Row(_corrupt_record=None, a=6)])
    assert _shown(spark.read.json(str(path), mode="DROPMALFORMED")) == (
        "struct<a:bigint>", [Row(a=1), Row(a=5), Row(a=6)])
    with pytest.raises(SparkRuntimeException, match="MALFORMED_RECORD_IN_PARSING"):
        spark.read.json(str(path), mode="FAILFAST")


def test_csv_of_an_rdd_of_lines(spark: SparkSession) -> None:
    # Was: TypeError 'RDD' object is not iterable.
    assert _shown(spark.read.csv(_rdd(spark, ["1,a", "2,b"]))) == (
        "struct<_c0:string,_c1:string>", [Row(_c0="1", _c1="a"), Row(_c0="2", _c1="b")])
    assert _shown(spark.read.csv(_rdd(spark, ['1;"a;b"', "2;c"]), sep=";")) == (
        "struct<_c0:string,_c1:string>", [Row(_c0="1", _c1="a;b"), Row(_c0="2", _c1="c")])
    assert _shown(spark.read.csv(_rdd(spark, ["1,,NA", '2,"",x']), nullValue="NA")) == (
        "struct<_c0:string,_c1:string,_c2:string>", [Row(_c0="1", _c1=None, _c2=None), Row(_c0="2", _c1="", _c2="x")])
    assert _shown(spark.read.csv(_rdd(spark, [], 1))) == ("struct<>", [])


def test_csv_rdd_header_drops_every_copy_of_the_first_line(spark: SparkSession) -> None:
    lines = _rdd(spark, ["x,y", "1,a", "2,b", "x,y", "3,2.5"], 2)
    assert _shown(spark.read.csv(lines, header=True, inferSchema=True)) == (
        "struct<x:int,y:string>", [Row(x=1, y="a"), Row(x=2, y="b"), Row(x=3, y="2.5")])
    # Blank and comment lines come before the header line without being it.
    assert _shown(spark.read.csv(_rdd(spark, ["", "# c", "x,y", "1,a"], 2), header=True, comment="#")) == (
        "struct<x:string,y:string>", [Row(x="1", y="a")])


def test_csv_rdd_schema_and_modes(spark: SparkSession) -> None:
    lines = ["1,a", "z,b", "3"]
    assert _shown(spark.read.csv(_rdd(spark, lines), schema="n int, s string")) == (
        "struct<n:int,s:string>", [Row(n=1, s="a"), Row(n=None, s="b"), Row(n=3, s=None)])
    assert _shown(spark.read.csv(_rdd(spark, lines), schema="n int, s string, _corrupt_record string")) == (
        "struct<n:int,s:string,_corrupt_record:string>",
        [Row(n=1, s="a", _corrupt_record=None), Row(n=None, s="b", _corrupt_record="z,b"),
         Row(n=3, s=None, _corrupt_record="3")])
    with pytest.raises(SparkRuntimeException, match="MALFORMED_RECORD_IN_PARSING"):
        spark.read.csv(_rdd(spark, ["1,a", "z,b"]), schema="n int, s string", mode="FAILFAST").collect()

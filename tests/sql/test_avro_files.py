"""``format("avro")``: Avro container files, read from Spark's and written for Spark.

``data/avro/spark-<codec>.avro`` are files PySpark 4.0.1 with ``spark-avro_2.13`` 4.0.1 wrote
for ``ROWS`` (``df.write.format("avro").option("compression", codec)``; ``spark-named`` with
``recordName`` ``Rec`` and ``recordNamespace`` ``my.ns``). The same PySpark read the files
dstreams writes, with every codec, as these rows.
"""

from __future__ import annotations

import datetime
import decimal
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dstream.sql import Row, SparkSession
from dstream.sql.avro.container import read_header
from dstream.sql.errors import AnalysisException, IllegalArgumentException, SparkRuntimeException

DATA = Path(__file__).parent / "data" / "avro"
CODECS = ("snappy", "deflate", "uncompressed", "zstandard", "bzip2", "xz")
SCHEMA = ("i int, l bigint, s string, f float, d double, b boolean, bin binary, dt date, ts timestamp, "
          "dec decimal(9,2), arr array<int>, mp map<string,int>, st struct<x:int,y:string>")
ROWS = [Row(i=1, l=10**12, s="a", f=1.5, d=2.5, b=True, bin=bytearray(b"\x00\x01"), dt=datetime.date(2024, 2, 29),
            ts=datetime.datetime(2024, 1, 2, 3, 4, 5, 123456), dec=decimal.Decimal("12.34"), arr=[1, 2],
            mp={"k": 1}, st=Row(x=1, y="z")),
        Row(i=None, l=None, s=None, f=None, d=None, b=None, bin=None, dt=None, ts=None, dec=None, arr=None, mp=None,
            st=None)]


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local[2]").appName("avro-files").getOrCreate()
    session.conf.set("spark.sql.session.timeZone", "UTC")
    yield session
    session.stop()


def _schema_of(path: str | Path) -> Any:
    data = Path(path).read_bytes()
    return read_header(str(path), data)


@pytest.mark.parametrize("codec", [*CODECS, "named"])
def test_files_spark_wrote_read_as_spark_reads_them(spark: SparkSession, codec: str) -> None:
    df = spark.read.format("avro").load(str(DATA / f"spark-{codec}.avro"))
    assert df.schema.simpleString() == f"struct<{SCHEMA.replace(' ', ':').replace(',:', ',')}>"
    assert df.collect() == ROWS


@pytest.mark.parametrize("codec", CODECS)
def test_files_written_carry_spark_s_schema_and_codec(spark: SparkSession, tmp_path: Path, codec: str) -> None:
    spark.createDataFrame([tuple(r) for r in ROWS], SCHEMA).coalesce(1).write.format("avro") \
        .option("compression", codec).save(str(tmp_path / "out"))
    [part] = [p for p in os.listdir(tmp_path / "out") if p.startswith("part-")]
    assert part.endswith(".avro" if codec == "uncompressed" else f".{codec}.avro")
    ours, sparks = _schema_of(tmp_path / "out" / part), _schema_of(DATA / f"spark-{codec}.avro")
    assert json.loads(ours.schema) == json.loads(sparks.schema)
    assert ours.codec == sparks.codec == ("null" if codec == "uncompressed" else codec)
    assert spark.read.format("avro").load(str(tmp_path / "out")).collect() == ROWS


def test_record_name_and_namespace_are_spark_s(spark: SparkSession, tmp_path: Path) -> None:
    spark.createDataFrame([tuple(r) for r in ROWS], SCHEMA).coalesce(1).write.format("avro") \
        .option("recordName", "Rec").option("recordNamespace", "my.ns").save(str(tmp_path / "named"))
    [part] = [p for p in os.listdir(tmp_path / "named") if p.endswith(".avro")]
    assert json.loads(_schema_of(tmp_path / "named" / part).schema) == \
        json.loads(_schema_of(DATA / "spark-named.avro").schema)


def test_an_evolved_schema_on_read_and_a_given_schema_on_write(spark: SparkSession, tmp_path: Path) -> None:
    reader = json.dumps({"type": "record", "name": "r", "fields": [
        {"name": "i", "type": ["null", "long"]}, {"name": "s", "type": ["null", "string"]},
        {"name": "added", "type": "string", "default": "new"}]})
    df = spark.read.format("avro").option("avroSchema", reader).load(str(DATA / "spark-snappy.avro"))
    assert df.schema.simpleString() == "struct<i:bigint,s:string,added:string>"
    assert df.collect() == [Row(i=1, s="a", added="new"), Row(i=None, s=None, added="new")]
    writer = json.dumps({"type": "record", "name": "w", "fields": [
        {"name": "s", "type": ["null", "string"]}, {"name": "n", "type": "long"}]})
    spark.createDataFrame([(5, "x")], "n long, s string").write.format("avro").option("avroSchema", writer) \
        .save(str(tmp_path / "given"))
    [part] = [p for p in os.listdir(tmp_path / "given") if p.endswith(".avro")]
    assert json.loads(_schema_of(tmp_path / "given" / part).schema)["name"] == "w"
    assert spark.read.format("avro").load(str(tmp_path / "given")).collect() == [Row(s="x", n=5)]
    with pytest.raises(AnalysisException, match='Cannot convert SQL type STRUCT<n: BIGINT, s: STRING> to Avro type'):
        spark.createDataFrame([(5, "x")], "n long, s string").write.format("avro") \
            .option("avroSchema", json.dumps({"type": "record", "name": "w", "fields": [
                {"name": "n", "type": "int"}, {"name": "s", "type": "string"}]})).save(str(tmp_path / "misfit"))


def test_partitions_sql_on_files_and_bad_input(spark: SparkSession, tmp_path: Path) -> None:
    df = spark.createDataFrame([(1, "a"), (2, "b"), (3, "a")], "v int, p string")
    df.write.format("avro").partitionBy("p").save(str(tmp_path / "parts"))
    assert sorted(os.listdir(tmp_path / "parts")) == ["_SUCCESS", "p=a", "p=b"]
    back = spark.read.format("avro").load(str(tmp_path / "parts"))
    assert sorted(back.collect()) == [Row(v=1, p="a"), Row(v=2, p="b"), Row(v=3, p="a")]
    assert spark.sql(f"SELECT count(*) AS n FROM avro.`{tmp_path / 'parts'}`").first().n == 3
    with pytest.raises(IllegalArgumentException, match=r"Codec \[lz9\] is not available for Avro"):
        df.write.format("avro").option("compression", "lz9").save(str(tmp_path / "bad-codec"))
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "x.avro").write_bytes(b"not avro at all")
    with pytest.raises(Exception, match="does not start with the Avro magic bytes"):
        spark.read.format("avro").load(str(tmp_path / "junk")).collect()
    damaged = bytearray((DATA / "spark-uncompressed.avro").read_bytes())
    damaged[-5] ^= 0xFF  # inside the block's sync marker
    (tmp_path / "damaged").mkdir()
    (tmp_path / "damaged" / "x.avro").write_bytes(bytes(damaged))
    with pytest.raises(SparkRuntimeException, match="is not followed by the file's sync marker"):
        spark.read.format("avro").schema("i int").load(str(tmp_path / "damaged")).collect()


def test_a_stream_reads_and_writes_avro_files(spark: SparkSession, tmp_path: Path) -> None:
    source, sink = tmp_path / "in", tmp_path / "out"
    source.mkdir()
    (source / "spark.avro").write_bytes((DATA / "spark-deflate.avro").read_bytes())
    events = spark.readStream.format("avro").schema(SCHEMA).load(str(source))
    query = events.writeStream.format("avro").option("checkpointLocation", str(tmp_path / "ck")) \
        .trigger(availableNow=True).start(str(sink))
    try:
        assert query.awaitTermination(60)
    finally:
        query.stop()
    assert sorted(spark.read.format("avro").load(str(sink)).collect(), key=lambda r: r.i is None) == ROWS

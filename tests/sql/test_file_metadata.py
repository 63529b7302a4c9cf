"""The hidden ``_metadata`` column of file scans, as PySpark 4.0.1 shows it for the same programs."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom
from dstream.sql.errors import AnalysisException

PARQUET_TYPE = ("struct<file_path:string,file_name:string,file_size:bigint,file_block_start:bigint,"
                "file_block_length:bigint,file_modification_time:timestamp,row_index:bigint>")


def _only_file(directory: Path, suffix: str) -> Path:
    [found] = [p for p in directory.iterdir() if p.name.endswith(suffix)]
    return found


def test_metadata_describes_each_rows_file(spark: SparkSession, tmp_path: Path) -> None:
    spark.createDataFrame([(1, "a"), (2, "b"), (3, "c")], "id long, s string").coalesce(1) \
        .write.parquet(str(tmp_path / "p"))
    df = spark.read.parquet(str(tmp_path / "p"))
    assert df.select("_metadata").schema.simpleString() == f"struct<_metadata:{PARQUET_TYPE}>"
    assert df.columns == ["id", "s"] and df.select("*").columns == ["id", "s"]  # hidden
    path = _only_file(tmp_path / "p", ".parquet")
    stat = os.stat(path)
    # Spark reads the modification time in milliseconds; collect() shows it in the machine's zone.
    modified = dt.datetime.fromtimestamp(stat.st_mtime_ns // 1_000_000 / 1000)
    rows = df.select("id", "_metadata").orderBy("id").collect()
    assert [(r.id, r._metadata.asDict()) for r in rows] == [
        (i + 1, {"file_path": f"file:{path}", "file_name": path.name, "file_size": stat.st_size,
                 "file_block_start": 0, "file_block_length": stat.st_size, "file_modification_time": modified,
                 "row_index": i}) for i in range(3)]
    assert df.select("*", "_metadata.file_name").columns == ["id", "s", "file_name"]
    assert df.withColumn("fn", F.col("_metadata.file_name")).columns == ["id", "s", "fn"]
    assert [r.id for r in df.filter(F.col("_metadata.row_index") > 0).select("id").orderBy("id").collect()] == [2, 3]
    assert df.groupBy("_metadata.file_name").count().collect() == [(path.name, 3)]
    assert df.select(df.metadataColumn("_metadata").getField("file_name")).distinct().collect() == [(path.name,)]


def test_text_formats_have_no_row_index(spark: SparkSession, tmp_path: Path) -> None:
    spark.createDataFrame([(1, "a"), (2, "b")], "id long, s string").coalesce(1).write.csv(str(tmp_path / "c"))
    df = spark.read.schema("id long, s string").csv(str(tmp_path / "c"))
    assert df.select("_metadata").schema.simpleString() == (
        "struct<_metadata:struct<file_path:string,file_name:string,file_size:bigint,file_block_start:bigint,"
        "file_block_length:bigint,file_modification_time:timestamp>>")
    path = _only_file(tmp_path / "c", ".csv")
    assert {r.f for r in df.select(F.col("_metadata.file_path").alias("f")).collect()} == {f"file:{path}"}


def test_row_index_counts_rows_in_the_file_across_splits_and_skipped_row_groups(spark: SparkSession,
                                                                                tmp_path: Path) -> None:
    path = tmp_path / "groups.parquet"
    pq.write_table(pa.table({"v": pa.array(range(1000), pa.int64())}), path, row_group_size=100)
    spark.conf.set("spark.sql.files.maxPartitionBytes", "1024")  # several splits of row groups
    try:
        df = spark.read.parquet(str(path))
        rows = df.filter((F.col("v") >= 450) & (F.col("v") < 455)).select("v", "_metadata.row_index").collect()
        assert sorted((r.v, r.row_index) for r in rows) == [(v, v) for v in range(450, 455)]
        assert df.rdd.getNumPartitions() > 1
        everything = df.select("v", "_metadata.row_index").collect()
        assert all(r.v == r.row_index for r in everything) and len(everything) == 1000
    finally:
        spark.conf.unset("spark.sql.files.maxPartitionBytes")


def test_a_files_own_metadata_column_wins(spark: SparkSession, tmp_path: Path) -> None:
    spark.createDataFrame([(1, "x")], "id long, _metadata string").write.parquet(str(tmp_path / "own"))
    df = spark.read.parquet(str(tmp_path / "own"))
    assert df.select("_metadata").collect() == [("x",)]
    assert df.select(df.metadataColumn("_metadata")["file_name"]).collect()[0][0].startswith("part-")
    with pytest.raises(AnalysisException, match="A metadata column named `nope` does not exist"):
        df.metadataColumn("nope")
    with pytest.raises(AnalysisException, match="`_metadata` cannot be resolved"):
        spark.createDataFrame([(1,)], "id long").select("_metadata")


def test_a_file_stream_shows_the_metadata_of_each_batchs_files(spark: SparkSession, tmp_path: Path) -> None:
    spark.createDataFrame([(1, "a"), (2, "b")], "id long, s string").coalesce(1).write.parquet(str(tmp_path / "in"))
    stream = spark.readStream.schema("id long, s string").parquet(str(tmp_path / "in"))
    query = (stream.select("id", "_metadata.file_name", "_metadata.row_index").writeStream.format("memory")
             .queryName("with_metadata").trigger(availableNow=True).start())
    query.awaitTermination(30)
    assert not query.isActive
    name = _only_file(tmp_path / "in", ".parquet").name
    assert sorted(tuple(r) for r in spark.table("with_metadata").collect()) == [(1, name, 0), (2, name, 1)]

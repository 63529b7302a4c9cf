"""The file stream sink through its contract: part files, the ``_spark_metadata`` manifest, idempotence.

Each test creates a real :class:`FileStreamSink` and calls ``add_batch`` with ordinary batch
DataFrames, then looks at the output directory and reads it back with ``spark.read`` (which
follows the manifest). The last test writes from worker processes (``local[2]``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from dstream.sql import SparkSession
from dstream.sql import functions as F
from dstream.sql.errors import AnalysisException, IllegalArgumentException
from dstream.sql.io.manifest import path_to_uri
from dstream.sql.local_data import attributes_of
from dstream.sql.streaming.formats import sink_provider, source_provider
from dstream.sql.streaming.sinks.files import FileStreamSink

PART = re.compile(r"^part-(\d{5})-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.c000\.(\w+)$")
ENTRY_KEYS = ["path", "size", "isDir", "modificationTime", "blockReplication", "blockSize", "action"]


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local").appName("test-file-sink").getOrCreate()
    yield session
    session.stop()


def make_sink(spark: SparkSession, path: Path, fmt: str = "json", partition_by: list[str] | None = None,
              mode: str = "append", **options: str) -> FileStreamSink:
    opts = {"path": str(path), **{k.lower(): v for k, v in options.items()}}
    sink = sink_provider(fmt).create(spark, opts, mode, partition_by or [], None)
    assert isinstance(sink, FileStreamSink)
    return sink


def part_match(name: str) -> re.Match[str]:
    match = PART.match(name)
    assert match is not None, f"{name} is not named part-<5 digits>-<uuid>.c000.<ext>"
    return match


def manifest(out: Path, name: str) -> list[dict]:
    first, *lines = (out / "_spark_metadata" / name).read_text().split("\n")
    assert first == "v1"
    return [json.loads(line) for line in lines if line]


def data_files(out: Path) -> list[str]:
    found = []
    for directory, dirs, files in os.walk(out):
        dirs[:] = [d for d in dirs if d != "_spark_metadata"]
        found += [os.path.relpath(os.path.join(directory, f), out) for f in files]
    return sorted(found)


def test_manifest_format_and_part_file_names(spark: SparkSession, tmp_path: Path) -> None:
    out = tmp_path / "out"
    sink = make_sink(spark, out)
    assert sink.description == f"FileSink[{out}]"
    df = spark.createDataFrame([(1, "a"), (2, "b"), (3, None)], "n int, s string").repartition(2)
    assert sink.add_batch(0, df) == 3
    entries = manifest(out, "0")
    files = data_files(out)
    assert len(entries) == len(files) >= 1
    for entry in entries:
        assert list(entry) == ENTRY_KEYS
        local = entry["path"][len("file://"):]
        assert entry["path"] == path_to_uri(local)
        assert os.path.relpath(local, out) in files
        assert part_match(os.path.basename(local)).group(2) == "json"
        assert entry["size"] == os.path.getsize(local)
        assert entry["modificationTime"] == os.stat(local).st_mtime_ns // 1_000_000
        assert entry["isDir"] is False and entry["blockReplication"] == 1 and entry["blockSize"] == 33554432
        assert entry["action"] == "add"
    # Straight into the directory: no job directory, no success marker.
    assert sorted(os.listdir(out)) == sorted(files + ["_spark_metadata"])
    assert sorted(tuple(r) for r in spark.read.schema("n int, s string").json(str(out)).collect()) == [
        (1, "a"), (2, "b"), (3, None)]


def test_an_existing_batch_id_is_skipped_even_after_a_restart(spark: SparkSession, tmp_path: Path) -> None:
    out = tmp_path / "out"
    sink = make_sink(spark, out, "csv")
    df = spark.createDataFrame([(1,), (2,)], "n int")
    assert sink.add_batch(0, df) == 2
    before = data_files(out)
    assert sink.add_batch(0, df) == 0
    restarted = make_sink(spark, out, "csv")
    assert restarted.latest_batch_id() == 0
    assert restarted.add_batch(0, df) == 0
    assert data_files(out) == before
    assert restarted.add_batch(1, spark.createDataFrame([(3,)], "n int")) == 1
    assert sorted(r.n for r in spark.read.schema("n int").csv(str(out)).collect()) == [1, 2, 3]


def test_partition_by_layout_and_read_back(spark: SparkSession, tmp_path: Path) -> None:
    out = tmp_path / "out"
    sink = make_sink(spark, out, "parquet", partition_by=["K"])  # resolved case-insensitively
    df = spark.createDataFrame([("a", 1), ("b/c", 2), (None, 3), ("a", 4)], "k string, v long")
    assert sink.add_batch(0, df) == 4
    files = data_files(out)
    assert sorted({os.path.dirname(f) for f in files}) == ["k=__HIVE_DEFAULT_PARTITION__", "k=a", "k=b%2Fc"]
    assert all(part_match(os.path.basename(f)).group(2) == "parquet" for f in files)
    assert sorted(e["path"] for e in manifest(out, "0")) == sorted(path_to_uri(str(out / f)) for f in files)
    got = sorted((r.v, r.k) for r in spark.read.parquet(str(out)).collect())
    assert got == [(1, "a"), (2, "b/c"), (3, None), (4, "a")]
    with pytest.raises(AnalysisException, match="Partition column `nope` not found"):
        make_sink(spark, tmp_path / "other", "parquet", partition_by=["nope"]).add_batch(0, df)


def test_a_part_file_not_in_the_manifest_is_invisible_to_readers(spark: SparkSession, tmp_path: Path) -> None:
    out = tmp_path / "out"
    sink = make_sink(spark, out, "json")
    sink.add_batch(0, spark.createDataFrame([(1,)], "n int"))
    # A failed attempt's leftover: a part file the manifest does not list.
    (listed,) = data_files(out)
    shutil.copy(out / listed, out / "part-00000-00000000-0000-0000-0000-000000000000.c000.json")
    assert len(data_files(out)) == 2
    assert [r.n for r in spark.read.schema("n int").json(str(out)).collect()] == [1]
    # So is a stream reading the directory.
    provider = source_provider("json")
    opts = {"path": str(out)}
    schema = provider.schema(spark, opts, spark.createDataFrame([], "n int").schema)
    source = provider.create(spark, opts, schema, str(tmp_path / "ck" / "sources" / "0"))
    plan = source.get_batch(None, source.latest_offset(None, True), attributes_of(schema))
    assert [r.n for r in spark._new_dataframe(plan).collect()] == [1]


def test_a_failed_batch_leaves_no_manifest_and_its_rerun_is_seen_once(spark: SparkSession, tmp_path: Path) -> None:
    out = tmp_path / "out"
    sink = make_sink(spark, out, "json")

    @F.udf("int")
    def explode_on_two(n: int) -> int:
        if n == 2:
            raise ValueError("task failure on purpose")
        return n

    # 1, 3 and 4 hash to partition 0, 2 to partition 1: one task writes its file, the next fails.
    df = spark.createDataFrame([(1,), (2,), (3,), (4,)], "n int").repartition(2, "n")
    with pytest.raises(Exception, match="task failure on purpose"):
        sink.add_batch(0, df.select(explode_on_two("n").alias("n")))
    assert not (out / "_spark_metadata" / "0").exists()
    assert len(data_files(out)) == 1  # the first task's file, in no manifest
    assert spark.read.schema("n int").json(str(out)).collect() == []
    assert sink.add_batch(0, df) == 4
    assert sorted(r.n for r in spark.read.schema("n int").json(str(out)).collect()) == [1, 2, 3, 4]


def test_compaction_at_batch_9(spark: SparkSession, tmp_path: Path) -> None:
    out = tmp_path / "out"
    sink = make_sink(spark, out, "text")
    for batch in range(11):
        assert sink.add_batch(batch, spark.createDataFrame([(f"b{batch}",)], "value string")) == 1
    names = set(os.listdir(out / "_spark_metadata"))
    assert "9.compact" in names and "9" not in names and "10" in names
    compact = manifest(out, "9.compact")
    assert len(compact) == 10
    assert [e["path"] for e in compact] == [e["path"] for b in range(9) for e in manifest(out, str(b))] + [
        e["path"] for e in compact[9:]]
    assert sorted(r.value for r in spark.read.text(str(out)).collect()) == sorted(f"b{b}" for b in range(11))
    # A restarted sink keeps skipping what is in the compacted log.
    assert make_sink(spark, out, "text").add_batch(9, spark.createDataFrame([("again",)], "value string")) == 0


def test_sink_option_errors(spark: SparkSession, tmp_path: Path) -> None:
    with pytest.raises(AnalysisException, match="Invalid streaming output mode: complete. This output mode is not "
                                                "supported in Data Source parquet"):
        make_sink(spark, tmp_path / "out", "parquet", mode="complete")
    with pytest.raises(IllegalArgumentException, match="'path' is not specified"):
        sink_provider("csv").create(spark, {}, "append", [], None)
    assert sink_provider("csv").needs_checkpoint


# ------------------------------------------------------------------ local[2]: real worker processes


def test_sink_writes_from_worker_processes(spark: SparkSession, tmp_path: Path) -> None:
    # One SparkContext per process: the module's `local` session steps aside (the module's last test).
    spark.stop()
    workers = SparkSession.builder.master("local[2]").appName("test-file-sink-workers").getOrCreate()
    try:
        out = tmp_path / "out"
        sink = make_sink(workers, out, "csv", partition_by=["even"])
        df = workers.range(0, 20, 1, 2).select(F.col("id"), (F.col("id") % 2 == 0).alias("even"))
        assert sink.add_batch(0, df) == 20
        files = data_files(out)
        # Both tasks wrote into both partition directories, each its own part number.
        assert sorted(part_match(os.path.basename(f)).group(1) for f in files) == ["00000", "00000", "00001", "00001"]
        assert len(manifest(out, "0")) == 4
        got = sorted((r.id, r.even) for r in workers.read.schema("id long, even boolean").csv(str(out)).collect())
        assert got == [(i, i % 2 == 0) for i in range(20)]
    finally:
        workers.stop()

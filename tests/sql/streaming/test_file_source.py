"""The file stream source through its contract: offsets, its log, the listing rules, restarts, cleaning.

Each test drives a real :class:`FileStreamSource` over real files under ``tmp_path``: it asks
``latest_offset``, reads ``get_batch`` with a batch DataFrame, and looks at the source's log
on disk. File times are set with ``os.utime`` so that the order of files is the test's.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dstream.sql import SparkSession
from dstream.sql.errors import AnalysisException, IllegalArgumentException
from dstream.sql.io.manifest import path_to_uri
from dstream.sql.local_data import attributes_of, schema_argument
from dstream.sql.streaming.formats import source_provider
from dstream.sql.streaming.logs import CompactibleFileLog
from dstream.sql.streaming.sources.files import SCHEMA_REQUIRED, FileStreamSource
from dstream.sql.types import StructType

#: A fixed base time (2001-09-09), far from the clock: maxFileAge must not look at the clock.
T0 = 1_000_000_000
HOUR = 3600


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local").appName("test-file-source").getOrCreate()
    yield session
    session.stop()


def put(directory: Path, name: str, content: str, mtime: int) -> Path:
    """Write a file atomically (written aside, then moved in) with modification time ``mtime`` (seconds)."""
    directory.mkdir(parents=True, exist_ok=True)
    aside = directory.parent / f".{directory.name}-{name.replace('/', '_')}.tmp"
    aside.write_text(content)
    os.utime(aside, (mtime, mtime))
    target = directory / name
    target.parent.mkdir(parents=True, exist_ok=True)
    os.replace(aside, target)
    return target


def make_source(spark: SparkSession, path: Path, metadata: Path, fmt: str = "text", schema: str | None = None,
                **options: str) -> tuple[FileStreamSource, StructType]:
    opts = {"path": str(path), **{k.lower(): v for k, v in options.items()}}
    provider = source_provider(fmt)
    user = None if schema is None else schema_argument(schema)
    assert user is None or isinstance(user, StructType)
    resolved = provider.schema(spark, opts, user)
    source = provider.create(spark, opts, resolved, str(metadata))
    assert isinstance(source, FileStreamSource)
    return source, resolved


def rows(spark: SparkSession, source: FileStreamSource, schema: StructType, start: Any, end: Any) -> list[tuple]:
    output = attributes_of(schema)
    plan = source.get_batch(start, end, output)
    assert [a.expr_id for a in plan.output()] == [a.expr_id for a in output]
    assert not plan.is_streaming
    return [tuple(r) for r in spark._new_dataframe(plan).collect()]


def log_lines(metadata: Path, batch: int) -> list[dict]:
    text = (metadata / str(batch)).read_text()
    first, *lines = text.split("\n")
    assert first == "v1"
    return [json.loads(line) for line in lines]


# ------------------------------------------------------------------ offsets and the log


def test_offsets_log_contents_and_batches(spark: SparkSession, tmp_path: Path) -> None:
    src, meta = tmp_path / "in", tmp_path / "ck" / "sources" / "0"
    src.mkdir()
    source, schema = make_source(spark, src, meta)
    assert source.description == f"FileStreamSource[file:{src}]"
    assert source.latest_offset(None, True) is None  # no file ever
    b = put(src, "b.txt", "b1\nb2\n", T0 + 2)
    a = put(src, "a.txt", "a1\n", T0 + 1)
    assert source.latest_offset(None, True) == {"logOffset": 0}
    assert log_lines(meta, 0) == [{"path": path_to_uri(str(a)), "timestamp": (T0 + 1) * 1000, "batchId": 0},
                                  {"path": path_to_uri(str(b)), "timestamp": (T0 + 2) * 1000, "batchId": 0}]
    assert rows(spark, source, schema, None, {"logOffset": 0}) == [("a1",), ("b1",), ("b2",)]
    # Nothing new: the same offset, and no new log file.
    assert source.latest_offset({"logOffset": 0}, True) == {"logOffset": 0}
    assert sorted(os.listdir(meta)) == ["0"]
    put(src, "c.txt", "c1\n", T0 + 3)
    assert source.latest_offset({"logOffset": 0}, True) == {"logOffset": 1}
    assert rows(spark, source, schema, {"logOffset": 0}, {"logOffset": 1}) == [("c1",)]
    assert rows(spark, source, schema, None, {"logOffset": 1}) == [("a1",), ("b1",), ("b2",), ("c1",)]
    # An empty range reads nothing.
    assert rows(spark, source, schema, {"logOffset": 1}, {"logOffset": 1}) == []


def test_path_glob_filter_and_recursive_lookup_choose_the_files_a_stream_reads(spark: SparkSession,
                                                                              tmp_path: Path) -> None:
    src = tmp_path / "in"
    put(src, "a.txt", "a\n", T0 + 1)
    put(src, "b.csv", "b\n", T0 + 2)
    put(src, "sub/c.txt", "c\n", T0 + 3)
    source, schema = make_source(spark, src, tmp_path / "m1", pathGlobFilter="*.txt")
    end = source.latest_offset(None, True)
    assert rows(spark, source, schema, None, end) == [("a",)]
    source, schema = make_source(spark, src, tmp_path / "m2", pathGlobFilter="*.txt", recursiveFileLookup="true")
    end = source.latest_offset(None, True)
    assert rows(spark, source, schema, None, end) == [("a",), ("c",)]


def test_a_user_schema_is_followed_by_the_partition_columns_it_does_not_name(spark: SparkSession,
                                                                             tmp_path: Path) -> None:
    src = tmp_path / "in"
    put(src, "k=7/a.txt", "a\n", T0)
    put(src, "b.txt", "b\n", T0 + 1)  # beside the partition directory: k is null
    source, schema = make_source(spark, src, tmp_path / "meta", schema="value string")
    assert schema.simpleString() == "struct<value:string,k:int>"
    assert rows(spark, source, schema, None, source.latest_offset(None, True)) == [("a", 7), ("b", None)]


def test_max_files_per_trigger_takes_oldest_first(spark: SparkSession, tmp_path: Path) -> None:
    src, meta = tmp_path / "in", tmp_path / "meta"
    for i in range(5):
        put(src, f"f{4 - i}.txt", f"r{i}\n", T0 + i)  # names against mtimes: the order is by mtime
    source, schema = make_source(spark, src, meta, maxFilesPerTrigger="2")
    got, start = [], None
    for expected_end in (0, 1, 2):
        end = source.latest_offset(start, True)
        assert end == {"logOffset": expected_end}
        got.append(rows(spark, source, schema, start, end))
        start = end
    assert got == [[("r0",), ("r1",)], [("r2",), ("r3",)], [("r4",)]]
    assert source.latest_offset(start, True) == start
    # Not limited (Trigger.Once and the like): everything new in one batch.
    for i in range(3):
        put(src, f"g{i}.txt", f"s{i}\n", T0 + 10 + i)
    assert source.latest_offset(start, False) == {"logOffset": 3}
    assert len(log_lines(meta, 3)) == 3


def test_the_rest_of_a_limited_listing_is_read_before_listing_again(spark: SparkSession, tmp_path: Path) -> None:
    src = tmp_path / "in"
    for i in range(5):
        put(src, f"f{i}.txt", f"r{i}\n", T0 + i)
    source, schema = make_source(spark, src, tmp_path / "meta", maxFilesPerTrigger="2")
    first = source.latest_offset(None, True)
    put(src, "z.txt", "z\n", T0 - 1)  # the oldest file, but it arrives after the listing
    batches, start = [], first
    for _ in range(3):
        end = source.latest_offset(start, True)
        batches.append(rows(spark, source, schema, start, end))
        start = end
    # As Spark: the cached rest of the first listing (r2..r4) goes first, then a new listing finds z.
    assert batches == [[("r2",), ("r3",)], [("r4",)], [("z",)]]


def test_latest_first_reads_newest_files_first(spark: SparkSession, tmp_path: Path) -> None:
    src = tmp_path / "in"
    for i in range(3):
        put(src, f"f{i}.txt", f"r{i}\n", T0 + i)
    source, schema = make_source(spark, src, tmp_path / "meta", latestFirst="true", maxFilesPerTrigger="1")
    order = []
    start = None
    for _ in range(3):
        end = source.latest_offset(start, True)
        order += rows(spark, source, schema, start, end)
        start = end
    assert order == [("r2",), ("r1",), ("r0",)]


def test_max_file_age_is_relative_to_the_newest_file_not_the_clock(spark: SparkSession, tmp_path: Path) -> None:
    src = tmp_path / "in"
    put(src, "new.txt", "new\n", T0)  # years old by the clock, yet read: the age is relative
    source, schema = make_source(spark, src, tmp_path / "meta", maxFileAge="1h")
    assert source.latest_offset(None, True) == {"logOffset": 0}
    put(src, "old.txt", "old\n", T0 - 2 * HOUR)      # older than newest - 1h: ignored
    put(src, "recent.txt", "recent\n", T0 - HOUR // 2)  # within the hour: read
    end = source.latest_offset({"logOffset": 0}, True)
    assert rows(spark, source, schema, {"logOffset": 0}, end) == [("recent",)]
    put(src, "newer.txt", "newer\n", T0 + 3 * HOUR)
    end2 = source.latest_offset(end, True)
    assert rows(spark, source, schema, end, end2) == [("newer",)]
    # The seen map forgot the files now older than newest - 1h.
    assert source.seen_file_count() == 1


def test_max_file_age_is_ignored_with_latest_first_and_a_file_limit(spark: SparkSession, tmp_path: Path) -> None:
    src = tmp_path / "in"
    put(src, "new.txt", "new\n", T0)
    source, schema = make_source(spark, src, tmp_path / "meta", maxFileAge="1h", latestFirst="true",
                                 maxFilesPerTrigger="5")
    assert source.latest_offset(None, True) == {"logOffset": 0}
    put(src, "old.txt", "old\n", T0 - 2 * HOUR)
    end = source.latest_offset({"logOffset": 0}, True)
    assert rows(spark, source, schema, {"logOffset": 0}, end) == [("old",)]


def test_hidden_files_and_plain_subdirectories_are_not_listed(spark: SparkSession, tmp_path: Path) -> None:
    src = tmp_path / "in"
    put(src, "data.txt", "data\n", T0)
    put(src, ".hidden.txt", "hidden\n", T0)
    put(src, "_underscore.txt", "underscore\n", T0)
    put(src, "sub/inner.txt", "inner\n", T0)      # not a partition directory: not entered
    put(src, "k=7/part.txt", "part\n", T0 + 1)    # a partition directory: read, k from its name
    source, schema = make_source(spark, src, tmp_path / "meta", schema="value string, k int")
    end = source.latest_offset(None, True)
    assert rows(spark, source, schema, None, end) == [("data", None), ("part", 7)]


def test_a_file_rewritten_or_appended_after_it_was_read_is_not_read_again(spark: SparkSession,
                                                                          tmp_path: Path) -> None:
    src = tmp_path / "in"
    f = put(src, "a.txt", "one\n", T0)
    source, schema = make_source(spark, src, tmp_path / "meta")
    end = source.latest_offset(None, True)
    assert rows(spark, source, schema, None, end) == [("one",)]
    put(src, "a.txt", "two\n", T0 + 10)  # replaced, newer
    with open(f, "a") as handle:
        handle.write("three\n")
    assert source.latest_offset(end, True) == end


# ------------------------------------------------------------------ restarts and the log


def test_restart_rebuilds_the_seen_files_from_the_log(spark: SparkSession, tmp_path: Path) -> None:
    src, meta = tmp_path / "in", tmp_path / "meta"
    put(src, "a.txt", "a\n", T0)
    first, schema = make_source(spark, src, meta)
    end = first.latest_offset(None, True)
    put(src, "b.txt", "b\n", T0 + 1)
    # The first run logged b (batch 1) but crashed before its query batch was planned.
    assert first.latest_offset(end, True) == {"logOffset": 1}
    second, _ = make_source(spark, src, meta)
    # The restarted source offers the logged batch 1, and does not log a or b again.
    assert second.latest_offset(end, True) == {"logOffset": 1}
    assert sorted(os.listdir(meta)) == ["0", "1"]
    assert rows(spark, second, schema, None, end) == [("a",)]
    assert rows(spark, second, schema, end, {"logOffset": 1}) == [("b",)]
    put(src, "c.txt", "c\n", T0 + 2)
    assert second.latest_offset({"logOffset": 1}, True) == {"logOffset": 2}
    assert rows(spark, second, schema, {"logOffset": 1}, {"logOffset": 2}) == [("c",)]


def test_compacted_log_still_gives_each_batch_its_files(spark: SparkSession, tmp_path: Path) -> None:
    src, meta = tmp_path / "in", tmp_path / "meta"
    src.mkdir()
    spark.conf.set("spark.sql.streaming.fileSource.log.compactInterval", "3")
    try:
        source, schema = make_source(spark, src, meta)
        start = None
        for i in range(7):
            put(src, f"f{i}.txt", f"r{i}\n", T0 + i)
            end = source.latest_offset(start, True)
            assert rows(spark, source, schema, start, end) == [(f"r{i}",)]
            start = end
        assert {"2.compact", "5.compact"} <= set(os.listdir(meta))
        assert [e["batchId"] for e in CompactibleFileLog(str(meta)).entries(5) or []] == [0, 1, 2, 3, 4, 5]
        restarted, _ = make_source(spark, src, meta)
        assert restarted.latest_offset(start, True) == start
        assert rows(spark, restarted, schema, {"logOffset": 1}, {"logOffset": 5}) == [(f"r{i}",) for i in range(2, 6)]
    finally:
        spark.conf.unset("spark.sql.streaming.fileSource.log.compactInterval")


def test_the_log_keeps_the_entries_of_its_latest_added_batches(tmp_path: Path) -> None:
    # A source reads the entries it just logged from memory (as Spark's file entry cache);
    # older batches, and a log opened afresh, read the files.
    log = CompactibleFileLog(str(tmp_path / "log"), compact_interval=3)
    added = {b: [{"path": f"file:/in/f{b}.txt", "timestamp": b, "batchId": b}] for b in range(6)}
    for batch, entries in added.items():
        assert log.add_entries(batch, entries)
    assert not log.add_entries(5, added[5])
    assert [log.added_entries(b) for b in range(6)] == [None, None, None, added[3], added[4], added[5]]
    assert log.entries(5) == [e for b in range(6) for e in added[b]]  # 5 is a compaction: all so far
    assert CompactibleFileLog(str(tmp_path / "log")).added_entries(5) is None


def test_a_file_sink_directory_is_read_through_its_manifest(spark: SparkSession, tmp_path: Path) -> None:
    src = tmp_path / "in"
    listed = put(src, "part-00000-a.c000.txt", "listed\n", T0)
    put(src, "part-00000-b.c000.txt", "stray\n", T0 + 1)  # a failed attempt's file: in no manifest
    CompactibleFileLog(str(src / "_spark_metadata")).add_entries(0, [{"path": path_to_uri(str(listed)),
                                                                      "size": 7, "action": "add"}])
    source, schema = make_source(spark, src, tmp_path / "meta")
    end = source.latest_offset(None, True)
    assert rows(spark, source, schema, None, end) == [("listed",)]


# ------------------------------------------------------------------ cleanSource


def test_clean_source_delete_removes_files_of_committed_batches(spark: SparkSession, tmp_path: Path) -> None:
    src = tmp_path / "in"
    a = put(src, "a.txt", "a\n", T0)
    source, schema = make_source(spark, src, tmp_path / "meta", cleanSource="delete")
    first = source.latest_offset(None, True)
    b = put(src, "b.txt", "b\n", T0 + 1)
    second = source.latest_offset(first, True)
    source.commit(first)
    assert not a.exists() and b.exists()
    assert rows(spark, source, schema, first, second) == [("b",)]
    source.commit(second)
    assert not b.exists()


def test_clean_source_archive_moves_files_under_the_archive_dir(spark: SparkSession, tmp_path: Path) -> None:
    src, archive = tmp_path / "in", tmp_path / "archive"
    a = put(src, "a.txt", "a\n", T0)
    p = put(src, "k=1/p.txt", "p\n", T0)
    source, _ = make_source(spark, src, tmp_path / "meta", cleanSource="ARCHIVE", sourceArchiveDir=str(archive))
    source.commit(source.latest_offset(None, True))
    assert not a.exists() and not p.exists()
    # As Spark: the file's whole path is kept below the archive directory.
    assert (archive / str(a).lstrip("/")).read_text() == "a\n"
    assert (archive / str(p).lstrip("/")).read_text() == "p\n"


def test_clean_source_option_errors(spark: SparkSession, tmp_path: Path) -> None:
    src = tmp_path / "in"
    src.mkdir()
    with pytest.raises(IllegalArgumentException, match="Invalid mode for clean source option move. Must be one of "
                                                       "ARCHIVE,DELETE,OFF"):
        make_source(spark, src, tmp_path / "meta", cleanSource="move")
    with pytest.raises(IllegalArgumentException, match="Archive mode must be used with 'sourceArchiveDir'"):
        make_source(spark, src, tmp_path / "meta", cleanSource="archive")
    with pytest.raises(IllegalArgumentException, match="is inside the source path"):
        make_source(spark, src, tmp_path / "meta", cleanSource="archive", sourceArchiveDir=str(src / "old"))


def test_bad_option_values_name_the_option(spark: SparkSession, tmp_path: Path) -> None:
    src = tmp_path / "in"
    src.mkdir()
    with pytest.raises(IllegalArgumentException, match="Invalid value '0' for option 'maxFilesPerTrigger', must be "
                                                       "a positive integer"):
        make_source(spark, src, tmp_path / "meta", maxFilesPerTrigger="0")
    with pytest.raises(IllegalArgumentException,
                       match="The value of option 'latestFirst' must be true or false, got 'yes'"):
        make_source(spark, src, tmp_path / "meta", latestFirst="yes")
    with pytest.raises(IllegalArgumentException, match="Invalid value 'soon' for option 'maxFileAge'"):
        make_source(spark, src, tmp_path / "meta", maxFileAge="soon")


# ------------------------------------------------------------------ schema and parsing


def test_schema_rules(spark: SparkSession, tmp_path: Path) -> None:
    src = tmp_path / "in"
    put(src, "a.csv", "x,1\n", T0)
    put(src, "a.json", '{"n": 1, "s": "x"}\n', T0)
    for fmt in ("csv", "json"):
        with pytest.raises(AnalysisException) as info:
            make_source(spark, src, tmp_path / "meta", fmt=fmt)
        assert str(info.value) == SCHEMA_REQUIRED
    _, text_schema = make_source(spark, src, tmp_path / "meta")
    assert text_schema.simpleString() == "struct<value:string>"
    with pytest.raises(AnalysisException, match="PATH_NOT_FOUND"):
        make_source(spark, tmp_path / "missing", tmp_path / "meta", fmt="csv", schema="a string")
    jsons = tmp_path / "jsons"
    put(jsons, "a.json", '{"n": 1, "s": "x"}\n', T0)
    spark.conf.set("spark.sql.streaming.schemaInference", "true")
    try:
        _, inferred = make_source(spark, jsons, tmp_path / "meta", fmt="json")
        assert inferred.simpleString() == "struct<n:bigint,s:string>"
        with pytest.raises(AnalysisException, match="UNABLE_TO_INFER_SCHEMA"):
            make_source(spark, tmp_path / "meta", tmp_path / "meta2", fmt="csv")
    finally:
        spark.conf.unset("spark.sql.streaming.schemaInference")


def test_parquet_infers_its_schema_from_the_files_present(spark: SparkSession, tmp_path: Path) -> None:
    out = tmp_path / "pq"
    spark.createDataFrame([(1, "a")], "n long, s string").write.parquet(str(out))
    source, schema = make_source(spark, out, tmp_path / "meta", fmt="parquet")
    assert schema.simpleString() == "struct<n:bigint,s:string>"
    assert rows(spark, source, schema, None, source.latest_offset(None, True)) == [(1, "a")]
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(AnalysisException) as info:
        make_source(spark, empty, tmp_path / "meta2", fmt="parquet")
    assert str(info.value) == SCHEMA_REQUIRED


def test_permissive_parsing_as_the_batch_reader(spark: SparkSession, tmp_path: Path) -> None:
    src = tmp_path / "in"
    put(src, "a.csv", "1,x\nzz,y\n\n3\n", T0)
    source, schema = make_source(spark, src, tmp_path / "meta", fmt="csv", schema="a int, b string")
    # A wrongly typed field is null, a short line has nulls, a blank line is no row.
    assert rows(spark, source, schema, None, source.latest_offset(None, True)) == [(1, "x"), (None, "y"), (3, None)]
    jsons = tmp_path / "jsons"
    put(jsons, "a.json", '{"a": 1, "b": "x"}\n\nnot json\n{"a": "zz", "b": "y"}\n{"a": 3}\n', T0)
    source, schema = make_source(spark, jsons, tmp_path / "meta2", fmt="json", schema="a int, b string")
    # An unparseable line is a row of nulls; a record with a wrongly typed value keeps its other
    # fields (Spark 4's partial results, as PySpark 4.0.1 reads it); a blank line is no row.
    assert rows(spark, source, schema, None, source.latest_offset(None, True)) == [
        (1, "x"), (None, None), (None, "y"), (3, None)]


# ------------------------------------------------------------------ Trigger.AvailableNow


def test_available_now_reads_only_the_files_present_when_prepared(spark: SparkSession, tmp_path: Path) -> None:
    src = tmp_path / "in"
    for i in range(3):
        put(src, f"f{i}.txt", f"r{i}\n", T0 + i)
    source, schema = make_source(spark, src, tmp_path / "meta", maxFilesPerTrigger="2")
    source.prepare_for_available_now()
    put(src, "late.txt", "late\n", T0 + 10)
    first = source.latest_offset(None, True)
    second = source.latest_offset(first, True)
    assert rows(spark, source, schema, None, first) == [("r0",), ("r1",)]
    assert rows(spark, source, schema, first, second) == [("r2",)]
    assert source.latest_offset(second, True) == second  # the target is reached: late.txt waits

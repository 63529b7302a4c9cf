"""The write protocol of dstream.sql.io: save modes, part files, partitionBy, commit and abort."""

from __future__ import annotations

import os

import pyarrow as pa
import pytest

from dstream.sql.errors import AnalysisException
from dstream.sql.io import abort_output, commit_output, get_format, list_input_files, prepare_output, write_task

SCHEMA = pa.schema([("k", pa.string()), ("v", pa.int64())])
ROWS = [{"k": "a", "v": 1}, {"k": "b/c", "v": 2}, {"k": None, "v": 3}, {"k": "a", "v": 4}]


def _job(out: str, fmt: str, job: str, partition_by: list[str] | None = None, tasks: int = 2) -> list[str]:
    batch = pa.RecordBatch.from_pylist(ROWS, schema=SCHEMA)
    written = []
    for task in range(tasks):
        part = batch.slice(task * 2, 2)
        written += write_task(iter([part]), SCHEMA, fmt, {}, out, task, job, partition_by or [])
    commit_output(out, job, written)
    return written


def test_modes(tmp_path: os.PathLike) -> None:
    out = os.path.join(str(tmp_path), "out")
    assert prepare_output(out, "errorifexists")
    _job(out, "parquet", "j1")
    assert sorted(os.listdir(out)) == ["_SUCCESS", "part-00000-j1.parquet", "part-00001-j1.parquet"]
    with pytest.raises(AnalysisException) as info:
        prepare_output(out, "error")
    assert str(info.value).startswith(f'[PATH_ALREADY_EXISTS] Path file:{out} already exists. Set mode as "overwrite"')
    assert prepare_output(out, "ignore") is False
    assert prepare_output(out, "append")
    _job(out, "parquet", "j2")
    assert len(list_input_files([out])) == 4
    assert prepare_output(out, "overwrite")
    assert os.listdir(out) == []


def test_partition_by_round_trip_through_discovery(tmp_path: os.PathLike) -> None:
    out = os.path.join(str(tmp_path), "out")
    prepare_output(out, "error")
    written = _job(out, "parquet", "j", ["k"])
    assert sorted(os.path.dirname(p) for p in written) == ["k=__HIVE_DEFAULT_PARTITION__", "k=a", "k=a", "k=b%2Fc"]
    fmt = get_format("parquet")
    files = list_input_files([out])
    schema = fmt.infer_arrow_schema(files, {})
    assert schema == pa.schema([("v", pa.int64()), ("k", pa.string())])
    rows = [r for s in fmt.splits(files, {}) for b in fmt.read_arrow(s, schema, {}) for r in b.to_pylist()]
    assert sorted(rows, key=lambda r: r["v"]) == [{"v": r["v"], "k": r["k"]} for r in ROWS]


def test_text_writer_needs_one_string_column_and_writes_null_as_empty_line(tmp_path: os.PathLike) -> None:
    out = os.path.join(str(tmp_path), "out")
    prepare_output(out, "error")
    with pytest.raises(AnalysisException):
        write_task(iter([pa.RecordBatch.from_pylist(ROWS, schema=SCHEMA)]), SCHEMA, "text", {}, out, 0, "j")
    one = pa.schema([("value", pa.string())])
    written = write_task(iter([pa.RecordBatch.from_pylist([{"value": "x"}, {"value": None}], schema=one)]), one,
                         "text", {}, out, 0, "t")
    commit_output(out, "t", written)
    assert open(os.path.join(out, "part-00000-t.txt")).read() == "x\n\n"
    assert not os.path.exists(os.path.join(out, "_temporary"))


def test_abort_leaves_existing_output_intact(tmp_path: os.PathLike) -> None:
    out = os.path.join(str(tmp_path), "out")
    prepare_output(out, "error")
    _job(out, "json", "ok")
    before = sorted(os.listdir(out))
    prepare_output(out, "append")
    write_task(iter([pa.RecordBatch.from_pylist(ROWS, schema=SCHEMA)]), SCHEMA, "json", {}, out, 0, "bad")
    assert list_input_files([out]) == [os.path.join(out, n) for n in before if not n.startswith("_")]
    abort_output(out, "bad")
    assert sorted(os.listdir(out)) == before

"""The CSV source of dstream.sql.io against the csv module and Spark's rules."""

from __future__ import annotations

import csv
import io
import os

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstream.sql.errors import SparkRuntimeException
from dstream.sql.io import get_format
from dstream.sql.io.writer import commit_output, prepare_output, write_task

CSV = get_format("csv")


def _write(path: str, text: str) -> str:
    with open(path, "w", newline="") as handle:
        handle.write(text)
    return path


def _read(path: str, options: dict, schema: pa.Schema | None = None) -> tuple[pa.Schema, list[dict]]:
    schema = schema or CSV.infer_arrow_schema([path], options)
    rows = [r for s in CSV.splits([path], options) for b in CSV.read_arrow(s, schema, options) for r in b.to_pylist()]
    return schema, rows


def test_inference_int_bigint_double_boolean_string(tmp_path: os.PathLike) -> None:
    path = _write(os.path.join(str(tmp_path), "t.csv"),
                  "i,l,d,b,s,n,t\n1,3000000000,1.5,true,x,,2020-01-01 10:00:00\n-2,4,2,FALSE,1,,2021-02-03T04:05:06\n")
    schema, rows = _read(path, {"header": "true", "inferSchema": "true", "timeZone": "UTC"})
    assert [str(f.type) for f in schema] == ["int32", "int64", "double", "bool", "string", "string",
                                            "timestamp[us, tz=UTC]"]
    assert rows[1] == {"i": -2, "l": 4, "d": 2.0, "b": False, "s": "1", "n": None, "t": rows[1]["t"]}
    assert rows[0]["t"].isoformat() == "2020-01-01T10:00:00+00:00"


def test_no_header_names_and_all_strings(tmp_path: os.PathLike) -> None:
    path = _write(os.path.join(str(tmp_path), "t.csv"), "1,a\n2,\n")
    schema, rows = _read(path, {})
    assert schema.names == ["_c0", "_c1"] and all(f.type == pa.string() for f in schema)
    assert rows == [{"_c0": "1", "_c1": "a"}, {"_c0": "2", "_c1": None}]


def test_modes_and_corrupt_record(tmp_path: os.PathLike) -> None:
    path = _write(os.path.join(str(tmp_path), "t.csv"), "1,a\nx,b\n3\n4,d,extra\n")
    schema = pa.schema([("n", pa.int32()), ("s", pa.string()), ("_corrupt_record", pa.string())])
    _, rows = _read(path, {}, schema)
    assert rows == [{"n": 1, "s": "a", "_corrupt_record": None}, {"n": None, "s": "b", "_corrupt_record": "x,b"},
                    {"n": 3, "s": None, "_corrupt_record": "3"}, {"n": 4, "s": "d", "_corrupt_record": "4,d,extra"}]
    _, rows = _read(path, {"mode": "DROPMALFORMED"}, schema)
    assert [r["n"] for r in rows] == [1]
    with pytest.raises(SparkRuntimeException) as info:
        _read(path, {"mode": "FAILFAST"}, schema)
    assert info.value.getCondition() == "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION"
    assert "x,b" in str(info.value)


def test_options_sep_quote_escape_null_comment(tmp_path: os.PathLike) -> None:
    path = _write(os.path.join(str(tmp_path), "t.csv"), '#c\na;"x;\\"y";NA\n')
    _, rows = _read(path, {"sep": ";", "nullValue": "NA", "comment": "#"})
    assert rows == [{"_c0": "a", "_c1": 'x;"y', "_c2": None}]


def test_the_escape_character_escapes_only_inside_quotes(tmp_path: os.PathLike) -> None:
    # Spark's parser: an unquoted backslash is text (a Windows path); inside quotes it escapes a
    # quote or itself; written values with a backslash read back the same.
    path = _write(os.path.join(str(tmp_path), "t.csv"), 'C:\\dir\\f.txt,"a\\"b","c\\\\",x\\,y\n')
    _, rows = _read(path, {})
    assert rows == [{"_c0": "C:\\dir\\f.txt", "_c1": 'a"b', "_c2": "c\\", "_c3": "x\\", "_c4": "y"}]
    plain = _write(os.path.join(str(tmp_path), "p.csv"), "C:\\dir\\f.txt,1\nD:\\x,2\n")  # every record alike
    assert [r["_c0"] for r in _read(plain, {})[1]] == ["C:\\dir\\f.txt", "D:\\x"]
    out = os.path.join(str(tmp_path), "out")
    assert prepare_output(out, "error")
    schema = pa.schema([("s", pa.string())])
    values = ["C:\\dir", 'q"\\', "tail\\", "a,b\\", "\\,"]
    written = write_task(iter([pa.RecordBatch.from_pylist([{"s": v} for v in values], schema=schema)]), schema,
                         "csv", {}, out, 0, "job-escape")
    commit_output(out, "job-escape", written)
    back = [r["s"] for f in sorted(os.listdir(out)) if f.startswith("part-")
            for r in _read(os.path.join(out, f), {}, schema)[1]]
    assert back == values


cell = st.one_of(st.just(""), st.text(alphabet='ab ,"\'x1', min_size=1, max_size=6).filter(lambda s: s.strip()))


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.lists(cell, min_size=3, max_size=3), min_size=1, max_size=20))
def test_read_matches_csv_module(tmp_path_factory: pytest.TempPathFactory, rows: list[list[str]]) -> None:
    buffer = io.StringIO()
    csv.writer(buffer, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows([["a", "b", "c"], *rows])
    path = _write(str(tmp_path_factory.mktemp("csv") / "t.csv"), buffer.getvalue())
    _, got = _read(path, {"header": "true", "escape": '"'})
    reader = csv.DictReader(io.StringIO(buffer.getvalue()))
    model = [{k: (v if v != "" else None) for k, v in r.items()} for r in reader]
    assert got == model


def test_big_file_splits_equal_whole_read(tmp_path: os.PathLike) -> None:
    lines = ["id,name"] + [f"{i},n{i}" for i in range(3000)]
    path = _write(os.path.join(str(tmp_path), "t.csv"), "\n".join(lines) + "\n")
    options = {"header": "true", "inferSchema": "true", "maxPartitionBytes": "2k"}
    assert len(CSV.splits([path], options)) > 5
    schema, rows = _read(path, options)
    assert rows == [{"id": i, "name": f"n{i}"} for i in range(3000)]


def test_write_then_read_round_trip(tmp_path: os.PathLike) -> None:
    out = os.path.join(str(tmp_path), "out")
    assert prepare_output(out, "error")
    schema = pa.schema([("i", pa.int64()), ("d", pa.float64()), ("s", pa.string()), ("b", pa.bool_())])
    batch = pa.RecordBatch.from_pylist([{"i": 1, "d": 1e10, "s": 'a,"b', "b": True},
                                        {"i": None, "d": 0.5, "s": "", "b": None}], schema=schema)
    written = write_task(iter([batch]), schema, "csv", {"header": "true"}, out, 0, "job1")
    commit_output(out, "job1", written)
    text = open(os.path.join(out, "part-00000-job1.csv")).read()
    assert text == 'i,d,s,b\n1,1.0E10,"a,\\"b",true\n,0.5,"",\n'
    files = [os.path.join(out, "part-00000-job1.csv")]
    got = [r for s in CSV.splits(files, {"header": "true"}) for b in CSV.read_arrow(s, schema, {"header": "true"})
           for r in b.to_pylist()]
    assert got == [{"i": 1, "d": 1e10, "s": 'a,"b', "b": True}, {"i": None, "d": 0.5, "s": None, "b": None}]

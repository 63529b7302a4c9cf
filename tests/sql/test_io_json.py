"""The JSON source of dstream.sql.io against the json module and Spark's inference rules."""

from __future__ import annotations

import json
import os

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstream.sql.errors import SparkRuntimeException
from dstream.sql.io import get_format
from dstream.sql.io.writer import commit_output, prepare_output, write_task

JSON = get_format("json")


def _write(path: str, text: str) -> str:
    with open(path, "w") as handle:
        handle.write(text)
    return path


def _read(path: str, options: dict, schema: pa.Schema | None = None) -> tuple[pa.Schema, list[dict]]:
    schema = schema or JSON.infer_arrow_schema([path], options)
    rows = [r for s in JSON.splits([path], options) for b in JSON.read_arrow(s, schema, options) for r in b.to_pylist()]
    return schema, rows


def test_inference_sorted_fields_bigint_double_struct_array(tmp_path: os.PathLike) -> None:
    path = _write(os.path.join(str(tmp_path), "a.json"),
                  '{"z":1,"a":{"y":true,"x":[1,2]},"m":null}\n\n{"z":2.5,"c":"s"}\n')
    schema, rows = _read(path, {})
    assert schema == pa.schema([("a", pa.struct([("x", pa.list_(pa.field("element", pa.int64()))),
                                                 ("y", pa.bool_())])),
                                ("c", pa.string()), ("m", pa.string()), ("z", pa.float64())])
    assert rows == [{"a": {"x": [1, 2], "y": True}, "c": None, "m": None, "z": 1.0},
                    {"a": None, "c": "s", "m": None, "z": 2.5}]


def test_conflicts_become_strings_and_corrupt_records(tmp_path: os.PathLike) -> None:
    path = _write(os.path.join(str(tmp_path), "a.json"), '{"b":1}\n{"b":"s"}\nnot json\n[{"b":{"k":2}}]\n')
    schema, rows = _read(path, {})
    assert schema.names == ["_corrupt_record", "b"]
    assert rows == [{"_corrupt_record": None, "b": "1"}, {"_corrupt_record": None, "b": "s"},
                    {"_corrupt_record": "not json", "b": None}, {"_corrupt_record": None, "b": '{"k":2}'}]
    _, rows = _read(path, {"mode": "DROPMALFORMED"}, schema)
    assert len(rows) == 3
    with pytest.raises(SparkRuntimeException):
        _read(path, {"mode": "FAILFAST"}, schema)


def test_primitives_as_string_and_multiline(tmp_path: os.PathLike) -> None:
    path = _write(os.path.join(str(tmp_path), "a.json"), '[{"a": 1, "b": true},\n {"a": 2.5}]')
    schema, rows = _read(path, {"multiLine": "true", "primitivesAsString": "true"})
    assert schema == pa.schema([("a", pa.string()), ("b", pa.string())])
    assert rows == [{"a": "1", "b": "true"}, {"a": "2.5", "b": None}]


scalars = st.one_of(st.none(), st.booleans(), st.integers(-2**63, 2**63 - 1), st.text(max_size=5))


@settings(max_examples=60, deadline=None)
@given(records=st.lists(st.fixed_dictionaries({}, optional={"k": st.integers(-2**63, 2**63 - 1),
                                                            "s": st.text(max_size=5), "b": st.booleans(),
                                                            "l": st.lists(st.integers(0, 9), max_size=3)}),
                        min_size=1, max_size=15).filter(lambda rs: any(rs)))
def test_read_matches_json_module(tmp_path_factory: pytest.TempPathFactory, records: list[dict]) -> None:
    text = "".join(json.dumps(r) + "\n" for r in records)
    path = _write(str(tmp_path_factory.mktemp("json") / "a.json"), text)
    schema, rows = _read(path, {})
    names = sorted({k for r in records for k in r})
    assert schema.names == names
    assert rows == [{k: r.get(k) for k in names} for r in map(json.loads, text.splitlines())]


def test_writer_omits_nulls_and_round_trips(tmp_path: os.PathLike) -> None:
    out = os.path.join(str(tmp_path), "out")
    prepare_output(out, "error")
    schema = pa.schema([("a", pa.int64()), ("d", pa.float64()), ("s", pa.struct([("x", pa.string())]))])
    batch = pa.RecordBatch.from_pylist([{"a": 1, "d": 1e-4, "s": {"x": "é"}}, {"a": None, "d": 2.0, "s": None}],
                                       schema=schema)
    written = write_task(iter([batch]), schema, "json", {}, out, 3, "j")
    commit_output(out, "j", written)
    text = open(os.path.join(out, "part-00003-j.json"), encoding="utf-8").read()
    assert text == '{"a":1,"d":1.0E-4,"s":{"x":"é"}}\n{"d":2.0}\n'
    _, rows = _read(os.path.join(out, "part-00003-j.json"), {}, schema)
    assert rows == batch.to_pylist()

"""from_json / to_json kernels against the stdlib ``json`` model."""

from __future__ import annotations

import datetime as dt
import json
import math
from decimal import Decimal
from typing import Any

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from dstream.sql.arrow_convert import to_arrow_type
from dstream.sql.kernels.jsonfn import from_json, to_json
from dstream.sql.types import (
    ArrayType,
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    IntegerType,
    LongType,
    MapType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

UTC = dt.timezone.utc
SCHEMA = StructType([StructField("a", IntegerType()), StructField("b", StringType()),
                     StructField("c", ArrayType(DoubleType())), StructField("d", BooleanType())])

ints = st.one_of(st.none(), st.integers(-(2**31), 2**31 - 1))
texts = st.one_of(st.none(), st.text(max_size=8))
doubles = st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False))
records = st.fixed_dictionaries({}, optional={"a": ints, "b": texts, "c": st.one_of(st.none(), st.lists(doubles)),
                                              "d": st.one_of(st.none(), st.booleans()),
                                              "extra": st.integers()})


@settings(max_examples=80, deadline=None)
@given(rows=st.lists(st.one_of(st.none(), records), max_size=10))
def test_from_json_reads_records(rows: list) -> None:
    docs = [None if r is None else json.dumps(r) for r in rows]
    got = from_json(pa.array(docs, pa.string()), SCHEMA, {}).to_pylist()
    want = [None if r is None else {f: r.get(f) for f in ("a", "b", "c", "d")} for r in rows]
    assert got == want


def test_malformed_blank_and_partial_records() -> None:
    docs = ['{"a": 1, "b": "x"', "", "  ", None, "[1, 2]", "7", '{"a": "1", "b": 2, "c": [1, "x"], "d": true}',
            '{"a": 2147483648, "b": {"k": [1, 1.5e20, null, true]}}', '{"a": 3} trailing text', "null",
            '{"a": 1, "a": 2}', '{"c": ["NaN", "-Infinity", 2]}']
    got = from_json(pa.array(docs), SCHEMA, {}).to_pylist()
    nulls = {"a": None, "b": None, "c": None, "d": None}
    assert got[:6] == [nulls, None, None, None, nulls, nulls]
    assert got[6] == {"a": None, "b": "2", "c": None, "d": True}  # bad fields NULL, the others kept
    assert got[7] == {"a": None, "b": '{"k":[1,1.5E20,null,true]}', "c": None, "d": None}
    assert got[8:11] == [{**nulls, "a": 3}, None, {**nulls, "a": 2}]
    c = got[11]["c"]
    assert math.isnan(c[0]) and c[1:] == [float("-inf"), 2.0]


def test_from_json_arrays_maps_decimals_and_times() -> None:
    elem = StructType([StructField("x", LongType())])
    got = from_json(pa.array(['[{"x": 1}, {"x": null}]', '{"x": 5}', '"s"', "[1, {"]), ArrayType(elem), {})
    assert got.to_pylist() == [[{"x": 1}, {"x": None}], [{"x": 5}], None, None]
    maps = from_json(pa.array(['{"k": 1.5, "j": null}', "[]"]), MapType(StringType(), DoubleType()), {})
    assert maps.to_pylist() == [[("k", 1.5), ("j", None)], None]
    assert maps.type == to_arrow_type(MapType(StringType(), DoubleType()))
    schema = StructType([StructField("p", DecimalType(5, 2)), StructField("t", TimestampType()),
                         StructField("u", DateType())])
    docs = ['{"p": 1.005, "t": "2020-01-02 03:04:05", "u": "2020-01-02"}', '{"p": "12.3", "t": 86400, "u": 5}',
            '{"p": 123456, "t": "x"}']
    rows = from_json(pa.array(docs), schema, {"timeZone": "America/Los_Angeles"}).to_pylist()
    assert rows == [{"p": Decimal("1.01"), "t": dt.datetime(2020, 1, 2, 11, 4, 5, tzinfo=UTC),
                     "u": dt.date(2020, 1, 2)},
                    {"p": Decimal("12.30"), "t": dt.datetime(1970, 1, 2, tzinfo=UTC), "u": None},
                    {"p": None, "t": None, "u": None}]
    formatted = from_json(pa.array(['{"t": "02/01/2020 10:00", "u": "02/01/2020"}']), schema,
                          {"timestampFormat": "dd/MM/yyyy HH:mm", "dateFormat": "dd/MM/yyyy"}).to_pylist()
    assert formatted == [{"p": None, "t": dt.datetime(2020, 1, 2, 10, tzinfo=UTC), "u": dt.date(2020, 1, 2)}]


def _model(value: Any) -> Any:
    """The JSON value Spark writes: struct fields that are None dropped."""
    if isinstance(value, dict):
        return {k: _model(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_model(v) for v in value]
    return value


ascii_text = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=0x2FF), max_size=8)
struct_values = st.fixed_dictionaries({"a": st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1)),
                                       "b": st.one_of(st.none(), ascii_text),
                                       "c": st.one_of(st.none(), st.lists(st.one_of(st.none(), st.integers(0, 9))))})


@settings(max_examples=80, deadline=None)
@given(rows=st.lists(st.one_of(st.none(), struct_values), max_size=10))
def test_to_json_is_compact_and_drops_null_fields(rows: list) -> None:
    t = pa.struct([("a", pa.int64()), ("b", pa.string()), ("c", pa.list_(pa.int64()))])
    got = to_json(pa.array(rows, t), None).to_pylist()
    ordered = [None if r is None else {k: r[k] for k in ("a", "b", "c")} for r in rows]  # the struct's field order
    want = [None if r is None else json.dumps(_model(r), separators=(",", ":"), ensure_ascii=False) for r in ordered]
    assert got == want


@settings(max_examples=50, deadline=None)
@given(values=st.lists(st.one_of(st.none(), st.text(max_size=6)), max_size=6))
def test_to_json_strings_round_trip(values: list) -> None:
    text = to_json(pa.array([values], pa.list_(pa.string())), None)[0].as_py()
    assert json.loads(text) == values
    assert not any(ord(ch) < 32 for ch in text)


def test_to_json_types_and_zones() -> None:
    moment = dt.datetime(2026, 1, 1, tzinfo=UTC)
    t = pa.struct([("ts", pa.timestamp("us", tz="UTC")), ("d", pa.date32()), ("f", pa.float64()),
                   ("g", pa.float32()), ("p", pa.decimal128(5, 2)), ("m", pa.map_(pa.string(), pa.int32())),
                   ("s", pa.string()), ("bin", pa.binary()), ("ok", pa.bool_())])
    row = {"ts": moment, "d": dt.date(2026, 1, 2), "f": float("nan"), "g": 1e20, "p": Decimal("1.50"),
           "m": [("k", 1), ("n", None)], "s": 'q"\\\n\x01é', "bin": b"hi", "ok": False}
    values = pa.array([row], t)
    assert to_json(values, None).to_pylist() == [
        '{"ts":"2026-01-01T00:00:00.000Z","d":"2026-01-02","f":"NaN","g":1.0E20,"p":1.50,"m":{"k":1,"n":null},'
        '"s":"q\\"\\\\\\n\\u0001é","bin":"aGk=","ok":false}']
    assert '"ts":"2025-12-31T16:00:00.000-08:00"' in to_json(values, None, {}, "America/Los_Angeles")[0].as_py()
    custom = to_json(values, None, {"timestampFormat": "dd/MM/yyyy", "ignoreNullFields": "false"})[0].as_py()
    assert custom.startswith('{"ts":"01/01/2026"')
    keyed = to_json(pa.array([[(1, "a")]], pa.map_(pa.int32(), pa.string())), None)
    assert keyed.to_pylist() == ['{"1":"a"}']
    sliced = to_json(pa.array([[1], None, [2, 3]], pa.list_(pa.int64())).slice(1), None)
    assert sliced.to_pylist() == [None, "[2,3]"]


def test_round_trip_through_both() -> None:
    rows = [{"a": 1, "b": "x", "c": [1.5, None], "d": None}, {"a": None, "b": None, "c": None, "d": True}]
    text = to_json(pa.array(rows, to_arrow_type(SCHEMA)), SCHEMA)
    assert text.to_pylist() == ['{"a":1,"b":"x","c":[1.5,null]}', '{"d":true}']
    assert from_json(text, SCHEMA, {}).to_pylist() == rows

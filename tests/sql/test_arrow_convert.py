"""dstream.sql.arrow_convert: type mapping, rows -> Arrow (with verifySchema) and Arrow -> rows, against models."""

from __future__ import annotations

import datetime
import decimal
import struct
import zoneinfo
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dstream.sql.arrow_convert import (
    arrow_to_rows,
    from_arrow_schema,
    from_arrow_type,
    rows_to_arrow,
    session_time_zone_default,
    to_arrow_schema,
    to_arrow_type,
)
from dstream.sql.errors import ArithmeticException, PySparkTypeError, PySparkValueError
from dstream.sql.row import Row
from dstream.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    ByteType,
    DataType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    MapType,
    NullType,
    ShortType,
    StringType,
    StructField,
    StructType,
    TimestampNTZType,
    TimestampType,
    _parse_datatype_string,
)

LA = "America/Los_Angeles"
UTC = datetime.timezone.utc


def test_to_arrow_type_mapping() -> None:
    expected: list[tuple[DataType, pa.DataType]] = [
        (ByteType(), pa.int8()), (ShortType(), pa.int16()), (IntegerType(), pa.int32()), (LongType(), pa.int64()),
        (FloatType(), pa.float32()), (DoubleType(), pa.float64()), (DecimalType(10, 2), pa.decimal128(10, 2)),
        (StringType(), pa.string()), (BinaryType(), pa.binary()), (BooleanType(), pa.bool_()),
        (DateType(), pa.date32()), (TimestampType(), pa.timestamp("us", tz="UTC")),
        (TimestampNTZType(), pa.timestamp("us")), (NullType(), pa.null()),
        (ArrayType(IntegerType(), False), pa.list_(pa.field("element", pa.int32(), nullable=False))),
        (MapType(StringType(), LongType()), pa.map_(pa.string(), pa.int64())),
        (StructType([StructField("a", LongType(), False)]), pa.struct([pa.field("a", pa.int64(), nullable=False)])),
    ]
    for dt, at in expected:
        assert to_arrow_type(dt) == at, dt
        assert from_arrow_type(at) == dt, at


def test_from_arrow_type_variants() -> None:
    assert from_arrow_type(pa.large_string()) == StringType()
    assert from_arrow_type(pa.large_binary()) == BinaryType()
    assert from_arrow_type(pa.large_list(pa.int32())) == ArrayType(IntegerType())
    assert from_arrow_type(pa.timestamp("ns", tz="Europe/Paris")) == TimestampType()
    assert from_arrow_type(pa.timestamp("s")) == TimestampNTZType()
    assert from_arrow_type(pa.uint8()) == ShortType() and from_arrow_type(pa.uint32()) == LongType()
    assert from_arrow_type(pa.uint64()) == DecimalType(20, 0)
    assert from_arrow_type(pa.dictionary(pa.int32(), pa.string())) == StringType()
    assert from_arrow_type(pa.date64()) == DateType()
    with pytest.raises(PySparkTypeError):
        from_arrow_type(pa.time64("us"))


def test_schema_round_trip() -> None:
    schema = _parse_datatype_string("a int not null, b array<map<string, struct<c: decimal(5,2), d: timestamp>>>")
    assert from_arrow_schema(to_arrow_schema(schema)) == schema
    assert to_arrow_schema(schema).field("a").nullable is False


def test_rows_of_every_kind() -> None:
    schema = _parse_datatype_string("a long, b string")

    class Obj:
        def __init__(self) -> None:
            self.b = "o"
            self.a = 4

    table = rows_to_arrow([Row(a=1, b="r"), (2, "t"), [3, "l"], {"b": "d", "a": 5}, Obj()], schema, "UTC")
    assert table.to_pydict() == {"a": [1, 2, 3, 5, 4], "b": ["r", "t", "l", "d", "o"]}
    assert table.schema == to_arrow_schema(schema)


@pytest.mark.parametrize(("ddl", "value", "condition"), [
    ("a long", True, "FIELD_DATA_TYPE_UNACCEPTABLE_WITH_NAME"),
    ("a double", 1, "FIELD_DATA_TYPE_UNACCEPTABLE_WITH_NAME"),
    ("a int", "1", "FIELD_DATA_TYPE_UNACCEPTABLE_WITH_NAME"),
    ("a decimal(5,2)", 1.5, "FIELD_DATA_TYPE_UNACCEPTABLE_WITH_NAME"),
    ("a timestamp", datetime.date(2020, 1, 1), "FIELD_DATA_TYPE_UNACCEPTABLE_WITH_NAME"),
    ("a array<int>", {1: 2}, "FIELD_DATA_TYPE_UNACCEPTABLE_WITH_NAME"),
    ("a array<int>", [1, "x"], "FIELD_DATA_TYPE_UNACCEPTABLE_WITH_NAME"),
    ("a map<string,int>", [("k", 1)], "FIELD_DATA_TYPE_UNACCEPTABLE_WITH_NAME"),
    ("a struct<x: int>", 5, "CANNOT_ACCEPT_OBJECT_IN_TYPE"),
])
def test_verify_rejects_wrong_types(ddl: str, value: Any, condition: str) -> None:
    with pytest.raises(PySparkTypeError) as info:
        rows_to_arrow([(value,)], _parse_datatype_string(ddl), "UTC")
    assert info.value.getCondition() == condition
    if condition.endswith("WITH_NAME"):
        assert "field a" in str(info.value)


@pytest.mark.parametrize(("ddl", "value", "condition"), [
    ("a tinyint", 128, "VALUE_OUT_OF_BOUNDS"), ("a smallint", -32769, "VALUE_OUT_OF_BOUNDS"),
    ("a int", 2**31, "VALUE_OUT_OF_BOUNDS"), ("a bigint", -(2**63) - 1, "VALUE_OUT_OF_BOUNDS"),
    ("a int not null", None, "FIELD_NOT_NULLABLE_WITH_NAME"),
    ("a map<string,int>", {None: 1}, "FIELD_NOT_NULLABLE_WITH_NAME"),
    ("a struct<x: int>", (1, 2), "FIELD_STRUCT_LENGTH_MISMATCH_WITH_NAME"),
])
def test_verify_rejects_bad_values(ddl: str, value: Any, condition: str) -> None:
    with pytest.raises(PySparkValueError) as info:
        rows_to_arrow([(value,)], _parse_datatype_string(ddl), "UTC")
    assert info.value.getCondition() == condition


def test_verify_edges_accepted() -> None:
    schema = _parse_datatype_string("a tinyint, b bigint, s string, d decimal(4,2), dt date")
    table = rows_to_arrow([(-128, 2**63 - 1, True, decimal.Decimal("1.235"), datetime.datetime(2020, 5, 6, 7))],
                          schema, "UTC")
    assert table.to_pylist() == [{"a": -128, "b": 2**63 - 1, "s": "true", "d": decimal.Decimal("1.24"),
                                  "dt": datetime.date(2020, 5, 6)}]
    with pytest.raises(ArithmeticException):
        rows_to_arrow([(0, 0, "", decimal.Decimal("100"), None)], schema, "UTC")
    with pytest.raises(PySparkValueError):
        rows_to_arrow([(1, 2)], schema, "UTC")


def test_verify_off_only_converts() -> None:
    schema = _parse_datatype_string("t timestamp, a long")
    table = rows_to_arrow([(datetime.datetime(1970, 1, 1, 1), 1)], schema, "+01:00", verify=False)
    assert table.column("t").cast(pa.int64()).to_pylist() == [0]


def test_arrow_to_rows_shapes() -> None:
    schema = _parse_datatype_string(
        "s struct<x: int, y: array<string>>, m map<string, struct<z: double>>, b binary, l array<array<long>>")
    records = [
        (Row(x=1, y=["a", None]), {"k": Row(z=1.5), "n": None}, b"\x00\xff", [[1], None, []]),
        (None, None, None, None),
        ((2, []), {}, bytearray(b""), []),
    ]
    table = rows_to_arrow(records, schema, "UTC")
    rows = arrow_to_rows(table, "UTC")
    assert rows == [tuple(r) for r in records]
    assert type(rows[0].s) is not tuple and rows[0].s.y == ["a", None] and rows[0].m["k"].z == 1.5
    assert isinstance(rows[0].b, bytearray) and rows[0].__fields__ == ["s", "m", "b", "l"]
    # Slices and chunked columns start mid-buffer: offsets must be respected.
    assert arrow_to_rows(table.slice(1), "UTC") == rows[1:]
    assert arrow_to_rows(pa.concat_tables([table.slice(2), table.slice(0, 2)]), "UTC") == rows[2:] + rows[:2]
    assert arrow_to_rows(table.to_batches()[0].slice(2, 1), "UTC") == rows[2:]


def test_arrow_to_rows_foreign_types() -> None:
    table = pa.table({
        "d": pa.array(["a", "b", "a", None]).dictionary_encode(),
        "ls": pa.array(["x", None, "y", "z"], type=pa.large_string()),
        "u": pa.array([0, 2**64 - 1, None, 3], type=pa.uint64()),
        "ns": pa.array([1_000_001_999, None, 0, 5], type=pa.timestamp("ns", tz="UTC")),
        "fl": pa.array([[1, 2], None, [3, 4], [5, 6]], type=pa.list_(pa.int8(), 2)),
    })
    rows = arrow_to_rows(table, "UTC")
    assert [r.d for r in rows] == ["a", "b", "a", None]
    assert rows[1].u == decimal.Decimal(2**64 - 1)
    assert rows[0].ns == datetime.datetime(1970, 1, 1, 0, 0, 1, 1)
    assert [r.fl for r in rows] == [[1, 2], None, [3, 4], [5, 6]]


def test_session_time_zone_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    assert session_time_zone_default() == "Asia/Tokyo"
    monkeypatch.setenv("TZ", "Not/AZone")
    zone = session_time_zone_default()
    assert zone == "UTC" or zoneinfo.ZoneInfo(zone) is not None


def test_fixed_offset_zones() -> None:
    schema = _parse_datatype_string("t timestamp")
    wall = datetime.datetime(2024, 1, 1, 12)
    for zone, hours in [("+08:00", 8), ("GMT-5", -5), ("UTC", 0), ("Z", 0)]:
        table = rows_to_arrow([(wall,)], schema, zone)
        instant = table.column("t").cast(pa.int64())[0].as_py()
        assert instant == (wall - datetime.timedelta(hours=hours) - datetime.datetime(1970, 1, 1)) // \
            datetime.timedelta(microseconds=1)
        assert arrow_to_rows(table, zone) == [(wall,)]


# ---- Round-trip properties ------------------------------------------------------------------------------------

def _model_instants(wall: datetime.datetime, zone: zoneinfo.ZoneInfo) -> list[datetime.datetime]:
    """Every UTC instant whose wall time in ``zone`` is ``wall``, by trying every offset (a model, no fold logic)."""
    found = []
    for minutes in range(-12 * 60, 15 * 60, 1):
        instant = (wall - datetime.timedelta(minutes=minutes)).replace(tzinfo=UTC)
        if instant.astimezone(zone).replace(tzinfo=None) == wall:
            found.append(instant)
    return sorted(set(found))


def _model_timestamp(wall: datetime.datetime, zone_name: str) -> tuple[datetime.datetime, int]:
    """(instant, fold of the wall time read back) as Spark and PySpark give them, from the brute-force model."""
    zone = zoneinfo.ZoneInfo(zone_name)
    instants = _model_instants(wall, zone)
    if not instants:
        # A wall time in a DST gap moves forward by the gap (Java's ZonedDateTime.of).
        before = (wall - datetime.timedelta(hours=3)).replace(tzinfo=zone).utcoffset()
        after = (wall + datetime.timedelta(hours=3)).replace(tzinfo=zone).utcoffset()
        assert before is not None and after is not None
        instant = (wall - before).replace(tzinfo=UTC)
        return instant, 0
    chosen = instants[-1] if wall.fold == 1 else instants[0]
    return chosen, int(len(instants) > 1 and chosen == instants[-1])


DST_EDGES = st.builds(
    lambda base, minutes, fold: (base + datetime.timedelta(minutes=minutes)).replace(fold=fold),
    st.sampled_from([datetime.datetime(2023, 3, 12, 1), datetime.datetime(2023, 11, 5, 0),
                     datetime.datetime(1970, 4, 26, 1), datetime.datetime(2037, 11, 1, 0)]),
    st.integers(min_value=0, max_value=180), st.sampled_from([0, 1]))
WALL_TIMES = st.one_of(DST_EDGES, st.datetimes(min_value=datetime.datetime(1901, 1, 1),
                                                max_value=datetime.datetime(2200, 1, 1)))


@given(st.lists(st.one_of(st.none(), WALL_TIMES), max_size=12), st.sampled_from([LA, "Europe/London", "UTC"]))
def test_timestamps_round_trip_as_spark(walls: list[datetime.datetime | None], zone_name: str) -> None:
    schema = StructType([StructField("t", TimestampType()), StructField("n", TimestampNTZType())])
    table = rows_to_arrow([(w, w) for w in walls], schema, zone_name)
    stored = table.column("t").cast(pa.int64()).to_pylist()
    rows = arrow_to_rows(table, zone_name)
    for wall, micros, row in zip(walls, stored, rows):
        if wall is None:
            assert micros is None and row == (None, None)
            continue
        instant, fold = _model_timestamp(wall, zone_name)
        assert micros == (instant - datetime.datetime(1970, 1, 1, tzinfo=UTC)) // datetime.timedelta(microseconds=1)
        expected_wall = instant.astimezone(zoneinfo.ZoneInfo(zone_name)).replace(tzinfo=None)
        assert row.t == expected_wall and row.t.fold == fold and row.t.tzinfo is None
        assert row.n == wall and row.n.tzinfo is None
        if _model_instants(wall, zoneinfo.ZoneInfo(zone_name)):
            assert row.t == wall


@given(st.lists(st.datetimes(min_value=datetime.datetime(1901, 1, 1), max_value=datetime.datetime(2200, 1, 1),
                             timezones=st.sampled_from([UTC, zoneinfo.ZoneInfo("Asia/Kolkata"),
                                                        zoneinfo.ZoneInfo(LA)])), max_size=8))
def test_aware_datetimes_keep_their_instant(values: list[datetime.datetime]) -> None:
    schema = StructType([StructField("t", TimestampType())])
    rows = arrow_to_rows(rows_to_arrow([(v,) for v in values], schema, LA), LA)
    for value, row in zip(values, rows):
        # Compared as instants: PEP 495 makes == between zones False for a time in a gap or a
        # fold (1942-09-01 00:00 in Kolkata is in a gap), whatever instant it stands for.
        assert row.t.replace(tzinfo=zoneinfo.ZoneInfo(LA), fold=row.t.fold).timestamp() == value.timestamp()


def _float32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


ATOMIC_CASES: list[tuple[DataType, st.SearchStrategy[Any], Any]] = [
    (BooleanType(), st.booleans(), None),
    (ByteType(), st.integers(-128, 127), None),
    (ShortType(), st.integers(-(2**15), 2**15 - 1), None),
    (IntegerType(), st.integers(-(2**31), 2**31 - 1), None),
    (LongType(), st.integers(-(2**63), 2**63 - 1), None),
    (FloatType(), st.floats(width=32, allow_nan=False), _float32),
    (DoubleType(), st.floats(allow_nan=False), None),
    (StringType(), st.text(), None),
    (BinaryType(), st.binary(), None),
    (DateType(), st.dates(), None),
    (DecimalType(12, 3), st.decimals(min_value=-(10**9) + 1, max_value=10**9 - 1, places=3), None),
    (TimestampNTZType(), st.datetimes(), None),
]


@st.composite
def typed_column(draw: st.DrawFn, depth: int = 0) -> tuple[DataType, st.SearchStrategy[Any]]:
    """A random Spark type and a strategy for its values (with nulls), nested up to two levels."""
    kinds = ["atomic"] * 3 + (["array", "map", "struct"] if depth < 2 else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "atomic":
        dt, values, _ = draw(st.sampled_from(ATOMIC_CASES))
        return dt, st.one_of(st.none(), values)
    if kind == "array":
        element, values = draw(typed_column(depth + 1))
        return ArrayType(element), st.one_of(st.none(), st.lists(values, max_size=4))
    if kind == "map":
        value_type, values = draw(typed_column(depth + 1))
        return MapType(StringType(), value_type), st.one_of(st.none(), st.dictionaries(st.text(max_size=3), values,
                                                                                       max_size=3))
    n = draw(st.integers(1, 3))
    parts = [draw(typed_column(depth + 1)) for _ in range(n)]
    dt = StructType([StructField(f"f{i}", t) for i, (t, _) in enumerate(parts)])
    return dt, st.one_of(st.none(), st.tuples(*[v for _, v in parts]).map(lambda vs: Row(**{
        f"f{i}": v for i, v in enumerate(vs)})))


def _expected(value: Any, dt: DataType) -> Any:
    """What collect() gives back for a value written with type dt (the plain-Python model)."""
    if value is None:
        return None
    if isinstance(dt, FloatType):
        return _float32(value)
    if isinstance(dt, ArrayType):
        return [_expected(v, dt.elementType) for v in value]
    if isinstance(dt, MapType):
        return {k: _expected(v, dt.valueType) for k, v in value.items()}
    if isinstance(dt, StructType):
        return Row(**{f.name: _expected(v, f.dataType) for f, v in zip(dt.fields, value)})
    return value


@given(st.data())
def test_rows_round_trip_every_type(data: st.DataObject) -> None:
    columns = data.draw(st.lists(typed_column(), min_size=1, max_size=4))
    schema = StructType([StructField(f"c{i}", dt) for i, (dt, _) in enumerate(columns)])
    rows = data.draw(st.lists(st.tuples(*[values for _, values in columns]), max_size=8))
    back = arrow_to_rows(rows_to_arrow(rows, schema, LA), LA)
    expected = [tuple(_expected(v, f.dataType) for v, f in zip(row, schema.fields)) for row in rows]
    assert back == expected
    assert all(r.__fields__ == schema.names for r in back)
    assert from_arrow_schema(rows_to_arrow(rows, schema, LA).schema) == schema


def test_an_aware_datetime_in_a_gap_keeps_its_instant() -> None:
    """The example Hypothesis found: midnight of 1942-09-01 in Kolkata did not exist (+05:30 to +06:30)."""
    value = datetime.datetime(1942, 9, 1, 0, 0, tzinfo=zoneinfo.ZoneInfo("Asia/Kolkata"))
    schema = StructType([StructField("t", TimestampType())])
    [row] = arrow_to_rows(rows_to_arrow([(value,)], schema, LA), LA)
    assert row.t.replace(tzinfo=zoneinfo.ZoneInfo(LA)).timestamp() == value.timestamp()

"""Spark data types and Python rows to and from Apache Arrow: the bridge every DataFrame crosses.

What this module owns
---------------------
* The type mapping: ``to_arrow_type``/``from_arrow_type`` and the schema versions. A
  TimestampType column is ``timestamp[us, tz=UTC]`` (an instant), TimestampNTZType is
  ``timestamp[us]`` (a wall time), arrays are lists of a field named ``element``.
* ``rows_to_arrow``: createDataFrame's Python rows (Row, tuple, list, dict, object) into a
  table, checked as PySpark's ``verifySchema`` (see :mod:`dstream.sql.row_verify`).
* ``arrow_to_rows``: collect()'s table into ``Row`` objects, converted column by column
  (one ``to_pylist`` per column, then zipped), the hot path of every action that returns rows.

Invariants
----------
* ``arrow_to_rows(rows_to_arrow(rows, schema, tz), tz) == rows`` for rows of the schema's
  types, except a naive wall time that does not exist in ``tz`` (a DST gap), which moves
  forward by the gap as in Spark.
* Timestamps come back as naive datetimes in the session zone; the second of two equal
  wall times (the repeated hour) has ``fold=1``, as ``datetime.fromtimestamp`` gives.
* Values come back as PySpark gives them: structs as ``Row``, maps as ``dict``, arrays as
  ``list``, binary as ``bytearray``, decimals as ``Decimal``, dates as ``date``.
"""

from __future__ import annotations

import datetime
import decimal
import gc
import os
from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from dstream.sql.errors import PySparkTypeError, PySparkValueError
from dstream.sql.row import Row, rows_from_columns
from dstream.sql.row_verify import make_converter, struct_values
from dstream.sql.timezones import arrow_zone, is_utc, session_time_zone_default, zone_of
from dstream.sql.type_trees import holds_type
from dstream.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    ByteType,
    CalendarIntervalType,
    CharType,
    DataType,
    DateType,
    DayTimeIntervalType,
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
    VarcharType,
    VariantType,
    YearMonthIntervalType,
)
from dstream.sql.variant.arrow import VARIANT_ARROW, has_variant, is_variant, python_array, storage_type, storage_value

__all__ = [
    "to_arrow_type",
    "from_arrow_type",
    "to_arrow_schema",
    "from_arrow_schema",
    "rows_to_arrow",
    "RowEncoder",
    "arrow_to_rows",
    "session_time_zone_default",
    "spark_variant_types",
    "to_pandas",
]

_ATOMIC_TO_ARROW: dict[type[DataType], pa.DataType] = {
    ByteType: pa.int8(), ShortType: pa.int16(), IntegerType: pa.int32(), LongType: pa.int64(),
    FloatType: pa.float32(), DoubleType: pa.float64(), StringType: pa.string(), BinaryType: pa.binary(),
    BooleanType: pa.bool_(), DateType: pa.date32(), TimestampType: pa.timestamp("us", tz="UTC"),
    TimestampNTZType: pa.timestamp("us"), NullType: pa.null(),
}


def to_arrow_type(dt: DataType) -> pa.DataType:
    """The Arrow type that holds values of Spark type ``dt``.

    Raises
    ------
    PySparkTypeError
        For a type without an Arrow counterpart.
    """
    atomic = _ATOMIC_TO_ARROW.get(type(dt))
    if atomic is not None:
        return atomic
    if isinstance(dt, DecimalType):
        return pa.decimal128(dt.precision, dt.scale)
    if isinstance(dt, DayTimeIntervalType):
        return pa.duration("us")
    if isinstance(dt, YearMonthIntervalType):
        return pa.int32()  # months, as Spark holds them; the plan, not Arrow, knows the type
    if isinstance(dt, CalendarIntervalType):
        return pa.month_day_nano_interval()
    if isinstance(dt, CharType | VarcharType):
        return pa.string()
    if isinstance(dt, ArrayType):
        return pa.list_(_arrow_field("element", dt.elementType, dt.containsNull))
    if isinstance(dt, MapType):
        return pa.map_(to_arrow_type(dt.keyType), _arrow_field("value", dt.valueType, dt.valueContainsNull))
    if isinstance(dt, StructType):
        return pa.struct([_to_arrow_field(f) for f in dt.fields])
    if isinstance(dt, VariantType):
        return VARIANT_ARROW
    raise PySparkTypeError(f"{dt!r} is not supported in conversion to Arrow.", "UNSUPPORTED_DATA_TYPE_FOR_ARROW",
                           {"data_type": repr(dt)})


def _to_arrow_field(field: StructField) -> pa.Field:
    return _arrow_field(field.name, field.dataType, field.nullable)


def _arrow_field(name: str, dt: DataType, nullable: bool) -> pa.Field:
    # A void field is nullable in Arrow whatever Spark says (array() is array<void> without
    # nulls): Arrow refuses a non-nullable null-typed field.
    return pa.field(name, to_arrow_type(dt), nullable=nullable or isinstance(dt, NullType))


def to_arrow_schema(schema: StructType) -> pa.Schema:
    """The Arrow schema of a Spark schema (same names, order and nullability)."""
    return pa.schema([_to_arrow_field(f) for f in schema.fields])


def from_arrow_type(at: pa.DataType) -> DataType:
    """The Spark type of an Arrow type.

    Large and view variants map as the plain ones, unsigned integers to the next wider
    signed type (``uint64`` to ``decimal(20,0)``), dictionaries to their value type, any
    timestamp to TimestampType when it has a zone and TimestampNTZType otherwise.

    Raises
    ------
    PySparkTypeError
        For an Arrow type Spark has no type for (time of day...).
    """
    t = pa.types
    simple: list[tuple[Any, DataType]] = [
        (t.is_int8, ByteType()), (t.is_int16, ShortType()), (t.is_int32, IntegerType()), (t.is_int64, LongType()),
        (t.is_uint8, ShortType()), (t.is_uint16, IntegerType()), (t.is_uint32, LongType()),
        (t.is_uint64, DecimalType(20, 0)), (t.is_float16, FloatType()), (t.is_float32, FloatType()),
        (t.is_float64, DoubleType()), (t.is_boolean, BooleanType()), (t.is_null, NullType()),
        (t.is_date, DateType()),
    ]
    for test, dt in simple:
        if test(at):
            return dt
    if t.is_string(at) or t.is_large_string(at) or getattr(t, "is_string_view", _never)(at):
        return StringType()
    if t.is_binary(at) or t.is_large_binary(at) or t.is_fixed_size_binary(at) or \
            getattr(t, "is_binary_view", _never)(at):
        return BinaryType()
    if t.is_decimal(at):
        return DecimalType(at.precision, at.scale)
    if t.is_timestamp(at):
        return TimestampType() if at.tz is not None else TimestampNTZType()
    if t.is_duration(at):
        return DayTimeIntervalType()
    if at == pa.month_day_nano_interval():
        return CalendarIntervalType()
    if t.is_map(at):
        return MapType(from_arrow_type(at.key_type), from_arrow_type(at.item_type), at.item_field.nullable)
    if t.is_list(at) or t.is_large_list(at) or t.is_fixed_size_list(at) or getattr(t, "is_list_view", _never)(at) \
            or getattr(t, "is_large_list_view", _never)(at):
        return ArrayType(from_arrow_type(at.value_type), at.value_field.nullable)
    if t.is_struct(at):
        return StructType([_from_arrow_field(at.field(i)) for i in range(at.num_fields)])
    if is_variant(at):
        return VariantType()
    if t.is_dictionary(at):
        return from_arrow_type(at.value_type)
    raise PySparkTypeError(f"Arrow type {at} has no Spark SQL type.", "UNSUPPORTED_DATA_TYPE_FOR_ARROW_CONVERSION",
                           {"data_type": str(at)})


def _never(_at: pa.DataType) -> bool:
    return False


#: The Parquet footer key under which Spark (and dstreams, for columns with metadata) stores
#: the Spark schema as JSON: readers take the columns' metadata from it.
SPARK_ROW_METADATA_KEY = "org.apache.spark.sql.parquet.row.metadata"
#: An Arrow field's metadata key for its Spark column metadata (JSON), set by readers.
FIELD_METADATA_KEY = b"dstreams:metadata"


def spark_field_metadata(schema: pa.Schema) -> dict[str, dict[bytes, bytes]]:
    """Per column name, the Arrow field metadata carrying its Spark metadata, from a file schema's
    footer (:data:`SPARK_ROW_METADATA_KEY`); empty when the file has none or it does not parse."""
    import json  # noqa: PLC0415 - only files with the key need it

    text = (schema.metadata or {}).get(SPARK_ROW_METADATA_KEY.encode())
    try:
        fields = json.loads(text)["fields"] if text else []
        return {f["name"]: {FIELD_METADATA_KEY: json.dumps(f["metadata"]).encode()}
                for f in fields if f.get("metadata")}
    except (ValueError, KeyError, TypeError):
        return {}  # another writer's footer, not Spark's schema: no column metadata


def spark_variant_types(schema: pa.Schema) -> dict[str, pa.DataType]:
    """Per column name, the Arrow type of each column the Spark footer of a file declares as (or
    holding) VARIANT: Parquet stores a variant as a struct of its two binaries, the footer says
    it is one."""
    import json  # noqa: PLC0415 - only files with the key need it

    text = (schema.metadata or {}).get(SPARK_ROW_METADATA_KEY.encode())
    if not text or b"variant" not in text:
        return {}
    try:
        fields = json.loads(text)["fields"]
        found = {f["name"]: to_arrow_type(DataType.fromJson(f["type"])) for f in fields}
    except (ValueError, KeyError, TypeError, PySparkValueError):
        return {}  # another writer's footer, not Spark's schema
    return {name: t for name, t in found.items() if has_variant(t)}


def _from_arrow_field(field: pa.Field) -> StructField:
    metadata = None
    if field.metadata and FIELD_METADATA_KEY in field.metadata:
        import json  # noqa: PLC0415 - only fields with metadata need it

        metadata = json.loads(field.metadata[FIELD_METADATA_KEY])
    return StructField(field.name, from_arrow_type(field.type), field.nullable, metadata)


def from_arrow_schema(schema: pa.Schema) -> StructType:
    """The Spark schema of an Arrow schema."""
    return StructType([_from_arrow_field(f) for f in schema])


def rows_to_arrow(records: Sequence[Any], schema: StructType, time_zone: str, verify: bool = True) -> pa.Table:
    """A table of Python rows with the given schema, as createDataFrame(data, schema) builds it.

    Parameters
    ----------
    records : sequence
        Rows: ``Row``, tuple or list (by position), dict (by field name) or an object (by attribute).
    schema : StructType
        The table's schema; the columns get ``to_arrow_schema(schema)``'s types.
    time_zone : str
        The session time zone: a naive datetime of a TimestampType field is a wall time there.
    verify : bool, optional
        Check every value against its type as PySpark's ``verifySchema`` (default True).

    Raises
    ------
    PySparkTypeError, PySparkValueError
        For a value its field's type does not accept (the message names field, type and value).
    """
    return RowEncoder(schema, time_zone, verify).encode(records)


class RowEncoder:
    """:func:`rows_to_arrow` for one schema and time zone, with the per-schema work done once.

    A source that turns many small batches of rows into tables (``MemoryStream.addData``)
    keeps one, so each batch pays for its rows only, not for building converters again.
    """

    def __init__(self, schema: StructType, time_zone: str, verify: bool = True) -> None:
        zone = zone_of(time_zone)
        self.schema = schema
        self.time_zone = time_zone
        self._names = schema.names
        self._converters = [make_converter(f.dataType, f.nullable, f"field {f.name}", zone, verify)
                            for f in schema.fields]
        self.arrow_schema = to_arrow_schema(schema)

    def encode(self, records: Sequence[Any]) -> pa.Table:
        """The table of ``records`` (see :func:`rows_to_arrow`)."""
        schema, names = self.schema, self._names
        if not schema.fields:
            for record in records:
                struct_values(record, names, None, schema)
            # Arrow keeps a row count without columns: a zero-column table still has len(records) rows.
            return pa.table({"_": pa.nulls(len(records))}).drop_columns(["_"])
        rows = [struct_values(record, names, None, schema) for record in records]
        columns = list(zip(*rows)) if rows else [() for _ in names]
        arrays = []
        for column, convert, field in zip(columns, self._converters, self.arrow_schema):
            values = column if convert is None else [convert(v) for v in column]
            arrays.append(python_array(values, field.type))
        return pa.Table.from_arrays(arrays, schema=self.arrow_schema)


def check_collectable(types: Sequence[DataType], to_arrow: bool = False) -> None:
    """Refuse, as PySpark does, to hand year-month interval values to Python or to Arrow.

    PySpark has no Python value for them: ``collect`` raises ``NOT_IMPLEMENTED`` (unless
    ``PYSPARK_YM_INTERVAL_LEGACY=1``, which returns the months as ints) and ``toArrow``
    raises ``UNSUPPORTED_DATA_TYPE_FOR_ARROW_CONVERSION``. Checked before the job runs.
    """
    for dt in types:
        if holds_type(dt, lambda t: isinstance(t, CalendarIntervalType)) and not to_arrow:
            CalendarIntervalType().fromInternal(None)  # raises PySpark's error
        if not holds_type(dt, lambda t: isinstance(t, YearMonthIntervalType)):
            continue
        if to_arrow:
            raise PySparkTypeError(f"{dt!r} is not supported in conversion to Arrow.",
                                   "UNSUPPORTED_DATA_TYPE_FOR_ARROW_CONVERSION", {"data_type": repr(dt)})
        if os.environ.get("PYSPARK_YM_INTERVAL_LEGACY") != "1":
            YearMonthIntervalType().fromInternal(None)  # raises PySpark's error


def arrow_to_rows(data: pa.Table | pa.RecordBatch, time_zone: str) -> list[Row]:
    """The rows of a table or batch as ``Row`` objects named as its columns (collect()'s result).

    Parameters
    ----------
    data : pyarrow.Table or pyarrow.RecordBatch
        The data; any Arrow types ``from_arrow_type`` accepts.
    time_zone : str
        The session time zone: timestamps with a zone come back as naive wall times there.
    """
    fields = list(data.schema.names)
    # Millions of new tuples would trigger the cyclic GC over and over while nothing here can form a
    # cycle: pausing it makes the conversion 2-3x faster. The previous state is restored.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        columns = [_column_values(data.column(i), time_zone) for i in range(data.num_columns)]
        return rows_from_columns(fields, columns, data.num_rows)
    finally:
        if gc_was_enabled:
            gc.enable()


def _column_values(column: pa.Array | pa.ChunkedArray, time_zone: str) -> list[Any]:
    if isinstance(column, pa.ChunkedArray):
        if column.num_chunks == 1:
            return _array_values(column.chunk(0), time_zone)
        values: list[Any] = []
        for chunk in column.chunks:
            values.extend(_array_values(chunk, time_zone))
        return values
    return _array_values(column, time_zone)


def _array_values(arr: pa.Array, time_zone: str) -> list[Any]:
    """The Python values of one array, in PySpark's forms, converted child column by child column."""
    at = arr.type
    t = pa.types
    if t.is_timestamp(at):
        return _timestamp_values(arr, time_zone)
    if t.is_struct(at):
        return _struct_array_values(arr, time_zone)
    if t.is_map(at):
        return _list_array_values(arr, time_zone, as_map=True)
    if t.is_list(at) or t.is_large_list(at):
        return _list_array_values(arr, time_zone, as_map=False)
    if t.is_fixed_size_list(at) or getattr(t, "is_list_view", _never)(at) or \
            getattr(t, "is_large_list_view", _never)(at):
        return _array_values(arr.cast(pa.list_(at.value_field)), time_zone)
    if t.is_dictionary(at):
        return _array_values(arr.dictionary_decode(), time_zone)
    if t.is_binary(at) or t.is_large_binary(at) or t.is_fixed_size_binary(at) or \
            getattr(t, "is_binary_view", _never)(at):
        # PySpark's collect() gives bytearray for BinaryType.
        return [None if v is None else bytearray(v) for v in arr.to_pylist()]
    if t.is_uint64(at):
        return [None if v is None else decimal.Decimal(v) for v in arr.to_pylist()]
    return arr.to_pylist()


def _timestamp_values(arr: pa.Array, time_zone: str) -> list[Any]:
    if arr.type != pa.timestamp("us", tz=arr.type.tz):
        arr = arr.cast(pa.timestamp("us", tz=arr.type.tz), safe=False)
    if arr.type.tz is None or is_utc(time_zone):
        # A naive timestamp is a wall time already; an instant in UTC reads as its UTC wall time.
        return arr.cast(pa.timestamp("us")).to_pylist()
    zone = arrow_zone(time_zone)
    aware = arr.cast(pa.timestamp("us", tz=zone))
    local = pc.local_timestamp(aware)
    values = local.to_pylist()
    if isinstance(zone_of(time_zone), datetime.timezone):
        return values
    # The later of two instants with one wall time (the repeated hour when clocks go back) gets fold=1.
    earliest = pc.assume_timezone(local, timezone=zone, ambiguous="earliest", nonexistent="earliest")
    later = pc.not_equal(earliest, aware)
    if pc.any(later).as_py():
        for i in pc.indices_nonzero(later).to_pylist():
            values[i] = values[i].replace(fold=1)
    # Arrow applies only the explicit transitions of the zone file (to 2037), not the rule that
    # continues them; Python's zoneinfo (like Java) applies the rule, so it converts instants outside.
    micros = arr.cast(pa.int64())
    outside = pc.or_(pc.less(micros, _ZONE_FILE_START_US), pc.greater_equal(micros, _ZONE_FILE_END_US))
    if pc.any(outside).as_py():
        tz = zone_of(time_zone)
        for i in pc.indices_nonzero(outside).to_pylist():
            instant = _EPOCH + datetime.timedelta(microseconds=micros[i].as_py())
            values[i] = instant.astimezone(tz).replace(tzinfo=None)
    return values


_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
_ZONE_FILE_START_US = (datetime.datetime(1902, 1, 1, tzinfo=datetime.timezone.utc) - _EPOCH) // \
    datetime.timedelta(microseconds=1)
_ZONE_FILE_END_US = (datetime.datetime(2037, 1, 1, tzinfo=datetime.timezone.utc) - _EPOCH) // \
    datetime.timedelta(microseconds=1)


def _struct_array_values(arr: pa.StructArray, time_zone: str) -> list[Any]:
    at = arr.type
    names = [at.field(i).name for i in range(at.num_fields)]
    children = [_array_values(arr.field(i), time_zone) for i in range(at.num_fields)]
    rows: list[Any] = rows_from_columns(names, children, len(arr))
    if arr.null_count:
        for i in pc.indices_nonzero(arr.is_null()).to_pylist():
            rows[i] = None
    return rows


def _list_array_values(arr: Any, time_zone: str, as_map: bool) -> list[Any]:
    offsets = arr.offsets.to_pylist()
    if not offsets:
        return []
    start = offsets[0]
    entries = arr.values.slice(start, offsets[-1] - start)
    if as_map:
        keys = _array_values(entries.field(0), time_zone)
        items = _array_values(entries.field(1), time_zone)
        flat: list[Any] = list(zip(keys, items))
    else:
        flat = _array_values(entries, time_zone)
    valid = arr.is_valid().to_pylist() if arr.null_count else None
    out: list[Any] = []
    append = out.append
    prev = 0
    for i in range(len(arr)):
        end = offsets[i + 1] - start
        if valid is not None and not valid[i]:
            append(None)
        elif as_map:
            append(dict(flat[prev:end]))
        else:
            append(flat[prev:end])
        prev = end
    return out


def to_pandas(table: pa.Table, time_zone: str) -> Any:
    """A ``pandas.DataFrame`` of ``table`` as PySpark's ``toPandas`` gives it.

    Timestamps become naive wall times in the session zone (``datetime64[ns]``), as
    PySpark converts them; needs pandas (``PySparkValueError`` naming it otherwise).
    """
    try:
        import pandas  # noqa: F401 - only checks that it is installed
    except ImportError as exc:
        raise PySparkValueError("toPandas() needs pandas: pip install pandas.", "PACKAGE_NOT_INSTALLED",
                                {"package_name": "pandas"}) from exc
    frame = table.to_pandas()
    for field in table.schema:
        if pa.types.is_timestamp(field.type) and field.type.tz is not None:
            frame[field.name] = frame[field.name].dt.tz_convert(arrow_zone(time_zone)).dt.tz_localize(None)
        elif is_variant(field.type):  # VariantVal objects, as PySpark hands variants to pandas
            import pandas as pd  # noqa: PLC0415 - checked above

            frame[field.name] = pd.Series(table.column(field.name).to_pylist(), index=frame.index, dtype=object)
    return frame


def from_pandas(frame: Any, target: pa.Schema, time_zone: str) -> pa.Table:
    """A ``pandas.DataFrame`` a pandas function returned, as Arrow, read as PySpark reads it.

    A naive ``datetime64`` column for a ``timestamp`` field of ``target`` holds wall
    times in the session zone (what :func:`to_pandas` gives): it gets that zone, so
    that the instants round-trip. Other columns are converted as Arrow converts them;
    matching them to ``target`` (names, casts) is the caller's.
    """
    wanted = {f.name: f.type for f in target}
    variants = [name for name in frame.columns if name in wanted and is_variant(wanted[name])]
    if variants:  # VariantVal objects: Arrow reads their storage structs, then sees them as variants
        frame = frame.assign(**{name: frame[name].map(storage_value) for name in variants})
    table = pa.Table.from_pandas(frame, preserve_index=False)
    for name in variants:
        index = table.schema.get_field_index(name)
        column = table.column(index).combine_chunks()
        stored = column.cast(storage_type(wanted[name])) if not pa.types.is_null(column.type) else \
            pa.nulls(len(column), storage_type(wanted[name]))
        table = table.set_column(index, name, stored.view(wanted[name]))
    for i, field in enumerate(table.schema):
        want = wanted.get(field.name)
        if (want is not None and pa.types.is_timestamp(want) and want.tz is not None
                and pa.types.is_timestamp(field.type) and field.type.tz is None):
            local = pc.assume_timezone(table.column(i), arrow_zone(time_zone), ambiguous="earliest",
                                       nonexistent="earliest")
            table = table.set_column(i, field.name, local)
    return table


"""DataFrames of data the driver already holds: ``createDataFrame``, ``range``, RDDs.

What this module owns
---------------------
Turning local data (rows, tuples, dicts, scalars, a pandas DataFrame, an Arrow
table) or an RDD of rows into the leaf of a logical plan, with PySpark's rules for
the schema: inferred from the data when missing (dicts give columns sorted by key,
Rows keep their field order, tuples are ``_1``, ``_2``...), taken from a
``StructType`` or a DDL string (``"a int, b string"``), or only named (a list of
names; types inferred).

Invariants
----------
* Local data is converted to Arrow once, on the driver; the plan's table has the
  canonical Arrow types of its Spark schema (``arrow_convert.to_arrow_type``).
* An RDD of rows is converted in its own tasks, once per partition.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from .arrow_convert import from_arrow_schema, rows_to_arrow, to_arrow_schema
from .errors import PySparkTypeError, PySparkValueError
from .expressions.base import AttributeReference, column_key
from .plan.logical import LocalRelation, RangeRelation, RDDRelation
from .row import Row
from .timezones import arrow_zone
from .type_infer import infer_schema
from .types import (
    DataType,
    LongType,
    StructField,
    StructType,
    TimestampNTZType,
    _parse_datatype_string,
    _without_char_varchar,
)

__all__ = ["attributes_of", "is_pandas_frame", "local_relation",
           "range_relation", "rdd_relation", "schema_argument", "single_column_rows"]


def attributes_of(schema: StructType) -> list[AttributeReference]:
    """Fresh attributes (new expression ids) for the fields of a schema."""
    return [AttributeReference(f.name, f.dataType, f.nullable, metadata=dict(f.metadata or {})) for f in schema.fields]


def schema_argument(schema: Any) -> StructType | list[str] | None:
    """A ``schema=`` argument as a StructType, a list of names, or ``None``."""
    if schema is None:
        return None
    if isinstance(schema, StructType):
        return _without_char_varchar(schema)  # data holds char(n)/varchar(n) as strings, as in Spark
    if isinstance(schema, str):
        parsed = _without_char_varchar(_parse_datatype_string(schema))
        if isinstance(parsed, StructType):
            return parsed
        return StructType([StructField("value", parsed, True)])
    if isinstance(schema, DataType):
        return StructType([StructField("value", _without_char_varchar(schema), True)])
    if isinstance(schema, list | tuple) and all(isinstance(n, str) for n in schema):
        return list(schema)
    raise PySparkTypeError(
        f"schema should be a StructType, a DDL string or a list of column names, got {type(schema).__name__}.",
        "NOT_LIST_OR_NONE_OR_STRUCT", {"arg_name": "schema", "arg_type": type(schema).__name__})


def _with_names(schema: StructType, names: list[str]) -> StructType:
    if len(names) > len(schema.fields):
        raise PySparkValueError(
            f"{len(names)} column names were given for data of {len(schema.fields)} columns.",
            "LENGTH_SHOULD_BE_THE_SAME", {"arg1": "schema", "arg2": "data"})
    fields = [StructField(names[i] if i < len(names) else f.name, f.dataType, f.nullable)
              for i, f in enumerate(schema.fields)]
    return StructType(fields)


def _from_arrow(table: pa.Table, schema: StructType | list[str] | None) -> tuple[pa.Table, StructType]:
    found = from_arrow_schema(table.schema)
    if isinstance(schema, list):
        found = _with_names(found, schema)
    elif isinstance(schema, StructType):
        found = schema
    target = to_arrow_schema(found)
    table = table.rename_columns(target.names).cast(target)
    return table, found


def is_pandas_frame(data: Any) -> bool:
    """Whether ``data`` is a pandas ``DataFrame`` (checked without importing pandas)."""
    return type(data).__module__.startswith("pandas") and type(data).__name__ == "DataFrame"


def _pandas_table(frame: Any, schema: Any, time_zone: str) -> pa.Table:
    """A pandas frame as Arrow, read as PySpark reads it: a naive ``datetime64`` column holds
    wall times in ``time_zone`` (a ``TimestampType``; the caller picks the zone as PySpark
    does), unless ``schema`` makes it ``TimestampNTZType``."""
    table = pa.Table.from_pandas(frame, preserve_index=False)
    fields = schema.fields if isinstance(schema, StructType) else []
    for i, field in enumerate(table.schema):
        if not pa.types.is_timestamp(field.type) or field.type.tz is not None:
            continue
        if i < len(fields) and isinstance(fields[i].dataType, TimestampNTZType):
            continue
        local = pc.assume_timezone(table.column(i), arrow_zone(time_zone), ambiguous="earliest",
                                   nonexistent="earliest")
        table = table.set_column(i, field.name, local)
    return table


def local_relation(data: Any, schema: Any, time_zone: str, verify: bool = True) -> LocalRelation:
    """The plan of ``createDataFrame(data, schema)`` for data held by the driver."""
    wanted = schema_argument(schema)
    if isinstance(data, pa.RecordBatch):
        data = pa.Table.from_batches([data])
    if is_pandas_frame(data):
        data = _pandas_table(data, wanted, time_zone)
    if isinstance(data, pa.Table):
        table, final = _from_arrow(data, wanted)
    else:
        rows = list(data)
        if isinstance(wanted, StructType):
            final = wanted
            rows = single_column_rows(final, rows)
        else:
            final = infer_schema(rows, wanted if isinstance(wanted, list) else None)
        table = rows_to_arrow(rows, final, time_zone)
    attrs = attributes_of(final)
    table = table.rename_columns([column_key(a.expr_id) for a in attrs])
    return LocalRelation(attrs, table)


def single_column_rows(schema: StructType, rows: list[Any]) -> list[Any]:
    """``rows`` as given, or each value wrapped in a 1-tuple when they are scalars of a 1-field schema."""
    return [_single(r) for r in rows] if _single_column(schema, rows) else rows


def _single_column(schema: StructType, rows: list[Any]) -> bool:
    # PySpark accepts scalars with an atomic schema: createDataFrame([1, 2], "int").
    return len(schema.fields) == 1 and bool(rows) and not isinstance(rows[0], Row | tuple | list | dict)


def _single(value: Any) -> tuple[Any]:
    return (value,)


def range_relation(start: int, end: int, step: int, num_slices: int | None) -> RangeRelation:
    """The plan of ``spark.range(start, end, step, numPartitions)``."""
    if step == 0:
        raise PySparkValueError("The step of range() must not be 0.", "VALUE_NOT_NON_ZERO", {"arg_name": "step"})
    attr = AttributeReference("id", LongType(), False)
    return RangeRelation([attr], start, end, step, num_slices)


def rdd_relation(rdd: Any, schema: Any, time_zone: str) -> RDDRelation:
    """The plan of ``createDataFrame(rdd, schema)``: the schema is inferred from a sample if missing."""
    wanted = schema_argument(schema)
    if isinstance(wanted, StructType):
        final = wanted
    else:
        sample = rdd.take(100)
        if not sample:
            raise PySparkValueError("can not infer schema from empty dataset", "CANNOT_INFER_EMPTY_SCHEMA", {})
        final = infer_schema(sample, wanted if isinstance(wanted, list) else None)
    return RDDRelation(attributes_of(final), rdd, final)


def rows_to_batches(rows: Iterator[Any], schema: StructType, names: Sequence[str], time_zone: str,
                    batch_rows: int = 65536) -> Iterator[pa.RecordBatch]:
    """Rows of one partition as record batches with columns ``names`` (runs in tasks)."""
    chunk: list[Any] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) >= batch_rows:
            yield _to_batch(chunk, schema, names, time_zone)
            chunk = []
    if chunk:
        yield _to_batch(chunk, schema, names, time_zone)


def _to_batch(rows: list[Any], schema: StructType, names: Sequence[str], time_zone: str) -> pa.RecordBatch:
    if _single_column(schema, rows):
        rows = [_single(r) for r in rows]
    table = rows_to_arrow(rows, schema, time_zone).rename_columns(list(names))
    return table.combine_chunks().to_batches()[0] if table.num_rows else pa.RecordBatch.from_pylist(
        [], schema=table.schema)

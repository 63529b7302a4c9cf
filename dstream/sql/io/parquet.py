"""The Parquet source: row-group splits, column projection and row-group pruning by statistics.

What this module owns
---------------------
:class:`ParquetFormat`: the schema of the first file (Spark's default without
``mergeSchema``; with it, the union of all files' fields), splits (a file within the split
size is one split, its footer unread on the driver; a larger one is cut into whole row
groups packed up to the split size), and :meth:`ParquetFormat.row_groups_to_read`, which keeps only
the row groups whose min/max/null-count statistics may hold a row matching the filters.

Invariants
----------
* Pruning is conservative: a row group is skipped only when its statistics prove that no
  row satisfies the filters; a column without statistics keeps every row group.
* Batches carry the requested schema's types (timestamps cast to microseconds and so on).
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from dstream.sql.arrow_convert import spark_field_metadata, spark_variant_types
from dstream.sql.io.base import FileFormat, Filter, conform_batch
from dstream.sql.io.files import FileSplit, max_partition_bytes, option_bool

__all__ = ["ParquetFormat", "might_match"]

# Three-valued answers of the statistics check.
_Stats = dict[str, tuple[Any, Any, int | None, int]]  # column -> (min, max, null_count, num_rows)

# Rows per batch read: Arrow's own scan default. A row group up to this size comes back as
# one batch, so the operators above run once per group and never concatenate its pieces
# (at 65,536 a 100,000-row group came back in two batches, 8% more CPU for a scan and a
# grouped count); larger groups are still cut, which bounds a batch's memory.
_BATCH_ROWS = 1 << 17


def _comparable(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool)
    numbers = (int, float)
    if isinstance(a, numbers) and isinstance(b, numbers):
        return True
    if isinstance(a, datetime.datetime) and isinstance(b, datetime.datetime):
        return (a.tzinfo is None) == (b.tzinfo is None)
    return type(a) is type(b)


def might_match(flt: Filter, stats: _Stats) -> bool:
    """Whether rows described by ``stats`` may satisfy ``flt`` (``True`` when unsure)."""
    op = flt[0]
    if op == "and":
        return might_match(flt[1], stats) and might_match(flt[2], stats)
    if op == "or":
        return might_match(flt[1], stats) or might_match(flt[2], stats)
    if op == "not":
        inner = flt[1]
        # Only negations with an exact complement are used; others cannot prune.
        flipped = {"=": "!=", "!=": "=", "<": ">=", "<=": ">", ">": "<=", ">=": "<", "is_null": "is_not_null",
                   "is_not_null": "is_null"}.get(inner[0])
        return True if flipped is None else might_match((flipped, *inner[1:]), stats)
    column = flt[1]
    if column not in stats:
        return True
    low, high, nulls, rows = stats[column]
    if op == "is_null":
        return nulls is None or nulls > 0
    if op == "is_not_null":
        return nulls is None or nulls < rows
    if low is None or high is None:
        # No min/max: the column is all null (then no comparison holds) or has no statistics.
        return not (nulls is not None and nulls == rows)
    values = flt[2] if op == "in" else [flt[2]]
    values = [v for v in values if v is not None]
    if not values:
        return False  # a comparison with null holds for no row
    if not all(_comparable(v, low) for v in values):
        return True
    if isinstance(low, float) and (low != low or high != high):
        return True
    value = values[0]
    if op == "=":
        return bool(low <= value <= high)
    if op == "in":
        return any(low <= v <= high for v in values)
    if op == "!=":
        return not (low == high == value)
    if op == "<":
        return bool(low < value)
    if op == "<=":
        return bool(low <= value)
    if op == ">":
        return bool(high > value)
    if op == ">=":
        return bool(high >= value)
    return True


def _row_group_stats(meta: pq.FileMetaData, index: int) -> _Stats:
    group = meta.row_group(index)
    out: _Stats = {}
    for i in range(group.num_columns):
        chunk = group.column(i)
        path = chunk.path_in_schema
        if "." in path:
            continue
        stats = chunk.statistics
        if stats is None:
            continue
        nulls = stats.null_count if stats.has_null_count else None
        low, high = (stats.min, stats.max) if stats.has_min_max else (None, None)
        out[path] = (low, high, nulls, group.num_rows)
    return out


def _field_of(schema: pa.Schema, name: str) -> pa.Field | None:
    index = schema.get_field_index(name)
    return schema.field(index) if index >= 0 else None


class ParquetFormat(FileFormat):
    """Apache Parquet (``spark.read.parquet``)."""

    name = "parquet"
    title = "Parquet"
    extension = "parquet"

    def _infer_data_schema(self, files: Sequence[str], options: Mapping[str, Any]) -> pa.Schema:
        if not files:
            return pa.schema([])
        if not option_bool(options, "mergeSchema"):
            return _normalize(pq.read_schema(files[0]))
        fields: dict[str, pa.Field] = {}
        for path in files:
            for fld in _normalize(pq.read_schema(path)):
                fields.setdefault(fld.name, fld)
        return pa.schema(list(fields.values()))

    def _split_file(self, path: str, options: Mapping[str, Any],
                    partition: tuple[tuple[str, str | None], ...]) -> list[FileSplit]:
        limit = max_partition_bytes(options)
        if os.path.getsize(path) <= limit:
            # Spark splits by the file's bytes: a file within the split size is one split,
            # and its footer is left for the task to read (the driver opens none).
            return [FileSplit(path, 0, -1, None, partition)]
        meta = pq.ParquetFile(path).metadata
        if meta.num_row_groups <= 1:
            return [FileSplit(path, 0, -1, None, partition)]
        out: list[FileSplit] = []
        current: list[int] = []
        size = 0
        for index in range(meta.num_row_groups):
            group_size = meta.row_group(index).total_byte_size
            if current and size + group_size > limit:
                out.append(FileSplit(path, 0, -1, tuple(current), partition))
                current, size = [], 0
            current.append(index)
            size += group_size
        if len(out) == 0:
            return [FileSplit(path, 0, -1, None, partition)]
        out.append(FileSplit(path, 0, -1, tuple(current), partition))
        return out

    def row_groups_to_read(self, path: str, filters: Sequence[Filter] | None,
                           row_groups: Sequence[int] | None = None) -> list[int]:
        """The row groups of ``path`` (among ``row_groups``) whose statistics may match every filter.

        Parameters
        ----------
        path : str
            A Parquet file.
        filters : sequence of Filter, optional
            The pushed-down predicates (see the filter language of the IO package).
        row_groups : sequence of int, optional
            The candidates (a split's row groups); all row groups when ``None``.
        """
        return _row_groups_to_read(pq.ParquetFile(path).metadata, filters, row_groups)

    def _read_data(self, split: FileSplit, schema: pa.Schema, columns: Sequence[str], options: Mapping[str, Any],
                   filters: Sequence[Filter] | None) -> Iterator[pa.RecordBatch]:
        handle = pq.ParquetFile(split.path)
        groups = _row_groups_to_read(handle.metadata, filters, split.row_groups)  # the file opened once
        file_schema = handle.schema_arrow
        wanted = pa.schema([schema.field(n) for n in columns])
        present = [n for n in columns if _field_of(file_schema, n) is not None]
        if not groups:
            return
        if not present:
            for index in groups:
                rows = handle.metadata.row_group(index).num_rows
                yield pa.RecordBatch.from_arrays([pa.nulls(rows, f.type) for f in wanted], schema=wanted)
            return
        for batch in handle.iter_batches(batch_size=_BATCH_ROWS, row_groups=groups, columns=present, use_threads=False):
            yield conform_batch(batch, wanted)


def _row_groups_to_read(meta: pq.FileMetaData, filters: Sequence[Filter] | None,
                        row_groups: Sequence[int] | None) -> list[int]:
    candidates = range(meta.num_row_groups) if row_groups is None else row_groups
    if not filters:
        return list(candidates)
    return [i for i in candidates if all(might_match(f, _row_group_stats(meta, i)) for f in filters)]


def _normalize(schema: pa.Schema) -> pa.Schema:
    """A file's schema in the Arrow types of Spark's types (timestamps in microseconds, strings not large),
    each column with the Spark metadata the file's footer gives it."""
    metadata = spark_field_metadata(schema)
    variants = spark_variant_types(schema)
    return pa.schema([pa.field(f.name, variants.get(f.name) or _spark_arrow(f.type), True, metadata.get(f.name))
                      for f in schema])


def _spark_arrow(t: pa.DataType) -> pa.DataType:
    if pa.types.is_timestamp(t):
        return pa.timestamp("us", tz="UTC" if t.tz else None)
    if pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return pa.string()
    if pa.types.is_large_binary(t):
        return pa.binary()
    if pa.types.is_dictionary(t):
        return _spark_arrow(t.value_type)
    if pa.types.is_unsigned_integer(t):
        return {8: pa.int16(), 16: pa.int32(), 32: pa.int64()}.get(t.bit_width, pa.decimal128(20, 0))
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return pa.list_(pa.field("element", _spark_arrow(t.value_type)))
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, _spark_arrow(f.type)) for f in t])
    if pa.types.is_map(t):
        return pa.map_(_spark_arrow(t.key_type), _spark_arrow(t.item_type))
    if pa.types.is_float16(t):
        return pa.float32()
    if pa.types.is_date64(t):
        return pa.date32()
    return t

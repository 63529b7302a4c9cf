"""Leaf operators: where a query's rows come from.

What this module owns
---------------------
:class:`LocalTableScanExec` (a driver-side Arrow table cut into slices),
:class:`RangeExec` (``spark.range``, computed in the tasks), :class:`RDDScanExec`
(an RDD of rows converted to Arrow once per partition), :class:`FileScanExec` (one
partition per file split, read in the task through the format object) and
:class:`CachedScanExec` (the persisted batches of a cached DataFrame).

Invariants
----------
* Every scan yields batches with the columns of its output attributes, named by
  their ids, in the Arrow types of their Spark types.
* Scans ship data descriptions, not data, where they can: a range is its bounds, a
  file scan its splits; only a local table travels with its tasks.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa

from ..expressions.base import AttributeReference
from ..timezones import python_time_zone
from . import input_file
from .arrays import arange
from .context import QueryContext
from .physical import UNKNOWN_SIZE, PhysicalPlan, arrow_schema, conform_batch, key_names

__all__ = ["ArrowRDDScanExec", "CachedScanExec", "FileScanExec", "LocalTableScanExec", "RDDScanExec", "RangeExec"]

#: Rows per batch a range produces.
_RANGE_BATCH = 1 << 20


def _attrs_text(attrs: Sequence[AttributeReference]) -> str:
    return ", ".join(repr(a) for a in attrs)


class LocalTableScanExec(PhysicalPlan):
    """``LocalTableScan``: the relation's table sliced over the default parallelism."""

    def __init__(self, output: Sequence[AttributeReference], table: pa.Table) -> None:
        self.output = list(output)
        self.table = table

    def execute(self, qctx: QueryContext) -> Any:
        schema = arrow_schema(self.output)
        table = self.table.select(key_names(self.output)) if self.output else self.table.select([])
        rows = table.num_rows
        slices = max(1, min(qctx.sc.defaultParallelism, rows))
        pieces = []
        for i in range(slices):
            start, stop = i * rows // slices, (i + 1) * rows // slices
            piece = table.slice(start, stop - start).combine_chunks()
            pieces.append([conform_batch(b, schema) for b in piece.to_batches() if b.num_rows] if len(schema)
                          else [b for b in piece.to_batches() if b.num_rows])
        return qctx.sc.parallelize(pieces, slices).flatMap(_the_batches)

    def estimated_size(self) -> int:
        return int(self.table.nbytes)

    def describe(self) -> str:
        return f"LocalTableScan [{_attrs_text(self.output)}]"


def _read_split(fmt: Any, schema: Any, options: dict[str, Any], columns: list[str], filters: Any,
                target: pa.Schema, named: bool, split: Any) -> Iterator[pa.RecordBatch]:
    input_file.set_current(*_block(split))  # what input_file_name() reads in this task
    for batch in fmt.read(split, schema, options, columns, filters):
        if batch.num_rows:
            yield conform_batch(batch, target) if named else batch.select([])


def _read_split_with_metadata(fmt: Any, schema: Any, options: dict[str, Any], columns: list[str], filters: Any,
                              target: pa.Schema, at: int, split: Any) -> Iterator[pa.RecordBatch]:
    """The split's batches with the hidden ``_metadata`` column inserted at position ``at`` of ``target``."""
    from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - only scans that show _metadata need these
    from ..io.file_metadata import SplitMetadata  # noqa: PLC0415

    data_target = pa.schema([f for i, f in enumerate(target) if i != at])
    meta_type = target.field(at).type
    meta = SplitMetadata(split.path, split.start, split.length, meta_type, _first_row(split, meta_type))
    # Batches without columns have no rows: with only _metadata wanted, one column is read for the count.
    counted = columns or [schema.fields[0].name]
    read_target = data_target if columns else pa.schema([pa.field("_count", to_arrow_type(schema.fields[0].dataType))])
    for batch in _read_split(fmt, schema, options, counted, filters, read_target, True, split):
        arrays = list(batch.columns) if columns else []
        arrays.insert(at, meta.column(batch.num_rows))
        yield pa.RecordBatch.from_arrays(arrays, schema=target)


def _first_row(split: Any, meta_type: pa.StructType) -> int:
    """The file position of the split's first row (its row groups start past the earlier groups' rows)."""
    if meta_type.get_field_index("row_index") < 0 or not getattr(split, "row_groups", None):
        return 0
    import pyarrow.parquet as pq  # noqa: PLC0415 - only Parquet splits have row groups

    meta = pq.ParquetFile(split.path).metadata
    return sum(meta.row_group(i).num_rows for i in range(min(split.row_groups)))


def _block(split: Any) -> tuple[str, int, int]:
    """``(uri, start, length)`` of a split, as ``input_file_name()`` and its siblings report it."""
    from ..io.manifest import path_to_uri  # noqa: PLC0415 - the io package loads with the first read

    length = split.length
    if length < 0:
        try:
            length = os.path.getsize(split.path) - split.start
        except OSError:
            length = -1
    return path_to_uri(split.path), split.start, length


def _the_batches(batches: list[pa.RecordBatch]) -> list[pa.RecordBatch]:
    # A module function, not a lambda: pickled by reference, so a task's closure stays
    # small and quick to pickle (a micro-batch ships one per batch).
    return batches


def _range_slice(bounds: tuple[int, int], step: int, names: list[str]) -> Iterator[pa.RecordBatch]:
    return _range_batches(bounds[0], bounds[1], step, names)


def _range_batches(start: int, stop: int, step: int, names: list[str]) -> Iterator[pa.RecordBatch]:
    values = arange(start, stop, step)
    for offset in range(0, len(values), _RANGE_BATCH):
        yield pa.RecordBatch.from_arrays([values.slice(offset, _RANGE_BATCH)], names=names)


class RangeExec(PhysicalPlan):
    """``Range (start, end, step, splits)``: one bigint column, slice ``i`` computed by task ``i``."""

    def __init__(self, output: Sequence[AttributeReference], start: int, end: int, step: int,
                 num_slices: int | None) -> None:
        self.output = list(output)
        self.start, self.end, self.step, self.num_slices = start, end, step, num_slices

    def count(self) -> int:
        """The number of values."""
        return len(range(self.start, self.end, self.step))

    def execute(self, qctx: QueryContext) -> Any:
        n = self.count()
        slices = self.num_slices or qctx.sc.defaultParallelism
        bounds = [(self.start + (i * n // slices) * self.step, self.start + ((i + 1) * n // slices) * self.step)
                  for i in range(slices)]
        step, names = self.step, key_names(self.output)
        return qctx.sc.parallelize(bounds, slices).flatMap(functools.partial(_range_slice, step=step, names=names))

    def estimated_size(self) -> int:
        return self.count() * 8

    def describe(self) -> str:
        return f"Range ({self.start}, {self.end}, step={self.step}, splits={self.num_slices})"


class ArrowRDDScanExec(PhysicalPlan):
    """Scan of an RDD that already computes the batches (``ArrowRDDRelation``)."""

    def __init__(self, output: Sequence[AttributeReference], rdd: Any, described: str) -> None:
        self.output = list(output)
        self.rdd = rdd
        self.described = described

    def execute(self, qctx: QueryContext) -> Any:
        return self.rdd

    def estimated_size(self) -> int:
        return UNKNOWN_SIZE

    def describe(self) -> str:
        return f"Scan {self.described}"


class RDDScanExec(PhysicalPlan):
    """``Scan ExistingRDD``: each partition's rows converted to one Arrow batch."""

    def __init__(self, output: Sequence[AttributeReference], rdd: Any, schema: Any) -> None:
        self.output = list(output)
        self.rdd = rdd
        self.schema = schema

    def execute(self, qctx: QueryContext) -> Any:
        from ..arrow_convert import rows_to_arrow  # noqa: PLC0415 - the conversions load with the first RDD scan

        schema, tz, names = self.schema, python_time_zone(), key_names(self.output)

        def convert(rows: Iterator[Any]) -> Iterator[pa.RecordBatch]:
            records = list(rows)
            if not records:
                return
            table = rows_to_arrow(records, schema, tz)
            table = table.rename_columns(names) if names else table.select([])
            yield from (b for b in table.combine_chunks().to_batches() if b.num_rows)
        return self.rdd.mapPartitions(convert)

    def estimated_size(self) -> int:
        return UNKNOWN_SIZE

    def describe(self) -> str:
        return f"Scan ExistingRDD[{_attrs_text(self.output)}]"


class FileScanExec(PhysicalPlan):
    """``Scan <format>``: one partition per file split, read in the task, columns renamed to ids."""

    def __init__(self, output: Sequence[AttributeReference], format_name: str, files: Sequence[str],
                 options: dict[str, str], schema: Any, filters: Sequence[Any], metadata_id: int | None = None) -> None:
        self.output = list(output)
        self.format_name = format_name
        self.files = list(files)
        self.options = dict(options)
        self.schema = schema
        self.filters = list(filters)
        self.metadata_id = metadata_id  # the hidden _metadata column's id, when the output has it

    def execute(self, qctx: QueryContext) -> Any:
        from ..io import get_format  # noqa: PLC0415 - the readers load with the first file scan

        fmt = get_format(self.format_name)
        options = dict(self.options)
        options.setdefault("spark.sql.session.timeZone", qctx.eval_ctx.time_zone)
        splits = fmt.splits(self.files, options)
        meta_at = next((i for i, a in enumerate(self.output) if a.expr_id == self.metadata_id), None)
        data = [a for a in self.output if a.expr_id != self.metadata_id]
        columns = [a.name for a in data]
        names, schema, filters = key_names(data), self.schema, self.filters or None
        target = arrow_schema(self.output)

        if not splits:
            return qctx.sc.parallelize([], 1)
        if meta_at is not None:
            # Row groups skipped by their statistics would shift row_index: read them all
            # (the filters stay above the scan).
            read = functools.partial(_read_split_with_metadata, fmt, schema, options, columns, None, target, meta_at)
        else:
            read = functools.partial(_read_split, fmt, schema, options, columns, filters, target, bool(names))
        return qctx.sc.parallelize(splits, len(splits)).flatMap(read)

    def estimated_size(self) -> int:
        total = 0
        for path in self.files:
            try:
                total += os.path.getsize(path)
            except OSError:
                return UNKNOWN_SIZE
        return total

    def describe(self) -> str:
        text = f"FileScan {self.format_name} [{_attrs_text(self.output)}]"
        if self.filters:
            text += f" PushedFilters: {self.filters}"
        return text


class CachedScanExec(PhysicalPlan):
    """``InMemoryTableScan``: the persisted batches of a cached plan (computed by the first query)."""

    def __init__(self, output: Sequence[AttributeReference], relation: Any, build: Any) -> None:
        self.output = list(output)
        self.relation = relation
        self.build = build

    def execute(self, qctx: QueryContext) -> Any:
        return self.relation.rdd(self.build)

    def describe(self) -> str:
        return f"InMemoryTableScan [{_attrs_text(self.output)}]"

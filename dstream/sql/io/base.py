"""The file-format contract: schema inference, splits and reads, shared by every source.

What this module owns
---------------------
:class:`FileFormat`, the picklable object a read ships to its tasks. A format works on
Arrow schemas inside (``infer_arrow_schema``, ``read_arrow``); the public ``infer_schema``
and ``read`` speak Spark's ``StructType`` and convert through ``arrow_convert``.
Partition columns (``k=v`` directories) are appended here, after the data columns, so
every format gets them the same way.

Invariants
----------
* Every batch ``read_arrow`` yields has exactly the Arrow schema asked for, projected to
  ``columns`` in the order of ``columns``; a column absent from a file reads as nulls.
* Filters are hints: a format may return rows that do not match them, never drop one
  that does.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from dstream.sql.io.files import (
    FileSplit,
    byte_ranges,
    discovers_partitions,
    max_partition_bytes,
    option,
    partition_schema,
    partition_values,
)
from dstream.sql.variant.arrow import has_variant, storage_type

if TYPE_CHECKING:
    from dstream.sql.types import StructType

__all__ = ["FileFormat", "Filter", "conform_batch", "time_zone_option"]

#: A pushed-down predicate: ``("=", col, value)``, ``("and", f, g)``, ``("is_null", col)``...
Filter = tuple


def time_zone_option(options: Mapping[str, object]) -> str:
    """The zone naive timestamps are read and written in: option ``timeZone``, else UTC."""
    return option(options, "timeZone") or option(options, "spark.sql.session.timeZone") or "UTC"


def _nulls(length: int, type_: pa.DataType) -> pa.Array:
    return pa.nulls(length, type_)


def conform_batch(batch: pa.RecordBatch | pa.Table, schema: pa.Schema) -> pa.RecordBatch:
    """``batch`` with exactly ``schema``: columns picked by name, cast, missing ones null."""
    names = batch.schema.names
    arrays = []
    for fld in schema:
        if fld.name in names:
            column = batch.column(names.index(fld.name))
            if isinstance(column, pa.ChunkedArray):
                column = column.combine_chunks()
            if column.type != fld.type and has_variant(fld.type):  # a variant read as its storage struct
                column = column.cast(storage_type(fld.type)).view(fld.type)
            elif column.type != fld.type:
                column = column.cast(fld.type)
            arrays.append(column)
        else:
            arrays.append(_nulls(batch.num_rows, fld.type))
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def _partition_array(value: str | None, type_: pa.DataType, length: int) -> pa.Array:
    if value is None:
        return pa.nulls(length, type_)
    scalar = pa.array([value], pa.string()).cast(type_)
    return pa.nulls(length, type_).fill_null(scalar[0])


#: Spark's ``spark.sql.files.openCostInBytes``: what opening a file costs, in bytes read.
OPEN_COST_BYTES = 4 * 1024 * 1024


def split_bytes(files: Sequence[str], options: Mapping[str, Any]) -> int:
    """The split size Spark's file scans use: ``min(maxPartitionBytes, max(openCost, bytes per core))``.

    ``bytes per core`` is the read's total size (each file counted with the open cost) divided
    by ``minPartitionNum`` (the reader passes the SparkContext's ``defaultParallelism``), so a
    47 MB file read on two cores becomes two splits, not one 128 MB-capped split.
    """
    cap = max_partition_bytes(options)
    cores = int(option(options, "minPartitionNum") or 1)
    total = sum(os.path.getsize(f) + OPEN_COST_BYTES for f in files if os.path.exists(f))
    return max(1, min(cap, max(OPEN_COST_BYTES, total // max(cores, 1))))


class FileFormat:
    """A file source and sink: ``text``, ``csv``, ``json`` or ``parquet``.

    Subclasses implement ``_infer_data_schema`` and ``_read_data``; splitting by byte
    ranges is the default, Parquet splits by row groups.
    """

    #: The format's name as ``spark.read.format`` takes it.
    name: str = ""
    #: The extension of written part files.
    extension: str = ""
    #: The name Spark's messages give the format (``Unable to infer schema for CSV``).
    title: str = ""
    #: Whether byte-range splits are allowed (line-oriented formats without multiLine).
    splittable: bool = True
    #: Whether the files hold intervals as Spark's text (CSV, JSON), read back by :meth:`read`.
    text_intervals: bool = False

    # ------------------------------------------------------------------ schema
    def _infer_data_schema(self, files: Sequence[str], options: Mapping[str, Any]) -> pa.Schema:
        raise NotImplementedError

    def infer_arrow_schema(self, files: Sequence[str], options: Mapping[str, Any]) -> pa.Schema:
        """The Arrow schema of ``files``: the data columns, then the partition columns.

        Parameters
        ----------
        files : sequence of str
            The files of the read (from :func:`~dstream.sql.io.files.list_input_files`).
        options : mapping
            The reader's options.
        """
        data = self._infer_data_schema(files, options)
        parts = partition_schema(files, option(options, "basePath")) if discovers_partitions(options) else []
        taken = {f.name.lower() for f in data}
        return pa.schema(list(data) + [f for f in parts if f.name.lower() not in taken])

    def infer_schema(self, files: Sequence[str], options: Mapping[str, Any]) -> StructType:
        """The Spark schema of ``files`` (see :meth:`infer_arrow_schema`)."""
        from dstream.sql.arrow_convert import from_arrow_schema
        return from_arrow_schema(self.infer_arrow_schema(files, options))

    def with_partition_columns(self, schema: StructType, files: Sequence[str],
                               options: Mapping[str, Any]) -> StructType:
        """A user's ``schema`` followed by the partition columns of ``files`` it does not name (as Spark)."""
        from dstream.sql.arrow_convert import from_arrow_schema
        from dstream.sql.types import StructType

        if not discovers_partitions(options):
            return schema
        base = option(options, "basePath")
        # Files outside partition directories (beside them) read their columns as nulls.
        partitioned = [f for f in files if partition_values(f, base)]
        taken = {f.name.lower() for f in schema.fields}
        extra = [f for f in partition_schema(partitioned, base) if f.name.lower() not in taken]
        return StructType([*schema.fields, *from_arrow_schema(pa.schema(extra)).fields]) if extra else schema

    # ------------------------------------------------------------------ splits
    def _split_file(self, path: str, options: Mapping[str, Any],
                    partition: tuple[tuple[str, str | None], ...]) -> list[FileSplit]:
        if not self.splittable_with(options):
            return [FileSplit(path, 0, -1, None, partition)]
        return byte_ranges(path, max_partition_bytes(options), partition)

    def splittable_with(self, options: Mapping[str, Any]) -> bool:
        """Whether files of this format split into byte ranges under ``options``."""
        return self.splittable

    def splits(self, files: Sequence[str], options: Mapping[str, Any]) -> list[FileSplit]:
        """The units of work of a read: at least one per file, more for big files.

        Parameters
        ----------
        files : sequence of str
            The files of the read.
        options : mapping
            The reader's options (``maxPartitionBytes`` caps the split size; ``minPartitionNum``,
            the cores, makes splits small enough that every core gets one, see
            :func:`split_bytes`).
        """
        base = option(options, "basePath")
        size = str(split_bytes(files, options))
        options = {k: v for k, v in options.items() if k.lower() != "maxpartitionbytes"}
        options["maxPartitionBytes"] = size
        out: list[FileSplit] = []
        discover = discovers_partitions(options)
        for path in files:
            out.extend(self._split_file(path, options, partition_values(path, base) if discover else ()))
        return out

    # ------------------------------------------------------------------ reads
    def _read_data(self, split: FileSplit, schema: pa.Schema, columns: Sequence[str], options: Mapping[str, Any],
                   filters: Sequence[Filter] | None) -> Iterator[pa.RecordBatch]:
        """Batches holding at least ``columns`` of the data ``schema`` (line formats return all of it)."""
        raise NotImplementedError

    def read_arrow(self, split: FileSplit, schema: pa.Schema, options: Mapping[str, Any],
                   columns: Sequence[str] | None = None,
                   filters: Sequence[Filter] | None = None) -> Iterator[pa.RecordBatch]:
        """The rows of one split as batches of ``schema`` projected to ``columns``.

        Parameters
        ----------
        split : FileSplit
            What to read.
        schema : pyarrow.Schema
            The whole table's schema (data columns and partition columns).
        options : mapping
            The reader's options.
        columns : sequence of str, optional
            The columns to return, in this order; ``None`` for all.
        filters : sequence of Filter, optional
            Predicates the rows of interest satisfy (hints).
        """
        part_names = {k for k, _ in split.partition}
        data_schema = pa.schema([f for f in schema if f.name not in part_names])
        wanted = list(schema.names if columns is None else columns)
        out_schema = pa.schema([schema.field(n) for n in wanted])
        part_values = dict(split.partition)
        data_columns = [n for n in wanted if n not in part_names]
        for batch in self._read_data(split, data_schema, data_columns, options, filters):
            arrays = []
            for fld in out_schema:
                if fld.name in part_names:
                    arrays.append(_partition_array(part_values[fld.name], fld.type, batch.num_rows))
                else:
                    arrays.append(batch.column(batch.schema.get_field_index(fld.name)))
            yield pa.RecordBatch.from_arrays(arrays, schema=out_schema)

    def read(self, split: FileSplit, schema: StructType, options: Mapping[str, Any],
             columns: Sequence[str] | None = None,
             filters: Sequence[Filter] | None = None) -> Iterator[pa.RecordBatch]:
        """The rows of one split, in the Arrow types of ``to_arrow_schema(schema)`` (see :meth:`read_arrow`).

        A text format (CSV, JSON) holds an interval as Spark's text (``INTERVAL '1-2' YEAR TO MONTH``):
        such a column is read as a string, then parsed as the schema's interval (null where it is not
        one, as a malformed field is, unless ``mode`` is ``FAILFAST``).
        """
        from dstream.sql.arrow_convert import to_arrow_schema
        from dstream.sql.expressions.interval_cast import intervals_from_text, text_type  # noqa: PLC0415 - on use
        from dstream.sql.types import StructType  # noqa: PLC0415 - as in with_partition_columns

        as_text = text_type(schema) if self.text_intervals else schema
        assert isinstance(as_text, StructType)
        if as_text == schema:
            yield from self.read_arrow(split, to_arrow_schema(schema), options, columns, filters)
            return
        mode = "ansi" if str(option(options, "mode") or "").upper() == "FAILFAST" else "try"
        for batch in self.read_arrow(split, to_arrow_schema(as_text), options, columns, filters):
            arrays = [intervals_from_text(column, schema[name].dataType, mode)
                      for name, column in zip(batch.schema.names, batch.columns)]
            yield pa.RecordBatch.from_arrays(arrays, names=batch.schema.names)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

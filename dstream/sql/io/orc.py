"""The ORC source and sink: Apache ORC files through ``pyarrow.orc``, typed as Spark types them.

What this module owns
---------------------
:class:`OrcFormat`: the schema of the first file (every file's with ``mergeSchema``), one split
per file, reads of the wanted columns; writes with Spark's default codec, ``zstd``
(``compression``: ``none``/``uncompressed``, ``snappy``, ``zlib``, ``lz4``, ``zstd``), the part
files named ``*.zstd.orc``.

Invariants
----------
* Types read as Spark reads them: ORC ``timestamp`` is an instant (``timestamp``, stored in
  UTC as Spark writes it) unless the column's Spark type says ``timestamp_ntz``; strings,
  binaries and lists in their plain Arrow forms.
* Timestamps are written as UTC wall times with the Spark type in the column's metadata, so
  Spark reads back the same instants.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.orc as orc

from dstream.sql.errors import IllegalArgumentException
from dstream.sql.io.base import FileFormat, Filter, conform_batch
from dstream.sql.io.files import FileSplit, option, option_bool
from dstream.sql.io.parquet import _spark_arrow

__all__ = ["OrcFormat"]

#: Spark's ORC codecs (``compression``) and pyarrow's names for them.
_CODECS = {"none": "uncompressed", "uncompressed": "uncompressed", "snappy": "snappy", "zlib": "zlib",
           "lz4": "lz4", "zstd": "zstd"}
#: Where Spark notes a column's type in an ORC file.
_SPARK_TYPE = b"spark.sql.catalyst.type"


def _codec(options: Mapping[str, Any]) -> str:
    codec = (option(options, "compression") or option(options, "orc.compress") or "zstd").lower()
    if codec not in _CODECS:
        raise IllegalArgumentException(
            f"Codec [{codec}] is not available for ORC. Available codecs are {', '.join(sorted(_CODECS))}.")
    return codec


def _field(fld: pa.Field) -> pa.Field:
    """A file's column in the Arrow type of its Spark type."""
    spark_type = (fld.metadata or {}).get(_SPARK_TYPE, b"").decode()
    if pa.types.is_timestamp(fld.type):
        # An ORC timestamp Spark wrote holds UTC wall time: an instant, unless it is a timestamp_ntz.
        return pa.field(fld.name, pa.timestamp("us", None if spark_type == "timestamp_ntz" else "UTC"))
    return pa.field(fld.name, _spark_arrow(fld.type))


class OrcFormat(FileFormat):
    """Apache ORC (``spark.read.orc``)."""

    name = "orc"
    title = "ORC"
    extension = "orc"

    def _infer_data_schema(self, files: Sequence[str], options: Mapping[str, Any]) -> pa.Schema:
        fields: dict[str, pa.Field] = {}
        for path in files if option_bool(options, "mergeSchema") else files[:1]:
            for fld in orc.ORCFile(path).schema:
                fields.setdefault(fld.name, _field(fld))
        return pa.schema(list(fields.values()))

    def splittable_with(self, options: Mapping[str, Any]) -> bool:
        """One split per file (stripes are not split among tasks)."""
        return False

    def _read_data(self, split: FileSplit, schema: pa.Schema, columns: Sequence[str], options: Mapping[str, Any],
                   filters: Sequence[Filter] | None) -> Iterator[pa.RecordBatch]:
        handle = orc.ORCFile(split.path)
        file_fields = {f.name: f for f in handle.schema}
        wanted = pa.schema([schema.field(n) for n in columns])
        present = [n for n in columns if n in file_fields]
        for stripe in range(handle.nstripes):
            batch = handle.read_stripe(stripe, columns=present) if present else None
            rows = batch.num_rows if batch is not None else handle.read_stripe(stripe).num_rows
            arrays = []
            for fld in wanted:
                if batch is None or fld.name not in present:
                    arrays.append(pa.nulls(rows, fld.type))
                    continue
                column = batch.column(batch.schema.get_field_index(fld.name))
                if pa.types.is_timestamp(column.type) and pa.types.is_timestamp(fld.type):
                    column = column.cast(pa.timestamp("us")).cast(fld.type) if fld.type.tz else column.cast(fld.type)
                arrays.append(column)
            yield conform_batch(pa.RecordBatch.from_arrays(arrays, names=list(wanted.names)), wanted)

    def part_extension(self, options: Mapping[str, Any]) -> str:
        """A part file's ending, the codec's name first (``zstd.orc``) as Spark names them."""
        codec = _codec(options)
        return self.extension if codec in ("none", "uncompressed") else f"{codec}.{self.extension}"

    def write_table(self, table: pa.Table, target: str, options: Mapping[str, Any]) -> None:
        """Write ``table`` as one ORC file at ``target``."""
        columns, fields = [], []
        for fld, column in zip(table.schema, table.columns):
            if pa.types.is_timestamp(fld.type):
                # UTC wall time in an ORC timestamp, the Spark type noted for the reader.
                spark_type = b"timestamp" if fld.type.tz else b"timestamp_ntz"
                column = column.cast(pa.timestamp("us"))  # an instant's UTC wall time; a wall time as it is
                fld = pa.field(fld.name, pa.timestamp("us"), metadata={_SPARK_TYPE: spark_type})
            columns.append(column)
            fields.append(fld)
        orc.write_table(pa.Table.from_arrays(columns, schema=pa.schema(fields)), target,
                        compression=_CODECS[_codec(options)])

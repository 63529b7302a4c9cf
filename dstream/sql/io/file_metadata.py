"""The hidden ``_metadata`` column of file scans: which file, and where in it, each row came from.

What this module owns
---------------------
Spark's file metadata column: its type (:func:`metadata_type`), the hidden attribute a
file relation carries (:func:`metadata_attribute`), and its values for the batches of one
split (:class:`SplitMetadata`): ``file_path`` (``file:`` and the absolute path, as Hadoop
prints a local path), ``file_name``, ``file_size``, ``file_block_start``,
``file_block_length``, ``file_modification_time`` (milliseconds, as the file system
reports them to Spark) and, for Parquet, ``row_index`` (the row's position in its file).

Invariants
----------
* The column is hidden: ``*`` and ``columns`` do not show it; a name resolves to it only
  when no column of the data has that name (a file's own ``_metadata`` column wins).
* ``row_index`` counts the rows of the split in file order from the split's first row.
"""

from __future__ import annotations

import os
from typing import Any

import pyarrow as pa

from ..types import LongType, StringType, StructField, StructType, TimestampType

__all__ = ["METADATA_NAME", "SplitMetadata", "metadata_attribute", "metadata_type"]

METADATA_NAME = "_metadata"
#: The formats whose ``_metadata`` has ``row_index`` (Spark's Parquet reader).
_ROW_INDEX_FORMATS = frozenset({"parquet"})


def metadata_type(format_name: str) -> StructType:
    """The type of ``_metadata`` for files of ``format_name``."""
    fields = [StructField("file_path", StringType(), False), StructField("file_name", StringType(), False),
              StructField("file_size", LongType(), False), StructField("file_block_start", LongType(), False),
              StructField("file_block_length", LongType(), False),
              StructField("file_modification_time", TimestampType(), False)]
    if format_name.lower() in _ROW_INDEX_FORMATS:
        fields.append(StructField("row_index", LongType(), False))
    return StructType(fields)


def metadata_attribute(format_name: str) -> Any:
    """A new hidden ``_metadata`` attribute for a scan of ``format_name`` files."""
    from ..local_data import attributes_of  # noqa: PLC0415 - the plan helpers load with the first scan

    return attributes_of(StructType([StructField(METADATA_NAME, metadata_type(format_name), False)]))[0]


class SplitMetadata:
    """The ``_metadata`` values of the rows of one split, batch after batch."""

    def __init__(self, path: str, start: int, length: int, arrow_type: pa.StructType, row_index: int = 0) -> None:
        stat = os.stat(path)
        self.arrow_type = arrow_type
        self.values = {"file_path": "file:" + os.path.abspath(path), "file_name": os.path.basename(path),
                       "file_size": stat.st_size, "file_block_start": start,
                       "file_block_length": length if length >= 0 else stat.st_size - start,
                       "file_modification_time": stat.st_mtime_ns // 1_000_000 * 1000}
        self.next_row = row_index

    def column(self, rows: int) -> pa.StructArray:
        """The ``_metadata`` of the next ``rows`` rows of the split."""
        arrays = []
        for field in self.arrow_type:
            if field.name == "row_index":
                arrays.append(pa.array(range(self.next_row, self.next_row + rows), pa.int64()))
            else:
                value = self.values[field.name]
                arrays.append(pa.repeat(pa.scalar(value, pa.int64() if field.name == "file_modification_time"
                                                  else field.type), rows).cast(field.type))
        self.next_row += rows
        return pa.StructArray.from_arrays(arrays, fields=list(self.arrow_type))

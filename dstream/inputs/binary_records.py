"""BinaryRecordsNode: fixed-length binary records of local files (``binaryRecordsStream``).

What this module owns
---------------------
Reading files as a sequence of ``record_length``-byte ``bytes`` records. Each file is cut
into splits of whole records (at most :data:`SPLIT_BYTES` each); the driver only
``stat``s the files, each task opens its own file and reads its own byte range.

Invariant: a file's length must be a multiple of ``record_length``; the file stream
checks this when it selects the file (an error naming the file), and a task re-checks
it, since a file may change after selection.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from rdd.nodes.base import LineageNode, Partition

from dstream.errors import StreamingError

if TYPE_CHECKING:
    from rdd.runtime.task_context import TaskContext

__all__ = ["SPLIT_BYTES", "BinaryRecordsNode", "RecordLengthError", "check_record_file"]

#: Largest byte range one task reads (rounded down to whole records).
SPLIT_BYTES = 32 * 1024 * 1024


class RecordLengthError(StreamingError, ValueError):
    """A binary record file whose length is not a multiple of the record length."""


def check_record_file(path: str, size: int, record_length: int) -> None:
    """Raise :class:`RecordLengthError` unless ``size`` is a whole number of records."""
    if size % record_length:
        raise RecordLengthError(
            f"binary record file {path} has {size} bytes, which is not a multiple of "
            f"recordLength={record_length} ({size // record_length} whole records and "
            f"{size % record_length} bytes left over); write whole records, or pass the "
            "right recordLength to binaryRecordsStream"
        )


class _RangePartition(Partition):
    __slots__ = ("path", "start", "end", "file_size")

    def __init__(self, index: int, path: str, start: int, end: int, file_size: int) -> None:
        super().__init__(index)
        self.path = path
        self.start = start
        self.end = end
        self.file_size = file_size


class BinaryRecordsNode(LineageNode):
    """One partition per whole-record byte range of each file."""

    def __init__(self, files: Sequence[tuple[str, int]], record_length: int) -> None:
        super().__init__([])
        if record_length <= 0:
            raise ValueError(
                f"recordLength must be a positive number of bytes, got {record_length}"
            )
        self.record_length = record_length
        self._files = list(files)

    def _make_partitions(self) -> list[Partition]:
        step = max(self.record_length, SPLIT_BYTES - SPLIT_BYTES % self.record_length)
        parts: list[Partition] = []
        for path, size in self._files:
            for start in range(0, size, step):
                parts.append(
                    _RangePartition(len(parts), path, start, min(size, start + step), size)
                )
        return parts

    def compute(self, split: Partition, tctx: TaskContext) -> Iterator[Any]:
        assert isinstance(split, _RangePartition)
        size = os.path.getsize(split.path)
        if size != split.file_size:
            check_record_file(split.path, size, self.record_length)
            raise RecordLengthError(
                f"binary record file {split.path} changed size from {split.file_size} to {size} "
                "bytes after it was selected; move complete files into the directory atomically"
            )
        return self._read(split)

    def _read(self, split: _RangePartition) -> Iterator[bytes]:
        n = self.record_length
        with open(split.path, "rb") as f:
            f.seek(split.start)
            data = f.read(split.end - split.start)
        for offset in range(0, len(data), n):
            yield data[offset : offset + n]

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state["_files"] = []
        return state

    def describe(self) -> str:
        return "BinaryRecordsRDD"

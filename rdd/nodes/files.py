"""File sources: text files split by byte ranges, whole files, pickle files.

The driver only lists and ``stat``s files; each task opens its own file and reads its
own byte range, so a large input never passes through the driver.

Line splitting follows Hadoop's ``LineRecordReader``: a split that does not start at
byte 0 skips up to and including the first newline (the previous split owns that
line), and every split reads past its end to finish its last line. Lines end at
``\\n``; a ``\\r`` before it is dropped. Invalid UTF-8 becomes U+FFFD, never an error;
with ``use_unicode=False`` lines are the file's bytes, undecoded (as PySpark's).
"""

from __future__ import annotations

import glob
import os
import pickle
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .base import LineageNode, Partition

if TYPE_CHECKING:
    from ..runtime.task_context import TaskContext

_READ_CHUNK = 1 << 20


def list_input_files(path: str) -> list[str]:
    """Expand a comma-separated list of files, directories and glob patterns.

    Hidden files (``.`` or ``_`` prefix, as Hadoop) in directories are skipped.

    Raises
    ------
    FileNotFoundError
        When a path matches nothing; the message names it.
    """
    files: list[str] = []
    for part in (p.strip() for p in str(path).split(",")):
        if not part:
            continue
        if part.startswith("file://"):
            part = part[len("file://"):]
        matches = sorted(glob.glob(part)) if glob.has_magic(part) else [part]
        if not matches or not any(os.path.exists(m) for m in matches):
            raise FileNotFoundError(f"Input path does not exist: {part}")
        for match in matches:
            if os.path.isdir(match):
                for name in sorted(os.listdir(match)):
                    full = os.path.join(match, name)
                    if not name.startswith((".", "_")) and os.path.isfile(full):
                        files.append(full)
            else:
                files.append(match)
    return files


class _FileSplit(Partition):
    __slots__ = ("path", "start", "end")

    def __init__(self, index: int, path: str, start: int, end: int) -> None:
        super().__init__(index)
        self.path, self.start, self.end = path, start, end


_CODECS = {".gz": "gzip", ".bz2": "bz2", ".deflate": "zlib"}


def codec_of(path: str) -> str | None:
    """The compression codec implied by the file name (as Hadoop's codec factory), if any."""
    return _CODECS.get(os.path.splitext(path)[1].lower())


def plan_splits(files: list[str], min_partitions: int) -> list[_FileSplit]:
    """Cut files into byte ranges, about ``total / min_partitions`` bytes each.

    A compressed file cannot be split: it is one partition, read whole.
    """
    sizes = [(f, os.path.getsize(f)) for f in files]
    total = sum(size for _, size in sizes)
    goal = max(1, total // max(1, min_partitions))
    splits: list[_FileSplit] = []
    for path, size in sizes:
        if size == 0 or codec_of(path):
            splits.append(_FileSplit(len(splits), path, 0, size))
            continue
        start = 0
        while start < size:
            # Hadoop's 1.1 slop: never leave a sliver of a split at the end of a file.
            end = size if size - start <= goal * 1.1 else start + goal
            splits.append(_FileSplit(len(splits), path, start, end))
            start = end
    return splits


def read_lines(path: str, start: int, end: int, use_unicode: bool = True) -> Iterator[Any]:
    """Yield the lines that belong to byte range ``[start, end)`` of ``path``.

    A line belongs to the split in which it starts. Lines are ``str`` (invalid UTF-8 as
    U+FFFD), or the undecoded ``bytes`` when ``use_unicode`` is false.
    """
    with open(path, "rb") as f:
        if start > 0:
            f.seek(start - 1)
            position = start - 1 + len(f.readline())  # the previous split owns this line
        else:
            position = 0
        pending = b""
        while position < end:
            chunk = f.read(min(_READ_CHUNK, end - position))
            if not chunk:
                break
            position += len(chunk)
            if position >= end and not chunk.endswith(b"\n"):
                chunk += f.readline()  # finish the line that started inside the range
            data = pending + chunk if pending else chunk
            cut = data.rfind(b"\n")
            if cut < 0:
                pending = data
                continue
            pending = data[cut + 1:]
            yield from _split_lines(data[:cut], use_unicode)
        if pending:
            yield from _split_lines(pending, use_unicode)


def read_compressed(path: str, codec: str) -> bytes:
    """The decompressed bytes of a whole file compressed with ``codec`` (see :func:`codec_of`)."""
    if codec == "zlib":
        import zlib
        with open(path, "rb") as f:
            return zlib.decompress(f.read())
    module = __import__(codec)
    with module.open(path, "rb") as f:
        data: bytes = f.read()
        return data


def read_compressed_lines(path: str, codec: str, use_unicode: bool = True) -> Iterator[Any]:
    """Every line of a whole compressed file (``bytes`` when ``use_unicode`` is false)."""
    data = read_compressed(path, codec)
    if not data:
        return iter(())
    if data.endswith(b"\n"):
        data = data[:-1]
    return iter(_split_lines(data, use_unicode))


def _split_lines(data: bytes, use_unicode: bool) -> list[Any]:
    """The lines of ``data`` (no ``\\n``, no ``\\r`` before it), decoded unless ``use_unicode`` is false."""
    lines = data.split(b"\n")
    if b"\r" in data:
        lines = [line[:-1] if line.endswith(b"\r") else line for line in lines]
    return [line.decode("utf-8", "replace") for line in lines] if use_unicode else lines


class TextFileNode(LineageNode):
    def __init__(self, splits: list[_FileSplit], use_unicode: bool = True) -> None:
        super().__init__([])
        self._splits = splits
        self.use_unicode = use_unicode

    def _make_partitions(self) -> list[Partition]:
        return list(self._splits)

    def compute(self, split: _FileSplit, tctx: TaskContext) -> Iterator[Any]:
        if split.end <= split.start:
            return iter(())
        codec = codec_of(split.path)
        if codec is not None:
            return read_compressed_lines(split.path, codec, self.use_unicode)
        return read_lines(split.path, split.start, split.end, self.use_unicode)

    def describe(self) -> str:
        return "TextFileRDD"


class _FilesPartition(Partition):
    __slots__ = ("paths",)

    def __init__(self, index: int, paths: list[str]) -> None:
        super().__init__(index)
        self.paths = paths


def group_files(files: list[str], count: int) -> list[_FilesPartition]:
    count = max(1, min(count, len(files))) if files else 1
    return [_FilesPartition(i, files[i * len(files) // count:(i + 1) * len(files) // count]) for i in range(count)]


class WholeTextFilesNode(LineageNode):
    """``(path, content)`` per file; :class:`BinaryFilesNode` keeps the bytes."""

    def __init__(self, groups: list[_FilesPartition]) -> None:
        super().__init__([])
        self._groups = groups

    def _make_partitions(self) -> list[Partition]:
        return list(self._groups)

    def compute(self, split: _FilesPartition, tctx: TaskContext) -> Iterator[Any]:
        for path in split.paths:
            with open(path, "rb") as f:
                yield ("file:" + os.path.abspath(path), self._content(f.read()))

    def _content(self, data: bytes) -> Any:
        return data.decode("utf-8", "replace")

    def describe(self) -> str:
        return "WholeTextFileRDD"


class BinaryFilesNode(WholeTextFilesNode):
    """``(path, bytes)`` per file (``SparkContext.binaryFiles``)."""

    def _content(self, data: bytes) -> Any:
        return data

    def describe(self) -> str:
        return "BinaryFileRDD"


class BinaryRecordsNode(LineageNode):
    """Fixed-length ``bytes`` records of flat binary files (``SparkContext.binaryRecords``)."""

    def __init__(self, groups: list[_FilesPartition], record_length: int) -> None:
        super().__init__([])
        self._groups = groups
        self._record_length = record_length

    def _make_partitions(self) -> list[Partition]:
        return list(self._groups)

    def compute(self, split: _FilesPartition, tctx: TaskContext) -> Iterator[Any]:
        length = self._record_length
        for path in split.paths:
            with open(path, "rb") as f:
                while record := f.read(length):
                    if len(record) < length:
                        raise ValueError(
                            f"binaryRecords: {path} ends with a partial record of {len(record)} bytes (its size, "
                            f"{os.path.getsize(path)} bytes, is not a multiple of recordLength={length}); give "
                            "files of whole records or the right recordLength")
                    yield record

    def describe(self) -> str:
        return "BinaryRecordsRDD"


def read_pickle_frames(path: str) -> Iterator[Any]:
    """Records of a pickle part file: ``pickle.dump``-ed lists until EOF."""
    with open(path, "rb") as f:
        while True:
            try:
                batch = pickle.load(f)
            except EOFError:
                return
            yield from batch


class PickleFileNode(LineageNode):
    def __init__(self, groups: list[_FilesPartition]) -> None:
        super().__init__([])
        self._groups = groups

    def _make_partitions(self) -> list[Partition]:
        return list(self._groups)

    def compute(self, split: _FilesPartition, tctx: TaskContext) -> Iterator[Any]:
        for path in split.paths:
            yield from read_pickle_frames(path)

    def describe(self) -> str:
        return "PickleFileRDD"

"""RDDOutput: the output writers of ``RDD`` (``saveAsTextFile``, ``saveAsPickleFile``).

Each partition is written by its task to ``part-NNNNN`` (see ``docs/internals.md`` for
the formats) through a hidden temporary file renamed into place, so a reader never sees
a half-written part and a retried task simply replaces it. The output directory is
claimed (created) before the job and never overwritten; ``_SUCCESS`` is written once
every part is. A failed job removes the directory it claimed.

Functions shipped to tasks are module-level helpers bound with ``functools.partial``,
never closures over ``self``: an ``RDD`` cannot be pickled.
"""

from __future__ import annotations

import bz2
import functools
import gzip
import itertools
import os
import pickle
import shutil
import uuid
import zlib
from collections.abc import Callable, Iterable, Iterator
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rdd.rdd import RDD

__all__ = ["RDDOutput"]

# saveAsPickleFile(batchSize=0): grow the batch until a pickled batch is about this
# big. Big enough to amortise per-frame overhead, small enough to bound memory.
_AUTO_BATCH_TARGET_BYTES = 64 * 1024

# Hadoop codec class names accepted by saveAsTextFile -> part file suffix.
_TEXT_CODECS = {
    "org.apache.hadoop.io.compress.GzipCodec": ".gz",
    "org.apache.hadoop.io.compress.BZip2Codec": ".bz2",
    "org.apache.hadoop.io.compress.DefaultCodec": ".deflate",
    "org.apache.hadoop.io.compress.DeflateCodec": ".deflate",
}


# --- per-partition helpers shipped to tasks ------------------------------------------


class _DeflateWriter:
    """A minimal binary writer producing a zlib stream (Hadoop's DefaultCodec)."""

    def __init__(self, raw: IO[bytes]) -> None:
        self._raw = raw
        self._compressor = zlib.compressobj()

    def write(self, data: bytes) -> None:
        self._raw.write(self._compressor.compress(data))

    def close(self) -> None:
        self._raw.write(self._compressor.flush())
        self._raw.close()


class _GzipWriter:
    """gzip without a file name in the header (gzip.open would record the temp name)."""

    def __init__(self, raw: IO[bytes]) -> None:
        self._raw = raw
        self._gzip = gzip.GzipFile(filename="", mode="wb", fileobj=raw)

    def write(self, data: bytes) -> None:
        self._gzip.write(data)

    def close(self) -> None:
        self._gzip.close()  # does not close a fileobj it was given
        self._raw.close()


def _open_part(path: str, suffix: str) -> Any:
    if suffix == ".gz":
        return _GzipWriter(open(path, "wb"))
    if suffix == ".bz2":
        return bz2.open(path, "wb")
    if suffix == ".deflate":
        return _DeflateWriter(open(path, "wb"))
    return open(path, "wb", buffering=1024 * 1024)


def _write_part(
    out_dir: str,
    suffix: str,
    encode: Callable[[Iterator[Any]], Iterator[bytes]],
    split: int,
    iterator: Iterable[Any],
) -> Iterator[int]:
    """Write one partition to ``part-NNNNN``; yields the number of bytes written.

    The data goes to a hidden temporary file first and is renamed into place, so a
    reader never sees a half-written part, and a retried task simply replaces it.
    """
    name = f"part-{split:05d}{suffix}"
    tmp = os.path.join(out_dir, f".{name}.{uuid.uuid4().hex}.tmp")
    written = 0
    try:
        out = _open_part(tmp, suffix)
        try:
            for chunk in encode(iter(iterator)):
                out.write(chunk)
                written += len(chunk)
        finally:
            out.close()
        os.replace(tmp, os.path.join(out_dir, name))
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    yield written


def _encode_text(iterator: Iterator[Any]) -> Iterator[bytes]:
    for record in iterator:
        # bytes are written as they are (PySpark does the same); all else via str().
        line = record if isinstance(record, bytes) else str(record).encode("utf-8")
        yield line + b"\n"


def _encode_pickle_batches(batch_size: int, iterator: Iterator[Any]) -> Iterator[bytes]:
    if batch_size > 0:
        while batch := list(itertools.islice(iterator, batch_size)):
            yield pickle.dumps(batch, protocol=5)
        return
    # batchSize=0: adaptive, grow while frames stay small, shrink when they get huge.
    size = 1
    while batch := list(itertools.islice(iterator, size)):
        frame = pickle.dumps(batch, protocol=5)
        yield frame
        if len(frame) < _AUTO_BATCH_TARGET_BYTES:
            size *= 2
        elif len(frame) > 10 * _AUTO_BATCH_TARGET_BYTES and size > 1:
            size //= 2


def _local_path(path: str | os.PathLike[str]) -> str:
    text = os.fspath(path)
    if text.startswith("file://"):
        text = text[len("file://") :]
    elif text.startswith("file:"):
        text = text[len("file:") :]
    return os.path.abspath(text)


def _claim_output_dir(out_dir: str) -> None:
    # Like Hadoop's output-spec check: never write into (or over) existing output.
    try:
        os.makedirs(os.path.dirname(out_dir), exist_ok=True)
        os.mkdir(out_dir)
    except FileExistsError:
        raise FileExistsError(
            f"Output directory file:{out_dir} already exists; "
            f"saving never overwrites: remove it or choose another path"
        ) from None


def _drain(iterator: Iterable[Any]) -> None:
    for _ in iterator:
        pass


class RDDOutput:
    """The ``saveAs*`` methods of ``RDD``.

    Mixed into :class:`rdd.rdd.RDD`; not meant to be used on its own.
    """

    def saveAsTextFile(
        self: RDD[Any], path: str, compressionCodecClass: str | None = None
    ) -> None:
        """Save the RDD as a directory of text files, one line per element.

        Writes ``part-00000``, ``part-00001`` ... (one per partition; each line is
        ``str(element)`` in UTF-8, bytes elements as they are) and an empty
        ``_SUCCESS`` once every part is written.

        Parameters
        ----------
        path : str
            Output directory (a local path or a ``file:`` URI); must not exist.
        compressionCodecClass : str, optional
            A Hadoop codec class name: ``org.apache.hadoop.io.compress.GzipCodec``
            (``.gz``), ``...BZip2Codec`` (``.bz2``) or ``...DefaultCodec`` /
            ``...DeflateCodec`` (``.deflate``, a zlib stream).

        Raises
        ------
        FileExistsError
            If ``path`` already exists.

        Examples
        --------
        >>> import os, tempfile
        >>> out = os.path.join(tempfile.mkdtemp(), "out")
        >>> sc.parallelize(["a", "b"], 2).saveAsTextFile(out)
        >>> sorted(os.listdir(out))
        ['_SUCCESS', 'part-00000', 'part-00001']
        """
        suffix = ""
        if compressionCodecClass is not None:
            suffix = _TEXT_CODECS.get(compressionCodecClass, "")
            if not suffix:
                supported = ", ".join(sorted(_TEXT_CODECS))
                raise ValueError(
                    f"unsupported compressionCodecClass {compressionCodecClass!r}; "
                    f"use one of {supported}, or None for plain text"
                )
        self._save_parts(path, suffix, _encode_text)

    def saveAsPickleFile(self: RDD[Any], path: str, batchSize: int = 10) -> None:
        """Save the RDD as a directory of pickle files, readable by ``sc.pickleFile``.

        Each ``part-NNNNN`` is a sequence of ``pickle`` frames (protocol 5), each a
        list of up to ``batchSize`` elements.

        Parameters
        ----------
        path : str
            Output directory (a local path or a ``file:`` URI); must not exist.
        batchSize : int, default 10
            Elements per pickled list; 0 picks the size automatically.

        Raises
        ------
        FileExistsError
            If ``path`` already exists.

        Examples
        --------
        >>> import os, tempfile
        >>> out = os.path.join(tempfile.mkdtemp(), "out")
        >>> sc.parallelize(range(10), 2).saveAsPickleFile(out, 3)
        >>> sorted(sc.pickleFile(out).collect())
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
        """
        if not isinstance(batchSize, int) or batchSize < 0:
            raise ValueError(
                f"batchSize must be a non-negative int (0 means automatic), got {batchSize!r}"
            )
        self._save_parts(path, "", functools.partial(_encode_pickle_batches, batchSize))

    def _save_parts(
        self: RDD[Any],
        path: str,
        suffix: str,
        encode: Callable[[Iterator[Any]], Iterator[bytes]],
    ) -> None:
        out_dir = _local_path(path)
        _claim_output_dir(out_dir)
        writer = functools.partial(_write_part, out_dir, suffix, encode)
        try:
            self.ctx._run_job(self.mapPartitionsWithIndex(writer), _drain)
        except BaseException:
            # The directory is ours and incomplete; removing it lets the call be
            # retried as is instead of failing on "already exists".
            shutil.rmtree(out_dir, ignore_errors=True)
            raise
        with open(os.path.join(out_dir, "_SUCCESS"), "wb"):
            pass

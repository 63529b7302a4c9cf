"""The file sink: each micro-batch as part files plus a manifest entry (``writeStream.parquet(dir)``).

What this module owns
---------------------
:class:`FileStreamSinkProvider` (formats ``text``, ``csv``, ``json``, ``parquet``; append
mode only) and :class:`FileStreamSink`. ``add_batch(N, df)`` runs the batch's job; each task
writes its rows as ``part-<5-digit partition>-<uuid>.c000.<ext>`` straight into the output
directory (under ``k=v/`` directories with ``partitionBy``) and returns each file's size and
mtime; the driver then adds ``_spark_metadata/N`` listing them. The manifest is a
:class:`~dstream.sql.streaming.logs.CompactibleFileLog` compacted every
``spark.sql.streaming.fileSink.log.compactInterval`` (10) batches.

Invariants
----------
* Batch ``N`` is visible exactly when ``_spark_metadata/N`` exists: readers that follow the
  manifest (``spark.read`` of the directory, a file stream source on it) see each batch once.
  Part files of an attempt that failed, or of a batch re-run after a crash, stay in the
  directory but are in no manifest.
* ``add_batch`` is idempotent: a batch id at or below the manifest's latest writes nothing.
  It still runs, its rows discarded, so that a batch re-run after a crash advances the
  watermark and leaves the stateful operators as the first run did (Spark skips it, and
  the windows that batch closes are not emitted until more data arrives).
* No ``_temporary`` directory and no ``_SUCCESS`` file: the manifest is the commit.
"""

from __future__ import annotations

import functools
import logging
import os
import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from ...errors import AnalysisException, IllegalArgumentException
from ...io import FORMAT_NAMES, get_format, write_files
from ...io.manifest import MANIFEST_DIR, path_to_uri
from ...io.writer import file_extension
from ..logs import CompactibleFileLog, ConcurrentUpdateError
from .base import Sink, SinkProvider, register_sink

if TYPE_CHECKING:
    from ...dataframe import DataFrame
    from ...session import SparkSession

__all__ = ["FileStreamSink", "FileStreamSinkProvider"]

_LOG = logging.getLogger(__name__)

#: What Spark's manifest entries say for a local file (HDFS's notions, fixed here).
_BLOCK_REPLICATION = 1
_BLOCK_SIZE = 33554432
#: The query's options that are not the format writer's.
_SINK_OPTIONS = frozenset({"path", "checkpointlocation", "queryname", "retention"})


class FileStreamSinkProvider(SinkProvider):
    """``df.writeStream.format(<text|csv|json|parquet>).option("path", dir)``."""

    needs_checkpoint = True

    def __init__(self, format_name: str) -> None:
        self.format_name = format_name

    output_modes = ("append",)

    def create(self, session: SparkSession, options: dict[str, str], output_mode: str, partition_by: list[str],
               query_name: str | None) -> FileStreamSink:
        """A sink writing under ``options["path"]`` (the query's output mode is append: ``output_modes``)."""
        path = options.get("path")
        if not path:
            raise IllegalArgumentException("'path' is not specified: pass the output directory to start(path) or "
                                           "option('path', dir).")
        self.check_output_mode(output_mode)
        return FileStreamSink(session, self.format_name, path, options, partition_by)


class FileStreamSink(Sink):
    """One query run's file sink (see the module docstring).

    Parameters
    ----------
    session : SparkSession
        The query's session.
    format_name : str
        ``text``, ``csv``, ``json`` or ``parquet``.
    path : str
        The output directory (created if missing).
    options : dict of str to str
        The writer's options (``header``, ``sep``, ``compression``...), keys lower-cased.
    partition_by : list of str
        Columns whose values become ``k=v`` directories.
    """

    def __init__(self, session: SparkSession, format_name: str, path: str, options: dict[str, str],
                 partition_by: list[str]) -> None:
        self._format = format_name
        local = path[len("file:"):] if path.startswith("file:") else path
        self._root = os.path.abspath(os.path.expanduser(local))
        self._partition_by = list(partition_by)
        self._options = {k: v for k, v in options.items() if k not in _SINK_OPTIONS}
        self._options.setdefault("timezone", session.conf.time_zone())
        self.description = f"FileSink[{path}]"
        interval = int(session.conf.get("spark.sql.streaming.fileSink.log.compactInterval", "10") or 10)
        self._log = CompactibleFileLog(os.path.join(self._root, MANIFEST_DIR), interval)

    def latest_batch_id(self) -> int | None:
        """The newest batch id of the manifest, ``None`` before the first batch."""
        ids = self._log.batch_ids()
        return ids[-1] if ids else None

    def _partition_columns(self, names: list[str]) -> list[str]:
        # Resolved as Spark resolves them: by name, case-insensitively, to the batch's own spelling.
        out = []
        for wanted in self._partition_by:
            found = [n for n in names if n.lower() == wanted.lower()]
            if not found:
                raise AnalysisException(
                    f"Partition column `{wanted}` not found in schema struct<{','.join(names)}>. Use one of the "
                    "query's output columns in partitionBy.", "COLUMN_NOT_FOUND_IN_SCHEMA", {"colName": wanted})
            out.append(found[0])
        return out

    def add_batch(self, batch_id: int, df: DataFrame) -> int:
        """Write batch ``batch_id`` and list its files in the manifest; the rows written (0 if skipped)."""
        latest = self.latest_batch_id()
        if latest is not None and batch_id <= latest:
            _LOG.info("Skipping already committed batch %d (run again, its rows discarded)", batch_id)
            # The batch is re-run after a crash between the manifest and commits/N. Its plan
            # still runs, because the engine takes the next watermark from the batch's event
            # times and the no-data batch from its stateful operators: skipped (as Spark does),
            # the windows this batch closes would wait for more data, for ever at the end of the
            # input. The state it rewrites is the same (same offsets, same state version).
            df._execution().to_rdd().foreach(_discard)
            return 0
        schema = df.schema
        partition_by = self._partition_columns(schema.names)
        fmt = get_format(self._format)
        options, root = dict(self._options), self._root

        def task(index: int, batches: Iterator[pa.RecordBatch]) -> Iterator[tuple[int, list[tuple[str, int, int]]]]:
            counted: list[int] = []

            def counting() -> Iterator[pa.RecordBatch]:
                for batch in batches:
                    counted.append(batch.num_rows)
                    yield batch

            name = f"part-{index:05d}-{uuid.uuid4()}.c000.{file_extension(fmt, options)}"
            # As Spark, the first task of a batch without rows still writes an (empty) file:
            # the output keeps its schema for readers even when no batch had rows.
            written = write_files(counting(), schema, fmt, options, root, name, partition_by,
                                  empty_file=index == 0 and not partition_by)
            files = []
            for relative in written:
                status = os.stat(os.path.join(root, relative))
                files.append((relative, status.st_size, status.st_mtime_ns // 1_000_000))
            yield sum(counted), files

        results = df._execution().to_rdd().mapPartitionsWithIndex(task).collect()
        entries: list[dict[str, Any]] = [
            {"path": path_to_uri(os.path.join(root, relative)), "size": size, "isDir": False,
             "modificationTime": mtime, "blockReplication": _BLOCK_REPLICATION, "blockSize": _BLOCK_SIZE,
             "action": "add"}
            for _, files in results for relative, size, mtime in files]
        if not self._log.add_entries(batch_id, entries):
            raise ConcurrentUpdateError(
                f"Race while writing batch {batch_id} to {self._log.path}: another query wrote it first. Two queries "
                "write to this directory; give each its own output path.")
        return sum(rows for rows, _ in results)


def _discard(_batch: pa.RecordBatch) -> None:
    """Drop a record batch of a re-run batch the manifest already holds."""


for _name in FORMAT_NAMES:
    register_sink(_name, functools.partial(FileStreamSinkProvider, _name))

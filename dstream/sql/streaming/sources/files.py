"""The file source: the new files of a directory, each read once (``spark.readStream.csv(dir)``).

What this module owns
---------------------
:class:`FileStreamSourceProvider` (formats ``text``, ``csv``, ``json`` and ``parquet``: the
schema rule and the options) and :class:`FileStreamSource`. Each ``latest_offset`` lists the
path, keeps the files not seen yet, oldest first (newest first with ``latestFirst``), takes
at most ``maxFilesPerTrigger`` of them when the batch is limited, and appends them to the
source's own log (``<checkpoint>/sources/<i>``) as log batch ``K + 1``; the offset is
``{"logOffset": K + 1}``. ``get_batch`` reads the files of log batches ``(start, end]`` with
the batch reader's formats and options. ``cleanSource`` deletes or archives the files of
committed log batches.

Invariants
----------
* A file is read at most once: its path enters the seen map when it is logged, and the map
  is rebuilt from the log on restart. A file rewritten or appended to after it was logged is
  not read again, so files must appear atomically (written elsewhere, then moved in).
* The listing is the batch reader's: the directory's visible files and those of its ``k=v``
  partition directories (other subdirectories are not entered), or a glob's matches; names
  starting with ``.`` or ``_`` are hidden; a directory a streaming file sink writes (it has
  ``_spark_metadata``) lists only the files of its manifest.
* ``maxFileAge`` is measured from the newest file seen, not from the clock: files older than
  ``newest - maxFileAge`` are ignored and forgotten. With ``latestFirst`` and
  ``maxFilesPerTrigger`` both set it does not apply (old files would never be reached).
* ``get_batch`` depends on the log alone: one range reads the same files after a restart.
"""

from __future__ import annotations

import functools
import logging
import os
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rdd import ConfigError, SparkConf

from ...errors import AnalysisException, IllegalArgumentException, SparkRuntimeException
from ...io import FORMAT_NAMES, get_format, list_input_files
from ...io.manifest import has_manifest, path_to_uri, uri_to_path
from ...plan.logical import FileRelation
from ...types import StringType, StructField, StructType, VariantType
from ..logs import CompactibleFileLog, ConcurrentUpdateError
from .base import Offset, Source, SourceProvider, register_source
from .options import SourceOptions

if TYPE_CHECKING:
    from ...expressions.base import AttributeReference
    from ...plan.logical import LogicalPlan
    from ...session import SparkSession

__all__ = ["FileStreamSource", "FileStreamSourceProvider"]

_LOG = logging.getLogger(__name__)

_GLOB_CHARS = re.compile(r"[*?\[{]")
SCHEMA_REQUIRED = (
    "Schema must be specified when creating a streaming source DataFrame. If some files already exist in the "
    "directory, then depending on the file format you may be able to create a static DataFrame on that directory "
    "with 'spark.read.load(directory)' and infer schema from it.")
#: The options of the stream itself, which the format's reader is not given.
_STREAM_OPTIONS = frozenset({"path", "maxfilespertrigger", "latestfirst", "maxfileage",
                             "filenameonly", "cleansource", "sourcearchivedir", "maxcachedfiles",
                             "discardcachedinputratio"})
_CLEAN_MODES = ("archive", "delete", "off")


@dataclass(frozen=True)
class FileStreamOptions:
    """The file source's own options, checked (Spark's names in the messages)."""

    max_files_per_trigger: int | None
    latest_first: bool
    max_file_age_ms: int
    file_name_only: bool
    clean_source: str
    source_archive_dir: str | None
    max_cached_files: int
    discard_cached_input_ratio: float

    @classmethod
    def parse(cls, options: Mapping[str, str]) -> FileStreamOptions:
        """Read and check the options (keys lower-cased); ``IllegalArgumentException`` names a bad one."""
        typed = SourceOptions(options)
        max_files = options.get("maxfilespertrigger")
        clean = (options.get("cleansource") or "off").lower()
        if clean not in _CLEAN_MODES:
            raise IllegalArgumentException(
                f"Invalid mode for clean source option {options.get('cleansource')}. Must be one of "
                f"{','.join(m.upper() for m in _CLEAN_MODES)} (option 'cleanSource', case-insensitive).")
        archive = options.get("sourcearchivedir")
        if clean == "archive" and not archive:
            raise IllegalArgumentException(
                "Archive mode must be used with 'sourceArchiveDir' option: set option('sourceArchiveDir', <dir>) "
                "to a directory outside the source path.")
        ratio_text = options.get("discardcachedinputratio", "0.2")
        try:
            ratio = float(ratio_text)
        except ValueError:
            ratio = -1.0
        if not 0.0 <= ratio <= 1.0:
            raise IllegalArgumentException(f"Invalid value '{ratio_text}' for option 'discardCachedInputRatio', "
                                           "must be a number between 0 and 1")
        return cls(
            None if max_files is None else _positive_int("maxFilesPerTrigger", max_files),
            typed.get_boolean("latestFirst", False),
            _max_file_age(options.get("maxfileage", "7d")),
            typed.get_boolean("fileNameOnly", False),
            clean, archive,
            _positive_int("maxCachedFiles", options.get("maxcachedfiles", "10000"), allow_zero=True),
            ratio)


def _positive_int(name: str, text: str, allow_zero: bool = False) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0 or (value == 0 and not allow_zero):
        kind = "a non-negative integer" if allow_zero else "a positive integer"
        raise IllegalArgumentException(f"Invalid value '{text}' for option '{name}', must be {kind}")
    return value


def _max_file_age(text: str) -> int:
    name = "maxFileAge"
    try:
        return SparkConf(loadDefaults=False).set(name, text).getTimeAsMs(name)
    except ConfigError:
        raise IllegalArgumentException(
            f"Invalid value '{text}' for option '{name}', must be a time such as '7d', '1h', '30s' or '500ms'"
        ) from None


def _path_option(options: Mapping[str, str]) -> str:
    path = options.get("path")
    if not path:
        raise IllegalArgumentException("'path' is not specified: pass the directory to load(path) (or csv(path)...).")
    path = path[len("file:"):] if path.startswith("file:") else path
    return os.path.expanduser(path)


def _fixed_root(path: str) -> str:
    """The directory part of ``path`` before its first glob character (the path itself without one)."""
    parts = os.path.abspath(path).split(os.sep)
    for i, part in enumerate(parts):
        if _GLOB_CHARS.search(part):
            return os.sep.join(parts[:i]) or os.sep
    return os.sep.join(parts)


def _reader_options(session: SparkSession, options: Mapping[str, str], path: str) -> dict[str, str]:
    """The options the batch reader would read ``path`` with (the stream's own options left out)."""
    out = {k: v for k, v in options.items() if k not in _STREAM_OPTIONS}
    out.setdefault("maxpartitionbytes", str(session.conf.max_partition_bytes()))
    out.setdefault("timezone", session.conf.time_zone())
    out.setdefault("minpartitionnum", str(session.sparkContext.defaultParallelism))
    if not _GLOB_CHARS.search(path) and os.path.isdir(path):
        out.setdefault("basepath", os.path.abspath(path))
    return out


def _list_files(path: str, options: Mapping[str, str]) -> list[str]:
    try:
        return list_input_files([path], options)
    except AnalysisException:  # a glob that matches nothing yet, or a directory removed
        return []


class FileStreamSourceProvider(SourceProvider):
    """``spark.readStream.format(<text|csv|json|parquet>).load(dir)``."""

    def __init__(self, format_name: str) -> None:
        self.format_name = format_name

    def schema(self, session: SparkSession, options: dict[str, str], user_schema: StructType | None) -> StructType:
        """The user's schema; else ``value string`` for text, else one inferred from the files present.

        CSV and JSON infer only when ``spark.sql.streaming.schemaInference`` is true; Parquet
        infers from the files present (Spark asks for a schema there too).
        """
        path = _path_option(options)
        if not _GLOB_CHARS.search(path) and not os.path.exists(path):
            # As Spark: a glob may match later, a plain path must exist when the stream is defined.
            local = os.path.abspath(path)
            raise AnalysisException(f"Path does not exist: file:{local}.", "PATH_NOT_FOUND", {"path": f"file:{local}"})
        if user_schema is not None:
            # As Spark: the partition columns of the files present follow the user's columns.
            fmt = get_format(self.format_name)
            return fmt.with_partition_columns(user_schema, _list_files(path, options),
                                              _reader_options(session, options, path))
        if self.format_name == "text":
            return StructType([StructField("value", StringType(), True)])
        single = next((v for k, v in options.items() if k.lower() == "singlevariantcolumn"), None)
        if self.format_name == "json" and single:  # each record one variant: nothing to infer
            return StructType([StructField(single, VariantType(), True)])
        inference = session.conf.get_boolean("spark.sql.streaming.schemaInference", False)
        files = _list_files(path, options)
        if not inference and (self.format_name != "parquet" or not files):
            raise AnalysisException(SCHEMA_REQUIRED)
        inferred = get_format(self.format_name).infer_schema(files, _reader_options(session, options, path))
        if not inferred.fields:
            title = get_format(self.format_name).title
            raise AnalysisException(f"Unable to infer schema for {title}. It must be specified manually.",
                                    "UNABLE_TO_INFER_SCHEMA", {"format": title})
        return inferred

    def create(self, session: SparkSession, options: dict[str, str], schema: StructType,
               metadata_path: str) -> FileStreamSource:
        """A source over ``options["path"]`` keeping its log in ``metadata_path``."""
        return FileStreamSource(session, self.format_name, options, schema, metadata_path)


class _SeenFiles:
    """Paths logged so far with their mtimes, forgetting those older than ``newest - max_age``."""

    def __init__(self, max_age_ms: int | None, name_only: bool) -> None:
        self._max_age_ms = max_age_ms
        self._name_only = name_only
        self._files: dict[str, int] = {}
        self._newest = 0
        self._purged_below = -(2**63)

    def _key(self, path: str) -> str:
        return path.rsplit("/", 1)[-1] if self._name_only else path

    def add(self, path: str, timestamp: int) -> None:
        self._files[self._key(path)] = timestamp
        self._newest = max(self._newest, timestamp)

    def is_new(self, path: str, timestamp: int) -> bool:
        return timestamp >= self._purged_below and self._key(path) not in self._files

    def purge(self) -> None:
        if self._max_age_ms is None:
            return
        self._purged_below = self._newest - self._max_age_ms
        self._files = {p: t for p, t in self._files.items() if t >= self._purged_below}

    def __len__(self) -> int:
        return len(self._files)


def log_offset(offset: Offset) -> int:
    """The log batch id of a file source offset (``{"logOffset": K}``, or a bare ``K`` as Spark accepts)."""
    if isinstance(offset, Mapping):
        return int(offset["logOffset"])
    return int(offset)


class FileStreamSource(Source):
    """One query run's file source over a path (see the module docstring).

    Parameters
    ----------
    session : SparkSession
        The query's session (settings, parallelism).
    format_name : str
        ``text``, ``csv``, ``json`` or ``parquet``.
    options : dict of str to str
        The reader's options, keys lower-cased, the path under ``"path"``.
    schema : StructType
        The rows' schema.
    metadata_path : str
        The source's log directory, ``<checkpoint>/sources/<i>``.
    """

    def __init__(self, session: SparkSession, format_name: str, options: dict[str, str], schema: StructType,
                 metadata_path: str) -> None:
        self._format = format_name
        self._schema = schema
        self._path = _path_option(options)
        self._options = FileStreamOptions.parse(options)
        self._read_options = _reader_options(session, options, self._path)
        self.description = f"FileStreamSource[file:{os.path.abspath(self._path)}]"
        opts = self._options
        self._archive_dir = None if opts.clean_source != "archive" else os.path.abspath(
            os.path.expanduser(str(opts.source_archive_dir)))
        if self._archive_dir is not None:
            root = _fixed_root(self._path)
            if self._archive_dir == root or self._archive_dir.startswith(root.rstrip(os.sep) + os.sep):
                raise IllegalArgumentException(
                    f"sourceArchiveDir {self._archive_dir} is inside the source path {root}: archived files would "
                    "be listed again. Choose an archive directory outside the source path.")
        interval = int(session.conf.get("spark.sql.streaming.fileSource.log.compactInterval", "10") or 10)
        self._log = CompactibleFileLog(metadata_path, interval)
        # Spark: with latestFirst and a file limit, an age limit would starve the old files.
        ignore_age = opts.latest_first and opts.max_files_per_trigger is not None
        self._seen = _SeenFiles(None if ignore_age else opts.max_file_age_ms, opts.file_name_only)
        for entry in self._log.all_entries():
            self._seen.add(str(entry["path"]), int(entry["timestamp"]))
        self._seen.purge()
        ids = self._log.batch_ids()
        self._current = ids[-1] if ids else -1
        self._unread: list[tuple[str, int]] | None = None
        self._available_now: list[tuple[str, int]] | None = None
        self._cleaned_upto = -1

    # ------------------------------------------------------------------ listing
    def _list(self) -> list[tuple[str, int]]:
        """``(uri, mtime ms)`` of every file visible now, oldest first (newest first with latestFirst)."""
        if self._options.clean_source != "off" and not _GLOB_CHARS.search(self._path) and has_manifest(self._path):
            raise IllegalArgumentException(
                f"Clean up source files is not supported when reading from the output directory of FileStreamSink "
                f"({self._path} has _spark_metadata): remove option cleanSource.")
        found = []
        for path in _list_files(self._path, self._read_options):
            try:
                mtime = os.stat(path).st_mtime_ns // 1_000_000
            except FileNotFoundError:
                continue
            found.append((path_to_uri(path), mtime))
        # A stable sort: files of one mtime keep the listing's name order.
        found.sort(key=lambda f: f[1], reverse=self._options.latest_first)
        return found

    def latest_offset(self, start: Offset | None, limited: bool) -> Offset | None:
        """Log the next files (at most ``maxFilesPerTrigger`` when ``limited``); the log's latest offset."""
        opts = self._options
        if self._available_now is not None:
            candidates = [f for f in self._available_now if self._seen.is_new(*f)]
        elif self._unread and limited:
            candidates, self._unread = self._unread, None
        else:
            candidates = [f for f in self._list() if self._seen.is_new(*f)]
        limit = opts.max_files_per_trigger if limited else None
        chosen, rest = (candidates, []) if limit is None else (candidates[:limit], candidates[limit:])
        # Spark keeps the rest of a limited listing for the next batches, unless so few are left
        # that the next batch would be small while new files may have arrived.
        keep = (limit is not None and not opts.latest_first and self._available_now is None
                and len(rest) >= limit * opts.discard_cached_input_ratio and opts.max_cached_files > 0)
        self._unread = rest[:opts.max_cached_files] if keep and rest else None
        for path, timestamp in chosen:
            self._seen.add(path, timestamp)
        self._seen.purge()
        if chosen:
            self._current += 1
            entries = [{"path": p, "timestamp": t, "batchId": self._current} for p, t in chosen]
            if not self._log.add_entries(self._current, entries):
                raise ConcurrentUpdateError(
                    f"Concurrent update to the log {self._log.path}: batch {self._current} already exists. Multiple "
                    "streaming queries share this checkpoint; stop the other one or use another checkpointLocation.")
            _LOG.info("Log offset set to %d with %d new files", self._current, len(chosen))
        return None if self._current < 0 else {"logOffset": self._current}

    def prepare_for_available_now(self) -> None:
        """Fix the files ``Trigger.AvailableNow`` reads: those present now."""
        self._available_now = self._list()
        self._unread = None

    # ------------------------------------------------------------------ batches
    def _entries_between(self, start: int, end: int, missing_ok: bool = False) -> list[dict[str, Any]]:
        """The log entries of batches ``start + 1 .. end`` (a compact file holds its earlier batches too)."""
        interval = self._log.compact_interval
        compacts: dict[int, list[dict[str, Any]] | None] = {}
        out: list[dict[str, Any]] = []
        for batch in range(start + 1, end + 1):
            rows = self._log.added_entries(batch)
            if rows is None and not self._log.is_compaction(batch):
                rows = self._log.entries(batch)
            if rows is None:
                # Folded into (or written as) the next compact file.
                compact = (batch + interval) // interval * interval - 1
                if compact not in compacts:
                    compacts[compact] = self._log.entries(compact)
                folded = compacts[compact]
                rows = None if folded is None else [r for r in folded if int(r["batchId"]) == batch]
            if rows is None:
                if missing_ok:
                    continue
                raise SparkRuntimeException(
                    f"batch {batch} doesn't exist in the file source log {self._log.path}: the checkpoint is "
                    "damaged (a log file was deleted). Restore it, or start the query with a new checkpointLocation.")
            out.extend(rows)
        return out

    def get_batch(self, start: Offset | None, end: Offset, output: list[AttributeReference]) -> LogicalPlan:
        """The files of log batches ``(start, end]`` read as a batch ``FileRelation`` with ``output``."""
        first = -1 if start is None else log_offset(start)
        last = log_offset(end)
        if first > last:
            raise SparkRuntimeException(f"The file source's batch starts after it ends: start {start}, end {end}.")
        files = [uri_to_path(str(e["path"])) for e in self._entries_between(first, last)]
        _LOG.info("Processing %d files from %d:%d", len(files), first + 1, last)
        return FileRelation(output, self._format, files, dict(self._read_options), self._schema)

    def commit(self, end: Offset) -> None:
        """Clean (delete or archive) the files of the log batches up to ``end`` with ``cleanSource``."""
        last = log_offset(end)
        if self._options.clean_source == "off" or last <= self._cleaned_upto:
            return
        for entry in self._entries_between(self._cleaned_upto, last, missing_ok=True):
            self._clean(uri_to_path(str(entry["path"])))
        self._cleaned_upto = last

    def _clean(self, path: str) -> None:
        # As Spark, a file that cannot be cleaned is logged and left; the query goes on.
        if not os.path.exists(path):
            return
        try:
            if self._archive_dir is None:
                os.remove(path)
                return
            target = os.path.join(self._archive_dir, os.path.abspath(path).lstrip(os.sep))
            if os.path.exists(target):
                _LOG.warning("Not archiving %s: %s already exists", path, target)
                return
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.move(path, target)
        except OSError as exc:
            _LOG.warning("Failed to clean source file %s: %s", path, exc)

    def seen_file_count(self) -> int:
        """How many files the seen map holds (after ``maxFileAge`` purges)."""
        return len(self._seen)


for _name in FORMAT_NAMES:
    register_source(_name, functools.partial(FileStreamSourceProvider, _name))

"""FileInputNode: new files of a directory, per batch (``textFileStream``, ``binaryRecordsStream``).

What this module owns
---------------------
Which files each batch reads (Spark's ``FileInputDStream``). No receiver: at batch ``t``
the job generator thread lists the directory and selects a file iff

1. its name does not start with ``.`` or ``_`` (hidden, or in-progress by Hadoop's
   convention) and it is a regular file (sub-directories are not entered);
2. its modification time is **after** ``threshold = max(start_time, t - remember)``;
3. its modification time is **not after** ``t`` (a newer file belongs to a later batch);
4. it was not selected by a batch still remembered.

``remember = ceil(minRememberDuration / batch) * batch`` with
``spark.streaming.fileStream.minRememberDuration`` = 60 s. ``start_time`` is the clock
time at ``ssc.start()`` (Spark takes it when the stream is *created*; files written
between creation and start would count as new there), so files already in the
directory are ignored (they are listed once at start: the threshold is taken
:data:`START_SLACK_MS` early so that a new file whose time trails the clock is not lost).
The batch's RDD reads its files (one ``textFile`` each, or fixed
records), a batch without files gets an empty RDD.

The contract users must keep (documented on ``textFileStream``): files appear
**atomically** (written elsewhere on the same file system and renamed in), with a current
modification time. A file written in place may be read half-written; a file moved in
with an old preserved time (``cp -p``, ``mv`` across file systems) is skipped — with a
warning here, where Spark is silent.

Recovery: :meth:`FileInputNode.checkpoint_state` returns plain msgpack-able data (the
start time and ``batch time -> files`` of remembered batches); after
:meth:`FileInputNode.restore_state` those files are never selected again, and a batch
time that had files before the crash reads exactly the same files when it is run again.

Errors: a missing directory fails ``ssc.start()``
(:class:`InputDirectoryNotFoundError`); a record file whose size is not a multiple of
``recordLength`` fails its batch with an error naming the file
(:class:`~dstream.inputs.binary_records.RecordLengthError`) and is not selected again.
Listing errors while running are logged and give an empty batch; the files are picked up
later if still inside the remember window.
"""

from __future__ import annotations

import glob
import logging
import math
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rdd.engine_api import rdd_of

from dstream.clock import Clock
from dstream.errors import StreamingError
from dstream.inputs.base import InputHost, InputNode
from dstream.inputs.binary_records import BinaryRecordsNode, check_record_file
from dstream.listener import StreamInputInfo

if TYPE_CHECKING:
    from dstream.graph import DStreamGraph

__all__ = ["FileInputNode", "InputDirectoryNotFoundError"]

logger = logging.getLogger(__name__)

#: Version of :meth:`FileInputNode.checkpoint_state`'s layout.
STATE_VERSION = 1
#: How far before ``start()`` the first threshold is put. File times come from the
#: kernel's clock, which may trail the wall clock by a tick, and a file written in the
#: same millisecond as ``start()`` must not be lost; the price is that a file written in
#: the last few milliseconds before ``start()`` counts as new.
START_SLACK_MS = 10
#: Files warned about as "too old to be selected" (bounded: a warning per file, not a leak).
_MAX_WARNED = 10_000


class InputDirectoryNotFoundError(StreamingError, FileNotFoundError):
    """The directory a file stream monitors does not exist (or is not a directory)."""


def _has_magic(path: str) -> bool:
    return bool(glob.has_magic(path))


class FileInputNode(InputNode):
    """Selects the files that appeared in ``directory`` for each batch.

    Parameters
    ----------
    graph
        The context's graph.
    directory
        The monitored directory (a glob pattern selects several directories).
    min_remember_ms
        ``spark.streaming.fileStream.minRememberDuration``.
    record_length
        ``None`` for text lines, else the length of binary records in bytes.
    name
        The stream's name.
    """

    def __init__(
        self,
        graph: DStreamGraph,
        directory: str,
        min_remember_ms: int = 60_000,
        record_length: int | None = None,
        name: str = "textFileStream",
    ) -> None:
        super().__init__(graph, name)
        self.directory = os.path.abspath(os.fspath(directory))
        # Returns the engine's clock, read at start (the clock may change until then);
        # set by attach().
        self._clock_source: Callable[[], Clock] | None = None
        self.record_length = record_length
        batch = graph.batch_ms
        self.remember_window_ms = max(1, math.ceil(min_remember_ms / batch)) * batch
        self.start_threshold: int | None = None
        #: batch time -> files selected for it (remembered batches only)
        self.batch_files: dict[int, list[str]] = {}
        self._selected: set[str] = set()
        self._warned: set[str] = set()
        self._infos: dict[int, StreamInputInfo] = {}

    # -- checkpointed graphs ---------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        # The clock source refers to the running engine; attach() gives the new one's.
        state = super().__getstate__()
        state["_clock_source"] = None
        state["_warned"] = set()
        state["_infos"] = {}
        return state

    def attach(self, host: InputHost) -> None:
        """Read the engine's clock at start (it may be replaced until then)."""
        self._clock_source = lambda: host.clock

    # -- lifecycle ---------------------------------------------------------------------
    def start(self) -> None:
        """Check the directory and take the start time as the first threshold.

        Raises
        ------
        InputDirectoryNotFoundError
            If the directory does not exist (or a pattern matches no directory).
        """
        if not self._directories():
            raise InputDirectoryNotFoundError(
                f"the directory {self.directory!r} monitored by {self.name} does not exist (or is "
                "not a directory); create it before ssc.start(), then move new files into it"
            )
        if self.start_threshold is None:
            assert self._clock_source is not None, "attach() connects the node to its engine"
            now = self._clock_source().now_ms()
            threshold = now - START_SLACK_MS
            self.start_threshold = threshold
            # Files already there are never new, even those inside the slack window.
            for _, path in self._list(threshold, now):
                self._selected.add(path)

    def _list(self, threshold: int, time_ms: int | None) -> list[tuple[int, str]]:
        """``(mtime, path)`` of visible files with ``threshold < mtime`` (and ``<= time_ms``)."""
        found: list[tuple[int, str]] = []
        for directory in self._directories() or [self.directory]:
            try:
                entries = list(os.scandir(directory))
            except OSError as exc:
                logger.warning(
                    "%s: listing %s failed (%s); no new files this batch", self.name, directory, exc
                )
                continue
            for entry in entries:
                if entry.name.startswith((".", "_")):
                    continue
                try:
                    if not entry.is_file():
                        continue
                    mtime = entry.stat().st_mtime_ns // 1_000_000
                except OSError:
                    continue  # vanished between listing and stat
                if mtime > threshold and (time_ms is None or mtime <= time_ms):
                    found.append((mtime, entry.path))
        return found

    def _directories(self) -> list[str]:
        if _has_magic(self.directory):
            return sorted(p for p in glob.glob(self.directory) if os.path.isdir(p))
        return [self.directory] if os.path.isdir(self.directory) else []

    # -- per batch (job generator thread) ----------------------------------------------
    def compute_next(self, time_ms: int) -> Any:
        files = self.batch_files.get(time_ms)
        if files is None:
            files = self._find_new_files(time_ms)
            # Recorded before the RDD is built: a file that makes its batch fail is
            # still processed once, not retried every batch.
            self.batch_files[time_ms] = files
            self._selected.update(files)
        self._infos[time_ms] = StreamInputInfo(
            self.input_id, 0, {"files": list(files), "Description": "\n".join(files)}
        )
        return self._rdd_of(files, time_ms)

    def input_info(self, time_ms: int) -> StreamInputInfo | None:
        return self._infos.get(time_ms)

    def _find_new_files(self, time_ms: int) -> list[str]:
        start = self.start_threshold if self.start_threshold is not None else 0
        threshold = max(start, time_ms - self.remember_window_ms)
        found = []
        for mtime, path in self._list(start, time_ms):
            if path in self._selected:
                continue
            if mtime <= threshold:
                # Newer than the start but older than the window: a file moved in with an
                # old time (cp -p, mv across file systems). Spark skips these silently.
                if path not in self._warned and len(self._warned) < _MAX_WARNED:
                    self._warned.add(path)
                    logger.warning(
                        "%s: ignoring %s: its modification time is older than the remember "
                        "window (%d ms before batch %d); files must be moved into the "
                        "directory with a current modification time",
                        self.name,
                        path,
                        self.remember_window_ms,
                        time_ms,
                    )
                continue
            found.append((mtime, path))
        found.sort()
        return [path for _, path in found]

    def _rdd_of(self, files: list[str], time_ms: int) -> Any:
        sc = self.graph.sc
        if not files:
            return sc.emptyRDD()
        if self.record_length is not None:
            sized = []
            for path in files:
                size = os.path.getsize(path)
                check_record_file(path, size, self.record_length)
                sized.append((path, size))
            return rdd_of(sc, BinaryRecordsNode(sized, self.record_length))
        rdds = []
        for path in files:
            if not os.path.exists(path):
                logger.warning(
                    "%s: %s was selected for batch %d but is gone; skipping it",
                    self.name,
                    path,
                    time_ms,
                )
                continue
            rdds.append(sc.textFile(path))
        if not rdds:
            return sc.emptyRDD()
        return rdds[0] if len(rdds) == 1 else sc.union(rdds)

    # -- cleanup -----------------------------------------------------------------------
    def clear_metadata(self, time_ms: int, *args: Any, **kwargs: Any) -> None:
        super().clear_metadata(time_ms, *args, **kwargs)
        horizon = time_ms - self.remember_window_ms
        old = [t for t in self.batch_files if t <= horizon]
        for t in old:
            for path in self.batch_files.pop(t):
                self._selected.discard(path)
            self._infos.pop(t, None)

    # -- checkpoint ----------------------------------------------------------------------
    def recorded_batch_times(self) -> list[int]:
        return list(self.batch_files)

    def checkpoint_state(self) -> dict[str, Any]:
        """Plain data to restore the selections after a restart (msgpack-able)."""
        return {
            "version": STATE_VERSION,
            "directory": self.directory,
            "start_threshold": self.start_threshold,
            "batches": [[t, list(files)] for t, files in sorted(self.batch_files.items())],
        }

    def restore_state(self, state: dict[str, Any]) -> None:
        """Restore :meth:`checkpoint_state` output (before start).

        Raises
        ------
        ValueError
            If the state is of another version or another directory.
        """
        if state.get("version") != STATE_VERSION:
            raise ValueError(
                f"file stream checkpoint state version {state.get('version')!r} is not "
                f"{STATE_VERSION}; it was written by another version of dstreams"
            )
        if state.get("directory") != self.directory:
            raise ValueError(
                f"the checkpoint is of a file stream on {state.get('directory')!r}, not "
                f"{self.directory!r}; use a new checkpoint directory when the input changes"
            )
        self.start_threshold = state.get("start_threshold")
        self.batch_files = {
            int(t): [str(p) for p in files] for t, files in state.get("batches", [])
        }
        self._selected = {p for files in self.batch_files.values() for p in files}

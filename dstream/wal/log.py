"""FileBasedWriteAheadLog: rolling segment files in one directory of the checkpoint dir.

What this module owns
---------------------
One log = one directory of segment files (format in :mod:`dstream.wal.frame`)::

    <checkpoint>/receivedData/<streamId>/log-<startMs>-<endMs>      receiver blocks
    <checkpoint>/receivedBlockMetadata/log-<startMs>-<endMs>        the block tracker's events

* :meth:`write` appends one record to the active segment and returns a
  :class:`RecordHandle` ``(path, offset, length)`` only after the bytes are flushed and
  ``fsync``-ed: a handle is a promise that the record survives a crash.
* A new segment starts when the clock passes the active one's end
  (``rollingIntervalSecs``, 60 s). A writer never appends to a segment it did not
  create (a previous process may have left a torn tail there); names stay unique by
  adding ``.<n>`` when a start time repeats (a restarted manual clock).
* :meth:`read` reads one record by handle (any process: workers read WAL-backed blocks
  themselves); :meth:`read_all` replays every record of every segment in order,
  dropping torn tails with a warning; :meth:`repair` truncates torn tails away.
* :meth:`clean` deletes segments whose *end* time is before a threshold, never the
  active one.

Writes are retried up to ``maxFailures`` (3) times, each time on a fresh segment.
Thread-safe: one lock around the active segment.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from dstream.durable import fsync_directory
from dstream.wal import frame
from dstream.wal.errors import WriteAheadLogError

__all__ = ["FileBasedWriteAheadLog", "RecordHandle", "segment_files"]

logger = logging.getLogger(__name__)

_NAME = re.compile(r"^log-(\d+)-(\d+)(?:\.(\d+))?$")


@dataclass(frozen=True, slots=True)
class RecordHandle:
    """Where one record lives: a segment path, the frame's offset and its length."""

    path: str
    offset: int
    length: int

    def to_msgpack(self) -> list[Any]:
        return [self.path, self.offset, self.length]

    @classmethod
    def from_msgpack(cls, value: list[Any]) -> RecordHandle:
        path, offset, length = value
        return cls(str(path), int(offset), int(length))


@dataclass(frozen=True, slots=True)
class _Segment:
    path: str
    start: int
    end: int
    seq: int


def segment_files(directory: str) -> list[_Segment]:
    """Return the segments of a log directory, oldest first (unknown files are ignored)."""
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return []
    segments = []
    for name in names:
        match = _NAME.match(name)
        if match:
            start, end, seq = match.groups()
            segments.append(
                _Segment(os.path.join(directory, name), int(start), int(end), int(seq or 0))
            )
    segments.sort(key=lambda s: (s.start, s.seq))
    return segments


class FileBasedWriteAheadLog:
    """An append-only, rolling, checksummed record log in ``directory``.

    Parameters
    ----------
    directory
        The log's own directory (created on first write).
    now_ms
        The clock that names segments and decides when to roll; cleanup thresholds must
        come from the same clock (batch times: the StreamingContext's clock).
    rolling_interval_ms
        Length of a segment's time range (``rollingIntervalSecs`` * 1000).
    max_failures
        Write attempts before giving up.
    fsync
        ``fsync`` every write (the durability promise); tests of formats may turn it off.
    """

    def __init__(
        self,
        directory: str,
        now_ms: Callable[[], int],
        rolling_interval_ms: int = 60_000,
        max_failures: int = 3,
        fsync: bool = True,
    ) -> None:
        if rolling_interval_ms <= 0:
            raise ValueError(f"rolling_interval_ms must be positive, got {rolling_interval_ms}")
        self.directory = os.path.abspath(directory)
        self._now_ms = now_ms
        self._rolling_ms = rolling_interval_ms
        self._max_failures = max(1, max_failures)
        self._fsync = fsync
        self._lock = threading.Lock()
        self._file: Any = None
        self._active: _Segment | None = None
        self._closed = False

    # -- writing -------------------------------------------------------------------------
    def write(self, record: Any) -> RecordHandle:
        """Append ``record`` (msgpack-able) durably and return its handle.

        Raises
        ------
        WriteAheadLogError
            If every attempt failed; the last ``OSError`` is the cause.
        """
        data = frame.encode(record)
        with self._lock:
            if self._closed:
                raise WriteAheadLogError(f"the write-ahead log {self.directory} is closed")
            last: OSError | None = None
            for attempt in range(self._max_failures):
                try:
                    return self._append(data)
                except OSError as exc:
                    last = exc
                    logger.warning(
                        "write-ahead log %s: write attempt %d of %d failed: %s",
                        self.directory,
                        attempt + 1,
                        self._max_failures,
                        exc,
                    )
                    self._close_active()
            raise WriteAheadLogError(
                f"could not write to the write-ahead log in {self.directory} after "
                f"{self._max_failures} attempts: {last}; check that the checkpoint directory "
                "is writable and not full"
            ) from last

    def _append(self, data: bytes) -> RecordHandle:
        now = self._now_ms()
        if self._active is None or now >= self._active.end:
            self._roll(now)
        f = self._file
        assert f is not None and self._active is not None
        offset = f.tell()
        f.write(data)
        f.flush()
        if self._fsync:
            os.fsync(f.fileno())
        return RecordHandle(self._active.path, offset, len(data))

    def _roll(self, now: int) -> None:
        self._close_active()
        os.makedirs(self.directory, exist_ok=True)
        start, end = now, now + self._rolling_ms
        seq = 0
        while True:
            suffix = f".{seq}" if seq else ""
            path = os.path.join(self.directory, f"log-{start}-{end}{suffix}")
            try:
                f = open(path, "xb")  # noqa: SIM115 - kept open across writes
                break
            except FileExistsError:
                seq += 1
        f.write(frame.MAGIC)
        f.flush()
        if self._fsync:
            os.fsync(f.fileno())
            fsync_directory(self.directory)
        self._file = f
        self._active = _Segment(path, start, end, seq)

    def _close_active(self) -> None:
        f, self._file, self._active = self._file, None, None
        if f is not None:
            try:
                f.close()
            except OSError:
                logger.warning("closing write-ahead log segment %s failed", f.name, exc_info=True)

    def close(self) -> None:
        """Close the active segment; later writes raise."""
        with self._lock:
            self._closed = True
            self._close_active()

    # -- reading -------------------------------------------------------------------------
    @staticmethod
    def read(handle: RecordHandle) -> Any:
        """Return the record at ``handle`` (checksum verified).

        Raises
        ------
        WriteAheadLogError
            If the segment is gone or unreadable (``WALCorruptionError`` if damaged).
        """
        where = f"{handle.path}@{handle.offset}"
        try:
            with open(handle.path, "rb") as f:
                f.seek(handle.offset)
                data = f.read(handle.length)
        except OSError as exc:
            raise WriteAheadLogError(
                f"cannot read write-ahead log record {where}: {exc}; the segment may have been "
                "cleaned up already (its batch was fully processed) or the checkpoint "
                "directory moved"
            ) from exc
        return frame.decode_frame(data, where)

    def read_all(self) -> Iterator[Any]:
        """Yield every record of every segment, oldest first; torn tails are skipped.

        Raises
        ------
        WALCorruptionError
            If a segment is damaged anywhere but at its tail.
        """
        for segment in segment_files(self.directory):
            frames, result = self._scan(segment.path)
            if result.torn:
                logger.warning(
                    "write-ahead log %s ends with %d bytes of an incomplete record (a crash during "
                    "a write); it was never acknowledged and is skipped",
                    segment.path,
                    result.size - result.good_end,
                )
            yield from frame.iter_records(frames)

    def repair(self) -> int:
        """Truncate torn tails off every segment but the active one; return bytes removed."""
        removed = 0
        active = self._active.path if self._active is not None else None
        for segment in segment_files(self.directory):
            if segment.path == active:
                continue
            _, result = self._scan(segment.path)
            if result.torn:
                with open(segment.path, "r+b") as f:
                    f.truncate(result.good_end)
                removed += result.size - result.good_end
                logger.warning(
                    "write-ahead log %s: removed a torn tail of %d bytes",
                    segment.path,
                    result.size - result.good_end,
                )
        return removed

    @staticmethod
    def _scan(path: str) -> tuple[list[tuple[int, int, Any]], frame.ScanResult]:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            return [], frame.ScanResult(0, 0, False)
        return frame.scan(data, path)

    # -- cleanup -------------------------------------------------------------------------
    def clean(self, threshold_ms: int) -> list[str]:
        """Delete the segments whose end time is before ``threshold_ms``; return their paths."""
        with self._lock:
            active = self._active.path if self._active is not None else None
        deleted = []
        for segment in segment_files(self.directory):
            if segment.end < threshold_ms and segment.path != active:
                try:
                    os.unlink(segment.path)
                    deleted.append(segment.path)
                except FileNotFoundError:
                    pass
        if deleted:
            logger.debug(
                "write-ahead log %s: deleted %d old segments", self.directory, len(deleted)
            )
        return deleted

    def __repr__(self) -> str:
        return f"FileBasedWriteAheadLog({self.directory!r})"

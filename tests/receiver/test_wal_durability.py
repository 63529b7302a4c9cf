"""The write-ahead log's promise: a record is on disk (``fsync``-ed) before ``write`` returns.

A record whose handle was returned may be acknowledged to its source, so losing it in a
crash loses data. Every ``os.fsync`` is recorded here with the file it synced and that
file's size at that moment (the wrapper calls the real ``fsync``: the OS call is
observed, not replaced), and each ``write`` must have synced its segment up to the end
of its record, and the directory of a segment it created, before returning.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from dstream.clock import ManualClock
from dstream.wal import FileBasedWriteAheadLog


class SyncRecorder:
    """``os.fsync`` that records ``(path, size of a regular file or None)`` per call."""

    def __init__(self, real: Callable[[int], None]) -> None:
        self.real = real
        self.calls: list[tuple[str, int | None]] = []

    def __call__(self, fd: int) -> None:
        self.real(fd)
        info = os.fstat(fd)
        size = info.st_size if stat.S_ISREG(info.st_mode) else None
        self.calls.append((os.readlink(f"/proc/self/fd/{fd}"), size))


@pytest.fixture
def syncs(monkeypatch: pytest.MonkeyPatch) -> SyncRecorder:
    recorder = SyncRecorder(os.fsync)
    monkeypatch.setattr(os, "fsync", recorder)
    return recorder


def test_every_write_is_synced_before_it_returns(tmp_path: Path, syncs: SyncRecorder) -> None:
    clock = ManualClock(1000)
    log = FileBasedWriteAheadLog(str(tmp_path / "wal"), clock.now_ms, rolling_interval_ms=1000)
    segments: set[str] = set()
    for i in range(12):
        if i % 4 == 3:
            clock.advance(1000)  # the next write starts a new segment
        before = len(syncs.calls)
        handle = log.write({"n": i, "data": b"x" * (100 * i)})
        during = syncs.calls[before:]
        end = handle.offset + handle.length
        assert any(path == os.path.realpath(handle.path) and size is not None and size >= end
                   for path, size in during), f"write {i} returned before it was synced: {during}"
        if handle.path not in segments:
            segments.add(handle.path)
            assert (os.path.realpath(log.directory), None) in during, \
                f"new segment {handle.path}: its directory entry was not synced"
    assert len(segments) == 4
    log.close()


def test_a_log_configured_without_fsync_does_not_sync(tmp_path: Path, syncs: SyncRecorder) -> None:
    log = FileBasedWriteAheadLog(str(tmp_path / "wal"), ManualClock(0).now_ms, fsync=False)
    log.write({"n": 1})
    log.close()
    assert syncs.calls == []

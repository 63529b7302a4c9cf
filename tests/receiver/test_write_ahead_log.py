"""The write-ahead log: round trips, rolling, torn tails, corruption, cleanup."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dstream.clock import ManualClock
from dstream.wal import FileBasedWriteAheadLog, RecordHandle, WALCorruptionError, WriteAheadLogError, frame
from dstream.wal.log import segment_files


def new_log(directory: Path, clock: ManualClock, rolling_ms: int = 1000) -> FileBasedWriteAheadLog:
    return FileBasedWriteAheadLog(str(directory), clock.now_ms, rolling_ms)


def test_round_trip_by_handle_and_in_order(tmp_path: Path) -> None:
    clock = ManualClock(5000)
    log = new_log(tmp_path / "wal", clock)
    records = [{"n": i, "data": b"\x00\xff" * i, "text": "é" * i} for i in range(20)]
    handles = [log.write(r) for r in records]
    assert [FileBasedWriteAheadLog.read(h) for h in handles] == records
    assert list(log.read_all()) == records
    log.close()
    # A second log object on the same directory (a restarted driver) reads the same.
    assert list(new_log(tmp_path / "wal", clock).read_all()) == records


def test_handles_survive_msgpack_round_trip(tmp_path: Path) -> None:
    log = new_log(tmp_path, ManualClock())
    handle = log.write([1, 2, 3])
    assert RecordHandle.from_msgpack(handle.to_msgpack()) == handle


def test_segments_roll_with_the_clock_and_clean_by_end_time(tmp_path: Path) -> None:
    clock = ManualClock(0)
    log = new_log(tmp_path, clock, rolling_ms=1000)
    log.write("a")  # log-0-1000
    clock.set_time(999)
    log.write("b")  # still log-0-1000
    clock.set_time(1000)
    log.write("c")  # log-1000-2000
    clock.set_time(2500)
    log.write("d")  # log-2500-3500 (active)
    names = [os.path.basename(s.path) for s in segment_files(str(tmp_path))]
    assert names == ["log-0-1000", "log-1000-2000", "log-2500-3500"]
    assert list(log.read_all()) == ["a", "b", "c", "d"]
    # End times strictly before the threshold go; 2000 is not before 2000.
    deleted = log.clean(2000)
    assert [os.path.basename(p) for p in deleted] == ["log-0-1000"]
    # The active segment is never deleted, whatever the threshold.
    log.clean(10**9)
    assert [os.path.basename(s.path) for s in segment_files(str(tmp_path))] == ["log-2500-3500"]
    assert list(log.read_all()) == ["d"]


def test_a_restarted_writer_never_appends_to_an_old_segment(tmp_path: Path) -> None:
    clock = ManualClock(0)
    first = new_log(tmp_path, clock)
    first.write("before crash")
    # No close: a crash. The same manual time gives the same name, so it gets a suffix.
    second = new_log(tmp_path, clock)
    second.write("after restart")
    names = [os.path.basename(s.path) for s in segment_files(str(tmp_path))]
    assert names == ["log-0-1000", "log-0-1000.1"]
    assert list(second.read_all()) == ["before crash", "after restart"]


def _segment(tmp_path: Path) -> Path:
    (segment,) = segment_files(str(tmp_path))
    return Path(segment.path)


@pytest.mark.parametrize("cut", [1, 4, 8, 9, 15])
def test_a_torn_tail_is_dropped_and_repaired(tmp_path: Path, cut: int) -> None:
    clock = ManualClock()
    log = new_log(tmp_path, clock)
    handles = [log.write({"i": i, "pad": "x" * 20}) for i in range(3)]
    log.close()
    path = _segment(tmp_path)
    size = path.stat().st_size
    # Cut the last record `cut` bytes short (headers are 8 bytes: inside and past them).
    with open(path, "r+b") as f:
        f.truncate(size - cut)
    reader = new_log(tmp_path, clock)
    assert [r["i"] for r in reader.read_all()] == [0, 1]
    assert FileBasedWriteAheadLog.read(handles[1])["i"] == 1
    with pytest.raises(WALCorruptionError):
        FileBasedWriteAheadLog.read(handles[2])
    assert reader.repair() == handles[2].length - cut
    assert path.stat().st_size == handles[2].offset
    assert [r["i"] for r in reader.read_all()] == [0, 1]


def test_a_damaged_last_record_counts_as_a_torn_tail(tmp_path: Path) -> None:
    log = new_log(tmp_path, ManualClock())
    log.write("kept")
    last = log.write("lost in the crash")
    log.close()
    path = _segment(tmp_path)
    data = bytearray(path.read_bytes())
    data[last.offset + last.length - 1] ^= 0xFF
    path.write_bytes(bytes(data))
    assert list(new_log(tmp_path, ManualClock()).read_all()) == ["kept"]


def test_damage_in_the_middle_is_an_error_naming_file_and_offset(tmp_path: Path) -> None:
    log = new_log(tmp_path, ManualClock())
    log.write("first")
    middle = log.write("second")
    log.write("third")
    log.close()
    path = _segment(tmp_path)
    data = bytearray(path.read_bytes())
    data[middle.offset + frame.HEADER.size] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(WALCorruptionError, match=f"{path.name}.*offset {middle.offset}"):
        list(new_log(tmp_path, ManualClock()).read_all())
    with pytest.raises(WALCorruptionError, match="checksum"):
        FileBasedWriteAheadLog.read(middle)


def test_a_foreign_file_with_a_log_name_is_refused(tmp_path: Path) -> None:
    (tmp_path / "log-0-1000").write_bytes(b"not a wal segment at all")
    with pytest.raises(WALCorruptionError, match="not a write-ahead log segment"):
        list(new_log(tmp_path, ManualClock()).read_all())


def test_reading_a_cleaned_segment_explains(tmp_path: Path) -> None:
    clock = ManualClock()
    log = new_log(tmp_path, clock)
    handle = log.write("x")
    clock.set_time(5000)
    log.write("y")
    log.clean(4000)
    with pytest.raises(WriteAheadLogError, match="cleaned up already"):
        FileBasedWriteAheadLog.read(handle)


def test_writes_after_close_raise(tmp_path: Path) -> None:
    log = new_log(tmp_path, ManualClock())
    log.close()
    with pytest.raises(WriteAheadLogError, match="closed"):
        log.write("x")


def test_unwritable_directory_fails_after_retries(tmp_path: Path) -> None:
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("")
    log = FileBasedWriteAheadLog(str(blocker / "wal"), ManualClock().now_ms, 1000, max_failures=2)
    with pytest.raises(WriteAheadLogError, match="after 2 attempts"):
        log.write("x")

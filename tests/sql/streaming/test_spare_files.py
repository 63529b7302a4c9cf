"""Spare log files: made ahead in the background, used by the next write, gone after close."""

from __future__ import annotations

import os
import time
from pathlib import Path

from dstream.sql.streaming.logs import CommitLog, OffsetSeq, OffsetSeqLog
from dstream.sql.streaming.spare_files import FilePreparer, SpareFile

DEADLINE = 10.0


def hidden(directory: Path) -> list[str]:
    return sorted(n for n in os.listdir(directory) if n.startswith("."))


def wait_for_spare(directory: Path) -> str:
    deadline = time.monotonic() + DEADLINE
    while not hidden(directory):
        assert time.monotonic() < deadline, f"no spare file appeared in {directory} within {DEADLINE} s"
        time.sleep(0.005)
    (name,) = hidden(directory)
    return name


def test_the_next_write_uses_the_spare_made_after_the_previous_one(tmp_path: Path) -> None:
    preparer = FilePreparer("test")
    log = CommitLog(str(tmp_path / "commits"), preparer)
    try:
        assert log.add_commit(0, 0)
        spare = wait_for_spare(tmp_path / "commits")
        # The file exists a moment before it is handed over as ready: wait for the creation's end.
        assert log._spare is not None and log._spare._pending is not None
        log._spare._pending.result(DEADLINE)
        inode = os.stat(tmp_path / "commits" / spare).st_ino
        assert log.add_commit(1, 5)
        # The spare became batch 1 (same inode): it was written, linked and its hidden name removed.
        assert os.stat(tmp_path / "commits" / "1").st_ino == inode
        assert not (tmp_path / "commits" / spare).exists()
        assert log.next_watermark(1) == 5 and log.next_watermark(0) == 0
        assert not log.add_commit(1, 7)  # write-once still holds with a spare
        assert log.next_watermark(1) == 5
    finally:
        log.close()
        preparer.close()
    assert sorted(os.listdir(tmp_path / "commits")) == ["0", "1"]


def test_without_a_ready_spare_the_writer_makes_its_own_file(tmp_path: Path) -> None:
    preparer = FilePreparer("test")
    preparer.close()  # refuses work from now on: no spare is ever made
    log = OffsetSeqLog(str(tmp_path / "offsets"), preparer)
    for batch in range(3):
        assert log.add_offsets(batch, OffsetSeq([batch], 0, 1000 + batch))
    assert sorted(os.listdir(tmp_path / "offsets")) == ["0", "1", "2"]
    latest = log.latest_offsets()
    assert latest is not None and latest[0] == 2 and latest[1].offsets == [2]
    log.close()


def test_close_removes_the_spare_and_none_appears_later(tmp_path: Path) -> None:
    preparer = FilePreparer("test")
    log = CommitLog(str(tmp_path / "commits"), preparer)
    assert log.add_commit(0, 0)
    wait_for_spare(tmp_path / "commits")
    log.close()
    preparer.close()
    assert os.listdir(tmp_path / "commits") == ["0"]
    log.close()  # idempotent


def test_a_spare_left_by_a_killed_process_is_removed_by_the_next_one(tmp_path: Path) -> None:
    directory = tmp_path / "offsets"
    directory.mkdir()
    (directory / ".spare.0123abcd.tmp").write_text("")
    (directory / "0").write_text("v1\n{}")
    preparer = FilePreparer("test")
    spare = SpareFile(str(directory), preparer)
    assert sorted(os.listdir(directory)) == ["0"]
    assert spare.take() is None
    spare.close()
    preparer.close()

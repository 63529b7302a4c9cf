"""textFileStream on the wall clock: files moved in during the run, and across a restart."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest

from dstream.inputs.file import FileInputNode
from tests.receiver.contexts import SSC, receiver_conf
from tests.receiver.helpers import wait_until

pytestmark = pytest.mark.integration


def move_in(directory: Path, name: str, lines: list[str]) -> None:
    """Write a file next to the directory, then rename it in (atomic, current mtime)."""
    staging = directory.parent / f"{name}.partial"
    staging.write_text("".join(line + "\n" for line in lines))
    os.replace(staging, directory / name)


class Lines:
    """Thread-safe record of every line of every batch."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self._lock = threading.Lock()

    def add(self, rdd: Any) -> None:
        lines = rdd.collect()
        with self._lock:
            self.batches.append(lines)

    def all(self) -> list[str]:
        with self._lock:
            return [line for batch in self.batches for line in batch]


def start_stream(
    sc: Any, directory: Path, state: dict[str, Any] | None = None
) -> tuple[Any, Lines, Any]:
    ssc = SSC(sc, 0.2)
    stream = ssc.textFileStream(str(directory))
    if state is not None:
        stream._stream_node.restore_state(state)
    seen = Lines()
    stream.foreachRDD(seen.add)
    ssc.start()
    return ssc, seen, stream._stream_node


@pytest.mark.parametrize("master", ["local", "local[2]"])
def test_files_arriving_during_the_run_are_read_once(
    make_sc: Any, tmp_path: Path, master: str
) -> None:
    directory = tmp_path / "incoming"
    directory.mkdir()
    move_in(directory, "before.txt", ["there before start"])
    ssc, seen, _ = start_stream(make_sc(master, receiver_conf()), directory)
    try:
        expected = []
        for i in range(4):
            lines = [f"file {i} line {j}" for j in range(3)]
            move_in(directory, f"f{i}.txt", lines)
            move_in(directory, f".hidden{i}", ["hidden"])
            expected += lines
            wanted = len(expected)
            wait_until(lambda wanted=wanted: len(seen.all()) >= wanted, f"the lines of f{i}.txt")
        settled = len(seen.batches) + 3
        wait_until(lambda: len(seen.batches) >= settled, "a few more batches")
    finally:
        ssc.stop(stopSparkContext=False)
    assert sorted(seen.all()) == sorted(expected)
    assert ssc._engine.waiter.error is None


def test_a_restart_with_restored_state_reads_only_new_files(make_sc: Any, tmp_path: Path) -> None:
    directory = tmp_path / "incoming"
    directory.mkdir()
    sc = make_sc("local", receiver_conf())
    ssc, seen, node = start_stream(sc, directory)
    try:
        move_in(directory, "a.txt", ["a"])
        move_in(directory, "b.txt", ["b"])
        wait_until(lambda: sorted(seen.all()) == ["a", "b"], "a and b in the first run")
    finally:
        ssc.stop(stopSparkContext=False)
    assert isinstance(node, FileInputNode)
    state = node.checkpoint_state()
    # Written while the stream is down: still new for the next run.
    move_in(directory, "while-down.txt", ["down"])

    again, seen_again, _ = start_stream(sc, directory, state)
    try:
        move_in(directory, "c.txt", ["c"])
        wait_until(
            lambda: sorted(seen_again.all()) == ["c", "down"], "c and the file written while down"
        )
        settled = len(seen_again.batches) + 3
        wait_until(lambda: len(seen_again.batches) >= settled, "a few more batches")
    finally:
        again.stop(stopSparkContext=False)
    assert sorted(seen_again.all()) == ["c", "down"], "a file of the first run was read again"

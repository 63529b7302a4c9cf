"""FileInputNode's selection rules on a ManualClock, with file times set explicitly."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from dstream.inputs.binary_records import RecordLengthError
from dstream.inputs.file import FileInputNode, InputDirectoryNotFoundError
from dstream.testing import advance_batches, collect_batches, manual_clock
from tests.receiver.contexts import SSC, receiver_conf


def put(directory: Path, name: str, content: str | bytes, mtime_ms: int) -> Path:
    """Write a file elsewhere, set its time, and move it in (the atomic-move contract)."""
    staging = directory.parent / f".staging-{name}"
    data = content.encode() if isinstance(content, str) else content
    staging.write_bytes(data)
    os.utime(staging, ns=(mtime_ms * 1_000_000, mtime_ms * 1_000_000))
    target = directory / name
    os.replace(staging, target)
    return target


@pytest.fixture
def fsc(make_sc: Any) -> Any:
    return make_sc(
        "local", receiver_conf(**{"spark.streaming.fileStream.minRememberDuration": "3s"})
    )


@pytest.fixture
def watched(tmp_path: Path) -> Path:
    d = tmp_path / "in"
    d.mkdir()
    return d


def run(ssc: Any, batches: int) -> None:
    ssc.start()
    try:
        advance_batches(ssc, batches)
    finally:
        ssc.stop(stopSparkContext=False)


def test_files_go_to_the_batch_of_their_modification_time(fsc: Any, watched: Path) -> None:
    put(watched, "old.txt", "there before start\n", 0)
    put(watched, "a.txt", "a1\na2\n", 500)
    put(watched, "b.txt", "b1\n", 1000)  # exactly the batch time: still batch 1000
    put(watched, "c.txt", "c1\n", 1001)  # after batch 1000: batch 2000
    put(watched, ".hidden", "no\n", 700)
    put(watched, "_COPYING_", "no\n", 700)
    (watched / "sub").mkdir()
    put(watched / "sub", "nested.txt", "no\n", 700)
    ssc = SSC(fsc, 1)
    manual_clock(ssc)
    out = collect_batches(ssc.textFileStream(str(watched)), with_time=True)
    run(ssc, 3)
    assert [(t, sorted(lines)) for t, lines in out] == [
        (1000, ["a1", "a2", "b1"]),
        (2000, ["c1"]),
        (3000, []),
    ]


def test_each_file_is_read_once_even_when_touched_again(fsc: Any, watched: Path) -> None:
    path = put(watched, "a.txt", "once\n", 500)
    ssc = SSC(fsc, 1)
    clock = manual_clock(ssc)
    out = collect_batches(ssc.textFileStream(str(watched)))
    ssc.start()
    try:
        advance_batches(ssc, 1)
        os.utime(path, ns=(1500 * 1_000_000,) * 2)  # rewritten in place: not read again
        advance_batches(ssc, 2)
        assert clock.now_ms() == 3000
    finally:
        ssc.stop(stopSparkContext=False)
    assert out == [["once"], [], []]


def test_files_older_than_the_remember_window_are_skipped_with_a_warning(
    fsc: Any, watched: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ssc = SSC(fsc, 1)
    manual_clock(ssc)
    stream = ssc.textFileStream(str(watched))
    out = collect_batches(stream)
    ssc.start()
    try:
        advance_batches(ssc, 5)
        # Appears at batch 6000 with a time 4.5 s old: outside the 3 s window.
        put(watched, "late.txt", "late\n", 1500)
        put(watched, "fresh.txt", "fresh\n", 5500)
        advance_batches(ssc, 1)
    finally:
        ssc.stop(stopSparkContext=False)
    assert out[-1] == ["fresh"]
    assert any(
        "late.txt" in r.getMessage() and "remember window" in r.getMessage() for r in caplog.records
    )


def test_a_missing_directory_fails_start_naming_it(fsc: Any, tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    ssc = SSC(fsc, 1)
    manual_clock(ssc)
    collect_batches(ssc.textFileStream(str(missing)))
    with pytest.raises(InputDirectoryNotFoundError, match=str(missing)) as info:
        ssc.start()
    assert isinstance(info.value, FileNotFoundError)


def test_binary_records_are_fixed_length_bytes(fsc: Any, watched: Path) -> None:
    put(watched, "r.bin", b"aaaabbbbcccc", 500)
    ssc = SSC(fsc, 1)
    manual_clock(ssc)
    out = collect_batches(ssc.binaryRecordsStream(str(watched), 4))
    run(ssc, 1)
    assert out == [[b"aaaa", b"bbbb", b"cccc"]]


def test_a_record_file_of_the_wrong_length_is_an_error_naming_it(fsc: Any, watched: Path) -> None:
    bad = put(watched, "bad.bin", b"0123456789", 500)
    ssc = SSC(fsc, 1)
    manual_clock(ssc)
    out = collect_batches(ssc.binaryRecordsStream(str(watched), 4))
    ssc.start()
    try:
        advance_batches(ssc, 2)
        error = ssc._engine.waiter.error
    finally:
        ssc.stop(stopSparkContext=False)
    assert isinstance(error, RecordLengthError)
    assert str(bad) in str(error) and "recordLength=4" in str(error) and "10 bytes" in str(error)
    # The file is not retried every batch: the next batch is simply empty.
    assert out == [[]]


def test_binary_records_stream_checks_its_arguments(fsc: Any, watched: Path) -> None:
    ssc = SSC(fsc, 1)
    with pytest.raises(ValueError, match="recordLength"):
        ssc.binaryRecordsStream(str(watched), 0)
    with pytest.raises(TypeError, match="directory"):
        ssc.textFileStream(None)
    ssc.stop(stopSparkContext=False)


def test_restored_state_keeps_files_from_being_read_twice(fsc: Any, watched: Path) -> None:
    put(watched, "a.txt", "a\n", 500)
    ssc = SSC(fsc, 1)
    manual_clock(ssc)
    stream = ssc.textFileStream(str(watched))
    first = collect_batches(stream)
    run(ssc, 1)
    node = stream._stream_node
    assert isinstance(node, FileInputNode)
    state = node.checkpoint_state()
    import msgpack

    state = msgpack.unpackb(msgpack.packb(state), raw=False)  # it is plain data
    assert state["batches"] == [[1000, [str(watched / "a.txt")]]]

    put(watched, "b.txt", "b\n", 1500)
    again = SSC(fsc, 1)
    manual_clock(again)
    restored = again.textFileStream(str(watched))
    restored._stream_node.restore_state(state)
    second = collect_batches(restored, with_time=True)
    run(again, 2)
    assert first == [["a"]]
    # Batch 1000 of the new run is the restored batch: the same file list, re-read (a
    # replay); b.txt (1500) goes to batch 2000; a.txt is never *selected* again.
    assert second == [(1000, ["a"]), (2000, ["b"])]


def test_restore_refuses_another_directory(fsc: Any, watched: Path, tmp_path: Path) -> None:
    ssc = SSC(fsc, 1)
    stream = ssc.textFileStream(str(watched))
    state = stream._stream_node.checkpoint_state()
    node = ssc.textFileStream(str(tmp_path))._stream_node
    with pytest.raises(ValueError, match="new checkpoint directory"):
        node.restore_state(state)
    ssc.stop(stopSparkContext=False)


def test_files_present_at_start_are_ignored_even_inside_the_slack(fsc: Any, watched: Path) -> None:
    from dstream.clock import ManualClock

    put(watched, "just-before.txt", "old\n", 9_995)  # written 5 ms before start
    ssc = SSC(fsc, 1)
    ssc._engine.install_clock(ManualClock(10_000))
    out = collect_batches(ssc.textFileStream(str(watched)))
    ssc.start()
    try:
        # A new file whose time trails the clock (a coarse file-system clock) is kept.
        put(watched, "lagging.txt", "new\n", 9_995)
        advance_batches(ssc, 1)
    finally:
        ssc.stop(stopSparkContext=False)
    assert out == [["new"]]

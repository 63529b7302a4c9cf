"""The file shuffle store: one file per map output, read back bucket by bucket, on a real directory."""

from __future__ import annotations

import os
import time
from array import array
from pathlib import Path

import pytest

from rdd.errors import FetchFailedError
from rdd.shuffle.store import TRASH_PREFIX, FileShuffleStore


def _put(store: FileShuffleStore, shuffle_id: int, map_id: int, buckets: list[bytes]) -> None:
    offsets = array("q", [0])
    for bucket in buckets:
        offsets.append(offsets[-1] + len(bucket))
    store.put(shuffle_id, map_id, 0, b"".join(buckets), offsets)


def test_buckets_round_trip_including_empty_ones(tmp_path: Path) -> None:
    store = FileShuffleStore(str(tmp_path))
    buckets = [b"alpha", b"", b"gamma" * 1000, b"d"]
    _put(store, 3, 0, buckets)
    assert [store.get(3, 0, r) for r in range(4)] == buckets
    assert sorted(os.listdir(tmp_path / "shuffle" / "3")) == ["0.out"]  # no temporary file left


def test_a_removed_shuffle_can_be_written_again(tmp_path: Path) -> None:
    store = FileShuffleStore(str(tmp_path))
    _put(store, 1, 0, [b"x"])
    store.remove_shuffle(1)
    with pytest.raises(FetchFailedError, match="missing shuffle file"):
        store.get(1, 0, 0)
    _put(store, 1, 0, [b"y"])  # the directory is made again on the miss
    assert store.get(1, 0, 0) == b"y"


def test_a_damaged_file_is_a_fetch_failure_not_wrong_data(tmp_path: Path) -> None:
    store = FileShuffleStore(str(tmp_path))
    _put(store, 2, 5, [b"abc", b"def"])
    path = tmp_path / "shuffle" / "2" / "5.out"
    path.write_bytes(path.read_bytes()[:4])
    with pytest.raises(FetchFailedError) as failure:
        store.get(2, 5, 1)
    assert (failure.value.shuffle_id, failure.value.map_id) == (2, 5)


def test_an_unknown_bucket_is_a_fetch_failure(tmp_path: Path) -> None:
    store = FileShuffleStore(str(tmp_path))
    _put(store, 4, 0, [b"a", b"b"])
    with pytest.raises(FetchFailedError, match="no bucket 2"):
        store.get(4, 0, 2)


def test_a_removed_shuffle_reads_as_missing_at_once_and_its_files_are_deleted(tmp_path: Path) -> None:
    store = FileShuffleStore(str(tmp_path))
    try:
        for map_id in range(3):
            _put(store, 4, map_id, [b"x", b"y"])
        _put(store, 5, 0, [b"z"])
        store.remove_shuffle(4)
        with pytest.raises(FetchFailedError, match="missing shuffle file"):
            store.get(4, 1, 0)  # the rename happened before remove_shuffle returned
        _put(store, 4, 0, [b"again"])  # written again while the old files may still be deleted
        store.remove_shuffle(404)  # never written: nothing to do
        deadline = time.monotonic() + 10
        while any(name.startswith(TRASH_PREFIX) for name in os.listdir(store.root)):
            assert time.monotonic() < deadline, f"removed shuffle not deleted: {os.listdir(store.root)}"
            time.sleep(0.01)
        assert store.get(4, 0, 0) == b"again" and store.get(5, 0, 0) == b"z"
        assert sorted(os.listdir(store.root)) == ["4", "5"]
        deleter = store._deleter
        assert deleter is not None and deleter.is_alive()
    finally:
        store.close()
    assert not deleter.is_alive()
    store.close()  # idempotent
    store.remove_shuffle(5)  # after close: deleted at once, no thread started
    assert sorted(os.listdir(store.root)) == ["4"]
    assert store._deleter is None

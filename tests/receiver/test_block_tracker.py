"""ReceivedBlockTracker: allocation semantics, the event log, recovery."""

from __future__ import annotations

from pathlib import Path

import pytest

from dstream.clock import ManualClock
from dstream.receiver.block import ReceivedBlockInfo
from dstream.receiver.block_tracker import ReceivedBlockTracker
from dstream.wal import FileBasedWriteAheadLog, RecordHandle


def info(
    stream: int, n: int, records: int = 10, handle: RecordHandle | None = None
) -> ReceivedBlockInfo:
    return ReceivedBlockInfo(stream, f"input-{stream}-{n}", records, {"offset": n}, handle)


def new_log(path: Path, clock: ManualClock) -> FileBasedWriteAheadLog:
    return FileBasedWriteAheadLog(str(path), clock.now_ms, 10_000)


def test_a_batch_takes_every_queued_block_of_every_stream() -> None:
    tracker = ReceivedBlockTracker()
    for b in (info(0, 1), info(1, 2), info(0, 3)):
        assert tracker.add_block(b)
    assert tracker.has_unallocated_blocks()
    tracker.allocate_blocks_to_batch(1000)
    assert not tracker.has_unallocated_blocks()
    assert tracker.get_blocks_of_batch(1000) == {0: [info(0, 1), info(0, 3)], 1: [info(1, 2)]}
    assert tracker.get_blocks_of_batch_and_stream(1000, 1) == [info(1, 2)]
    tracker.add_block(info(0, 4))
    tracker.allocate_blocks_to_batch(2000)
    assert tracker.get_blocks_of_batch_and_stream(2000, 0) == [info(0, 4)]
    assert tracker.get_blocks_of_batch(3000) == {}
    assert tracker.received_records() == 40
    assert tracker.received_records(1) == 10


def test_allocating_an_old_time_again_changes_nothing() -> None:
    tracker = ReceivedBlockTracker()
    tracker.add_block(info(0, 1))
    tracker.allocate_blocks_to_batch(2000)
    tracker.add_block(info(0, 2))
    tracker.allocate_blocks_to_batch(2000)
    tracker.allocate_blocks_to_batch(1000)
    assert tracker.get_blocks_of_batch(2000) == {0: [info(0, 1)]}
    assert tracker.get_unallocated_blocks(0) == [info(0, 2)]


def test_cleanup_forgets_old_batches_only() -> None:
    tracker = ReceivedBlockTracker()
    for t in (1000, 2000, 3000):
        tracker.add_block(info(0, t))
        tracker.allocate_blocks_to_batch(t)
    assert tracker.cleanup_old_batches(3000) == [1000, 2000]
    assert tracker.pending_batch_times() == [3000]


def test_wait_received_has_a_deadline() -> None:
    tracker = ReceivedBlockTracker()
    assert not tracker.wait_received(1, timeout=0.01)
    tracker.add_block(info(0, 1, records=3))
    assert tracker.wait_received(3, timeout=0.01)


def test_recovery_replays_adds_allocations_and_cleanups(tmp_path: Path) -> None:
    clock = ManualClock()
    handle = RecordHandle("/somewhere/log-0-1", 8, 20)
    first = ReceivedBlockTracker(new_log(tmp_path, clock))
    first.add_block(info(0, 1, handle=handle))
    first.allocate_blocks_to_batch(1000)
    first.add_block(info(0, 2))
    first.add_block(info(1, 3))
    first.allocate_blocks_to_batch(2000)
    first.cleanup_old_batches(2000)  # batch 1000 fully processed
    first.add_block(info(0, 4))  # received, never allocated
    # The driver dies here (no stop, no close).
    recovered = ReceivedBlockTracker(new_log(tmp_path, clock), recover=True)
    assert recovered.pending_batch_times() == [2000]
    assert recovered.last_allocated == 2000
    blocks = recovered.get_blocks_of_batch(2000)
    assert blocks == {0: [info(0, 2).invalidated()], 1: [info(1, 3).invalidated()]}
    assert all(not b.block_id_valid for bs in blocks.values() for b in bs)
    assert recovered.get_unallocated_blocks(0) == [info(0, 4).invalidated()]
    # Metadata, including non-msgpack values, survives.
    assert blocks[0][0].metadata == {"offset": 2}
    # The recovered tracker allocates the leftover block to the next batch.
    recovered.allocate_blocks_to_batch(3000)
    assert recovered.get_blocks_of_batch_and_stream(3000, 0) == [info(0, 4).invalidated()]


def test_recovery_keeps_blocks_added_after_an_allocation_was_logged(tmp_path: Path) -> None:
    # SPARK-23438: an allocation must take out exactly its own blocks.
    clock = ManualClock()
    first = ReceivedBlockTracker(new_log(tmp_path, clock))
    first.add_block(info(0, 1))
    first.allocate_blocks_to_batch(1000)
    first.add_block(info(0, 2))
    recovered = ReceivedBlockTracker(new_log(tmp_path, clock), recover=True)
    assert recovered.get_blocks_of_batch_and_stream(1000, 0) == [info(0, 1).invalidated()]
    assert recovered.get_unallocated_blocks(0) == [info(0, 2).invalidated()]


def test_a_failed_allocation_write_keeps_the_blocks_queued(tmp_path: Path) -> None:
    clock = ManualClock()
    log = new_log(tmp_path, clock)
    tracker = ReceivedBlockTracker(log)
    tracker.add_block(info(0, 1))
    log.close()  # every later write fails
    with pytest.raises(Exception, match="closed"):
        tracker.allocate_blocks_to_batch(1000)
    assert tracker.get_unallocated_blocks(0) == [info(0, 1)]
    assert tracker.get_blocks_of_batch(1000) == {}
    # And a block that cannot be logged is refused rather than half-tracked.
    assert not tracker.add_block(info(0, 2))


def test_unpicklable_by_msgpack_metadata_round_trips() -> None:
    meta = {"offsets": (1, 2), "when": 1.5}
    b = ReceivedBlockInfo(2, "input-2-9", 5, meta)
    assert ReceivedBlockInfo.from_msgpack(b.to_msgpack()) == b

"""BlockNode: received blocks as partitions, from the driver's memory or from the log."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from rdd.storage import block_manager
from rdd.storage.level import StorageLevel

from dstream.clock import ManualClock
from dstream.inputs.block_rdd import BlockNode, usable_blocks
from dstream.receiver.block import ReceivedBlockInfo
from dstream.receiver.block_handler import BlockManagerBlockHandler, WriteAheadLogBlockHandler
from dstream.wal import FileBasedWriteAheadLog


@pytest.fixture(params=["local", "local[2]"])
def bsc(request: pytest.FixtureRequest, make_sc: Any) -> Any:
    return make_sc(request.param)


def test_blocks_in_the_driver_travel_with_their_partitions(bsc: Any) -> None:
    handler = BlockManagerBlockHandler(block_manager.current(), StorageLevel.MEMORY_AND_DISK_2)
    infos = []
    for n, records in enumerate([[1, 2], [3], [4, 5, 6]]):
        result = handler.store_block(f"input-0-{n}", records)
        infos.append(ReceivedBlockInfo(0, f"input-0-{n}", result.num_records))
    rdd = bsc._wrap(BlockNode(infos))
    assert rdd.getNumPartitions() == 3
    assert rdd.glom().collect() == [[1, 2], [3], [4, 5, 6]]
    assert rdd.map(lambda x: x * 10).sum() == 210


def test_after_a_restart_tasks_read_blocks_from_the_log(bsc: Any, tmp_path: Path) -> None:
    log = FileBasedWriteAheadLog(str(tmp_path), ManualClock().now_ms)
    handler = WriteAheadLogBlockHandler(
        block_manager.current(), StorageLevel.MEMORY_AND_DISK_2, log
    )
    infos = []
    for n, records in enumerate([["a", "b"], ["c"]]):
        result = handler.store_block(f"input-1-{n}", records)
        # The driver restarted: its block manager copy is gone, only the log remains.
        block_manager.current().remove(f"input-1-{n}")
        infos.append(
            ReceivedBlockInfo(
                1, f"input-1-{n}", result.num_records, None, result.wal_handle
            ).invalidated()
        )
    node = BlockNode(infos)
    assert node.describe() == "WriteAheadLogBackedBlockRDD"
    assert bsc._wrap(node).collect() == ["a", "b", "c"]


def test_blocks_that_are_gone_everywhere_are_dropped_with_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    block_manager.current().put("input-2-1", ["kept"], StorageLevel.MEMORY_ONLY)
    infos = [ReceivedBlockInfo(2, "input-2-1", 1), ReceivedBlockInfo(2, "input-2-9", 7)]
    with caplog.at_level(logging.WARNING):
        kept = usable_blocks(infos, 5000)
    block_manager.current().remove("input-2-1")
    assert kept == infos[:1]
    assert "input-2-9" in caplog.text and "writeAheadLog.enable" in caplog.text

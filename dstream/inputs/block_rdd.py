"""BlockNode: the RDD lineage node of one batch of received blocks (one partition per block).

What this module owns
---------------------
How a batch's received blocks are read by tasks (Spark's
``BlockRDD`` and ``WriteAheadLogBackedBlockRDD`` in one node):

* Blocks live in the **driver's** block manager (receivers run in the driver), while
  tasks of ``local[N]`` run in worker processes with block managers of their own. So
  when the partitions are made (on the driver, when the batch's job is submitted) each
  partition *carries its block's records*, as ``parallelize`` carries its slices: the
  records cross to the worker inside the task, once, and never travel with the node.
* A block that the driver no longer holds but that has a write-ahead log handle (after a
  driver restart) is read by the task itself from the log file, so recovered data never
  passes through the driver.
* A block with neither is lost; the node is built without it and a warning says so
  (SPARK-10210), rather than failing every later batch.

Invariant: partition ``i`` holds exactly the records of block ``i`` in arrival order.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from rdd.engine_api import Partition, SourceNode, block_manager

from dstream.receiver.block import ReceivedBlockInfo
from dstream.receiver.block_handler import read_block_from_log
from dstream.receiver.errors import BlockLostError
from dstream.wal.log import RecordHandle

if TYPE_CHECKING:
    from rdd import TaskContext

__all__ = ["BlockNode", "usable_blocks"]

logger = logging.getLogger(__name__)


class _BlockPartition(Partition):
    __slots__ = ("block_id", "records", "wal_handle")

    def __init__(
        self, index: int, block_id: str, records: list[Any] | None, wal_handle: RecordHandle | None
    ) -> None:
        super().__init__(index)
        self.block_id = block_id
        self.records = records
        self.wal_handle = wal_handle


def usable_blocks(infos: Sequence[ReceivedBlockInfo], time_ms: int) -> list[ReceivedBlockInfo]:
    """Drop (with a warning) the blocks that can no longer be read from anywhere."""
    manager = block_manager()
    usable = []
    for info in infos:
        if info.wal_handle is not None or (info.block_id_valid and manager.contains(info.block_id)):
            usable.append(info)
        else:
            logger.warning(
                "block %s of stream %d (%d records) for batch %d is gone: it was held only in the "
                "memory of a driver that stopped; enable "
                "spark.streaming.receiver.writeAheadLog.enable "
                "to recover received data after a restart",
                info.block_id,
                info.stream_id,
                info.num_records,
                time_ms,
            )
    return usable


class BlockNode(SourceNode):
    """Partitions that are received blocks (records carried, or read from the log)."""

    def __init__(self, infos: Sequence[ReceivedBlockInfo]) -> None:
        super().__init__()
        self.infos = list(infos)

    def make_partitions(self) -> list[Partition]:
        manager = block_manager()
        partitions: list[Partition] = []
        for index, info in enumerate(self.infos):
            records = manager.get(info.block_id) if info.block_id_valid else None
            if records is None and info.wal_handle is None:
                raise BlockLostError(
                    f"block {info.block_id} of stream {info.stream_id} was removed from the driver "
                    "before its batch ran; keep batches shorter than the remember duration"
                )
            handle = None if records is not None else info.wal_handle
            partitions.append(_BlockPartition(index, info.block_id, records, handle))
        return partitions

    def compute(self, split: Partition, tctx: TaskContext) -> Iterator[Any]:
        assert isinstance(split, _BlockPartition)
        if split.records is not None:
            return iter(split.records)
        if split.wal_handle is not None:
            return iter(read_block_from_log(split.wal_handle))
        raise BlockLostError(f"block {split.block_id} has no data and no write-ahead log handle")

    def __getstate__(self) -> dict[str, Any]:
        # The block list is needed only to make partitions, on the driver.
        state = super().__getstate__()
        state["infos"] = []
        return state

    def describe(self) -> str:
        if self.infos and all(i.wal_handle is not None for i in self.infos):
            return "WriteAheadLogBackedBlockRDD"
        return "BlockRDD"

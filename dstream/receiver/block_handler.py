"""Received block handlers: where a receiver's block goes before it counts as stored.

What this module owns
---------------------
The one step between "a block was cut" and "the driver may allocate it" (Spark's
``ReceivedBlockHandler``):

* :class:`BlockManagerBlockHandler` puts the records into this process's block manager
  at the receiver's storage level. Nothing survives a driver crash.
* :class:`WriteAheadLogBlockHandler` first appends the pickled records to the stream's
  write-ahead log (``fsync``-ed), *then* puts them in the block manager; the returned
  :class:`StoreResult` carries the log handle. A block whose log write failed is never
  reported, so a reported block can always be recovered. The storage level is forced to
  serialized, one replica (the log is the durable copy), as in Spark.

Both count the records they store. Block data in the log is one msgpack map
``{"b": block_id, "d": pickle(records)}``: records are arbitrary Python objects, the
frame around them stays code-free.
"""

from __future__ import annotations

import logging
import pickle
from dataclasses import dataclass
from typing import Any, Protocol

from rdd import StorageLevel

from dstream.wal.log import FileBasedWriteAheadLog, RecordHandle

__all__ = [
    "BlockManagerBlockHandler",
    "ReceivedBlockHandler",
    "StoreResult",
    "WriteAheadLogBlockHandler",
    "read_block_from_log",
]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class StoreResult:
    """What storing a block produced: its size and, with a log, its handle."""

    num_records: int
    wal_handle: RecordHandle | None = None


class ReceivedBlockHandler(Protocol):
    """Stores a received block; used by :class:`~dstream.receiver.supervisor.ReceiverSupervisor`."""

    def store_block(self, block_id: str, records: list[Any]) -> StoreResult: ...

    def remove_block(self, block_id: str) -> None: ...

    def cleanup_old_blocks(self, threshold_ms: int) -> None: ...

    def close(self) -> None: ...


def _usable_level(level: StorageLevel) -> StorageLevel:
    if not level.is_valid:
        raise ValueError(
            f"a receiver cannot store blocks at storage level {level!r}: it keeps them nowhere; "
            "use StorageLevel.MEMORY_AND_DISK_2 (the default) or another level with memory or disk"
        )
    return level


class BlockManagerBlockHandler:
    """Store blocks in the block manager only (the default)."""

    def __init__(self, manager: Any, storage_level: StorageLevel) -> None:
        self._manager = manager
        self.storage_level = _usable_level(storage_level)

    def store_block(self, block_id: str, records: list[Any]) -> StoreResult:
        self._manager.put(block_id, records, self.storage_level)
        return StoreResult(len(records))

    def remove_block(self, block_id: str) -> None:
        self._manager.remove(block_id)

    def cleanup_old_blocks(self, threshold_ms: int) -> None:
        # Blocks are removed when their batch's RDD is forgotten, not by time.
        return None

    def close(self) -> None:
        return None


class WriteAheadLogBlockHandler:
    """Write each block to the stream's log, then to the block manager."""

    def __init__(
        self, manager: Any, storage_level: StorageLevel, log: FileBasedWriteAheadLog
    ) -> None:
        level = _usable_level(storage_level)
        if level.replication > 1:
            logger.warning(
                "storage level replication %d is unnecessary when the write-ahead log is enabled; "
                "using replication 1 (the log is the durable copy)",
                level.replication,
            )
        # Serialized, one replica: the log already holds the bytes that matter.
        self.storage_level = StorageLevel(
            level.useDisk, level.useMemory, level.useOffHeap, False, 1
        )
        self._manager = manager
        self.log = log

    def store_block(self, block_id: str, records: list[Any]) -> StoreResult:
        payload = pickle.dumps(records, protocol=5)
        handle = self.log.write({"b": block_id, "d": payload})
        self._manager.put(block_id, records, self.storage_level)
        return StoreResult(len(records), handle)

    def remove_block(self, block_id: str) -> None:
        self._manager.remove(block_id)

    def cleanup_old_blocks(self, threshold_ms: int) -> None:
        self.log.clean(threshold_ms)

    def close(self) -> None:
        self.log.close()


def read_block_from_log(handle: RecordHandle) -> list[Any]:
    """Return the records of a block written by :class:`WriteAheadLogBlockHandler`."""
    record = FileBasedWriteAheadLog.read(handle)
    return pickle.loads(record["d"])

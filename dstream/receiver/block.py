"""ReceivedBlockInfo: what the driver knows about one stored block.

What this module owns
---------------------
The record a receiver's supervisor reports after storing a block, which the block
tracker queues, allocates to a batch, writes to its event log and turns into one RDD
partition:

* ``stream_id`` — the input stream (= receiver) id;
* ``block_id`` — ``input-<streamId>-<n>``, the key in the driver's block manager;
* ``num_records`` — for ``BatchInfo`` and the rate controller;
* ``metadata`` — whatever the receiver passed to ``store(records, metadata)``;
* ``wal_handle`` — where the block sits in the receiver write-ahead log, if enabled;
* ``block_id_valid`` — ``False`` once the block manager copy cannot exist any more
  (after a driver restart), so readers go straight to the log.

:meth:`ReceivedBlockInfo.to_msgpack` is the code-free form written to the tracker's
log; metadata that msgpack cannot hold is pickled inside it.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass, replace
from typing import Any

import msgpack

from dstream.wal.log import RecordHandle

__all__ = ["ReceivedBlockInfo", "stream_block_id"]


def stream_block_id(stream_id: int, unique_id: int) -> str:
    """Return the block manager key of a received block (Spark's ``StreamBlockId`` name)."""
    return f"input-{stream_id}-{unique_id}"


def _encode_metadata(metadata: Any) -> list[Any]:
    if metadata is None:
        return [0, None]
    try:
        # strict_types: a tuple would come back as a list; pickle keeps it exact.
        msgpack.packb(metadata, use_bin_type=True, strict_types=True)
        return [1, metadata]
    except (TypeError, ValueError, OverflowError):
        return [2, pickle.dumps(metadata, protocol=5)]


def _decode_metadata(value: list[Any]) -> Any:
    kind, payload = value
    if kind == 2:
        return pickle.loads(payload)
    return payload


@dataclass(frozen=True, slots=True)
class ReceivedBlockInfo:
    """One stored block as the driver tracks it."""

    stream_id: int
    block_id: str
    num_records: int
    metadata: Any = None
    wal_handle: RecordHandle | None = None
    block_id_valid: bool = True

    def invalidated(self) -> ReceivedBlockInfo:
        """The same block after a driver restart: only its log copy can still exist."""
        return replace(self, block_id_valid=False)

    def to_msgpack(self) -> list[Any]:
        handle = None if self.wal_handle is None else self.wal_handle.to_msgpack()
        return [
            self.stream_id,
            self.block_id,
            self.num_records,
            _encode_metadata(self.metadata),
            handle,
        ]

    @classmethod
    def from_msgpack(cls, value: list[Any]) -> ReceivedBlockInfo:
        stream_id, block_id, num_records, metadata, handle = value
        return cls(
            int(stream_id),
            str(block_id),
            int(num_records),
            _decode_metadata(metadata),
            None if handle is None else RecordHandle.from_msgpack(handle),
        )

"""ReceivedBlockTracker: which received blocks belong to which batch.

What this module owns
---------------------
The driver's record of received blocks (Spark's ``ReceivedBlockTracker``):

* a FIFO queue per stream of blocks received but not yet allocated;
* ``batch time -> {stream id -> blocks}`` for allocated batches;
* ``last_allocated``, the newest batch time that took blocks;
* optionally an event log (``<checkpoint>/receivedBlockMetadata``) so all of the above
  survives a driver crash.

Invariants
----------
* Log first, mutate second: an event (block added, batch allocated, batches cleaned)
  is appended and ``fsync``-ed before the in-memory state changes. A failed log write
  leaves the state as it was (SPARK-23991: a failed allocation must not lose blocks).
* A block belongs to the batch whose *generation* took it, never split, never in two
  batches: allocation moves every queued block of every stream at once.
* Allocation is idempotent per time: a time not newer than ``last_allocated`` allocates
  nothing (it can only be a batch being regenerated after recovery, which reads its old
  allocation).
* Recovery replays the log in order: added blocks are queued again (marked
  ``block_id_valid=False``: the block manager copy died with the old driver), an
  allocation moves exactly *its* blocks out of the queues (SPARK-23438), a cleanup
  forgets batches. Batches allocated and not cleaned are "pending": the generator must
  run them again at their own times.

Log records (msgpack)::

    {"e": "add",   "i": <ReceivedBlockInfo>}
    {"e": "alloc", "t": <batch ms>, "b": {<stream id>: [<ReceivedBlockInfo>, ...]}}
    {"e": "clean", "t": [<batch ms>, ...]}

Thread-safety: one lock; callers are the supervisors' pusher threads (``add_block``) and
the job generator thread (the rest).
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from typing import Any

from dstream.receiver.block import ReceivedBlockInfo
from dstream.wal.log import FileBasedWriteAheadLog

__all__ = ["ReceivedBlockTracker"]

logger = logging.getLogger(__name__)


class ReceivedBlockTracker:
    """Queue received blocks and hand them to batches.

    Parameters
    ----------
    log
        The event log, or ``None`` without a checkpoint directory.
    recover
        Replay ``log`` first (when the context is recovered from a checkpoint).
    """

    def __init__(self, log: FileBasedWriteAheadLog | None = None, recover: bool = False) -> None:
        self._log = log
        self._lock = threading.Condition()
        self._queues: dict[int, deque[ReceivedBlockInfo]] = {}
        self._allocated: dict[int, dict[int, list[ReceivedBlockInfo]]] = {}
        self.last_allocated: int | None = None
        self._received_records: dict[int, int] = {}
        self._closed = False
        if recover and log is not None:
            self._recover(log)

    # -- adding (pusher threads) -----------------------------------------------------------
    def add_block(self, info: ReceivedBlockInfo) -> bool:
        """Log and queue a stored block; ``False`` if it could not be logged or we are closed."""
        with self._lock:
            if self._closed:
                return False
            if not self._append({"e": "add", "i": info.to_msgpack()}, f"block {info.block_id}"):
                return False
            self._queues.setdefault(info.stream_id, deque()).append(info)
            self._received_records[info.stream_id] = (
                self._received_records.get(info.stream_id, 0) + info.num_records
            )
            self._lock.notify_all()
            return True

    # -- allocation (job generator thread) -------------------------------------------------
    def allocate_blocks_to_batch(self, time_ms: int) -> None:
        """Give every queued block to batch ``time_ms`` (no-op for a time already allocated).

        Raises
        ------
        WriteAheadLogError
            If the allocation could not be logged; the blocks stay queued for a later batch.
        """
        with self._lock:
            if self.last_allocated is not None and time_ms <= self.last_allocated:
                if time_ms not in self._allocated:
                    logger.info(
                        "possibly processed batch %d needs to be processed again after recovery; "
                        "no new blocks are allocated to it",
                        time_ms,
                    )
                return
            blocks = {sid: list(q) for sid, q in self._queues.items() if q}
            if self._log is not None:
                # Raises on failure: the state is untouched and the batch gets no blocks.
                self._log.write(
                    {
                        "e": "alloc",
                        "t": time_ms,
                        "b": {
                            sid: [i.to_msgpack() for i in infos] for sid, infos in blocks.items()
                        },
                    }
                )
            for q in self._queues.values():
                q.clear()
            self._allocated[time_ms] = blocks
            self.last_allocated = time_ms

    def get_blocks_of_batch(self, time_ms: int) -> dict[int, list[ReceivedBlockInfo]]:
        with self._lock:
            return {sid: list(infos) for sid, infos in self._allocated.get(time_ms, {}).items()}

    def get_blocks_of_batch_and_stream(
        self, time_ms: int, stream_id: int
    ) -> list[ReceivedBlockInfo]:
        with self._lock:
            return list(self._allocated.get(time_ms, {}).get(stream_id, ()))

    def get_unallocated_blocks(self, stream_id: int) -> list[ReceivedBlockInfo]:
        with self._lock:
            return list(self._queues.get(stream_id, ()))

    def has_unallocated_blocks(self) -> bool:
        with self._lock:
            return any(self._queues.values())

    def pending_batch_times(self) -> list[int]:
        """Allocated batches not yet cleaned up, oldest first (what recovery must re-run)."""
        with self._lock:
            return sorted(self._allocated)

    def received_records(self, stream_id: int | None = None) -> int:
        """Records in blocks added since this tracker was created (all streams by default)."""
        with self._lock:
            if stream_id is None:
                return sum(self._received_records.values())
            return self._received_records.get(stream_id, 0)

    def wait_received(self, records: int, timeout: float, stream_id: int | None = None) -> bool:
        """Block until at least ``records`` records were added; ``False`` on timeout."""
        with self._lock:
            return self._lock.wait_for(
                lambda: (
                    (
                        sum(self._received_records.values())
                        if stream_id is None
                        else self._received_records.get(stream_id, 0)
                    )
                    >= records
                ),
                timeout,
            )

    # -- cleanup ---------------------------------------------------------------------------
    def cleanup_old_batches(self, threshold_ms: int) -> list[int]:
        """Forget the batches older than ``threshold_ms``; return their times."""
        with self._lock:
            times = sorted(t for t in self._allocated if t < threshold_ms)
            if times:
                if not self._append({"e": "clean", "t": times}, f"cleanup of batches {times}"):
                    return []
                for t in times:
                    del self._allocated[t]
        if self._log is not None:
            self._log.clean(threshold_ms)
        return times

    def stop(self) -> None:
        with self._lock:
            self._closed = True
        if self._log is not None:
            self._log.close()

    # -- log ---------------------------------------------------------------------------------
    def _append(self, event: dict[str, Any], what: str) -> bool:
        if self._log is None:
            return True
        try:
            self._log.write(event)
            return True
        except Exception:  # noqa: BLE001 - the caller leaves its state unchanged
            logger.exception("could not write %s to the block metadata log", what)
            return False

    def _recover(self, log: FileBasedWriteAheadLog) -> None:
        added = allocated = cleaned = 0
        for event in log.read_all():
            kind = event.get("e")
            if kind == "add":
                info = ReceivedBlockInfo.from_msgpack(event["i"]).invalidated()
                self._queues.setdefault(info.stream_id, deque()).append(info)
                added += 1
            elif kind == "alloc":
                time_ms = int(event["t"])
                blocks = {
                    int(sid): [ReceivedBlockInfo.from_msgpack(v).invalidated() for v in infos]
                    for sid, infos in event["b"].items()
                }
                # Take exactly this batch's blocks out of the queues (SPARK-23438): blocks
                # added after the allocation was logged stay queued.
                for sid, infos in blocks.items():
                    ids = {i.block_id for i in infos}
                    queue = self._queues.get(sid)
                    if queue:
                        self._queues[sid] = deque(i for i in queue if i.block_id not in ids)
                self._allocated[time_ms] = blocks
                if self.last_allocated is None or time_ms > self.last_allocated:
                    self.last_allocated = time_ms
                allocated += 1
            elif kind == "clean":
                for t in event["t"]:
                    self._allocated.pop(int(t), None)
                cleaned += 1
            else:
                logger.warning("ignoring an unknown block metadata event %r", kind)
        logger.info(
            "recovered the received-block metadata: %d blocks added, %d batch allocations, %d "
            "cleanups replayed; pending batches %s, unallocated blocks %d",
            added,
            allocated,
            cleaned,
            sorted(self._allocated),
            sum(len(q) for q in self._queues.values()),
        )

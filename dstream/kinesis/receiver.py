"""The Kinesis receiver: a worker that leases shards, reads them and checkpoints what it stored.

What this module owns
---------------------
:class:`KinesisReceiver`, the receiver behind ``KinesisUtils.createStream``: what the
Kinesis Client Library's worker does in Spark's receiver, on boto3. One thread, while the
receiver runs:

1. **shards**: lists the stream's shards every :data:`SHARD_SYNC_S` (and when a shard
   ends) and adds a lease for each new one (:mod:`.leases`);
2. **leases**: every :data:`LEASE_RENEW_S` renews its leases and takes free ones (no
   owner, or an owner that stopped renewing for :data:`FAILOVER_S`) up to its share
   (the leases over the workers seen); short of its share with none free, it takes one
   lease of the busiest worker holding more than its share, so receivers of one
   application come to split the shards;
3. **records**: for each leased shard whose parents are read to their end, ``GetRecords``
   from where the lease's checkpoint (or its last stored record) says; each non-empty
   answer is stored as one block (``store(list)``: in the block manager, and in the
   write-ahead log when it is on, before it returns), with the shard and its first and
   last sequence numbers as the block's metadata;
4. **checkpoints**: every ``checkpointInterval``, and when it stops, writes each shard's
   last *stored* sequence number to the lease table; a shard read to its end is
   checkpointed ``SHARD_END`` and its lease given up (its children may then be read).

Invariants
----------
* A sequence number is checkpointed only after its record was stored: after a crash, or
  when a lease moves to another worker, the shard is read again from its last
  checkpoint, so records are delivered at least once, as with Spark's receiver.
* The records are the raw bytes; the stream's decoder runs in the batch's tasks
  (``createStream`` maps it), as PySpark applies it.
* The worker stops within one ``GetRecords`` call of ``onStop`` and leaves nothing
  running; then its leases are free at once, not after a fail-over time.
* Errors of AWS calls restart the receiver (``restart``), which starts a new worker on
  the same lease table.
"""

from __future__ import annotations

import logging
import math
import os
import socket
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any

from rdd import StorageLevel

from dstream.receiver import Receiver

from .clients import KinesisSettings, make_clients
from .leases import LATEST, SHARD_END, TRIM_HORIZON, Lease, LeaseLostError, LeaseTable

__all__ = ["KinesisReceiver"]

_log = logging.getLogger(__name__)

#: KCL's defaults: shards listed every minute (and on a shard's end), leases renewed a few
#: times per fail-over time, a lease free once unrenewed for 10 s.
SHARD_SYNC_S = 60.0
FAILOVER_S = 10.0
LEASE_RENEW_S = FAILOVER_S / 3
#: The pause after a round of reads that returned nothing (KCL's idleTimeBetweenReads).
IDLE_S = 1.0
MAX_RECORDS = 10_000
#: How long ``onStop`` waits for the worker thread (one GetRecords call and the checkpoints).
STOP_WAIT_S = 60.0


@dataclass
class _Shard:
    lease: Lease
    iterator: str | None = None
    stored: str | None = None  # the last sequence number stored


class KinesisReceiver(Receiver[bytes]):
    """Reads the records of a Kinesis stream as one worker of ``settings.app_name`` (see the module doc).

    Parameters
    ----------
    settings : KinesisSettings
        The stream, the endpoint, the credentials, the initial position and the checkpoint interval.
    storageLevel : StorageLevel
        Where the received blocks are kept.
    """

    def __init__(self, settings: KinesisSettings,
                 storageLevel: StorageLevel = StorageLevel.MEMORY_AND_DISK_2) -> None:  # noqa: N803
        super().__init__(storageLevel)
        self.settings = settings
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def onStart(self) -> None:  # noqa: N802 - Spark's name
        self._stop = threading.Event()
        worker = _Worker(self, self._stop)
        self._thread = threading.Thread(target=worker.run_guarded, daemon=True,
                                        name=f"kinesis-worker-{self.settings.app_name}")
        self._thread.start()

    def onStop(self) -> None:  # noqa: N802 - Spark's name
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(STOP_WAIT_S)
            if thread.is_alive():
                _log.warning("The Kinesis worker of %s did not stop within %.0f s", self.settings.app_name,
                             STOP_WAIT_S)


class _Worker:
    """One run of a receiver's worker thread (a restart makes a new one)."""

    def __init__(self, receiver: KinesisReceiver, stop: threading.Event) -> None:
        self.receiver = receiver
        self.settings = receiver.settings
        self.stop = stop
        self.worker_id = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4()}"
        self.owned: dict[str, _Shard] = {}
        self.leases: dict[str, Lease] = {}
        self.seen: dict[str, tuple[int, float]] = {}  # shard -> (counter, when it was first seen)
        self.next_sync = 0.0

    def run_guarded(self) -> None:
        try:
            self.run()
        except Exception as exc:  # noqa: BLE001 - any failure of the source: start over
            if not self.receiver.isStopped():
                self.receiver.restart(f"Error reading Kinesis stream {self.settings.stream_name}", exc)

    def run(self) -> None:
        clients = make_clients(self.settings)
        self.kinesis = clients.kinesis
        self.table = LeaseTable(clients.dynamodb, self.settings.app_name)
        self.table.ensure()
        next_leases = 0.0
        next_checkpoint = time.monotonic() + self.settings.checkpoint_interval_s
        try:
            while not self.stop.is_set():
                now = time.monotonic()
                if now >= self.next_sync:
                    self.sync_shards()
                    self.next_sync = now + SHARD_SYNC_S
                    next_leases = 0.0
                if now >= next_leases:
                    self.renew_and_take()
                    next_leases = now + LEASE_RENEW_S
                read_any = False
                for shard in list(self.owned.values()):
                    if self.stop.is_set():
                        break
                    if self.parents_done(shard.lease):
                        read_any |= self.read(shard)
                if time.monotonic() >= next_checkpoint:
                    self.checkpoint_all()
                    next_checkpoint = time.monotonic() + self.settings.checkpoint_interval_s
                if not read_any:
                    self.stop.wait(IDLE_S)
        finally:
            self.shutdown()

    # -- shards and leases ------------------------------------------------------------

    def list_shards(self) -> list[dict[str, Any]]:
        shards: list[dict[str, Any]] = []
        kwargs: dict[str, Any] = {"StreamName": self.settings.stream_name}
        while True:
            page = self.kinesis.list_shards(**kwargs)
            shards += page["Shards"]
            token = page.get("NextToken")
            if not token:
                return shards
            kwargs = {"NextToken": token}

    def sync_shards(self) -> None:
        """Add a lease for every shard that has none."""
        shards = self.list_shards()
        known = {s["ShardId"] for s in shards} | set(self.leases)
        existing = self.table.leases()
        for shard in shards:
            shard_id = shard["ShardId"]
            if shard_id in existing:
                continue
            parents = tuple(sorted(p for p in (shard.get("ParentShardId"), shard.get("AdjacentParentShardId"))
                                   if p and p in known))
            start = TRIM_HORIZON if parents or self.settings.initial_position == TRIM_HORIZON else LATEST
            self.table.create(shard_id, start, parents)

    def expired(self, lease: Lease, now: float) -> bool:
        counter, since = self.seen.get(lease.shard_id, (lease.counter, now))
        return counter == lease.counter and now - since >= FAILOVER_S

    def renew_and_take(self) -> None:
        now = time.monotonic()
        self.leases = self.table.leases()
        for shard_id, lease in self.leases.items():
            if self.seen.get(shard_id, (None, 0.0))[0] != lease.counter:
                self.seen[shard_id] = (lease.counter, now)
        for shard_id, shard in list(self.owned.items()):
            try:
                shard.lease = self.table.renew(shard.lease)
            except LeaseLostError:
                _log.info("Lost the lease of shard %s to another worker", shard_id)
                del self.owned[shard_id]
        open_leases = [lease for lease in self.leases.values() if lease.checkpoint != SHARD_END]
        workers = {lease.owner for lease in open_leases if lease.owner and not self.expired(lease, now)}
        workers.add(self.worker_id)
        share = math.ceil(len(open_leases) / len(workers)) if open_leases else 0
        free = [lease for lease in open_leases if lease.shard_id not in self.owned
                and (lease.owner is None or (lease.owner != self.worker_id and self.expired(lease, now)))]
        free.sort(key=lambda lease: (lease.owner is not None, lease.shard_id))  # unowned first
        if not free and len(self.owned) < share:
            free = self.lease_to_steal(open_leases, share, now)
        for lease in free:
            if len(self.owned) >= share:
                break
            try:
                taken = self.table.take(lease, self.worker_id)
            except LeaseLostError:
                continue  # another worker was faster, or its owner renewed it
            self.owned[lease.shard_id] = _Shard(taken)
            self.leases[lease.shard_id] = taken
            _log.info("Reading shard %s of %s from %s", lease.shard_id, self.settings.stream_name, taken.checkpoint)

    def lease_to_steal(self, open_leases: list[Lease], share: int, now: float) -> list[Lease]:
        """One lease of the busiest worker if it holds more than its share (KCL takes one a round).

        Its owner learns it at its next renewal or checkpoint and stops reading the shard;
        what it read after its last checkpoint is read again here (at least once, as KCL).
        """
        counts: dict[str, list[Lease]] = {}
        for lease in open_leases:
            if lease.owner and lease.owner != self.worker_id and not self.expired(lease, now):
                counts.setdefault(lease.owner, []).append(lease)
        if not counts:
            return []
        busiest = max(counts.values(), key=len)
        return [min(busiest, key=lambda lease: lease.shard_id)] if len(busiest) > share else []

    def parents_done(self, lease: Lease) -> bool:
        """Whether every parent of the shard was read to its end (or its lease is gone)."""
        for parent in lease.parents:
            known = self.leases.get(parent)
            if known is not None and known.checkpoint != SHARD_END:
                return False
        return True

    # -- records ------------------------------------------------------------------------

    def iterator(self, shard: _Shard) -> str:
        position = shard.stored or shard.lease.checkpoint
        kwargs: dict[str, Any] = {"StreamName": self.settings.stream_name, "ShardId": shard.lease.shard_id}
        if position in (TRIM_HORIZON, LATEST):
            kwargs["ShardIteratorType"] = position
        else:
            kwargs.update(ShardIteratorType="AFTER_SEQUENCE_NUMBER", StartingSequenceNumber=position)
        return str(self.kinesis.get_shard_iterator(**kwargs)["ShardIterator"])

    def read(self, shard: _Shard) -> bool:
        """One GetRecords of ``shard``; whether it returned records."""
        errors = self.kinesis.exceptions
        if shard.iterator is None:
            shard.iterator = self.iterator(shard)
        try:
            answer = self.kinesis.get_records(ShardIterator=shard.iterator, Limit=MAX_RECORDS)
        except errors.ExpiredIteratorException:
            shard.iterator = None  # older than 5 minutes: a new one from the last stored record
            return False
        except errors.ProvisionedThroughputExceededException:
            return False  # the shard's read limit: the idle pause is the back-off
        records = answer.get("Records", [])
        if records and not self.stop.is_set():
            first, last = records[0]["SequenceNumber"], records[-1]["SequenceNumber"]
            self.receiver.store([bytes(r["Data"]) for r in records],
                                {"shardId": shard.lease.shard_id, "fromSeqNumber": first, "toSeqNumber": last})
            shard.stored = last
        elif records:
            return False  # stopping: not stored, so not checkpointed either
        shard.iterator = answer.get("NextShardIterator")
        if shard.iterator is None:  # a closed shard, read to its end
            self.finish(shard)
        return bool(records)

    def finish(self, shard: _Shard) -> None:
        shard_id = shard.lease.shard_id
        try:
            # Known at once, so this worker's reads of the children need not wait for a scan.
            self.leases[shard_id] = self.table.release(self.table.checkpoint(shard.lease, SHARD_END))
        except LeaseLostError:
            pass  # another worker holds it: the next scan says how far it is
        self.owned.pop(shard_id, None)
        self.next_sync = 0.0  # its children may have no lease yet
        _log.info("Shard %s of %s is read to its end", shard_id, self.settings.stream_name)

    # -- checkpoints --------------------------------------------------------------------

    def checkpoint_all(self) -> None:
        for shard_id, shard in list(self.owned.items()):
            if shard.stored is None or shard.stored == shard.lease.checkpoint:
                continue
            try:
                shard.lease = self.table.checkpoint(shard.lease, shard.stored)
            except LeaseLostError:
                _log.info("Lost the lease of shard %s before checkpointing it", shard_id)
                del self.owned[shard_id]

    def shutdown(self) -> None:
        """The last checkpoints, then the leases given up (best effort: the worker is stopping)."""
        try:
            self.checkpoint_all()
            for shard in list(self.owned.values()):
                try:
                    self.table.release(shard.lease)
                except LeaseLostError:
                    pass
        except Exception:  # noqa: BLE001 - the leases expire by themselves if this fails
            _log.warning("Could not checkpoint or release the Kinesis leases of %s on stop", self.settings.app_name,
                         exc_info=True)
        self.owned.clear()

"""The lease table of a Kinesis application: which worker reads which shard, and from where.

What this module owns
---------------------
:class:`LeaseTable`, the DynamoDB table named after ``kinesisAppName``, in the layout of
the Kinesis Client Library that Spark's receiver runs (one item per shard: ``leaseKey``
the shard id, ``leaseOwner``, ``leaseCounter``, ``checkpoint``,
``ownerSwitchesSinceCheckpoint``, ``parentShardId``). An application that Spark ran can
be resumed here, and the other way round. ``checkpoint`` is a sequence number (read on
after it) or one of the sentinels ``TRIM_HORIZON``, ``LATEST`` and ``SHARD_END`` (a
closed shard read to its end).

Invariants
----------
* Every change of an item is conditional on what this worker last saw of it (its owner
  and counter): two workers never both believe they hold a lease, and a worker that lost
  one learns it at its next renewal or checkpoint (:class:`LeaseLostError`).
* A checkpoint only moves forward in a shard's sequence numbers (the caller checkpoints
  what it stored), and ``SHARD_END`` is final.
* A new shard's lease starts at the stream's initial position, except a child of a
  resharded shard, which starts at ``TRIM_HORIZON``: its first records follow its
  parents' last ones, and none may be skipped.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Lease", "LeaseLostError", "LeaseTable", "SHARD_END", "TRIM_HORIZON", "LATEST"]

TRIM_HORIZON = "TRIM_HORIZON"
LATEST = "LATEST"
SHARD_END = "SHARD_END"
#: How long a table may take to become ACTIVE after it is created.
TABLE_READY_S = 60.0


class LeaseLostError(Exception):
    """Another worker took the lease (or it was deleted) since this worker last saw it."""


@dataclass
class Lease:
    """One shard's lease as last read or written by this worker."""

    shard_id: str
    owner: str | None
    counter: int
    checkpoint: str
    parents: tuple[str, ...] = ()
    owner_switches: int = 0
    seen_at: float = field(default_factory=time.monotonic)


def _lease_of(item: dict[str, Any]) -> Lease:
    return Lease(
        shard_id=item["leaseKey"]["S"],
        owner=item["leaseOwner"]["S"] if "leaseOwner" in item else None,
        counter=int(item.get("leaseCounter", {"N": "0"})["N"]),
        checkpoint=item.get("checkpoint", {"S": TRIM_HORIZON})["S"],
        parents=tuple(sorted(item.get("parentShardId", {"SS": []})["SS"])),
        owner_switches=int(item.get("ownerSwitchesSinceCheckpoint", {"N": "0"})["N"]),
    )


class LeaseTable:
    """The DynamoDB lease table ``name`` of one Kinesis application (see the module doc).

    Parameters
    ----------
    dynamodb : botocore client
        A DynamoDB client.
    name : str
        The table's name: the application's (``kinesisAppName``).
    """

    def __init__(self, dynamodb: Any, name: str) -> None:
        self._db = dynamodb
        self.name = name

    def ensure(self) -> None:
        """Create the table if it does not exist (on demand capacity) and wait until it is ACTIVE."""
        errors = self._db.exceptions
        try:
            self._db.create_table(
                TableName=self.name, BillingMode="PAY_PER_REQUEST",
                KeySchema=[{"AttributeName": "leaseKey", "KeyType": "HASH"}],
                AttributeDefinitions=[{"AttributeName": "leaseKey", "AttributeType": "S"}])
        except errors.ResourceInUseException:
            pass  # made by another worker, or by an earlier run
        deadline = time.monotonic() + TABLE_READY_S
        while self._db.describe_table(TableName=self.name)["Table"]["TableStatus"] != "ACTIVE":
            if time.monotonic() > deadline:
                raise TimeoutError(f"the Kinesis lease table {self.name!r} was not ACTIVE within {TABLE_READY_S:.0f} s")
            time.sleep(0.5)

    def leases(self) -> dict[str, Lease]:
        """Every lease, by shard id (a consistent read)."""
        out: dict[str, Lease] = {}
        kwargs: dict[str, Any] = {"TableName": self.name, "ConsistentRead": True}
        while True:
            page = self._db.scan(**kwargs)
            for item in page.get("Items", []):
                lease = _lease_of(item)
                out[lease.shard_id] = lease
            if "LastEvaluatedKey" not in page:
                return out
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def create(self, shard_id: str, checkpoint: str, parents: tuple[str, ...]) -> None:
        """Add a lease for a new shard, unowned (nothing if another worker added it first)."""
        item: dict[str, Any] = {"leaseKey": {"S": shard_id}, "leaseCounter": {"N": "0"},
                                "checkpoint": {"S": checkpoint}, "checkpointSubSequenceNumber": {"N": "0"},
                                "ownerSwitchesSinceCheckpoint": {"N": "0"}}
        if parents:
            item["parentShardId"] = {"SS": list(parents)}
        try:
            self._db.put_item(TableName=self.name, Item=item, ConditionExpression="attribute_not_exists(leaseKey)")
        except self._db.exceptions.ConditionalCheckFailedException:
            pass

    def _update(self, lease: Lease, owner: str | None, extra_set: str = "", values: dict[str, Any] | None = None,
                switches: int | None = None) -> Lease:
        """Write ``lease`` with ``owner`` and the counter one up, if it still is as this worker saw it."""
        names = {"#o": "leaseOwner", "#c": "leaseCounter", "#s": "ownerSwitchesSinceCheckpoint"}
        vals: dict[str, Any] = {":seen": {"N": str(lease.counter)}, ":next": {"N": str(lease.counter + 1)},
                                ":sw": {"N": str(lease.owner_switches if switches is None else switches)}}
        vals.update(values or {})
        condition = "#c = :seen"
        if lease.owner is None:
            condition += " AND attribute_not_exists(#o)"
        else:
            condition += " AND #o = :was"
            vals[":was"] = {"S": lease.owner}
        if owner is None:
            update = "SET #c = :next, #s = :sw" + extra_set + " REMOVE #o"
        else:
            update = "SET #o = :owner, #c = :next, #s = :sw" + extra_set
            vals[":owner"] = {"S": owner}
        try:
            self._db.update_item(TableName=self.name, Key={"leaseKey": {"S": lease.shard_id}},
                                 UpdateExpression=update, ConditionExpression=condition,
                                 ExpressionAttributeNames=names, ExpressionAttributeValues=vals)
        except self._db.exceptions.ConditionalCheckFailedException:
            raise LeaseLostError(lease.shard_id) from None
        checkpoint = vals[":cp"]["S"] if ":cp" in vals else lease.checkpoint
        return Lease(lease.shard_id, owner, lease.counter + 1, checkpoint, lease.parents,
                     lease.owner_switches if switches is None else switches)

    def take(self, lease: Lease, worker: str) -> Lease:
        """Make ``worker`` the owner of ``lease`` (unowned, or expired: its counter unchanged)."""
        switches = lease.owner_switches + (1 if lease.owner not in (None, worker) else 0)
        return self._update(lease, worker, switches=switches)

    def renew(self, lease: Lease) -> Lease:
        """Count the lease up: its owner still reads the shard."""
        return self._update(lease, lease.owner)

    def checkpoint(self, lease: Lease, checkpoint: str) -> Lease:
        """Record that the shard was read (and stored) up to ``checkpoint``."""
        return self._update(lease, lease.owner, ", checkpoint = :cp", {":cp": {"S": checkpoint}}, switches=0)

    def release(self, lease: Lease) -> Lease:
        """Give the lease up (another worker may take it at once); the lease as written."""
        return self._update(lease, None)

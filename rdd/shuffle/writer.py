"""The map side of a shuffle: combine (optionally), bucket by partitioner, write.

A map output of at most ``ShuffleWriteSpec.inline_max_bytes`` bytes, written to a store
that accepts it (``local[N]``'s files), is not written at all: it goes back to the
driver in the task's result as an :class:`InlineMapOutput`, and the driver hands each
reduce task its buckets with the task. A micro-batch's shuffle is a few hundred bytes,
and creating, renaming, reading and deleting a file per map output per batch cost more
than the rest of its tasks; a large output still goes to a file, never to the driver.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..runtime.task_context import TaskContext
from ..serialization.serializer import dumps_records


@dataclass(frozen=True)
class ShuffleWriteSpec:
    """The map side of a shuffle dependency, without its parent lineage."""

    shuffle_id: int
    partitioner: Any
    aggregator: Any
    map_side_combine: bool
    count_constant: int | None = None
    #: Map outputs of at most this many bytes travel with the task's result (0: never).
    inline_max_bytes: int = 0


@dataclass(frozen=True)
class InlineMapOutput:
    """A small map output returned to the driver: its buckets' sizes, bytes and offsets."""

    sizes: list[int]
    blob: bytes
    offsets: array

    def bucket(self, reduce_id: int) -> bytes:
        return self.blob[self.offsets[reduce_id]:self.offsets[reduce_id + 1]]


def write_map_output(dep: ShuffleWriteSpec, map_id: int, attempt_id: int, records: Iterable[Any],
                     store: Any, precombined: bool = False) -> list[int] | InlineMapOutput:
    """Write one map task's output; returns the byte size of each bucket.

    ``precombined`` records are already one ``(key, combiner)`` per key. A small output
    to a store that accepts inline outputs is returned as an :class:`InlineMapOutput`
    instead of being written (see the module doc).
    """
    partitioner = dep.partitioner
    assert partitioner is not None
    if dep.aggregator is not None and dep.map_side_combine and not precombined:
        items: Iterable[Any] = dep.aggregator.combine_values_by_key(records).items()
    else:
        items = records
    count = partitioner.numPartitions
    if count == 1:
        buckets = [list(items)]
    else:
        buckets = [[] for _ in range(count)]
        appenders = [b.append for b in buckets]
        func = partitioner.partitionFunc
        for record in items:
            appenders[func(record[0]) % count](record)
    offsets = array("q", [0])
    parts: list[bytes] = []
    position = 0
    for bucket in buckets:
        if bucket:
            payload = dumps_records(bucket)
            parts.append(payload)
            position += len(payload)
        offsets.append(position)
    sizes = [offsets[i + 1] - offsets[i] for i in range(count)]
    inline = position <= dep.inline_max_bytes and getattr(store, "accepts_inline", False)
    if not inline:
        store.put(dep.shuffle_id, map_id, attempt_id, b"".join(parts), offsets)
    tctx = TaskContext.get()
    if tctx is not None:
        tctx.add_metric("shuffleWriteBytes", position)
        tctx.add_metric("shuffleWriteRecords", sum(map(len, buckets)))
    return InlineMapOutput(sizes, b"".join(parts), offsets) if inline else sizes

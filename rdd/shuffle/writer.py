"""The map side of a shuffle: combine (optionally), bucket by partitioner, write."""

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


def write_map_output(dep: ShuffleWriteSpec, map_id: int, attempt_id: int, records: Iterable[Any],
                     store: Any, precombined: bool = False) -> list[int]:
    """Write one map task's output; returns the byte size of each bucket.

    ``precombined`` records are already one ``(key, combiner)`` per key.
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
    store.put(dep.shuffle_id, map_id, attempt_id, b"".join(parts), offsets)
    tctx = TaskContext.get()
    if tctx is not None:
        tctx.add_metric("shuffleWriteBytes", position)
        tctx.add_metric("shuffleWriteRecords", sum(map(len, buckets)))
    return [offsets[i + 1] - offsets[i] for i in range(count)]

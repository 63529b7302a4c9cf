"""The map side of a shuffle: combine (optionally), bucket by partitioner, write."""

from __future__ import annotations

import os
import pickle
from array import array
from typing import TYPE_CHECKING, Any, Iterable

if TYPE_CHECKING:
    from ..scheduler.task import ShuffleWriteSpec


def map_output_paths(shuffle_dir: str, map_id: int) -> tuple[str, str]:
    return os.path.join(shuffle_dir, f"{map_id}.data"), os.path.join(shuffle_dir, f"{map_id}.index")


def write_map_output(dep: ShuffleWriteSpec, map_id: int, attempt_id: int, records: Iterable[Any],
                     shuffle_dir: str, precombined: bool = False) -> list[int]:
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
    os.makedirs(shuffle_dir, exist_ok=True)
    data_path, index_path = map_output_paths(shuffle_dir, map_id)
    offsets = array("q", [0])
    suffix = f".tmp-{os.getpid()}-{attempt_id}"
    with open(data_path + suffix, "wb") as f:
        for bucket in buckets:
            if bucket:
                f.write(pickle.dumps(bucket, protocol=5))
            offsets.append(f.tell())
    os.replace(data_path + suffix, data_path)
    with open(index_path + suffix, "wb") as f:
        f.write(offsets.tobytes())
    os.replace(index_path + suffix, index_path)
    return [offsets[i + 1] - offsets[i] for i in range(count)]

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
from itertools import compress
from typing import Any

from ..runtime.task_context import TaskContext
from ..serialization.serializer import dumps_pairs, dumps_records


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

    ``precombined`` records are already one ``(key, combiner)`` per key (a dict, or
    its items). A small output to a store that accepts inline outputs is returned as an
    :class:`InlineMapOutput` instead of being written (see the module doc).
    """
    partitioner = dep.partitioner
    assert partitioner is not None
    if dep.aggregator is not None and dep.map_side_combine and not precombined:
        records = dep.aggregator.combine_values_by_key(records)
    if isinstance(records, dict):
        parts, written = _combined_buckets(records, partitioner)
    else:
        parts, written = _record_buckets(records, partitioner)
    offsets = array("q", [0])
    position = 0
    for payload in parts:
        position += len(payload)
        offsets.append(position)
    count = partitioner.numPartitions
    sizes = [offsets[i + 1] - offsets[i] for i in range(count)]
    inline = position <= dep.inline_max_bytes and getattr(store, "accepts_inline", False)
    blob = b"".join(parts)
    if not inline:
        store.put(dep.shuffle_id, map_id, attempt_id, blob, offsets)
    tctx = TaskContext.get()
    if tctx is not None:
        tctx.add_metric("shuffleWriteBytes", position)
        tctx.add_metric("shuffleWriteRecords", written)
    return InlineMapOutput(sizes, blob, offsets) if inline else sizes


#: Up to this many buckets, a combined output is split with one C-speed pass per bucket
#: over its keys and one over its values; above, one Python pass places every record.
_SELECT_PASSES_MAX = 8


def _combined_buckets(combined: dict, partitioner: Any) -> tuple[list[bytes], int]:
    """The payload of each bucket of a dict of combiners, and the number of records.

    Keys and values stay two lists throughout (see ``dumps_pairs``); the keys' buckets
    are computed at once (``Partitioner.bucket_indices``), and each bucket's keys and
    values are picked out with ``itertools.compress``, so no step costs a Python call
    per record for string or integer keys. A bucket keeps the dict's order.
    """
    keys = list(combined)
    values = list(combined.values())
    key_kinds = set(map(type, keys))
    kinds = key_kinds | set(map(type, values))  # of every bucket's keys and values
    count = partitioner.numPartitions
    if count == 1 or not keys:
        columns = [(keys, values)] + [([], [])] * (count - 1)
    elif count <= _SELECT_PASSES_MAX:
        picks = bytes(partitioner.bucket_indices(keys, key_kinds))
        columns = []
        for bucket in range(count):
            chosen = picks.translate(_ONE_BUCKET[bucket])
            columns.append((list(compress(keys, chosen)), list(compress(values, chosen))))
    else:
        columns = [([], []) for _ in range(count)]
        for bucket, key, value in zip(partitioner.bucket_indices(keys, key_kinds), keys, values):
            chosen_keys, chosen_values = columns[bucket]
            chosen_keys.append(key)
            chosen_values.append(value)
    return [dumps_pairs(k, v, kinds) if k else b"" for k, v in columns], len(keys)


#: ``picks.translate(_ONE_BUCKET[b])`` turns a bytes of bucket numbers into 1 where
#: the number is ``b`` and 0 elsewhere: the selectors of ``compress`` for bucket ``b``.
_ONE_BUCKET = [bytes(256)[:b] + b"\x01" + bytes(255 - b) for b in range(_SELECT_PASSES_MAX)]


def _record_buckets(records: Iterable[Any], partitioner: Any) -> tuple[list[bytes], int]:
    """The payload of each bucket of records placed by their first item, and their number."""
    count = partitioner.numPartitions
    if count == 1:
        buckets = [list(records)]
    else:
        buckets = [[] for _ in range(count)]
        appenders = [b.append for b in buckets]
        func = partitioner.partitionFunc
        for record in records:
            appenders[func(record[0]) % count](record)
    return [dumps_records(b) if b else b"" for b in buckets], sum(map(len, buckets))

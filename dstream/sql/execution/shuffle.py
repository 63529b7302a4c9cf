"""Moving record batches between partitions as Arrow IPC buffers.

What this module owns
---------------------
:func:`shuffle_batches`, the one primitive under every exchange: each map task cuts
its partition's rows by a partition id per row and emits one Arrow IPC stream buffer
per target partition; the reduce side opens the buffers (zero-copy) in map-task
order. :func:`gather` is the single-partition case.

Invariants
----------
* Records crossing the engine's shuffle are ``(target, (map_index, ipc_bytes))``:
  rows never travel as Python objects, only as Arrow buffers.
* The reduce side yields the buffers of map task 0 first, then 1, ...: gathering a
  sorted (range-partitioned) or limited result keeps its order.
* A partition id is an int32 in ``[0, n)``; the engine's partitioner is the identity.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from .arrays import concat_batches

__all__ = ["from_ipc", "gather", "shuffle_batches", "to_ipc"]

#: Computes the target partition of every row of a table (map index given).
PartitionFn = Callable[[pa.Table, int], pa.Array]


def to_ipc(data: pa.Table | Iterable[pa.RecordBatch], schema: pa.Schema) -> bytes:
    """The rows as one Arrow IPC stream."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, schema) as writer:
        if isinstance(data, pa.Table):
            writer.write_table(data)
        else:
            for batch in data:
                writer.write_batch(batch)
    return sink.getvalue().to_pybytes()


def from_ipc(data: bytes) -> Iterator[pa.RecordBatch]:
    """The batches of an IPC stream, reading ``data`` in place."""
    yield from pa.ipc.open_stream(pa.py_buffer(data))


_ROWS = "__rows"


def _target(key: int) -> int:
    return key


def _split(index: int, batches: Iterator[pa.RecordBatch], n: int,
           partition_fn: PartitionFn | None) -> Iterator[tuple[int, tuple[int, bytes]]]:
    if n == 1 or partition_fn is None:
        items = [b for b in batches]
        if items:
            yield 0, (index, to_ipc(items, items[0].schema))
        return
    table = concat_batches(batches)
    if table is None or table.num_rows == 0:
        return
    if not table.num_columns:  # Arrow's take drops the rows of a table without columns
        table = pa.table({_ROWS: pa.nulls(table.num_rows)})
    pids = partition_fn(table, index)
    order = pc.sort_indices(pids)
    ordered = table.take(order)
    counts = pc.value_counts(pids)
    sizes = dict(zip(counts.field("values").to_pylist(), counts.field("counts").to_pylist()))
    start = 0
    for pid in range(n):
        size = sizes.get(pid, 0)
        if size:
            yield pid, (index, to_ipc(ordered.slice(start, size), table.schema))
            start += size


def _read(records: Iterator[tuple[int, tuple[int, bytes]]]) -> Iterator[pa.RecordBatch]:
    for _, (_, data) in sorted(records, key=lambda r: r[1][0]):
        for batch in from_ipc(data):
            if batch.num_rows:
                yield batch.select([]) if batch.schema.names == [_ROWS] else batch


def _split_partition(index: int, batches: Iterator[pa.RecordBatch], n: int,
                     partition_fn: PartitionFn | None) -> Iterator[Any]:
    return _split(index, batches, n, partition_fn)


def shuffle_batches(rdd: Any, n: int, partition_fn: PartitionFn | None) -> Any:
    """``rdd``'s rows moved to ``n`` partitions, row by row as ``partition_fn`` says.

    ``partition_fn(table, map_index)`` returns an int32 array of targets (one per row
    of the map task's rows as one table); ``None`` sends everything to partition 0.
    """
    pairs = rdd.mapPartitionsWithIndex(functools.partial(_split_partition, n=n, partition_fn=partition_fn))
    return pairs.partitionBy(n, _target).mapPartitions(_read)


def gather(rdd: Any) -> Any:
    """All of ``rdd``'s batches in one partition, partition 0's first."""
    return shuffle_batches(rdd, 1, None)

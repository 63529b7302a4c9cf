"""Exchanges: the operators that move rows between partitions.

What this module owns
---------------------
:class:`ShuffleExchangeExec` in its four partitionings: ``hash`` (rows with equal
keys meet in one partition: aggregation, joins, deduplication, ``repartition(n, cols)``),
``single`` (everything in one partition: global aggregates and limits), ``roundrobin``
(``repartition(n)``: rows dealt evenly) and ``range`` (``orderBy``: partition ``i``
holds keys below those of partition ``i + 1``, bounds from a sample of the keys).

Invariants
----------
* Data crosses as Arrow IPC buffers (:mod:`.shuffle`), never as Python rows.
* Hash partitioning uses :func:`.partitioning.partition_ids`: stable across
  processes, with null, NaN and ``-0.0`` keys placed like Spark groups them.
* Range partitioning orders rows exactly as :mod:`.sort` does, so sorting each
  partition afterwards gives a total order; rows with equal keys share a partition.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..expressions.base import EvalContext, Expression
from .arrays import arange, concat_batches, constant, table_as_batch
from .context import QueryContext
from .partitioning import normalize_floats, partition_ids
from .physical import PhysicalPlan, as_array, expr_text
from .shuffle import PartitionFn, shuffle_batches
from .sort import sort_indices, sort_key_table

__all__ = ["ShuffleExchangeExec", "hash_partition_fn"]

#: Sampled keys per output partition when computing range bounds.
_SAMPLES_PER_PARTITION = 60


# The partition functions are module functions bound with functools.partial, not
# closures: they travel in every map task's closure, and the C pickler ships them by
# reference (see rdd.serialization.pickler).


def hash_partition_fn(keys: Sequence[Expression], n: int, ctx: EvalContext) -> PartitionFn:
    """Target partitions by a stable hash of ``keys`` evaluated on each row."""
    return functools.partial(_hash_targets, list(keys), n, ctx)


def _hash_targets(keys: list[Expression], n: int, ctx: EvalContext, table: pa.Table, index: int) -> pa.Array:
    batch = table_as_batch(table)
    arrays = [normalize_floats(as_array(k.eval(batch, ctx), batch.num_rows)) for k in keys]
    return partition_ids(arrays, n)


def _round_robin_fn(n: int) -> PartitionFn:
    return functools.partial(_round_robin_targets, n)


def _round_robin_targets(n: int, table: pa.Table, index: int) -> pa.Array:
    positions = pc.add(arange(table.num_rows), index)
    return pc.subtract(positions, pc.multiply(pc.divide(positions, n), n)).cast(pa.int32())


def _range_fn(orders: Sequence[Expression], bounds: pa.Table, ctx: EvalContext) -> PartitionFn:
    """Target = the number of bounds strictly below the row's key (ties go below the bound)."""
    def fn(table: pa.Table, index: int) -> pa.Array:
        keys, sort_keys = sort_key_table(table, orders, ctx)
        rows = keys.num_rows
        both = pa.concat_tables([keys, bounds.cast(keys.schema)]).combine_chunks()
        tag = pa.concat_arrays([constant(rows, 0, pa.int32()), constant(bounds.num_rows, 1, pa.int32())])
        both = both.append_column("__bound", tag)
        order = sort_indices(both, sort_keys + [("__bound", "ascending")])
        below = pc.cumulative_sum(tag.take(order))
        where = pc.sort_indices(order)  # the inverse permutation: each row's sorted position
        return below.take(where).slice(0, rows).cast(pa.int32())
    return fn


def _sample_keys(batches: Iterator[pa.RecordBatch], orders: Sequence[Expression], ctx: EvalContext,
                 size: int, seed: int) -> Iterator[tuple[pa.Table, list[tuple[str, str]]]]:
    table = concat_batches(batches)
    if table is None or table.num_rows == 0:
        return
    keys, spec = sort_key_table(table, orders, ctx)
    if keys.num_rows > size:
        picks = sorted(random.Random(seed).sample(range(keys.num_rows), size))
        keys = keys.take(pa.array(picks, pa.int64()))
    yield keys, spec


def range_bounds(rdd: Any, orders: Sequence[Expression], n: int, ctx: EvalContext) -> pa.Table | None:
    """``n - 1`` split keys from a sample of ``rdd``'s rows (``None`` if it has no rows)."""
    parts = max(1, rdd.getNumPartitions())
    size = max(1, _SAMPLES_PER_PARTITION * n // parts + 1)
    samples = rdd.mapPartitionsWithIndex(lambda i, it: _sample_keys(it, orders, ctx, size, i)).collect()
    if not samples:
        return None
    sort_spec = samples[0][1]
    keys = pa.concat_tables([s.cast(samples[0][0].schema) for s, _ in samples]).combine_chunks()
    ordered = keys.take(sort_indices(keys, sort_spec))
    picks = [min(ordered.num_rows - 1, (i + 1) * ordered.num_rows // n) for i in range(n - 1)]
    return ordered.take(pa.array(picks, pa.int64()))


class ShuffleExchangeExec(PhysicalPlan):
    """``Exchange``: the child's rows moved into ``n`` partitions by ``kind``.

    Parameters
    ----------
    kind : {"hash", "single", "roundrobin", "range"}
    keys : sequence of Expression
        Hash keys (``hash``) or ``SortOrder`` s (``range``).
    n : int
        The number of output partitions (1 for ``single``).
    """

    def __init__(self, kind: str, keys: Sequence[Expression], n: int, child: PhysicalPlan) -> None:
        self.kind = kind
        self.keys = list(keys)
        self.n = 1 if kind == "single" else n
        self.children = (child,)
        self.output = child.output

    def execute(self, qctx: QueryContext) -> Any:
        rdd = self.child.execute(qctx)
        ctx = qctx.eval_ctx
        if self.kind == "single" or self.n == 1:
            # One partition already holds every row where they must go: nothing to move.
            return rdd if rdd.getNumPartitions() == 1 else shuffle_batches(rdd, 1, None)
        if self.kind == "hash":
            return shuffle_batches(rdd, self.n, hash_partition_fn(self.keys, self.n, ctx))
        if self.kind == "roundrobin":
            return shuffle_batches(rdd, self.n, _round_robin_fn(self.n))
        bounds = range_bounds(rdd, self.keys, self.n, ctx)
        if bounds is None:
            return shuffle_batches(rdd, 1, None)
        return shuffle_batches(rdd, self.n, _range_fn(self.keys, bounds, ctx))

    def describe(self) -> str:
        keys = ", ".join(expr_text(k) for k in self.keys)
        if self.kind == "single" or self.n == 1 and self.kind != "roundrobin":
            return "Exchange SinglePartition, ENSURE_REQUIREMENTS"
        if self.kind == "hash":
            return f"Exchange hashpartitioning({keys}, {self.n}), ENSURE_REQUIREMENTS"
        if self.kind == "roundrobin":
            return f"Exchange RoundRobinPartitioning({self.n}), REPARTITION_BY_NUM"
        return f"Exchange rangepartitioning({keys}, {self.n}), ENSURE_REQUIREMENTS"

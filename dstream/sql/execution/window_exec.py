"""The window operator: window functions computed over each partition of a keyed exchange.

What this module owns
---------------------
:class:`WindowExec` (Spark's ``WindowExec``), the physical operator of
:class:`~dstream.sql.plan.window_plan.WindowPlan`, and its per-partition kernel
:func:`compute_windows`: the rows sorted by (partition keys, orderings), cut into
window partitions (runs of equal keys) and peer groups (runs of equal ordering values
within one), then each expression's column:

* ranking functions from each row's position, its partition's start and size, and its
  peer group's start and end;
* ``lag``/``lead`` by reading the row ``n`` away when it is in the same partition, else
  the default (evaluated on the current row);
* aggregates over each row's frame, ``[lo, hi)`` row indices: rows frames by offsets
  (clipped to the partition), range frames by the ordering value (peers included; a
  null ordering value's frame is its nulls). Rows with the same frame share one
  computation; the frames are then computed with the aggregate's own two phases
  (:class:`~.aggregate.AggregateSpec`) over the frames' rows, grouped by frame, so every
  aggregate function works over a window exactly as in ``groupBy``. An empty frame gets
  the aggregate's value over no rows (``count`` 0, ``sum`` null).

Invariants
----------
* The child is exchanged on the partition keys (the planner puts a hash exchange below,
  or a single-partition one without keys): every row of a window partition is here.
* Keys and ordering values compare as grouping does: null equals null, NaNs are one
  value, ``-0.0`` equals ``0.0``.
* The output is the child's rows in (keys, ordering) order, input order among ties,
  each with one column per window expression.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..expressions.aggregate_base import AggregateFunction, SortOrder
from ..expressions.base import Alias, AttributeReference, EvalContext, Expression, column_key
from ..expressions.window_functions import (
    CumeDist,
    DenseRank,
    NthValue,
    NTile,
    OffsetFunction,
    PercentRank,
    Rank,
    RowNumber,
    WindowExpression,
    WindowFrame,
    offset_value,
)
from ..types import LongType
from .aggregate import AggregateSpec, encode_key
from .arrays import concat_batches, table_as_batch
from .context import QueryContext
from .partitioning import same_as_previous
from .physical import PhysicalPlan, as_array, expr_text, key_names
from .sort import sort_indices, sort_key_table

__all__ = ["WindowExec", "compute_windows"]

_FRAME_ID = -1
#: Frames whose rows add up to at most this many times the partition's (plus a few) are
#: aggregated row by row; beyond, by blocks (a running aggregate over a long partition).
_EXPLODE_FACTOR = 4
_EXPLODE_ROWS = 64


def _starts(arrays: Sequence[pa.Array], rows: int) -> np.ndarray:
    """Whether each row opens a new run (its values differ from the previous row's, as grouping compares)."""
    encoded: dict[str, pa.Array] = {}
    for i, values in enumerate(arrays):
        encode_key(f"k{i}", values, encoded)  # structs field by field, floats normalized
    opens = np.zeros(rows, dtype=bool)
    if rows:
        opens[0] = True
    if rows > 1:
        for values in encoded.values():
            opens[1:] |= ~same_as_previous(values).to_numpy(zero_copy_only=False)
    return opens


def _run_bounds(opens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each row, the first row of its run and the row after its last."""
    rows = len(opens)
    index = np.arange(rows)
    start = np.maximum.accumulate(np.where(opens, index, 0))
    run_ends = np.append(np.flatnonzero(opens)[1:], rows)
    run_id = np.cumsum(opens) - 1
    return start, run_ends[run_id]


class _Layout:
    """Where each row of a sorted partition stands: its window partition and its peer group."""

    def __init__(self, batch: pa.RecordBatch, partition_by: Sequence[Expression], order_by: Sequence[SortOrder],
                 ctx: EvalContext) -> None:
        rows = batch.num_rows
        self.rows = rows
        keys = [as_array(p.eval(batch, ctx), rows) for p in partition_by]
        self.orders = [as_array(o.child.eval(batch, ctx), rows) for o in order_by]
        self.part_opens = _starts(keys, rows)
        self.part_start, self.part_end = _run_bounds(self.part_opens)
        peer_opens = self.part_opens | _starts(self.orders, rows)
        self.peer_opens = peer_opens
        self.peer_start, self.peer_end = _run_bounds(peer_opens)
        self.index = np.arange(rows)


def _ranking(function: Expression, layout: _Layout) -> pa.Array:
    position = layout.index - layout.part_start  # 0-based within the partition
    size = layout.part_end - layout.part_start
    if isinstance(function, RowNumber):
        return pa.array(position + 1, pa.int32())
    if isinstance(function, Rank):
        return pa.array(layout.peer_start - layout.part_start + 1, pa.int32())
    if isinstance(function, DenseRank):
        peers_so_far = np.cumsum(layout.peer_opens)
        before_partition = peers_so_far[layout.part_start] - 1
        return pa.array(peers_so_far - before_partition, pa.int32())
    if isinstance(function, PercentRank):
        rank0 = (layout.peer_start - layout.part_start).astype(np.float64)
        denominator = np.maximum(size - 1, 1).astype(np.float64)
        return pa.array(np.where(size > 1, rank0 / denominator, 0.0), pa.float64())
    if isinstance(function, CumeDist):
        return pa.array((layout.peer_end - layout.part_start) / size.astype(np.float64), pa.float64())
    if isinstance(function, NTile):
        buckets = function.buckets
        per_bucket, padded = size // buckets, size % buckets
        big = per_bucket + 1
        in_padded = position < padded * big
        small = np.maximum(per_bucket, 1)
        bucket = np.where(in_padded, position // big, padded + (position - padded * big) // small)
        return pa.array(bucket + 1, pa.int32())
    raise TypeError(f"not a ranking function: {function.sql()}")


def _offset(function: OffsetFunction, batch: pa.RecordBatch, layout: _Layout, ctx: EvalContext) -> pa.Array:
    rows = layout.rows
    values = as_array(function.input.eval(batch, ctx), rows)
    if function.ignore_nulls and function.shift:
        target = _non_null_target(values, layout, function.shift)
    else:
        target = layout.index + function.shift
    inside = (target >= layout.part_start) & (target < layout.part_end)
    taken = values.take(pa.array(np.where(inside, target, 0), pa.int64())) if rows else values
    default = as_array(function.default.eval(batch, ctx), rows)
    if default.type != values.type:
        default = default.cast(values.type)
    return pc.if_else(pa.array(inside), taken, default)


def _non_null_target(values: pa.Array, layout: _Layout, shift: int) -> np.ndarray:
    """Each row's ``|shift|``-th row before (``shift < 0``) or after with a non-null value; a row
    outside its partition (or -1) when there is none. Partition bounds are applied by the caller."""
    valid = values.is_valid().to_numpy(zero_copy_only=False)
    positions = np.flatnonzero(valid)  # the non-null rows, ascending
    before = np.concatenate([[0], np.cumsum(valid)])  # non-null rows in [0, i)
    if shift < 0:
        which = before[layout.index] + shift  # the (-shift)-th non-null before row i
    else:
        which = before[layout.index + 1] + shift - 1  # the shift-th non-null after row i
    found = (which >= 0) & (which < len(positions))
    return np.where(found, positions[np.clip(which, 0, max(len(positions) - 1, 0))] if len(positions) else -1, -1)


def _nth_value(function: NthValue, frame: WindowFrame, batch: pa.RecordBatch, layout: _Layout,
               order: SortOrder | None, ctx: EvalContext) -> pa.Array:
    rows = layout.rows
    values = as_array(function.input.eval(batch, ctx), rows)
    lo, hi = _frame_bounds(frame, layout, order)
    if function.ignore_nulls:
        # The n-th non-null at or after lo: prefix counts of non-nulls, searched.
        counted = np.concatenate([[0], np.cumsum(values.is_valid().to_numpy(zero_copy_only=False))])
        target = np.searchsorted(counted, counted[lo] + function.offset, "left") - 1
    else:
        target = lo + function.offset - 1
    inside = target < hi
    taken = values.take(pa.array(np.where(inside, np.minimum(target, max(rows - 1, 0)), 0), pa.int64()))
    return pc.if_else(pa.array(inside), taken, pa.nulls(rows, values.type))


def _frame_bounds(frame: WindowFrame, layout: _Layout, order: SortOrder | None) -> tuple[np.ndarray, np.ndarray]:
    """Each row's frame as ``[lo, hi)`` row indices within its partition."""
    start, end, index = layout.part_start, layout.part_end, layout.index
    if frame.kind == "rows":
        lo = start if frame.lower is None else np.clip(index + int(offset_value(frame.lower)), start, end)
        hi = end if frame.upper is None else np.clip(index + int(offset_value(frame.upper)) + 1, start, end)
        return lo, np.maximum(hi, lo)
    if frame.lower in (None, 0) and frame.upper in (None, 0):
        lo = start if frame.lower is None else layout.peer_start
        hi = end if frame.upper is None else layout.peer_end
        return lo, hi
    assert order is not None  # WindowExpression.check: one numeric ordering for value offsets
    return _range_bounds(frame, layout, order)


def _range_bounds(frame: WindowFrame, layout: _Layout, order: SortOrder) -> tuple[np.ndarray, np.ndarray]:
    values = layout.orders[0]
    nulls = values.is_null().to_numpy(zero_copy_only=False)
    if frame.has_intervals:
        # Interval offsets over a timestamp (microseconds) or date (days) ordering: both in
        # microseconds, exact in a double for any timestamp of years 0001-9999.
        if pa.types.is_date(values.type):
            values = pc.multiply(values.cast(pa.int32()).cast(pa.int64()), 86_400_000_000)
        else:
            values = values.cast(pa.int64())
    # Searching by sign * value: the rows are sorted ascending by it, whichever the direction.
    sign = 1.0 if order.ascending else -1.0
    numbers = sign * pc.fill_null(values.cast(pa.float64()), 0.0).to_numpy(zero_copy_only=False)
    lo = layout.part_start.copy() if frame.lower is None else layout.peer_start.copy()
    hi = layout.part_end.copy() if frame.upper is None else layout.peer_end.copy()
    for first in np.flatnonzero(layout.part_opens):
        last = layout.part_end[first]
        valid = np.flatnonzero(~nulls[first:last]) + first
        if not len(valid):
            continue  # only nulls: each row's frame is its peers (or the partition, unbounded)
        keys = numbers[valid]
        if frame.lower is not None:
            lo[valid] = valid[0] + np.searchsorted(keys, keys + offset_value(frame.lower), "left")
        if frame.upper is not None:
            hi[valid] = valid[0] + np.searchsorted(keys, keys + offset_value(frame.upper), "right")
    return lo, np.maximum(hi, lo)


def _aggregate(function: AggregateFunction, frame: WindowFrame, table: pa.Table, layout: _Layout,
               order: SortOrder | None, ctx: EvalContext) -> pa.Array:
    lo, hi = _frame_bounds(frame, layout, order)
    unique, which = np.unique(np.stack([lo, hi], axis=1), axis=0, return_inverse=True)
    nothing = AggregateSpec([], [function], table.schema)
    empty = nothing.final(None, ctx)
    assert empty is not None
    over_nothing = empty.column(column_key(nothing.agg_attrs[0].expr_id))[0]
    filled = unique[:, 1] > unique[:, 0]
    if not filled.any():
        return pa.repeat(over_nothing, layout.rows)
    frames = np.flatnonzero(filled)
    starts, ends = unique[frames, 0], unique[frames, 1]
    # Made in a worker: a new expression id could be one of the input's; no attribute's id is negative.
    spec = AggregateSpec([AttributeReference("__frame", LongType(), False, _FRAME_ID)], [function], table.schema)
    if int((ends - starts).sum()) <= _EXPLODE_FACTOR * table.num_rows + _EXPLODE_ROWS:
        done = _by_rows(spec, table, starts, ends, ctx)
    else:
        done = _by_blocks(spec, table, starts, ends, ctx)
    found = done.column(column_key(spec.key_attrs[0].expr_id)).to_numpy()
    values = done.column(column_key(spec.agg_attrs[0].expr_id)).combine_chunks()
    position = np.full(len(unique), -1, dtype=np.int64)
    position[frames[found]] = np.arange(len(found))
    results = values.take(pa.array(np.maximum(position, 0), pa.int64()))
    if (position < 0).any():  # empty frames
        results = pc.if_else(pa.array(position >= 0), results, pa.repeat(over_nothing, len(unique)))
    return results.take(pa.array(which.reshape(-1), pa.int64()))


def _spans(starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows of consecutive spans, and the index of the span each belongs to."""
    total = int(lengths.sum())
    owner = np.repeat(np.arange(len(starts)), lengths)
    rows = np.repeat(starts, lengths) + (np.arange(total) - np.repeat(np.cumsum(lengths) - lengths, lengths))
    return rows, owner


def _labelled(table: pa.Table, rows: np.ndarray, labels: np.ndarray) -> pa.Table:
    return table.take(pa.array(rows, pa.int64())).append_column(column_key(_FRAME_ID), pa.array(labels, pa.int64()))


def _by_rows(spec: AggregateSpec, table: pa.Table, starts: np.ndarray, ends: np.ndarray,
             ctx: EvalContext) -> pa.Table:
    """Each frame's rows, labelled with the frame, aggregated in the function's two phases."""
    rows, owner = _spans(starts, ends - starts)
    done = spec.final(spec.partial(_labelled(table, rows, owner), ctx), ctx)
    assert done is not None
    return done


def _by_blocks(spec: AggregateSpec, table: pa.Table, starts: np.ndarray, ends: np.ndarray,
               ctx: EvalContext) -> pa.Table:
    """Frames cut into the aligned power-of-two blocks of a segment tree over the rows: each
    needed block is aggregated once (partial phase), and each frame merges its few blocks
    (at most two a level), left to right so that order-sensitive functions see rows in order.
    A running sum over n rows costs n log n rows aggregated instead of n^2 / 2."""
    leaves = 1 << max(0, (table.num_rows - 1).bit_length())
    left, right = starts + leaves, ends + leaves
    ids = np.arange(len(starts))
    pair_frames: list[np.ndarray] = []
    pair_nodes: list[np.ndarray] = []
    while True:
        active = left < right
        if not active.any():
            break
        take_left = active & (left % 2 == 1)
        pair_frames.append(ids[take_left])
        pair_nodes.append(left[take_left])
        left = left + take_left
        take_right = active & (right % 2 == 1)
        right = right - take_right
        pair_frames.append(ids[take_right])
        pair_nodes.append(right[take_right])
        left, right = left // 2, right // 2
    frames, nodes = np.concatenate(pair_frames), np.concatenate(pair_nodes)
    height = int(leaves).bit_length() - 1 - np.floor(np.log2(nodes)).astype(np.int64)
    node_start = (nodes << height) - leaves
    order = np.lexsort((node_start, frames))
    frames, nodes = frames[order], nodes[order]
    needed, slot = np.unique(nodes, return_inverse=True)
    needed_height = int(leaves).bit_length() - 1 - np.floor(np.log2(needed)).astype(np.int64)
    rows, owner = _spans((needed << needed_height) - leaves, np.left_shift(1, needed_height))
    partial = spec.partial(_labelled(table, rows, owner), ctx)
    key = column_key(spec.key_attrs[0].expr_id)
    where = np.empty(len(needed), dtype=np.int64)
    where[partial.column(key).to_numpy()] = np.arange(partial.num_rows)
    picked = partial.take(pa.array(where[slot.reshape(-1)], pa.int64()))
    picked = picked.set_column(picked.column_names.index(key), key, pa.array(frames, pa.int64()))
    return spec.finish(spec.merge(picked), ctx)


def compute_windows(table: pa.Table, window_exprs: Sequence[Alias], partition_by: Sequence[Expression],
                    order_by: Sequence[SortOrder], names: Sequence[str], ctx: EvalContext) -> pa.RecordBatch:
    """``table``'s rows sorted by (keys, orderings), with one column per window expression.

    Parameters
    ----------
    table : pyarrow.Table
        One partition's rows: every row of each of its window partitions.
    window_exprs : sequence of Alias
        Aliases of :class:`WindowExpression` s sharing ``partition_by`` and ``order_by``.
    partition_by, order_by : sequence of Expression
    names : sequence of str
        The output column names: ``table``'s, then one per window expression.
    ctx : EvalContext
    """
    keys = [SortOrder(p) for p in partition_by] + list(order_by)
    key_table, sort_keys = sort_key_table(table, keys, ctx)
    table = table.take(sort_indices(key_table, sort_keys)) if table.num_rows > 1 else table
    batch = table_as_batch(table)
    layout = _Layout(batch, partition_by, order_by, ctx)
    first_order = order_by[0] if order_by else None
    columns = list(batch.columns)
    for alias in window_exprs:
        window = alias.child
        assert isinstance(window, WindowExpression)
        function = window.function
        if isinstance(function, OffsetFunction):
            values = _offset(function, batch, layout, ctx)
        elif isinstance(function, NthValue):
            values = _nth_value(function, window.resolved_frame(), batch, layout, first_order, ctx)
        elif isinstance(function, AggregateFunction):
            values = _aggregate(function, window.resolved_frame(), table, layout, first_order, ctx)
        else:
            values = _ranking(function, layout)
        columns.append(values)
    return pa.RecordBatch.from_arrays(columns, names=list(names))


def _window_partition(batches: Iterator[pa.RecordBatch], window_exprs: list[Alias], partition_by: list[Expression],
                      order_by: list[SortOrder], names: list[str], ctx: EvalContext) -> Iterator[pa.RecordBatch]:
    table = concat_batches(batches)
    if table is None or table.num_rows == 0:
        return
    yield compute_windows(table, window_exprs, partition_by, order_by, names, ctx)


class WindowExec(PhysicalPlan):
    """``Window [exprs], [keys], [orders]`` over a child exchanged on the keys."""

    def __init__(self, window_exprs: Sequence[Alias], partition_by: Sequence[Expression],
                 order_by: Sequence[Expression], child: PhysicalPlan) -> None:
        self.window_exprs = list(window_exprs)
        self.partition_by = list(partition_by)
        self.order_by = [o if isinstance(o, SortOrder) else SortOrder(o) for o in order_by]
        self.children = (child,)
        self.output = list(child.output) + [e.to_attribute() for e in self.window_exprs]

    def execute(self, qctx: QueryContext) -> Any:
        run = functools.partial(_window_partition, window_exprs=self.window_exprs, partition_by=self.partition_by,
                                order_by=self.order_by, names=key_names(self.output), ctx=qctx.eval_ctx)
        return self.child.execute(qctx).mapPartitions(run)

    def describe(self) -> str:
        exprs = ", ".join(f"{e.child.sql()} AS {e.name}#{e.expr_id}" for e in self.window_exprs)
        keys = ", ".join(expr_text(p) for p in self.partition_by)
        orders = ", ".join(expr_text(o) for o in self.order_by)
        return f"Window [{exprs}], [{keys}], [{orders}]"

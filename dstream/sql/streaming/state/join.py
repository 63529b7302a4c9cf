"""Stream-stream joins: Spark's symmetric hash join, each side's past rows kept in state.

What this module owns
---------------------
:class:`StreamingSymmetricHashJoinExec` and its planner, for a ``Join`` whose two
sides read streams (a stream joined with static data is left to the batch planner:
each micro-batch joins its rows with the static side). Both sides are hash-exchanged
on the equi-join keys into the pinned number of state partitions; in each partition

1. the left side's new rows lose those behind the watermark for late rows (on the
   side's watermarked column), counted in ``numRowsDroppedByWatermark``; rows failing
   the condition's left-only terms can never match: a left outer (full outer) join
   emits them at once with nulls, other joins drop them;
2. each remaining left row probes the right side's state by its key; the condition's
   other terms are evaluated on the candidate pairs; matched pairs are emitted and the
   matched state rows flagged ``matched``; then the left rows are added to the left
   state with their own flag (a left semi join emits a matched left row once and does
   not store it);
3. the right side's new rows do the same against the left state, which now holds the
   new left rows, so each new x new pair is emitted exactly once; a right row the
   eviction below would drop at once is not stored, unless an outer join must emit it
   unmatched (a left semi join emits each left row at its first match only);
4. after all the matched output, state is evicted with the eviction watermark ``W``:
   by the equi-key holding a watermarked column or window (a key whose time is ``<=
   W`` goes, on both sides), else per side by the state value watermark the condition
   and the other side's watermark give (see :mod:`.join_bounds`). The preserved side of
   an outer join emits each evicted row that never matched, padded with nulls;
5. the four stores are committed and the metrics reported (``symmetricHashJoin``).

State layout (per partition)
----------------------------
Store ``left`` maps ``(*key, i) -> [*row values, matched]`` for ``i`` in
``0 .. n-1``, and store ``left-index`` maps ``key -> n``; likewise ``right`` and
``right-index``. Probing a key reads its ``n`` rows (cost: the matches); a removal
moves the key's later rows down. Eviction scans the index (and, by value, the rows),
as Spark's does.

Invariants
----------
* A key with a null in a position compared with ``=`` (not ``<=>``) matches nothing;
  such rows are stored only on a side whose unmatched rows an outer join emits.
* Supported: inner (and cross with equi-keys), left outer, right outer, full outer and
  left semi joins, in append mode (:mod:`..checks` refuses the rest at start).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from rdd import TaskContext

from ...arrow_convert import to_arrow_type
from ...errors import AnalysisException
from ...execution.arrays import concat_batches, table_as_batch
from ...execution.context import QueryContext
from ...execution.exchange import ShuffleExchangeExec
from ...execution.joins import join_sources
from ...execution.physical import PhysicalPlan, arrow_schema, as_array, expr_text, key_names
from ...execution.planner import plan_physical
from ...expressions.base import AttributeReference, EvalContext, Expression, column_key
from ...plan.logical import Join, LogicalPlan
from ..incremental import MicroBatchPlanner, register_stateful
from ..relation import reads_stream
from ..watermark import event_time_us
from .dedup import state_key
from .join_bounds import join_parts, key_watermark_ordinal, state_watermarks, watermarked_columns
from .propagation import input_watermark_ms, operator_watermarks
from .rows import RowCodec
from .store import StateLocation

__all__ = ["StreamingSymmetricHashJoinExec"]

_SUPPORTED = ("inner", "left_outer", "right_outer", "full_outer", "left_semi")
#: A state cleanup rule: ("key", key position, µs) or ("value", column position, µs); ``<=`` goes.
_Predicate = tuple[str, int, int]


def _time_us(value: Any) -> int | None:
    """A stored timestamp (µs) or window's end."""
    if value is None:
        return None
    if isinstance(value, list | tuple):
        return None if value[1] is None else int(value[1])
    return int(value)


class _Side:
    """One side of the join as its tasks see it (shipped with every task)."""

    def __init__(self, name: str, output: Sequence[AttributeReference], keys: Sequence[Expression],
                 pre_filter: Expression | None, late_column: AttributeReference | None, preserved: bool,
                 predicate: _Predicate | None) -> None:
        self.name = name
        self.names = key_names(output)
        self.schema = arrow_schema(output)
        self.codec = RowCodec([f.type for f in self.schema])
        self.keys = list(keys)
        self.key_codec = RowCodec([to_arrow_type(k.data_type()) for k in self.keys])
        self.pre_filter = pre_filter
        self.late_name = None if late_column is None else column_key(late_column.expr_id)
        self.preserved = preserved
        self.predicate = predicate

    def table(self, values: Sequence[Sequence[Any]]) -> pa.Table:
        """Stored rows as a table of this side's columns."""
        return pa.Table.from_arrays(self.codec.to_arrays(values), schema=self.schema)

    def evicts(self, key: tuple[Any, ...], values: Sequence[Any]) -> bool:
        """Whether the cleanup rule drops a row of ``key`` with ``values``."""
        if self.predicate is None:
            return False
        kind, position, bound = self.predicate
        t = _time_us(key[position] if kind == "key" else values[position])
        return t is not None and t <= bound


class _SideState:
    """One side's stored rows in one partition (see the module docstring for the layout)."""

    def __init__(self, rows: Any, index: Any) -> None:
        self.rows = rows
        self.index = index

    def get(self, key: tuple[Any, ...]) -> list[Any]:
        n = self.index.get(key) or 0
        return [self.rows.get((*key, i)) for i in range(n)]

    def append(self, key: tuple[Any, ...], values: Sequence[Any], matched: bool) -> None:
        n = self.index.get(key) or 0
        self.rows.put((*key, n), [*values, matched])
        self.index.put(key, n + 1)

    def mark(self, key: tuple[Any, ...], position: int, stored: Sequence[Any]) -> None:
        self.rows.put((*key, position), [*stored[:-1], True])

    def evict(self, side: _Side) -> list[Any]:
        """Remove the rows the side's cleanup rule drops; the removed rows."""
        if side.predicate is None:
            return []
        kind, position, bound = side.predicate
        gone: list[Any] = []
        for key, n in self.index.items():
            keep: list[Any] = []
            if kind == "key":
                t = _time_us(key[position])
                if t is None or t > bound:
                    continue
                stored = self.get(key)
                gone += stored
            else:
                stored = self.get(key)
                before = len(gone)
                for v in stored:
                    t = _time_us(v[position])
                    (keep if t is None or t > bound else gone).append(v)
                if len(gone) == before:
                    continue
            for i, v in enumerate(keep):
                if stored[i] is not v:
                    self.rows.put((*key, i), v)
            for i in range(len(keep), n):
                self.rows.remove((*key, i))
            if keep:
                self.index.put(key, len(keep))
            else:
                self.index.remove(key)
        return gone


class _JoinTask:
    """What a task of the join needs: both sides, the condition, the output layout, the stores."""

    def __init__(self, how: str, left: _Side, right: _Side, null_safe: Sequence[bool], both: Expression | None,
                 output: Sequence[AttributeReference], sources: Sequence[tuple[str, ...]], planner: MicroBatchPlanner,
                 operator_id: int, late_us: int | None, accumulator: Any) -> None:
        info = planner.info
        self.how = how
        self.left, self.right = left, right
        self.null_safe = list(null_safe)
        self.both = both
        self.out_schema = arrow_schema(output)
        self.sources = list(sources)
        self.operator_id = operator_id
        self.location = StateLocation.of(info, operator_id)
        self.late_us = late_us
        self.accumulator = accumulator

    # -- output -----------------------------------------------------------------------

    def _assemble(self, left: pa.Table | None, right: pa.Table | None, n: int) -> pa.RecordBatch:
        def column(table: pa.Table | None, side: _Side, name: str) -> pa.Array:
            if table is None:
                return pa.nulls(n, side.schema.field(name).type)
            return table.column(name).combine_chunks()
        arrays = []
        for field, source in zip(self.out_schema, self.sources):
            if source[0] == "L":
                arr = column(left, self.left, source[1])
            elif source[0] == "R":
                arr = column(right, self.right, source[1])
            else:
                arr = pc.coalesce(column(left, self.left, source[1]), column(right, self.right, source[2]))
            arrays.append(arr if arr.type == field.type else arr.cast(field.type))
        return pa.RecordBatch.from_arrays(arrays, schema=self.out_schema)

    # -- one side's new rows ----------------------------------------------------------

    def _side_rows(self, this: _Side, table: pa.Table, ctx: EvalContext, out: list[pa.RecordBatch],
                   counts: dict[str, int]) -> tuple[pa.Table, list[tuple[Any, ...]], list[bool]]:
        """Late and one-side filtering; the rows left, their keys and whether each can match."""
        if self.late_us is not None and this.late_name is not None and table.num_rows:
            times = event_time_us(table.column(this.late_name).combine_chunks())
            keep = pc.fill_null(pc.greater(times, self.late_us), True)  # a null time is never late
            late = table.num_rows - pc.sum(keep.cast(pa.int64())).as_py()
            if late:
                counts["late"] += late
                table = table.filter(keep)
        if this.pre_filter is not None and table.num_rows:
            mask = pc.fill_null(as_array(this.pre_filter.eval(table_as_batch(table), ctx), table.num_rows)
                                .cast(pa.bool_()), False)
            failing = table.filter(pc.invert(mask))
            if failing.num_rows and this.preserved:
                out.append(self._assemble(failing, None, failing.num_rows) if this is self.left
                           else self._assemble(None, failing, failing.num_rows))
            table = table.filter(mask)
        if not table.num_rows:
            return table, [], []
        batch = table_as_batch(table)
        normal = state_key(this.key_codec.types)
        keys = [normal(k) for k in this.key_codec.to_rows(
            [as_array(k.eval(batch, ctx), batch.num_rows) for k in this.keys])]
        usable = [all(v is not None or safe for v, safe in zip(k, self.null_safe)) for k in keys]
        return table, keys, usable

    def _probe(self, this: _Side, other: _Side, table: pa.Table, mine: _SideState, theirs: _SideState,
               ctx: EvalContext, out: list[pa.RecordBatch], counts: dict[str, int]) -> None:
        table, keys, usable = self._side_rows(this, table, ctx, out, counts)
        if not keys:
            return
        is_left = this is self.left
        candidates: list[Any] = []
        refs: list[tuple[tuple[Any, ...], int]] = []
        blocks: dict[tuple[Any, ...], tuple[int, int]] = {}
        pair_this: list[int] = []
        pair_other: list[int] = []
        for i, key in enumerate(keys):
            if not usable[i]:
                continue
            block = blocks.get(key)
            if block is None:
                start = len(candidates)
                for position, stored in enumerate(theirs.get(key)):
                    candidates.append(stored)
                    refs.append((key, position))
                block = blocks[key] = (start, len(candidates))
            for j in range(*block):
                pair_this.append(i)
                pair_other.append(j)
        other_table = other.table(candidates)
        this_idx = pa.array(pair_this, pa.int64())
        other_idx = pa.array(pair_other, pa.int64())
        if self.both is not None and pair_this:
            cols = {n: table.column(n).take(this_idx) for n in this.names}
            cols.update({n: other_table.column(n).take(other_idx) for n in other.names})
            mask = as_array(self.both.eval(table_as_batch(pa.table(cols)), ctx), len(pair_this))
            keep = pc.fill_null(mask.cast(pa.bool_()), False)
            this_idx, other_idx = this_idx.filter(keep), other_idx.filter(keep)
        this_hits = this_idx.to_pylist()
        other_hits = other_idx.to_pylist()
        matched_rows = set(this_hits)
        first_time = [j for j in dict.fromkeys(other_hits) if not candidates[j][-1]]
        for j in first_time:
            key, position = refs[j]
            theirs.mark(key, position, candidates[j])
        if self.how == "left_semi":
            if is_left:
                picks = sorted(matched_rows)
                if picks:
                    out.append(self._assemble(table.take(pa.array(picks, pa.int64())), None, len(picks)))
            elif first_time:
                out.append(self._assemble(other_table.take(pa.array(first_time, pa.int64())), None, len(first_time)))
        elif this_hits:
            here, there = table.take(this_idx), other_table.take(other_idx)
            out.append(self._assemble(here, there, len(this_hits)) if is_left
                       else self._assemble(there, here, len(this_hits)))
        values = this.codec.to_rows([table.column(n) for n in this.names])
        outer_here = this.preserved
        for i, key in enumerate(keys):
            matched = i in matched_rows
            if not usable[i] and not outer_here:
                continue
            if is_left:
                store = not (self.how == "left_semi" and matched)
            else:
                store = not this.evicts(key, values[i]) or (outer_here and not matched)
            if store:
                mine.append(key, values[i], matched)
                counts["updated"] += 1

    # -- a partition ------------------------------------------------------------------

    def run(self, split: int, left_batches: Iterator[pa.RecordBatch], right_batches: Iterator[pa.RecordBatch],
            ctx: EvalContext) -> list[pa.RecordBatch]:
        started = time.perf_counter()
        left_table = concat_batches(left_batches, self.left.schema)
        right_table = concat_batches(right_batches, self.right.schema)
        assert left_table is not None and right_table is not None
        stores = [self.location.open(split, name) for name in ("left", "left-index", "right", "right-index")]
        try:
            return self._process(stores, left_table, right_table, started, ctx)
        except BaseException:
            for store in stores:
                store.abort()
            raise

    def _process(self, stores: list[Any], left_table: pa.Table, right_table: pa.Table, started: float,
                 ctx: EvalContext) -> list[pa.RecordBatch]:
        left_state, right_state = _SideState(stores[0], stores[1]), _SideState(stores[2], stores[3])
        out: list[pa.RecordBatch] = []
        counts = {"late": 0, "updated": 0}
        self._probe(self.left, self.right, left_table, left_state, right_state, ctx, out, counts)
        self._probe(self.right, self.left, right_table, right_state, left_state, ctx, out, counts)
        update_ms = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        removed = 0
        # Evicted rows are emitted only now, after every matched row of the batch.
        for side, state in ((self.left, left_state), (self.right, right_state)):
            gone = state.evict(side)
            removed += len(gone)
            lonely = [v for v in gone if not v[-1]] if side.preserved else []
            if lonely:
                table = side.table(lonely)
                out.append(self._assemble(table, None, len(lonely)) if side is self.left
                           else self._assemble(None, table, len(lonely)))
        removal_ms = (time.perf_counter() - started) * 1000
        for store in stores:
            store.commit()
        metrics = [s.metrics() for s in stores]
        self.accumulator.add({
            "numRowsTotal": len(stores[0]) + len(stores[2]), "numRowsUpdated": counts["updated"],
            "numRowsRemoved": removed, "numRowsDroppedByWatermark": counts["late"],
            "memoryUsedBytes": sum(int(m.get("memoryUsedBytes", 0)) for m in metrics),
            "allUpdatesTimeMs": int(update_ms), "allRemovalsTimeMs": int(removal_ms),
            "commitTimeMs": sum(int(m.get("commitTimeMs", 0)) for m in metrics), "numStateStoreInstances": 4})
        return [b for b in out if b.num_rows]


def _run_partition(task: _JoinTask, ctx: EvalContext, left: Iterator[pa.RecordBatch],
                   right: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    # Module-level: a task pickles it by reference, not by value in every batch.
    context = TaskContext.get()
    if context is None:
        raise RuntimeError("a stream-stream join task runs without a TaskContext: its partition (and so its state) "
                           "is unknown")
    yield from task.run(context.partitionId(), left, right, ctx)


class StreamingSymmetricHashJoinExec(PhysicalPlan):
    """The join of two streams (children hash-exchanged alike on the keys)."""

    def __init__(self, task: _JoinTask, output: Sequence[AttributeReference], left: PhysicalPlan,
                 right: PhysicalPlan) -> None:
        self.task = task
        self.children = (left, right)
        self.output = list(output)

    def execute(self, qctx: QueryContext) -> Any:
        lhs, rhs = self.children
        run = functools.partial(_run_partition, self.task, qctx.eval_ctx)
        return lhs.execute(qctx).zipPartitions(rhs.execute(qctx), f=run)

    def describe(self) -> str:
        task = self.task
        keys_l = ", ".join(expr_text(k) for k in task.left.keys)
        keys_r = ", ".join(expr_text(k) for k in task.right.keys)
        cond = "" if task.both is None else f", condition = [ {expr_text(task.both)} ]"
        return (f"StreamingSymmetricHashJoin [{keys_l}], [{keys_r}], {task.how}{cond}, state info "
                f"[ operatorId = {task.operator_id} ], state cleanup [ left {task.left.predicate}, right "
                f"{task.right.predicate} ]")


def _plan_join(plan: LogicalPlan, qctx: QueryContext, planner: MicroBatchPlanner) -> PhysicalPlan | None:
    assert isinstance(plan, Join)
    if not (reads_stream(plan.left) and reads_stream(plan.right)):
        return None
    how = "inner" if plan.how == "cross" else plan.how
    parts = join_parts(plan)
    if how not in _SUPPORTED:
        raise AnalysisException(f"Join type {how} is not supported between two streaming DataFrames/Datasets: use "
                                f"one of {', '.join(_SUPPORTED)}.")
    if not parts.left_keys:
        raise AnalysisException("Stream-stream join without equality predicate is not supported: join the two "
                                "streams on at least one column equal on both sides.")
    operator_id = planner.next_operator_id()
    left, right = plan_physical(plan.left, qctx), plan_physical(plan.right, qctx)
    info = planner.info
    lw, rw = watermarked_columns(plan.left), watermarked_columns(plan.right)
    lw_ids, rw_ids = {a.expr_id for a in lw}, {a.expr_id for a in rw}
    ordinal = key_watermark_ordinal(parts.left_keys, parts.right_keys, lw_ids, rw_ids)
    late_ms, watermark_ms = operator_watermarks(plan, info)

    left_bound, right_bound = state_watermarks(plan, watermark_ms)

    def cleanup(this: Sequence[AttributeReference], marks: list[AttributeReference],
                bound: int | None) -> _Predicate | None:
        if bound is None:
            return None
        if ordinal is not None:
            return ("key", ordinal, bound * 1000)
        return ("value", [a.expr_id for a in this].index(marks[0].expr_id), bound * 1000)
    lpred = cleanup(left.output, lw, left_bound)
    rpred = cleanup(right.output, rw, right_bound)
    left_side = _Side("left", left.output, parts.left_keys, parts.left_only, lw[0] if lw else None,
                      how in ("left_outer", "full_outer"), lpred)
    right_side = _Side("right", right.output, parts.right_keys, parts.right_only, rw[0] if rw else None,
                       how in ("right_outer", "full_outer"), rpred)

    def needs_batch(new_watermark_ms: int) -> bool:
        return (lpred is not None or rpred is not None) and input_watermark_ms(plan, new_watermark_ms) > watermark_ms
    partitions = info.state_partitions
    op = info.operator(operator_id, "symmetricHashJoin", needs_batch, partitions)
    output = plan.output()
    late_us = late_ms * 1000 if info.has_watermark else None
    task = _JoinTask(how, left_side, right_side, parts.null_safe, parts.both, output,
                     join_sources(output, left.output, right.output, plan.using), planner, operator_id, late_us,
                     op.accumulator)
    return StreamingSymmetricHashJoinExec(
        task, output, ShuffleExchangeExec("hash", parts.left_keys, partitions, left),
        ShuffleExchangeExec("hash", parts.right_keys, partitions, right))


register_stateful(Join, _plan_join)

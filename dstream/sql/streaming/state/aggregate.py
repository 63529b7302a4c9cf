"""Streaming aggregation: ``groupBy(...).agg(...)`` over a stream, with its state.

What this module owns
---------------------
The planner and the state operator (run by :class:`~.finish.StateOperatorExec`). The plan is Spark's: partial
aggregation in the map tasks, a hash exchange on the grouping keys into the pinned
number of state partitions, then in each partition the state operator, which

1. merges the batch's partial buffers of each key into one row;
2. drops keys already behind the watermark for late rows (append and update modes,
   when a grouping key carries a watermarked event time), counting them in
   ``numRowsDroppedByWatermark``;
3. merges the remaining keys' buffers into the state (an Arrow table of one row of
   buffers per key, :mod:`.arrow_state`; an average is kept as a sum and a count) with
   one Arrow group-by, which also tells the keys the batch touched;
4. emits by output mode: **complete** every key in the state; **update** the keys
   this batch touched, then removes without emitting the keys behind the eviction
   watermark; **append** nothing for touched keys, then emits and removes the keys
   behind the eviction watermark, so each window appears once, when it is final;
5. commits the state (version N read, N+1 written: the touched rows and the removed
   keys as a delta file) and reports its metrics.

Invariants
----------
* A key is behind a watermark ``w`` (milliseconds) when its event time, or its
  window's end, is ``<= w``: the comparison is inclusive, as Spark's.
* Without grouping keys the state has one row, and one row is emitted in complete and
  update modes even for a batch without input.
* No step works on a key in Python: merging, eviction and emission are Arrow kernels
  over the whole partition (a batch costs O(state) in compiled code, as a complete-mode
  emission must anyway).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ...execution.aggregate import AggregateSpec, PartialAggregateExec, collect_aggregates
from ...execution.arrays import concat_batches, constant
from ...execution.context import QueryContext
from ...execution.exchange import ShuffleExchangeExec
from ...execution.physical import PhysicalPlan, arrow_schema, key_names
from ...execution.planner import plan_physical
from ...expressions.base import AttributeReference
from ...plan.logical import Aggregate, LogicalPlan
from ...plan.windowing import SessionWindowAssign
from ..incremental import MicroBatchPlanner, register_stateful
from ..relation import reads_stream
from ..watermark import event_time_columns, event_time_us
from . import residency
from .arrow_state import AggregationState, memory_bytes
from .finish import StateOperatorExec
from .propagation import input_watermark_ms, operator_watermarks
from .session_window import plan_session_aggregate
from .store import StateLocation

__all__: list[str] = []


class _Operator:
    """What a task of the state operator needs (small: shipped with every task)."""

    def __init__(self, spec: AggregateSpec, planner: MicroBatchPlanner, operator_id: int, time_key: int | None,
                 watermarks: tuple[int, int], accumulator: Any) -> None:
        info = planner.info
        self.spec = spec
        self.operator_id = operator_id
        self.location = StateLocation.of(info, operator_id)
        self.mode = info.output_mode
        self.time_key = time_key
        watermarked = info.has_watermark and time_key is not None and self.mode != "complete"
        self.late_us = watermarks[0] * 1000 if watermarked else None
        self.evict_us = watermarks[1] * 1000 if watermarked else None
        self.accumulator = accumulator
        self.key_names = key_names(spec.key_attrs)
        self.buffer_names = [f"b{fi}_{j}" for fi, f in enumerate(spec.functions) for j in range(len(f.merge_aggs()))]

    def run(self, split: int, batches: Iterator[pa.RecordBatch], ctx: Any) -> pa.Table | None:
        spec = self.spec
        incoming = concat_batches(batches)
        if not spec.grouping and (incoming is None or not incoming.num_rows):
            # Every batch updates the one global row, as Spark's: one without rows (or whose
            # rows were all filtered away) merges a row of empty buffers, so the row is
            # emitted in update mode too, with its initial values on the first batch.
            incoming = spec.merge(incoming if incoming is not None else
                                  spec.partial(spec.input_schema.empty_table(), ctx))
        merged = incoming if incoming is not None and incoming.num_rows else None
        layout = self._layout(ctx)
        where = self.location
        where.note_resident()
        state = AggregationState(where.store_id(split), where.version, where.run_id, where.conf, layout,
                                 self.key_names)
        dropped = 0
        if merged is not None and self.late_us is not None and self.time_key is not None:
            started = time.perf_counter()
            fused = self._merge_dropping_late(state.table, merged, layout)
            if fused is not None:
                table, upserted, dropped = fused
                return self._evict_and_commit(state, table, upserted, dropped, layout,
                                              (time.perf_counter() - started) * 1000)
            # Late rows are counted per group (after the map side's partial aggregation,
            # as Spark counts them), so the partial rows of a group are merged first.
            merged = spec.merge(merged)
            times = event_time_us(merged.column(self.key_names[self.time_key]).combine_chunks())
            keep = pc.fill_null(pc.greater(times, self.late_us), False)
            dropped = merged.num_rows - pc.sum(keep.cast(pa.int64())).as_py()
            if dropped:
                merged = merged.filter(keep)
        return self._update(state, None if merged is None else merged.cast(layout.schema), dropped, layout)

    def _merge_dropping_late(self, table: pa.Table, incoming: pa.Table,
                             layout: pa.Table) -> tuple[pa.Table, pa.Table, int] | None:
        """The state merged with the batch's partial rows minus the late groups, in one grouping.

        The general path merges the batch's rows per group (to count the late groups), drops
        the late ones, then merges the rest into the state: two groupings. Here the state and
        the batch's rows are merged together, each group flagged as touched by the batch and
        as present in the state; a late group is one the batch touched whose time is at or
        before the late watermark. Merging is associative, so dropping those groups after the
        merge gives the same rows, as long as no late group was also in the state (its state
        row would have been dropped with it): then, or when the batch's buffers are not in the
        state's types already, ``None`` sends the batch down the general path.

        Returns ``(new state table, upserted groups, number of late groups dropped)``.
        """
        if self.time_key is None or [f.type for f in incoming.schema] != [f.type for f in layout.schema]:
            return None
        incoming = incoming.rename_columns(layout.column_names)
        both = pa.concat_tables([_flagged(table, 0), _flagged(incoming, 1)])
        combined = self.spec.merge(both, extra=[(_TOUCHED, "max"), (_STORED, "max")])
        touched = pc.equal(combined.column(_TOUCHED), 1)
        times = event_time_us(combined.column(self.key_names[self.time_key]).combine_chunks())
        late = pc.and_(touched, pc.fill_null(pc.less_equal(times, self.late_us), True))
        dropped = pc.sum(late.cast(pa.int64())).as_py() or 0
        if dropped and pc.any(pc.and_(late, pc.equal(combined.column(_STORED), 1))).as_py():
            return None
        merged = combined.drop_columns([_TOUCHED, _STORED])
        if merged.schema != layout.schema:
            merged = merged.cast(layout.schema)
        if dropped:
            keep = pc.invert(late)
            merged, touched = merged.filter(keep), touched.filter(keep)
        return merged, merged.filter(touched), dropped

    def _layout(self, ctx: Any) -> pa.Table:
        """An empty table of the state's columns: the keys, then the merged buffers."""
        key = (self.location.root, self.operator_id, self.location.run_id)
        layout = _LAYOUTS.get(key)
        if layout is None:
            # Two groupings of nothing: worth doing once per run, not once per batch.
            spec = self.spec
            layout = spec.merge(spec.partial(spec.input_schema.empty_table(), ctx)).slice(0, 0)
            _LAYOUTS[key] = layout
        return layout.rename_columns(self.key_names + self.buffer_names)

    def _update(self, state: AggregationState, merged: pa.Table | None, dropped: int,
                layout: pa.Table) -> pa.Table | None:
        started = time.perf_counter()
        table = state.table
        upserted = layout
        if merged is not None and merged.num_rows:
            both = pa.concat_tables([_flagged(table, 0), _flagged(merged, 1)])
            combined = self.spec.merge(both, extra=[(_TOUCHED, "max")])
            touched = pc.equal(combined.column(_TOUCHED), 1)
            table = combined.drop_columns([_TOUCHED]).cast(layout.schema)
            upserted = table.filter(touched)
        update_ms = (time.perf_counter() - started) * 1000
        return self._evict_and_commit(state, table, upserted, dropped, layout, update_ms)

    def _evict_and_commit(self, state: AggregationState, table: pa.Table, upserted: pa.Table, dropped: int,
                          layout: pa.Table, update_ms: float) -> pa.Table | None:
        started = time.perf_counter()
        evicted = layout
        if self.evict_us is not None and self.time_key is not None and table.num_rows:
            times = event_time_us(table.column(self.key_names[self.time_key]).combine_chunks())
            behind = pc.fill_null(pc.less_equal(times, self.evict_us), False)
            evicted = table.filter(behind)
            table = table.filter(pc.invert(behind))
        removal_ms = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        state.commit(table, upserted, evicted.select(self.key_names))
        commit_ms = (time.perf_counter() - started) * 1000
        self.accumulator.add({
            "numRowsTotal": table.num_rows, "numRowsUpdated": upserted.num_rows, "numRowsRemoved": evicted.num_rows,
            "numRowsDroppedByWatermark": dropped, "memoryUsedBytes": memory_bytes(table),
            "allUpdatesTimeMs": int(update_ms), "allRemovalsTimeMs": int(removal_ms), "commitTimeMs": int(commit_ms),
            "numStateStoreInstances": 1})
        if self.mode == "complete":
            return table
        if self.mode == "update":
            return upserted
        return evicted


#: (state root, operator id, run id) -> the state's empty layout, in this process.
_LAYOUTS: dict[tuple[str, int, str], pa.Table] = {}


def _forget_layouts(root: str, run_id: str) -> None:
    for key in [k for k in list(_LAYOUTS) if k[0] == root and k[2] == run_id]:
        _LAYOUTS.pop(key, None)


residency.on_release(_forget_layouts)

#: The merge's extra column telling the groups a batch touched (1) from the state's others (0).
_TOUCHED = "__touched"


#: The merge's extra column telling the groups the state held (1) from those only the batch has (0).
_STORED = "__stored"


def _flagged(table: pa.Table, flag: int) -> pa.Table:
    """``table`` with ``__touched = flag`` (1: the batch's rows) and ``__stored = 1 - flag`` (the state's)."""
    touched = constant(table.num_rows, flag, pa.int8())
    stored = constant(table.num_rows, 1 - flag, pa.int8())
    return table.append_column(_TOUCHED, touched).append_column(_STORED, stored)


def _plan_aggregate(plan: LogicalPlan, qctx: QueryContext, planner: MicroBatchPlanner) -> PhysicalPlan | None:
    assert isinstance(plan, Aggregate)
    if not reads_stream(plan.child):
        return None
    if isinstance(plan.child, SessionWindowAssign):
        return plan_session_aggregate(plan, qctx, planner)
    operator_id = planner.next_operator_id()
    child = plan_physical(plan.child, qctx)
    spec = AggregateSpec(plan.grouping, collect_aggregates(plan.aggregates), arrow_schema(child.output))
    columns = event_time_columns(plan.child)
    # The state's key columns follow the grouping: the watermarked one's position among all
    # of them, whatever the others are (an expression such as ``v % 3`` among them had
    # turned eviction off, and append mode emitted nothing).
    time_key = next((i for i, g in enumerate(plan.grouping)
                     if isinstance(g, AttributeReference) and g.expr_id in columns), None)
    info = planner.info
    partitions = info.state_partitions if spec.grouping else 1
    mode = info.output_mode
    watermarked = info.has_watermark and time_key is not None and mode != "complete"
    watermarks = operator_watermarks(plan, info)

    def needs_batch(new_watermark_ms: int) -> bool:
        return watermarked and input_watermark_ms(plan, new_watermark_ms) > watermarks[1]
    op = info.operator(operator_id, "stateStoreSave", needs_batch, partitions)
    operator = _Operator(spec, planner, operator_id, time_key, watermarks, op.accumulator)
    partial = PartialAggregateExec(spec, child)
    if spec.grouping:
        exchange = ShuffleExchangeExec("hash", spec.key_attrs, partitions, partial)
    else:
        exchange = ShuffleExchangeExec("single", [], 1, partial)
    return StateOperatorExec(operator, plan.aggregates, plan.output(), exchange, "StateStoreSave")


register_stateful(Aggregate, _plan_aggregate)

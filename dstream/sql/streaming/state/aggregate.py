"""Streaming aggregation: ``groupBy(...).agg(...)`` over a stream, with its state.

What this module owns
---------------------
:class:`StatefulAggregateExec` and its planner. The plan is Spark's: partial
aggregation in the map tasks, a hash exchange on the grouping keys into the pinned
number of state partitions, then in each partition the state operator, which

1. merges the batch's partial buffers of each key into one row;
2. drops keys already behind the watermark for late rows (append and update modes,
   when a grouping key carries a watermarked event time), counting them in
   ``numRowsDroppedByWatermark``;
3. merges each remaining key's buffers with the buffers its state holds and stores
   the result (the state holds *buffers*: an average is a sum and a count);
4. emits by output mode: **complete** every key in the state; **update** the keys
   this batch touched, then removes without emitting the keys behind the eviction
   watermark; **append** nothing for touched keys, then emits and removes the keys
   behind the eviction watermark, so each window appears once, when it is final;
5. commits the store (version N read, N+1 written) and reports its metrics.

Invariants
----------
* A key is behind a watermark ``w`` (milliseconds) when its event time, or its
  window's end, is ``<= w``: the comparison is inclusive, as Spark's.
* Without grouping keys the state has one row under the empty key, and one row is
  emitted in complete and update modes even for a batch without input.
* Python touches only the keys of the batch (and the whole state when complete mode
  emits it or a watermark evicts from it); merging buffers stays in Arrow.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ...execution.aggregate import AggregateSpec, PartialAggregateExec, collect_aggregates
from ...execution.arrays import concat_batches
from ...execution.context import QueryContext
from ...execution.exchange import ShuffleExchangeExec
from ...execution.physical import PhysicalPlan, arrow_schema, expr_text, key_names
from ...execution.planner import plan_physical
from ...expressions.base import AttributeReference, Expression
from ...plan.logical import Aggregate, LogicalPlan
from ...plan.windowing import SessionWindowAssign
from ..incremental import MicroBatchPlanner, register_stateful
from ..relation import reads_stream
from ..watermark import event_time_columns, event_time_us, key_event_time_index
from .collector import collector_paused
from .finish import run_and_finish
from .rows import RowCodec
from .session_window import plan_session_aggregate
from .store import StateStoreConf, StateStoreId, get_store

__all__ = ["StatefulAggregateExec", "key_time_us"]


def key_time_us(value: Any) -> int | None:
    """The event time (microseconds) of a stored key value: a timestamp, or a window's end."""
    if value is None:
        return None
    if isinstance(value, tuple):
        return value[1]
    return int(value)


class _Operator:
    """What a task of the state operator needs (small: shipped with every task)."""

    def __init__(self, spec: AggregateSpec, planner: MicroBatchPlanner, operator_id: int, time_key: int | None,
                 accumulator: Any) -> None:
        info = planner.info
        self.spec = spec
        self.operator_id = operator_id
        self.root = info.state_root
        self.version = info.batch_id
        self.run_id = info.run_id
        self.store_conf = StateStoreConf.from_conf(info.conf)
        self.mode = info.output_mode
        self.time_key = time_key
        watermarked = info.has_watermark and time_key is not None
        self.late_us = info.watermark_for_late_ms * 1000 if watermarked and self.mode != "complete" else None
        self.evict_us = info.watermark_for_eviction_ms * 1000 if watermarked and self.mode != "complete" else None
        self.accumulator = accumulator
        self.key_names = key_names(spec.key_attrs)
        self.buffer_names = [f"b{fi}_{j}" for fi, f in enumerate(spec.functions) for j in range(len(f.merge_aggs()))]

    def run(self, split: int, batches: Iterator[pa.RecordBatch], ctx: Any) -> pa.Table | None:
        spec = self.spec
        incoming = concat_batches(batches)
        if incoming is None and not spec.grouping:
            incoming = spec.partial(spec.input_schema.empty_table(), ctx)
        merged = spec.merge(incoming) if incoming is not None and incoming.num_rows else None
        dropped = 0
        if merged is not None and self.late_us is not None and self.time_key is not None:
            times = event_time_us(merged.column(self.key_names[self.time_key]).combine_chunks())
            keep = pc.fill_null(pc.greater(times, self.late_us), False)
            dropped = merged.num_rows - pc.sum(keep.cast(pa.int64())).as_py()
            if dropped:
                merged = merged.filter(keep)
        # Loading and updating the state allocates objects per key that mostly survive:
        # without the pause the collector rescans the whole state many times a batch.
        with collector_paused():
            store = get_store(StateStoreId(self.root, self.operator_id, split), self.version, self.run_id,
                              self.store_conf)
            try:
                out = self._update(store, merged, dropped, ctx)
            except BaseException:
                store.abort()
                raise
        return out

    def _codecs(self, table: pa.Table) -> tuple[RowCodec, RowCodec]:
        return (RowCodec([table.schema.field(n).type for n in self.key_names]),
                RowCodec([table.schema.field(n).type for n in self.buffer_names]))

    def _table(self, schema: pa.Schema, keys: RowCodec, values: RowCodec,
               items: Sequence[tuple[tuple[Any, ...], Any]]) -> pa.Table:
        key_rows, value_rows = zip(*items) if items else ((), ())
        arrays = keys.to_arrays(key_rows) + values.to_arrays(value_rows)
        return pa.Table.from_arrays(arrays, schema=schema)

    def _update(self, store: Any, merged: pa.Table | None, dropped: int, ctx: Any) -> pa.Table | None:
        started = time.perf_counter()
        emitted: pa.Table | None = None
        updated = removed = 0
        schema = None if merged is None else merged.schema
        keys_codec = values_codec = None
        if merged is not None and merged.num_rows:
            schema = merged.schema
            keys_codec, values_codec = self._codecs(merged)
            keys = keys_codec.to_rows([merged.column(n) for n in self.key_names]) if self.key_names \
                else [()] * merged.num_rows
            stored = [(k, v) for k in keys if (v := store.get(k)) is not None]
            if stored:
                merged = self.spec.merge(pa.concat_tables([self._table(schema, keys_codec, values_codec, stored),
                                                           merged]))
                keys = keys_codec.to_rows([merged.column(n) for n in self.key_names]) if self.key_names \
                    else [()] * merged.num_rows
            values = values_codec.to_rows([merged.column(n) for n in self.buffer_names])
            for k, v in zip(keys, values):
                store.put(k, v)
            updated = len(keys)
            if self.mode == "update":
                emitted = merged
        update_ms = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        if self.evict_us is not None and self.time_key is not None:
            evicted = [(k, v) for k, v in store.entries() if (t := key_time_us(k[self.time_key])) is not None
                       and t <= self.evict_us]
            for k, _ in evicted:
                store.remove(k)
            removed = len(evicted)
            if self.mode == "append" and evicted:
                schema, keys_codec, values_codec = self._schema_and_codecs(schema, keys_codec, values_codec, ctx)
                emitted = self._table(schema, keys_codec, values_codec, evicted)
        if self.mode == "complete" and len(store):
            schema, keys_codec, values_codec = self._schema_and_codecs(schema, keys_codec, values_codec, ctx)
            emitted = self._table(schema, keys_codec, values_codec, store.entries())
        removal_ms = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        store.commit()
        commit_ms = (time.perf_counter() - started) * 1000
        store_metrics = store.metrics()
        self.accumulator.add({
            "numRowsTotal": len(store), "numRowsUpdated": updated, "numRowsRemoved": removed,
            "numRowsDroppedByWatermark": dropped, "memoryUsedBytes": int(store_metrics.get("memoryUsedBytes", 0)),
            "allUpdatesTimeMs": int(update_ms), "allRemovalsTimeMs": int(removal_ms), "commitTimeMs": int(commit_ms),
            "numStateStoreInstances": 1})
        return emitted

    def _schema_and_codecs(self, schema: pa.Schema | None, keys: RowCodec | None,
                           values: RowCodec | None, ctx: Any) -> tuple[pa.Schema, RowCodec, RowCodec]:
        if schema is None or keys is None or values is None:
            # No rows this batch: the layout comes from merging no rows.
            empty = self.spec.merge(self.spec.partial(self.spec.input_schema.empty_table(), ctx))
            schema = empty.schema
            keys, values = self._codecs(empty)
        return schema, keys, values


class StatefulAggregateExec(PhysicalPlan):
    """The state operator of a streaming aggregation, with the final projection of its results."""

    def __init__(self, operator: _Operator, result: Sequence[Expression], output: Sequence[AttributeReference],
                 child: PhysicalPlan) -> None:
        self.operator = operator
        self.result = list(result)
        self.output = list(output)
        self.children = (child,)

    def execute(self, qctx: QueryContext) -> Any:
        exprs = [self.operator.spec.rewrite(e) for e in self.result]
        run = functools.partial(run_and_finish, self.operator, exprs, key_names(self.output), qctx.eval_ctx)
        return self.child.execute(qctx).mapPartitionsWithIndex(run)

    def describe(self) -> str:
        keys = ", ".join(expr_text(g) for g in self.operator.spec.grouping)
        return (f"StateStoreSave [{keys}], state info [ operatorId = {self.operator.operator_id}, "
                f"numPartitions = ?], {self.operator.mode.capitalize()}")


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
    grouping_attrs = [g if isinstance(g, AttributeReference) else None for g in plan.grouping]
    time_key = key_event_time_index([a for a in grouping_attrs if a is not None], columns) \
        if all(a is not None for a in grouping_attrs) else None
    info = planner.info
    partitions = info.state_partitions if spec.grouping else 1
    mode = info.output_mode
    watermarked = info.has_watermark and time_key is not None and mode != "complete"

    def needs_batch(new_watermark_ms: int) -> bool:
        return watermarked and new_watermark_ms > info.watermark_for_eviction_ms
    op = info.operator(operator_id, "stateStoreSave", needs_batch, partitions)
    operator = _Operator(spec, planner, operator_id, time_key, op.accumulator)
    partial = PartialAggregateExec(spec, child)
    if spec.grouping:
        exchange = ShuffleExchangeExec("hash", spec.key_attrs, partitions, partial)
    else:
        exchange = ShuffleExchangeExec("single", [], 1, partial)
    return StatefulAggregateExec(operator, plan.aggregates, plan.output(), exchange)


register_stateful(Aggregate, _plan_aggregate)

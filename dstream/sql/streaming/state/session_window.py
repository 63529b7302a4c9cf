"""Streaming session windows: ``groupBy(session_window(t, gap), k...).agg(...)`` over a stream.

What this module owns
---------------------
The planner and state operator of session-window aggregations (Spark's
``MergingSessionsExec`` with ``SessionWindowStateStore*Exec``). The stream is
hash-exchanged on the other grouping keys ``k`` only, so every session of a key meets
in one partition; there the batch's rows get their in-batch sessions
(:func:`~dstream.sql.execution.session_window.assign_sessions`) and are partially
aggregated per session, and the state operator

1. drops sessions whose end is behind the watermark for late rows (counted in
   ``numRowsDroppedByWatermark``);
2. merges, per key, the batch's sessions with the sessions the state holds for it:
   sessions that overlap or touch (one starts at or before the other's end) become
   one, spanning both, with their aggregation buffers merged;
3. stores each touched key's sessions (key -> list of ``(start, end, buffers)``);
4. emits by output mode: **complete** every session; **update** the sessions this
   batch changed; **append** the sessions whose end the eviction watermark has
   passed, removing them (each session once, when final).

Invariants
----------
* Sessions of one key in the state never overlap.
* A row belongs to ``[t, t + gap)`` before merging (its own gap when the gap is given
  per row); merged sessions span from the earliest start to the latest end of what
  they merged.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ...execution.aggregate import AggregateSpec, PartialAggregateExec, collect_aggregates
from ...execution.arrays import concat_batches
from ...execution.context import QueryContext
from ...execution.exchange import ShuffleExchangeExec
from ...execution.physical import PhysicalPlan, arrow_schema, key_names
from ...execution.planner import plan_physical
from ...execution.session_window import SessionWindowExec
from ...expressions.base import AttributeReference
from ...plan.logical import Aggregate
from ...plan.windowing import SessionWindowAssign
from ..incremental import MicroBatchPlanner
from ..watermark import event_time_columns
from .finish import StateOperatorExec
from .propagation import input_watermark_ms, operator_watermarks
from .rows import RowCodec
from .store import StateLocation

__all__ = ["plan_session_aggregate"]


class _SessionOperator:
    """What a task of the session state operator needs."""

    def __init__(self, spec: AggregateSpec, session_index: int, planner: MicroBatchPlanner, operator_id: int,
                 watermarked: bool, watermarks: tuple[int, int], accumulator: Any) -> None:
        info = planner.info
        self.spec = spec
        self.session_index = session_index
        self.operator_id = operator_id
        self.location = StateLocation.of(info, operator_id)
        self.mode = info.output_mode
        use = watermarked and self.mode != "complete"
        self.late_us = watermarks[0] * 1000 if use else None
        self.evict_us = watermarks[1] * 1000 if use else None
        self.accumulator = accumulator
        self.names = key_names(spec.key_attrs)
        self.other = [n for i, n in enumerate(self.names) if i != session_index]
        self.buffers = [f"b{fi}_{j}" for fi, f in enumerate(spec.functions) for j in range(len(f.merge_aggs()))]

    def run(self, split: int, batches: Iterator[pa.RecordBatch], ctx: Any) -> pa.Table | None:
        incoming = concat_batches(batches)
        dropped = 0
        if incoming is not None and incoming.num_rows and self.late_us is not None:
            session = incoming.column(self.names[self.session_index]).combine_chunks()
            ends = pc.struct_field(session, [1]).cast(pa.int64())
            keep = pc.greater(ends, self.late_us)
            dropped = incoming.num_rows - pc.sum(keep.cast(pa.int64())).as_py()
            incoming = incoming.filter(keep)
        store = self.location.open(split)
        try:
            return self._update(store, incoming, dropped, ctx)
        except BaseException:
            store.abort()
            raise

    def _layout(self, ctx: Any) -> pa.Schema:
        empty = self.spec.partial(self.spec.input_schema.empty_table(), ctx)
        return pa.schema([empty.schema.field(n) for n in self.names + self.buffers])

    def _update(self, store: Any, incoming: pa.Table | None, dropped: int, ctx: Any) -> pa.Table | None:
        started = time.perf_counter()
        schema = self._layout(ctx) if incoming is None else pa.schema(
            [incoming.schema.field(n) for n in self.names + self.buffers])
        keys = RowCodec([schema.field(n).type for n in self.other])
        session_codec = RowCodec([schema.field(self.names[self.session_index]).type])
        values = RowCodec([schema.field(n).type for n in self.buffers])
        changed: list[tuple[tuple[Any, ...], tuple[int, int], tuple[Any, ...]]] = []
        updated = 0
        if incoming is not None and incoming.num_rows:
            batch_keys = keys.to_rows([incoming.column(n) for n in self.other]) if self.other else \
                [()] * incoming.num_rows
            sessions = session_codec.to_rows([incoming.column(self.names[self.session_index])])
            buffers = values.to_rows([incoming.column(n) for n in self.buffers])
            rows: list[tuple[tuple[Any, ...], tuple[int, int], tuple[Any, ...], bool]] = [
                (k, s[0], b, True) for k, s, b in zip(batch_keys, sessions, buffers)]
            for k in dict.fromkeys(batch_keys):
                for start, end, buf in store.get(k) or ():
                    rows.append((k, (start, end), tuple(buf), False))
            merged = self._merge(rows, schema, keys, session_codec, values, ctx)
            by_key: dict[tuple[Any, ...], list[list[Any]]] = {}
            for k, (start, end), buf, touched in merged:
                by_key.setdefault(k, []).append([start, end, list(buf)])
                if touched:
                    changed.append((k, (start, end), buf))
            for k, sessions_of_k in by_key.items():
                store.put(k, sessions_of_k)
            updated = len(by_key)
        emit: list[tuple[tuple[Any, ...], tuple[int, int], tuple[Any, ...]]] = []
        if self.mode == "update":
            emit = changed
        update_ms = (time.perf_counter() - started) * 1000
        removed = 0
        if self.evict_us is not None:
            for k, sessions_of_k in list(store.items()):
                final = [s for s in sessions_of_k if s[1] <= self.evict_us]
                if not final:
                    continue
                removed += len(final)
                rest = [s for s in sessions_of_k if s[1] > self.evict_us]
                if rest:
                    store.put(k, rest)
                else:
                    store.remove(k)
                if self.mode == "append":
                    emit.extend((k, (s[0], s[1]), tuple(s[2])) for s in final)
        if self.mode == "complete":
            emit = [(k, (s[0], s[1]), tuple(s[2])) for k, ss in store.items() for s in ss]
        store.commit()
        self.accumulator.add({
            "numRowsTotal": sum(len(ss) for _, ss in store.items()), "numRowsUpdated": updated,
            "numRowsRemoved": removed, "numRowsDroppedByWatermark": dropped,
            "memoryUsedBytes": int(store.metrics().get("memoryUsedBytes", 0)),
            "allUpdatesTimeMs": int(update_ms), "numStateStoreInstances": 1})
        if not emit:
            return None
        return self._table(schema, keys, session_codec, values, emit)

    def _table(self, schema: pa.Schema, keys: RowCodec, sessions: RowCodec, values: RowCodec,
               items: Sequence[tuple[tuple[Any, ...], tuple[int, int], tuple[Any, ...]]]) -> pa.Table:
        key_arrays = keys.to_arrays([k for k, _, _ in items])
        session_array = sessions.to_arrays([(s,) for _, s, _ in items])[0]
        arrays: list[pa.Array] = []
        others = iter(key_arrays)
        for i in range(len(self.names)):
            arrays.append(session_array if i == self.session_index else next(others))
        arrays += values.to_arrays([b for _, _, b in items])
        return pa.Table.from_arrays(arrays, schema=schema)

    def _merge(self, rows: list[tuple[tuple[Any, ...], tuple[int, int], tuple[Any, ...], bool]], schema: pa.Schema,
               keys: RowCodec, sessions: RowCodec, values: RowCodec,
               ctx: Any) -> list[tuple[tuple[Any, ...], tuple[int, int], tuple[Any, ...], bool]]:
        """Overlapping sessions of each key merged; ``touched`` when a batch row is in it."""
        rows.sort(key=lambda r: (repr(r[0]), r[1][0]))
        groups: list[tuple[tuple[Any, ...], int, int, bool]] = []
        assignment: list[int] = []
        for k, (start, end), _, fresh in rows:
            if groups and groups[-1][0] == k and start <= groups[-1][2]:  # touching sessions merge, as Spark's
                g = groups[-1]
                groups[-1] = (k, g[1], max(g[2], end), g[3] or fresh)
            else:
                groups.append((k, start, end, fresh))
            assignment.append(len(groups) - 1)
        spans = [(groups[g][1], groups[g][2]) for g in assignment]
        table = self._table(schema, keys, sessions, values, [(r[0], span, r[2]) for r, span in zip(rows, spans)])
        merged = self.spec.merge(table)
        m_keys = keys.to_rows([merged.column(n) for n in self.other]) if self.other else [()] * merged.num_rows
        m_sessions = sessions.to_rows([merged.column(self.names[self.session_index])])
        m_values = values.to_rows([merged.column(n) for n in self.buffers])
        touched = {(g[0], (g[1], g[2])) for g in groups if g[3]}
        return [(k, s[0], v, (k, s[0]) in touched) for k, s, v in zip(m_keys, m_sessions, m_values)]


def plan_session_aggregate(plan: Aggregate, qctx: QueryContext, planner: MicroBatchPlanner) -> PhysicalPlan:
    """The streaming plan of an aggregation grouped by a session window (child: SessionWindowAssign)."""
    assign = plan.child
    assert isinstance(assign, SessionWindowAssign)
    operator_id = planner.next_operator_id()
    info = planner.info
    source = plan_physical(assign.child, qctx)
    partitions = info.state_partitions if assign.partition_keys else 1
    kind = "hash" if assign.partition_keys else "single"
    exchange = ShuffleExchangeExec(kind, list(assign.partition_keys), partitions, source)
    sessions = SessionWindowExec(assign.window, assign.partition_keys, assign.output_attr, exchange)
    spec = AggregateSpec(plan.grouping, collect_aggregates(plan.aggregates), arrow_schema(sessions.output))
    session_index = next(i for i, g in enumerate(plan.grouping)
                         if isinstance(g, AttributeReference) and g.expr_id == assign.output_attr.expr_id)
    watermarked = info.has_watermark and assign.output_attr.expr_id in event_time_columns(plan.child)
    mode = info.output_mode
    watermarks = operator_watermarks(plan, info)

    def needs_batch(new_watermark_ms: int) -> bool:
        return watermarked and mode != "complete" and input_watermark_ms(plan, new_watermark_ms) > watermarks[1]
    op = info.operator(operator_id, "sessionWindowStateStoreSaveExec", needs_batch, partitions)
    operator = _SessionOperator(spec, session_index, planner, operator_id, watermarked, watermarks, op.accumulator)
    return StateOperatorExec(operator, plan.aggregates, plan.output(), PartialAggregateExec(spec, sessions),
                             "SessionWindowStateStoreSave")

"""Streaming deduplication: ``dropDuplicates``/``distinct`` and ``dropDuplicatesWithinWatermark``.

What this module owns
---------------------
* :class:`DeduplicateWithinWatermark`, the logical node of
  ``dropDuplicatesWithinWatermark`` (a batch DataFrame refuses it when it runs, as
  Spark does), and the state operator :class:`StreamingDeduplicateExec` of both kinds
  of deduplication over a stream.
* :func:`state_key`, which makes a row of key values a state key that finds itself
  again (float NaN and ``-0.0`` normalised).

The plan is Spark's: a hash exchange on the keys into the pinned number of state
partitions, then in each partition

1. rows whose event time (the input's watermarked column; a window's end) is ``<=``
   the watermark for late rows are dropped, new key or not, and counted in
   ``numRowsDroppedByWatermark`` (a null event time is never late);
2. each remaining row whose key is neither in the state nor seen earlier in the
   partition's rows (arrival order) is emitted and its key stored; the others are
   counted in the custom metric ``numDroppedDuplicateRows``;
3. keys are evicted with the eviction watermark ``W``: for ``dropDuplicates``, only
   when a key column carries the event time, the keys whose time is ``<= W``; for
   ``dropDuplicatesWithinWatermark``, the keys whose ``expiresAt`` (the first row's
   event time plus the watermark's delay) is ``<= W``;
4. the store is committed (version N read, N+1 written) and the metrics reported.

Invariants
----------
* State values: ``[event time in µs or None]`` for ``dropDuplicates``,
  ``[expiresAt in µs]`` for ``dropDuplicatesWithinWatermark`` (a null event time
  counts as 0, so such a key expires at the first eviction, as in Spark).
* A key stays in the state until evicted: a duplicate never refreshes it.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ...errors import AnalysisException
from ...execution.aggregate import first_per_key
from ...execution.arrays import concat_batches
from ...execution.context import QueryContext
from ...execution.exchange import ShuffleExchangeExec
from ...execution.physical import PhysicalPlan, arrow_schema, expr_text
from ...execution.planner import plan_physical, register_planner
from ...expressions.base import AttributeReference, column_key
from ...plan.logical import Deduplicate, LogicalPlan, UnaryPlan
from ..incremental import MicroBatchPlanner, register_stateful
from ..relation import reads_stream
from ..watermark import event_time_columns, event_time_us, key_event_time_index
from .propagation import input_watermark_ms, operator_watermarks
from .rows import RowCodec, key_time_us
from .store import StateLocation

__all__ = ["BATCH_ERROR", "DeduplicateWithinWatermark", "StreamingDeduplicateExec", "state_key"]

BATCH_ERROR = "dropDuplicatesWithinWatermark is not supported with batch DataFrames/DataSets"


class DeduplicateWithinWatermark(UnaryPlan):
    """``dropDuplicatesWithinWatermark(subset)``: the first row of each key while the watermark keeps it."""

    def __init__(self, keys: Sequence[AttributeReference], child: LogicalPlan) -> None:
        super().__init__(child)
        self.keys = list(keys)

    def with_children(self, children: Sequence[LogicalPlan]) -> LogicalPlan:
        return DeduplicateWithinWatermark(self.keys, children[0])

    def describe(self) -> str:
        return f"DeduplicateWithinWatermark [{', '.join(expr_text(k) for k in self.keys)}]"


def _normal(value: Any) -> Any:
    if type(value) is float:
        if math.isnan(value):
            return "NaN"  # NaN != NaN would never find its key again; a float column holds no strings
        return value + 0.0  # -0.0 -> 0.0
    if type(value) is tuple:
        return tuple(_normal(v) for v in value)
    return value


def _has_float(t: pa.DataType) -> bool:
    if pa.types.is_floating(t):
        return True
    if pa.types.is_struct(t):
        return any(_has_float(f.type) for f in t)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return _has_float(t.value_type)
    return False


def _same(row: tuple[Any, ...]) -> tuple[Any, ...]:
    return row


def state_key(types: Sequence[pa.DataType]) -> Callable[[tuple[Any, ...]], tuple[Any, ...]]:
    """The function making a row of values of ``types`` a state key (identity without floats)."""
    if any(_has_float(t) for t in types):
        return _normal
    return _same


class _Operator:
    """What a task of the deduplication needs (shipped with every task)."""

    def __init__(self, planner: MicroBatchPlanner, operator_id: int, keys: Sequence[AttributeReference],
                 time_column: AttributeReference | None, key_time: int | None, delay_ms: int | None,
                 watermarks: tuple[int, int], accumulator: Any) -> None:
        info = planner.info
        self.operator_id = operator_id
        self.location = StateLocation.of(info, operator_id)
        self.keys = list(keys)
        self.key_codec = RowCodec([arrow_schema([k]).field(0).type for k in self.keys])
        self.normal = state_key(self.key_codec.types)
        self.time_name = None if time_column is None else column_key(time_column.expr_id)
        watermarked = info.has_watermark and time_column is not None
        self.late_us = watermarks[0] * 1000 if watermarked else None
        self.evict_us = watermarks[1] * 1000 if watermarked else None
        self.key_time = key_time
        self.delay_us = None if delay_ms is None else delay_ms * 1000
        self.accumulator = accumulator

    def run(self, split: int, batches: Iterator[pa.RecordBatch], ctx: Any) -> pa.Table | None:
        started = time.perf_counter()
        table = concat_batches(batches)
        late = 0
        if table is not None and table.num_rows and self.late_us is not None and self.time_name is not None:
            times = event_time_us(table.column(self.time_name).combine_chunks())
            keep = pc.fill_null(pc.greater(times, self.late_us), True)  # a null time is never late
            late = table.num_rows - pc.sum(keep.cast(pa.int64())).as_py()
            if late:
                table = table.filter(keep)
        store = self.location.open(split)
        try:
            return self._update(store, table, late, started, ctx)
        except BaseException:
            store.abort()
            raise

    def _update(self, store: Any, table: pa.Table | None, late: int, started: float, ctx: Any) -> pa.Table | None:
        out = None
        incoming = 0 if table is None else table.num_rows
        if table is not None and table.num_rows:
            firsts = first_per_key(table, self.keys, ctx)
            keys = [self.normal(k) for k in self.key_codec.to_rows([firsts.column(column_key(k.expr_id))
                                                                     for k in self.keys])]
            times: list[Any] = [None] * len(keys)
            if self.time_name is not None:
                times = event_time_us(firsts.column(self.time_name).combine_chunks()).to_pylist()
            picked = []
            for i, key in enumerate(keys):
                if store.get(key) is None:
                    picked.append(i)
                    if self.delay_us is not None:
                        store.put(key, [(times[i] or 0) + self.delay_us])
                    else:
                        store.put(key, [times[i]])
            out = firsts.take(pa.array(picked, pa.int64())) if len(picked) < firsts.num_rows else firsts
        emitted = 0 if out is None else out.num_rows
        update_ms = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        removed = self._evict(store)
        removal_ms = (time.perf_counter() - started) * 1000
        store.commit()
        metrics = store.metrics()
        self.accumulator.add({
            "numRowsTotal": len(store), "numRowsUpdated": emitted, "numRowsRemoved": removed,
            "numRowsDroppedByWatermark": late, "memoryUsedBytes": int(metrics.get("memoryUsedBytes", 0)),
            "allUpdatesTimeMs": int(update_ms), "allRemovalsTimeMs": int(removal_ms),
            "commitTimeMs": int(metrics.get("commitTimeMs", 0)), "numStateStoreInstances": 1,
            "customMetrics": {"numDroppedDuplicateRows": incoming - emitted}})
        return out

    def _evict(self, store: Any) -> int:
        evict_us = self.evict_us
        if evict_us is None:
            return 0
        if self.delay_us is not None:
            gone = [k for k, v in store.items() if v[0] <= evict_us]
        elif self.key_time is not None:
            index = self.key_time
            gone = [k for k, _ in store.items() if (t := key_time_us(k[index])) is not None and t <= evict_us]
        else:
            return 0
        for key in gone:
            store.remove(key)
        return len(gone)


def _run_partition(operator: _Operator, ctx: Any, split: int,
                   batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    # Module-level: a task pickles it by reference, not by value in every batch.
    out = operator.run(split, batches, ctx)
    if out is not None and out.num_rows:
        yield from out.combine_chunks().to_batches()


class StreamingDeduplicateExec(PhysicalPlan):
    """The state operator of a streaming deduplication (its input hash-exchanged on the keys)."""

    def __init__(self, operator: _Operator, name: str, child: PhysicalPlan) -> None:
        self.operator = operator
        self.name = name
        self.children = (child,)
        self.output = child.output

    def execute(self, qctx: QueryContext) -> Any:
        run = functools.partial(_run_partition, self.operator, qctx.eval_ctx)
        return self.child.execute(qctx).mapPartitionsWithIndex(run)

    def describe(self) -> str:
        keys = ", ".join(expr_text(k) for k in self.operator.keys)
        kind = "StreamingDeduplicateWithinWatermark" if self.name != "dedupe" else "StreamingDeduplicate"
        return f"{kind} [{keys}], state info [ operatorId = {self.operator.operator_id} ]"


def _plan(plan: LogicalPlan, qctx: QueryContext, planner: MicroBatchPlanner) -> PhysicalPlan | None:
    assert isinstance(plan, Deduplicate | DeduplicateWithinWatermark)
    if not reads_stream(plan.child):
        return None
    within = isinstance(plan, DeduplicateWithinWatermark)
    operator_id = planner.next_operator_id()
    child = plan_physical(plan.child, qctx)
    keys: list[AttributeReference] = list(plan.keys) or list(child.output)
    columns = event_time_columns(plan.child)
    time_column = next((a for a in child.output if a.expr_id in columns), None)
    if within and time_column is None:
        raise AnalysisException("dropDuplicatesWithinWatermark is not supported on streaming DataFrames/DataSets "
                                "without watermark: call withWatermark on an event-time column of its input first.")
    info = planner.info
    key_time = None if within else key_event_time_index(keys, columns)
    delay = columns[time_column.expr_id] if within and time_column is not None else None

    watermarks = operator_watermarks(plan, info)

    def needs_batch(new_watermark_ms: int) -> bool:
        return info.has_watermark and input_watermark_ms(plan, new_watermark_ms) > watermarks[1]
    name = "dedupeWithinWatermark" if within else "dedupe"
    op = info.operator(operator_id, name, needs_batch, info.state_partitions, ("numDroppedDuplicateRows",))
    operator = _Operator(planner, operator_id, keys, time_column, key_time, delay, watermarks, op.accumulator)
    exchange = ShuffleExchangeExec("hash", keys, info.state_partitions, child)
    return StreamingDeduplicateExec(operator, name, exchange)


def _plan_batch(plan: LogicalPlan, qctx: QueryContext) -> PhysicalPlan:
    raise AnalysisException(f"{BATCH_ERROR}: it only means something on a stream (the watermark decides how long a "
                            "key is remembered); use dropDuplicates on a batch DataFrame.",
                            "_LEGACY_ERROR_TEMP_3102", {"msg": BATCH_ERROR})


register_stateful(Deduplicate, _plan)
register_stateful(DeduplicateWithinWatermark, _plan)
register_planner(DeduplicateWithinWatermark, _plan_batch)

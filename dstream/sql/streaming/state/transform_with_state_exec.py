"""Running ``transformWithStateInPandas``: per state partition in a micro-batch, per partition in a batch.

What this module owns
---------------------
* :class:`ProcessorTask`, what one task does (small: shipped with every task): group
  the partition's rows by key, then, with the processor's ``init`` before and ``close``
  after,

  1. in event-time mode, drop the rows at or behind the watermark for late rows
     (``numRowsDroppedByWatermark``);
  2. for each key, in key order: ``handleInitialState`` for its rows of the initial
     state (first batch only), then ``handleInputRows`` with its rows as one
     ``pandas.DataFrame``;
  3. then every timer at or before the clock of the time mode (batch timestamp, or the
     watermark for eviction), by expiry then key: ``handleExpiredTimer``, after which
     the timer is deleted;
  4. in processing-time mode, delete the values whose TTL passed; commit; metrics.

* :class:`TransformWithStateExec`, planned by ``register_stateful`` in a micro-batch and by
  ``register_planner`` on a batch DataFrame, where every group is handled once, with
  state that lives for the task, and no timer fires.

Invariants
----------
* The output is built before the store commits: an error of the processor or of its
  frames aborts the store, so a failed batch leaves no state behind.
* The frames the processor yields are matched to the output schema by column name
  (extra columns are ignored) or by position when unnamed, as PySpark does.
* The key the processor sees is a tuple of the grouping values as pandas gives them
  (numpy scalars, ``str``, ``pandas.Timestamp``), PySpark's; the store keys are plain.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rdd import TaskContext

from ...arrow_convert import to_arrow_type, to_pandas
from ...errors import PythonException, SparkRuntimeException
from ...execution.arrays import concat_batches
from ...execution.context import QueryContext
from ...execution.physical import PhysicalPlan, key_names
from ...execution.planner import plan_physical, register_planner
from ...plan.logical import LogicalPlan
from ..incremental import MicroBatchPlanner, register_stateful
from ..relation import reads_stream
from ..stateful_processor import ExpiredTimerInfo, StatefulProcessorHandle, TimerValues
from ..transform_with_state import OPERATION, TransformWithState
from ..watermark import event_time_columns, event_time_us
from .group_state_exec import keyed_exchange, order_key, timer_batches
from .processor_state import KeyedStates
from .rows import RowCodec
from .store import StateLocation

__all__ = ["ProcessorTask", "TransformWithStateExec"]

#: Frames the handlers yield that are converted together (bounds what waits in memory).
_FLUSH_FRAMES = 4096


class ProcessorTask:
    """One partition's run of the processor (see the module doc)."""

    def __init__(self, node: TransformWithState, time_zone: str, clocks: tuple[int, int], late_ms: int | None,
                 location: StateLocation | None, first_batch: bool, accumulator: Any) -> None:
        self.processor = node.processor
        self.time_mode = node.time_mode
        self.time_zone = time_zone
        self.batch_timestamp_ms, self.watermark_ms = clocks
        self.late_ms = late_ms
        self.location = location
        self.first_batch = first_batch
        self.accumulator = accumulator
        self.key_names = key_names(node.keys)
        self.data_names = key_names(node.data)
        self.data_fields = [a.name for a in node.data]
        self.key_codec = RowCodec([to_arrow_type(k.dtype) for k in node.keys])
        self.target = pa.schema([pa.field(f.name, to_arrow_type(f.dataType)) for f in node.output_schema.fields])
        self.out_keys = key_names(node.output())
        time_column = _watermarked_input(node) if node.time_mode == "eventtime" else None
        self.time_name = key_names([time_column])[0] if time_column is not None else None
        self.emitted_time = node.event_time_output.name if node.event_time_output is not None else None
        self.initial_fields: list[str] | None = None if node.initial is None else \
            [f.name for f in node.initial.schema.fields]

    # -- the partition -----------------------------------------------------------------

    def run(self, split: int, batches: Iterable[pa.RecordBatch],
            initial_batches: Iterable[pa.RecordBatch] = ()) -> list[pa.RecordBatch]:
        table = concat_batches(iter(batches))
        dropped = 0
        if table is not None and table.num_rows and self.time_name is not None and self.late_ms is not None:
            times = event_time_us(table.column(self.time_name).combine_chunks())
            keep = pc.fill_null(pc.greater(times, self.late_ms * 1000), True)
            dropped = table.num_rows - pc.sum(keep.cast(pa.int64())).as_py()
            if dropped:
                table = table.filter(keep)
        initial = self._initial_table(initial_batches) if self.first_batch else None
        store = self.location.open(split) if self.location is not None else None
        try:
            return self._process(store, table, initial, dropped)
        except BaseException:
            if store is not None:
                store.abort()
            raise

    def _initial_table(self, batches: Iterable[pa.RecordBatch]) -> pa.Table | None:
        parts = [b for b in batches if b.num_rows]
        if not parts or self.initial_fields is None:
            return None
        names = self.initial_fields
        return pa.Table.from_batches([pa.RecordBatch.from_arrays(b.columns, names=names) for b in parts])

    def _groups(self, table: pa.Table | None, keys: list[str], data: list[str],
                fields: list[str]) -> dict[tuple[Any, ...], tuple[Any, Any]]:
        """Plain key -> ``(key tuple, frame)`` of ``table``'s rows (``data`` columns named ``fields``).

        The rows are put in key order once and each key's frame is a slice of that frame:
        one pandas conversion per task, not one per key.
        """
        if table is None or table.num_rows == 0:
            return {}
        plain = self.key_codec.to_rows([table.column(c) for c in keys]) if keys else [()] * table.num_rows
        ids: dict[tuple[Any, ...], int] = {}
        group = np.fromiter((ids.setdefault(key, len(ids)) for key in plain), np.int64, len(plain))
        order = pa.array(np.argsort(group, kind="stable"))
        counts = np.bincount(group)
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        frame = to_pandas(pa.Table.from_arrays([table.column(c).take(order) for c in data], names=fields),
                          self.time_zone)
        first = pa.array(order.to_numpy()[starts])
        tuples = self._tuples([table.column(c).take(first) for c in keys]) if keys else [()]
        return {key: (tuples[i], frame.iloc[starts[i]:starts[i] + counts[i]].reset_index(drop=True))
                for key, i in ids.items()}

    def _process(self, store: Any, table: pa.Table | None, initial: pa.Table | None,
                 dropped: int) -> list[pa.RecordBatch]:
        started = time.perf_counter()
        states = KeyedStates(store, self.time_mode, self.batch_timestamp_ms, self.watermark_ms, self.time_zone)
        processor = self.processor
        processor.init(StatefulProcessorHandle(states))
        states.declaring = False
        timer_values = TimerValues(self.batch_timestamp_ms, self.watermark_ms)
        groups = self._groups(table, self.key_names, self.data_names, self.data_fields)
        starting: dict[tuple[Any, ...], tuple[Any, Any]] = {}
        if initial is not None and self.initial_fields is not None:
            n = len(self.key_names)
            names = self.initial_fields
            starting = self._groups(initial, names[len(names) - n:], names[:len(names) - n], names[:len(names) - n])
        output: list[pa.RecordBatch] = []
        pending: list[Any] = []
        for key in sorted(set(groups) | set(starting), key=order_key):
            if key in starting:
                states.set_key(key)
                key_tuple, frame = starting[key]
                processor.handleInitialState(key_tuple, frame, timer_values)
            if key in groups:
                states.set_key(key)
                key_tuple, frame = groups[key]
                self._emit(processor.handleInputRows(key_tuple, iter([frame]), timer_values), key_tuple, pending,
                           output)
        states.finish_key()
        update_ms = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        threshold = {"processingtime": self.batch_timestamp_ms, "eventtime": self.watermark_ms}.get(self.time_mode)
        if store is not None and threshold is not None and threshold >= 0:
            expired = sorted(states.expired_timers(threshold), key=lambda t: (t[0], order_key(t[1])))
            tuples = self._key_tuples([key for _, key in expired])
            for (ms, key), key_tuple in zip(expired, tuples):
                states.set_key(key)
                self._emit(processor.handleExpiredTimer(key=key_tuple, timerValues=timer_values,
                                                        expiredTimerInfo=ExpiredTimerInfo(ms)), key_tuple, pending,
                           output)
                states.delete_timer(ms)
            states.finish_key()
        processor.close()
        self._flush(pending, output)
        if self.time_mode == "processingtime":
            states.evict_expired()
        removal_ms = (time.perf_counter() - started) * 1000
        if store is None:
            return output
        started = time.perf_counter()
        total = states.total_rows()
        store.commit()
        commit_ms = (time.perf_counter() - started) * 1000
        self.accumulator.add({
            "numRowsTotal": total, "numRowsUpdated": states.updated, "numRowsRemoved": states.removed,
            "numRowsDroppedByWatermark": dropped,
            "memoryUsedBytes": int(store.metrics().get("memoryUsedBytes", 0)), "allUpdatesTimeMs": int(update_ms),
            "allRemovalsTimeMs": int(removal_ms), "commitTimeMs": int(commit_ms), "numStateStoreInstances": 1})
        return output

    def _key_tuples(self, plain_keys: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        """The key tuples the processor sees for stored (plain) keys."""
        if not self.key_names:
            return [() for _ in plain_keys]
        return self._tuples(self.key_codec.to_arrays(plain_keys)) if plain_keys else []

    def _tuples(self, columns: list[Any]) -> list[tuple[Any, ...]]:
        """One key tuple per row of the key ``columns``, with PySpark's values: iterating a pandas
        column's array gives what its own indexing gives (numpy scalars, Timestamps, str)."""
        frame = to_pandas(pa.Table.from_arrays(columns, names=[f"k{i}" for i in range(len(columns))]), self.time_zone)
        return list(zip(*[frame[c].array for c in frame.columns]))

    def _emit(self, result: Any, key: tuple[Any, ...], pending: list[Any], output: list[pa.RecordBatch]) -> None:
        """Take the frames one handler call yields (converted in bulk by :meth:`_flush`)."""
        if result is None:
            return
        if isinstance(result, str | bytes) or hasattr(result, "columns") or not isinstance(result, Iterable):
            raise PythonException(
                f"The {OPERATION} handler returned {type(result).__name__} for the key {key!r}: it must return an "
                "iterator of pandas.DataFrame (yield each frame).", "RESULT_TYPE_MISMATCH_FOR_ARROW_UDF", {})
        pending.extend(result)
        if len(pending) >= _FLUSH_FRAMES:
            self._flush(pending, output)

    def _flush(self, pending: list[Any], output: list[pa.RecordBatch]) -> None:
        """The pending frames as output batches: runs of frames with the same columns are concatenated
        first, since converting a one-row frame costs as much as a thousand-row one."""
        import pandas as pd  # noqa: PLC0415 - only pandas functions need it

        from ...dataframe_batches import conform_output  # noqa: PLC0415 - the batch methods' output rules
        from ...group_pandas import pandas_result_table  # noqa: PLC0415 - pandas code loads with its first use

        run: list[Any] = []
        for frame in [*pending, None]:
            same = (frame is not None and run and isinstance(frame, pd.DataFrame)
                    and list(frame.columns) == list(run[0].columns) and list(frame.dtypes) == list(run[0].dtypes))
            if same:
                run.append(frame)
                continue
            if run:
                whole = run[0] if len(run) == 1 else pd.concat(run, ignore_index=True)
                table = pandas_result_table(whole, self.target, OPERATION, self.time_zone)
                if table.num_rows:
                    self._check_emitted_times(table)
                    output.extend(conform_output(b, self.target, self.out_keys)
                                  for b in table.combine_chunks().to_batches())
            run = [] if frame is None else [frame]
        pending.clear()

    def _check_emitted_times(self, table: pa.Table) -> None:
        if self.emitted_time is None or self.late_ms is None or self.emitted_time not in table.column_names:
            return
        times = event_time_us(table.column(self.emitted_time).combine_chunks())
        oldest = pc.min(times).as_py()
        if oldest is not None and oldest < self.late_ms * 1000:
            raise SparkRuntimeException(
                f"[EMITTING_ROWS_OLDER_THAN_WATERMARK_NOT_ALLOWED] Previous node emitted a row with eventTime="
                f"{oldest // 1000} which is older than current_watermark_value={self.late_ms}. This can lead to "
                "correctness issues in the stateful operators downstream in the execution pipeline. Please correct "
                "the operator logic to emit rows after current global watermark value.",
                "EMITTING_ROWS_OLDER_THAN_WATERMARK_NOT_ALLOWED", {})


def _watermarked_input(node: TransformWithState) -> Any:
    columns = event_time_columns(node.child)
    return next((a for a in node.child.output() if a.expr_id in columns), None)


def _run(task: ProcessorTask, split: int, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    # Module-level: a task pickles it by reference, not by value in every batch.
    yield from task.run(split, batches)


def _run_with_initial(task: ProcessorTask, batches: Iterator[pa.RecordBatch],
                      initial: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    context = TaskContext.get()
    if context is None:
        raise RuntimeError(f"a {OPERATION} task runs without a TaskContext: its partition (and so its state) is "
                           "unknown")
    yield from task.run(context.partitionId(), batches, initial)


def _initial_rdd(node: TransformWithState, partitions: int) -> Any:
    from ... import functions as F  # noqa: N812, PLC0415 - functions imports the DataFrame

    assert node.initial is not None
    names = [f.name for f in node.initial.schema.fields][-len(node.keys):] if node.keys else []
    frame = node.initial.repartition(partitions, *[F.col(n) for n in names]) if names else \
        node.initial.repartition(1)
    return frame._execution().to_rdd()


class TransformWithStateExec(PhysicalPlan):
    """The operator in a micro-batch (``streaming``), or on a batch DataFrame: each group once, no timer fires."""

    def __init__(self, task: ProcessorTask, node: TransformWithState, child: PhysicalPlan, partitions: int,
                 streaming: bool) -> None:
        self.task = task
        self.node = node
        self.partitions = partitions
        self.streaming = streaming
        self.output = node.output()
        self.children = (child,)

    def execute(self, qctx: QueryContext) -> Any:
        rdd = self.child.execute(qctx)
        if self.task.first_batch and self.node.initial is not None:
            return rdd.zipPartitions(_initial_rdd(self.node, self.partitions),
                                     f=functools.partial(_run_with_initial, self.task))
        return rdd.mapPartitionsWithIndex(functools.partial(_run, self.task))

    def describe(self) -> str:
        return ("TransformWithStateInPandasExec " if self.streaming else "") + self.node.describe()


def _plan_batch(plan: LogicalPlan, qctx: QueryContext) -> PhysicalPlan:
    assert isinstance(plan, TransformWithState)
    partitions = qctx.shuffle_partitions if plan.keys else 1
    now = int(time.time() * 1000) if plan.time_mode != "none" else -1
    task = ProcessorTask(plan, qctx.eval_ctx.time_zone, (now, -1), None, None, True, None)
    return TransformWithStateExec(task, plan, keyed_exchange(plan.keys, plan_physical(plan.child, qctx), partitions),
                                  partitions, streaming=False)


def _plan_streaming(plan: LogicalPlan, qctx: QueryContext, planner: MicroBatchPlanner) -> PhysicalPlan | None:
    assert isinstance(plan, TransformWithState)
    if not reads_stream(plan.child):
        return None
    operator_id = planner.next_operator_id()
    child = plan_physical(plan.child, qctx)
    info = planner.info
    partitions = info.state_partitions if plan.keys else 1
    time_mode = plan.time_mode
    needs_batch = timer_batches(info, processing_time=time_mode == "processingtime",
                                event_time=time_mode == "eventtime")
    op = info.operator(operator_id, "transformWithStateInPandasExec", needs_batch, partitions)
    clocks = {"none": (-1, -1), "processingtime": (info.batch_timestamp_ms, -1),
              "eventtime": (info.batch_timestamp_ms, info.watermark_for_eviction_ms)}[time_mode]
    late = info.watermark_for_late_ms if info.has_watermark else None
    task = ProcessorTask(plan, qctx.eval_ctx.time_zone, clocks, late, StateLocation.of(info, operator_id),
                         info.batch_id == 0, op.accumulator)
    return TransformWithStateExec(task, plan, keyed_exchange(plan.keys, child, partitions), partitions, streaming=True)


register_planner(TransformWithState, _plan_batch)
register_stateful(TransformWithState, _plan_streaming)

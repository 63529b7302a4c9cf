"""Running ``*GroupsWithState`` functions: per state partition in a micro-batch, per partition in a batch.

What this module owns
---------------------
* :class:`GroupsFunction`: the user's function over the groups of one partition:
  grouping the partition's rows by key (keys sorted), turning Arrow columns into the
  key tuples, ``Row`` s and state values the function sees, and its results back into
  Arrow batches of the output schema.
* :class:`FlatMapGroupsWithStateExec`, the stateful operator of a micro-batch (planned
  by ``register_stateful``): its input hash-exchanged on the keys into the pinned state
  partitions, then per partition

  1. drop the rows behind the watermark for late rows (only with ``EventTimeTimeout``,
     on the input's watermarked column), counting ``numRowsDroppedByWatermark``;
  2. call the function for each key of the batch with its stored state;
  3. after *all* data keys are written, scan the store for expired timeouts (processing
     time: ``timeout < batch timestamp``; event time: ``timeout < eviction watermark``)
     and call the function for each with no rows and ``hasTimedOut``;
  4. after each call: removed and no timeout -> delete; else write when updated,
     removed (keeping its timeout) or the timeout changed; commit; report metrics.

* :class:`BatchGroupsWithStateExec` (``register_planner``): on a batch DataFrame every
  group is called once with an empty state that never times out, as Spark does.

Invariants
----------
* A store entry is ``[state values or None, timeout ms or -1]``: the state values are
  plain (``RowCodec`` of the state schema), so the store never holds a class.
* Within a partition the calls for data keys come in key order, then the timed-out
  keys in key order; a key called for its data in a batch is never also timed out in it.
* The batch's output is built before the store commits: a function or conversion error
  aborts the store, so a failed batch leaves no state behind.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ...arrow_convert import arrow_to_rows, rows_to_arrow, to_arrow_type
from ...errors import PySparkException, PySparkTypeError, PySparkValueError
from ...execution.arrays import concat_batches
from ...execution.context import QueryContext
from ...execution.exchange import ShuffleExchangeExec
from ...execution.physical import PhysicalPlan, key_names
from ...execution.planner import plan_physical, register_planner
from ...expressions.base import AttributeReference
from ...local_data import rows_to_batches
from ...plan.logical import LogicalPlan
from ...row import Row
from ...timezones import python_time_zone
from ..group_state import NO_TIMESTAMP, GroupState, GroupStateTimeout, batch_state
from ..groups_with_state import FlatMapGroupsWithState, watermarked_input
from ..incremental import MicroBatchPlanner, register_stateful
from ..relation import reads_stream
from ..watermark import event_time_us
from .rows import RowCodec
from .store import StateLocation, StateStore

__all__ = ["BatchGroupsWithStateExec", "FlatMapGroupsWithStateExec", "GroupsFunction", "keyed_exchange", "order_key",
           "timer_batches"]


def order_key(value: Any) -> Any:
    """A sort key for plain key values: nulls first, then values (nested tuples too)."""
    if value is None:
        return (0,)
    if isinstance(value, tuple):
        return (1, tuple(order_key(v) for v in value))
    return (1, value)


class GroupsFunction:
    """The user's function and the conversions around it (small: shipped with every task)."""

    def __init__(self, node: FlatMapGroupsWithState, time_zone: str) -> None:
        self.func = node.func
        self.is_map = node.is_map
        self.operation = node.operation
        self.timeout = node.timeout
        self.state_schema = node.state_schema
        self.output_schema = node.output_schema
        self.time_zone = time_zone
        self.key_names = key_names(node.keys)
        self.data_names = key_names(node.data)
        self.data_fields = [a.name for a in node.data]
        self.output_names = key_names(node.output())
        self.key_codec = RowCodec([to_arrow_type(k.dtype) for k in node.keys])
        self.state_codec = RowCodec([to_arrow_type(f.dataType) for f in node.state_schema.fields])

    # -- Arrow -> what the function sees ------------------------------------------------

    def groups(self, table: pa.Table | None) -> list[tuple[tuple[Any, ...], tuple[Any, ...], list[Row]]]:
        """``(plain key, key tuple, rows)`` per key of ``table``, in key order."""
        if table is None or table.num_rows == 0:
            return []
        n = table.num_rows
        plain = self.key_codec.to_rows([table.column(c) for c in self.key_names]) if self.key_names else [()] * n
        keys = [tuple(r) for r in arrow_to_rows(table.select(self.key_names), self.time_zone)] \
            if self.key_names else [()] * n
        data = pa.Table.from_arrays([table.column(c) for c in self.data_names], names=self.data_fields) \
            if self.data_names else pa.table({"_": pa.nulls(n)}).select([])
        rows = arrow_to_rows(data, self.time_zone)
        index: dict[tuple[Any, ...], list[int]] = {}
        for i, key in enumerate(plain):
            index.setdefault(key, []).append(i)
        return [(key, keys[at[0]], [rows[i] for i in at]) for key, at in sorted(index.items(),
                                                                               key=lambda kv: order_key(kv[0]))]

    def key_tuples(self, plain_keys: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        """The key tuples the function sees for stored (plain) keys."""
        if not self.key_names:
            return [() for _ in plain_keys]
        arrays = self.key_codec.to_arrays(plain_keys)
        table = pa.Table.from_arrays(arrays, names=self.key_names)
        return [tuple(r) for r in arrow_to_rows(table, self.time_zone)]

    def state_rows(self, values: list[Any]) -> list[Row | None]:
        """Stored state values (plain lists, or ``None``) as Rows of the state schema."""
        present = [v for v in values if v is not None]
        if not present:
            return [None] * len(values)
        table = pa.Table.from_arrays(self.state_codec.to_arrays(present), names=self.state_schema.names)
        it = iter(arrow_to_rows(table, self.time_zone))
        return [None if v is None else next(it) for v in values]

    # -- what the function gave -> Arrow and plain values --------------------------------

    def plain_states(self, rows: list[Row]) -> list[tuple[Any, ...]]:
        """State Rows as the store keeps them (their types checked against the state schema)."""
        if not rows:
            return []
        try:
            table = rows_to_arrow(rows, self.state_schema, self.time_zone)
        except (PySparkException, pa.ArrowException) as exc:
            raise _refit(exc, f"{self.operation}: a state value does not fit the state schema "
                              f"{self.state_schema.simpleString()}") from exc
        return self.state_codec.to_rows(table.columns)

    def call(self, key: tuple[Any, ...], rows: list[Row], state: GroupState) -> list[Any]:
        """The rows one call returns (a flatMap's iterator consumed, so its state changes are done)."""
        result = self.func(key, iter(rows), state)
        if self.is_map:
            if result is None:
                raise PySparkValueError(
                    f"The function of mapGroupsWithState returned None for the key {key!r}: it must return one row "
                    "(a Row, tuple, list or dict of the output schema).", "INVALID_RETURN", {"key": repr(key)})
            return [result]
        if result is None or isinstance(result, Row | dict | str | bytes) or not isinstance(result, Iterable):
            raise PySparkTypeError(
                f"The function of flatMapGroupsWithState returned {type(result).__name__} for the key {key!r}: it "
                "must return an iterable of rows (a list, or a generator yielding Rows/tuples); return [] for "
                "no rows.", "INVALID_RETURN_TYPE", {"key": repr(key), "type": type(result).__name__})
        return list(result)

    def to_batches(self, rows: list[Any]) -> list[pa.RecordBatch]:
        """The output rows as record batches of the output schema (columns named by the output's ids)."""
        if not rows:
            return []
        try:
            return list(rows_to_batches(iter(rows), self.output_schema, self.output_names, self.time_zone))
        except (PySparkException, pa.ArrowException) as exc:
            raise _refit(exc, f"{self.operation}: a row the function returned does not fit the output schema "
                              f"{self.output_schema.simpleString()}") from exc


def _refit(exc: Exception, context: str) -> Exception:
    """``exc`` with ``context`` in front of its message (same class and condition when it is ours)."""
    if isinstance(exc, PySparkException):
        return type(exc)(f"{context}: {exc.getMessage()}", None, exc.getMessageParameters())
    return PySparkValueError(f"{context}: {exc}", None, {})


class _Operator:
    """What a task of the state operator needs besides the function (small: shipped with every task)."""

    def __init__(self, fn: GroupsFunction, node: FlatMapGroupsWithState, planner: MicroBatchPlanner,
                 operator_id: int, accumulator: Any) -> None:
        info = planner.info
        self.fn = fn
        self.operator_id = operator_id
        self.location = StateLocation.of(info, operator_id)
        self.batch_timestamp_ms = info.batch_timestamp_ms
        self.accumulator = accumulator
        time_column = watermarked_input(node)
        self.watermark_present = time_column is not None
        self.watermark_ms = info.watermark_for_eviction_ms if self.watermark_present else NO_TIMESTAMP
        event_time = node.timeout == GroupStateTimeout.EventTimeTimeout and time_column is not None
        self.time_name = key_names([time_column])[0] if event_time and time_column is not None else None
        self.late_us = info.watermark_for_late_ms * 1000
        self.threshold_ms: int | None = {GroupStateTimeout.ProcessingTimeTimeout: info.batch_timestamp_ms,
                                         GroupStateTimeout.EventTimeTimeout: info.watermark_for_eviction_ms,
                                         }.get(node.timeout)

    def run(self, split: int, batches: Iterator[pa.RecordBatch]) -> list[pa.RecordBatch]:
        table = concat_batches(batches)
        dropped = 0
        if table is not None and table.num_rows and self.time_name is not None:
            times = event_time_us(table.column(self.time_name).combine_chunks())
            # Spark's late-row predicate is false for a null time: such rows are kept.
            keep = pc.fill_null(pc.greater(times, self.late_us), True)
            dropped = table.num_rows - pc.sum(keep.cast(pa.int64())).as_py()
            if dropped:
                table = table.filter(keep)
        store = self.location.open(split)
        try:
            return self._process(store, table, dropped)
        except BaseException:
            store.abort()
            raise

    def _state(self, value: Row | None, timed_out: bool) -> GroupState:
        return GroupState(value, timeout=self.fn.timeout, state_schema=self.fn.state_schema,
                          batch_timestamp_ms=self.batch_timestamp_ms, watermark_ms=self.watermark_ms,
                          watermark_present=self.watermark_present, has_timed_out=timed_out,
                          time_zone=self.fn.time_zone, operation=self.fn.operation)

    def _process(self, store: StateStore, table: pa.Table | None, dropped: int) -> list[pa.RecordBatch]:
        fn = self.fn
        counts = {"updated": 0, "removed": 0}
        output: list[Any] = []
        started = time.perf_counter()
        groups = fn.groups(table)
        entries = [store.get(key) for key, _, _ in groups]
        values = fn.state_rows([None if e is None else e[0] for e in entries])
        calls = []
        for (key, key_tuple, rows), entry, value in zip(groups, entries, values):
            state = self._state(value, False)
            output.extend(fn.call(key_tuple, rows, state))
            calls.append((key, state, NO_TIMESTAMP if entry is None else entry[1]))
        self._write(store, calls, counts)
        update_ms = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        if self.threshold_ms is not None:
            threshold = self.threshold_ms
            expired = sorted(((k, v) for k, v in store.items() if v[1] != NO_TIMESTAMP and v[1] < threshold),
                             key=lambda kv: order_key(kv[0]))
            key_tuples = fn.key_tuples([k for k, _ in expired])
            values = fn.state_rows([v[0] for _, v in expired])
            calls = []
            for (key, entry), key_tuple, value in zip(expired, key_tuples, values):
                state = self._state(value, True)
                output.extend(fn.call(key_tuple, [], state))
                calls.append((key, state, entry[1]))
            self._write(store, calls, counts)
        timeout_ms = (time.perf_counter() - started) * 1000
        batches = fn.to_batches(output)
        started = time.perf_counter()
        store.commit()
        commit_ms = (time.perf_counter() - started) * 1000
        self.accumulator.add({
            "numRowsTotal": len(store), "numRowsUpdated": counts["updated"], "numRowsRemoved": counts["removed"],
            "numRowsDroppedByWatermark": dropped,
            "memoryUsedBytes": int(store.metrics().get("memoryUsedBytes", 0)), "allUpdatesTimeMs": int(update_ms),
            "allRemovalsTimeMs": int(timeout_ms), "commitTimeMs": int(commit_ms), "numStateStoreInstances": 1})
        return batches

    def _write(self, store: StateStore, calls: list[tuple[tuple[Any, ...], GroupState, int]],
               counts: dict[str, int]) -> None:
        puts: list[tuple[tuple[Any, ...], Row | None, int]] = []
        for key, state, old_timeout in calls:
            timeout = state.timeout_ms
            if state.removed and timeout == NO_TIMESTAMP:
                if store.get(key) is not None:
                    store.remove(key)
                    counts["removed"] += 1
            elif state.updated or state.removed or timeout != old_timeout:
                puts.append((key, state.getOption, timeout))
        plain = iter(self.fn.plain_states([v for _, v, _ in puts if v is not None]))
        for key, value, timeout in puts:
            store.put(key, [None if value is None else list(next(plain)), timeout])
            counts["updated"] += 1


class FlatMapGroupsWithStateExec(PhysicalPlan):
    """The state operator of ``*GroupsWithState`` in a micro-batch."""

    def __init__(self, operator: _Operator, node: FlatMapGroupsWithState, child: PhysicalPlan) -> None:
        self.operator = operator
        self.node = node
        self.output = node.output()
        self.children = (child,)

    def execute(self, qctx: QueryContext) -> Any:
        operator = self.operator

        def run(split: int, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            yield from operator.run(split, batches)
        return self.child.execute(qctx).mapPartitionsWithIndex(run)

    def describe(self) -> str:
        keys = ", ".join(repr(k) for k in self.node.keys)
        return (f"FlatMapGroupsWithState [{keys}], state info [ operatorId = {self.operator.operator_id} ], "
                f"{self.node.output_mode.capitalize()}, {self.node.timeout}")


class BatchGroupsWithStateExec(PhysicalPlan):
    """``*GroupsWithState`` on a batch DataFrame: each group once, with an empty state."""

    def __init__(self, node: FlatMapGroupsWithState, child: PhysicalPlan) -> None:
        self.node = node
        self.output = node.output()
        self.children = (child,)

    def execute(self, qctx: QueryContext) -> Any:
        fn = GroupsFunction(self.node, python_time_zone())

        def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            output: list[Any] = []
            for _, key_tuple, rows in fn.groups(concat_batches(batches)):
                state = batch_state(fn.timeout, fn.state_schema, fn.time_zone, fn.operation)
                output.extend(fn.call(key_tuple, rows, state))
            yield from fn.to_batches(output)
        return self.child.execute(qctx).mapPartitions(run)

    def describe(self) -> str:
        keys = ", ".join(repr(k) for k in self.node.keys)
        return f"MapGroups [{keys}], {self.node.operation}"


def timer_batches(info: Any, processing_time: bool, event_time: bool) -> Callable[[int], bool]:
    """When an operator with timers needs a batch without data (Spark's rule): on every trigger with
    processing-time timers, and with event-time ones whenever the watermark moved."""
    def needs_batch(new_watermark_ms: int) -> bool:
        return processing_time or (event_time and new_watermark_ms > info.watermark_for_eviction_ms)
    return needs_batch


def keyed_exchange(keys: list[AttributeReference], child: PhysicalPlan, partitions: int) -> PhysicalPlan:
    """``child`` hash-exchanged on ``keys`` into ``partitions`` (one partition without keys)."""
    if keys:
        return ShuffleExchangeExec("hash", keys, partitions, child)
    return ShuffleExchangeExec("single", [], 1, child)


def _plan_batch(plan: LogicalPlan, qctx: QueryContext) -> PhysicalPlan:
    assert isinstance(plan, FlatMapGroupsWithState)
    child = plan_physical(plan.child, qctx)
    return BatchGroupsWithStateExec(plan, keyed_exchange(plan.keys, child, qctx.shuffle_partitions))


def _plan_streaming(plan: LogicalPlan, qctx: QueryContext, planner: MicroBatchPlanner) -> PhysicalPlan | None:
    assert isinstance(plan, FlatMapGroupsWithState)
    if not reads_stream(plan.child):
        return None
    operator_id = planner.next_operator_id()
    child = plan_physical(plan.child, qctx)
    info = planner.info
    partitions = info.state_partitions if plan.keys else 1
    needs_batch = timer_batches(info, processing_time=plan.timeout == GroupStateTimeout.ProcessingTimeTimeout,
                                event_time=plan.timeout == GroupStateTimeout.EventTimeTimeout)
    op = info.operator(operator_id, "flatMapGroupsWithState", needs_batch, partitions)
    operator = _Operator(GroupsFunction(plan, python_time_zone()), plan, planner, operator_id, op.accumulator)
    return FlatMapGroupsWithStateExec(operator, plan, keyed_exchange(plan.keys, child, partitions))


register_planner(FlatMapGroupsWithState, _plan_batch)
register_stateful(FlatMapGroupsWithState, _plan_streaming)

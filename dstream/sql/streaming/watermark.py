"""Event-time watermarks: measuring a batch's event times and advancing the watermark.

What this module owns
---------------------
* :class:`EventTimeWatermarkExec`: the physical side of ``withWatermark`` in a
  micro-batch. Rows pass through untouched; each task adds the max, min, sum and
  count of its rows' event times (milliseconds, nulls skipped) to the batch's
  accumulator for that watermark.
* :class:`WatermarkTracker`: on the driver, turns each batch's statistics into the
  watermark the *next* batch uses (Spark's rules: per watermark, max event time minus
  the delay, never moving back; across watermarks the minimum, or the maximum under
  ``spark.sql.streaming.multipleWatermarkPolicy=max``; a watermark that has seen no
  data holds the minimum at 0; the global value never moves back either).
* :func:`event_time_columns`: which columns of a plan carry event time with a
  watermark: the watermarked column itself, its renames, and the windows computed
  over it (``window(col, ...)``, ``session_window(col, ...)``), as Spark propagates
  the watermark's metadata.

Invariants
----------
* A batch never uses watermark information derived from its own data: the tracker's
  value changes only after the batch, and is written to ``commits/N`` and the next
  ``offsets/N+1``.
* A timestamp column compares by its value; a window column by its end.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..execution.context import QueryContext
from ..execution.physical import PhysicalPlan
from ..expressions.base import Alias, AttributeReference, column_key
from ..expressions.scalar_functions import ScalarFunction
from ..expressions.windows import SessionWindow, TimeWindow
from ..plan.logical import Aggregate, Generate, LogicalPlan, Project
from ..plan.windowing import SessionWindowAssign
from .relation import EventTimeWatermark

__all__ = ["EventTimeStats", "EventTimeWatermarkExec", "WatermarkTracker", "event_time_columns",
           "event_time_us"]

#: ``(max, min, sum, count)`` of event times in milliseconds; ``count == 0``: no data.
EventTimeStats = tuple[int, int, int, int]
EMPTY_STATS: EventTimeStats = (-(1 << 62), 1 << 62, 0, 0)


def merge_stats(a: EventTimeStats, b: EventTimeStats) -> EventTimeStats:
    """The statistics of two sets of rows together."""
    return (max(a[0], b[0]), min(a[1], b[1]), a[2] + b[2], a[3] + b[3])


class StatsParam:
    """The accumulator parameter merging :data:`EventTimeStats`."""

    def zero(self, value: EventTimeStats) -> EventTimeStats:
        return EMPTY_STATS

    def addInPlace(self, value1: EventTimeStats, value2: EventTimeStats) -> EventTimeStats:  # noqa: N802
        return merge_stats(value1, value2)


def event_time_us(arr: pa.Array) -> pa.Array:
    """Event times in microseconds of a timestamp column, or the ends of a window column."""
    if pa.types.is_struct(arr.type):
        arr = pc.struct_field(arr, [arr.type.get_field_index("end")])
    if pa.types.is_timestamp(arr.type):
        micros = pa.timestamp("us", arr.type.tz)
        if arr.type != micros:  # a cast, even to the same type, is a kernel call
            arr = arr.cast(micros)
        return arr.cast(pa.int64())
    return arr.cast(pa.int64())


class EventTimeWatermarkExec(PhysicalPlan):
    """``withWatermark`` in a micro-batch: rows pass; their event-time statistics are measured."""

    def __init__(self, node: EventTimeWatermark, accumulator: Any, child: PhysicalPlan) -> None:
        self.node = node
        self.accumulator = accumulator
        self.children = (child,)
        self.output = child.output

    def execute(self, qctx: QueryContext) -> Any:
        name = column_key(self.node.event_time.expr_id)
        return self.child.execute(qctx).mapPartitions(functools.partial(_measure, name, self.accumulator))

    def describe(self) -> str:
        return self.node.describe()


def _measure(name: str, acc: Any, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    stats = EMPTY_STATS
    for batch in batches:
        if batch.num_rows:
            us = event_time_us(batch.column(batch.schema.get_field_index(name)))
            valid = us.drop_null() if us.null_count else us
            if len(valid):
                # One integer pass: floor division to milliseconds (numpy's // floors, as
                # Spark's conversion does for times before 1970), then max, min and sum.
                ms = valid.to_numpy(zero_copy_only=False) // 1000
                stats = merge_stats(stats, (int(ms.max()), int(ms.min()), int(ms.sum()), len(ms)))
        yield batch
    if stats[3]:
        acc.add(stats)


class WatermarkTracker:
    """The query's watermark: per ``withWatermark`` node and global, in epoch milliseconds.

    Parameters
    ----------
    delays : dict
        Each watermark node's id -> its delay in milliseconds.
    policy : str
        ``min`` (Spark's default) or ``max``.
    """

    def __init__(self, delays: dict[int, int], policy: str = "min") -> None:
        self.delays = dict(delays)
        self.policy = policy
        self.per_node: dict[int, int] = {}
        self.current_ms = 0

    def set_current(self, watermark_ms: int) -> None:
        """Restore the watermark (recovery)."""
        self.current_ms = max(self.current_ms, watermark_ms)

    def update(self, stats: dict[int, EventTimeStats]) -> int:
        """Advance with one batch's statistics; the new global watermark."""
        for node_id, st in stats.items():
            if st[3] <= 0 or node_id not in self.delays:
                continue
            candidate = st[0] - self.delays[node_id]
            if candidate > self.per_node.get(node_id, -(1 << 62)):
                self.per_node[node_id] = candidate
        if not self.delays or not self.per_node:
            return self.current_ms
        values = [self.per_node.get(n, 0) for n in self.delays]
        chosen = max(self.per_node.values()) if self.policy == "max" else min(values)
        self.current_ms = max(self.current_ms, chosen)
        return self.current_ms


def event_time_columns(plan: LogicalPlan) -> dict[int, int]:
    """The columns of ``plan`` (expression ids) that carry a watermarked event time -> delay (ms)."""
    found: dict[int, int] = {}
    for child in plan.children:
        found.update(event_time_columns(child))
    if isinstance(plan, EventTimeWatermark):
        found[plan.event_time.expr_id] = plan.delay_ms
    elif isinstance(plan, Project | Aggregate):
        exprs = plan.exprs if isinstance(plan, Project) else plan.aggregates
        for e in exprs:
            if isinstance(e, Alias):
                delay = _window_delay(e.child, found)
                if delay is not None:
                    found[e.expr_id] = delay
    elif isinstance(plan, Generate) and isinstance(plan.generator, TimeWindow):
        delay = _window_delay(plan.generator, found)
        if delay is not None:
            for attr in plan.generator_output:
                found[attr.expr_id] = delay
    elif isinstance(plan, SessionWindowAssign):
        delay = _window_delay(plan.time_expr, found)
        if delay is not None:
            found[plan.output_attr.expr_id] = delay
    elif (carried := getattr(plan, "event_time_output", None)) is not None and found:
        # transformWithState's eventTimeColumnName: its output column carries the watermark on.
        found[carried.expr_id] = 0
    return found


def _window_delay(expr: Any, found: dict[int, int]) -> int | None:
    if isinstance(expr, AttributeReference):
        return found.get(expr.expr_id)
    if isinstance(expr, TimeWindow | SessionWindow):
        return _window_delay(expr.children[0], found)
    if isinstance(expr, ScalarFunction) and expr.name == "window_time":
        # The event time of a window an upstream aggregation emitted (Spark's window_time
        # keeps the window column's watermark): what chains a second windowed aggregation.
        return _window_delay(expr.children[0], found)
    return None


def watermark_nodes(plan: LogicalPlan) -> list[EventTimeWatermark]:
    """The ``withWatermark`` nodes of ``plan``, in walk order."""
    return [n for n in plan.walk() if isinstance(n, EventTimeWatermark)]


def key_event_time_index(keys: Sequence[AttributeReference], columns: dict[int, int]) -> int | None:
    """The index of the first key carrying a watermarked event time, or ``None``."""
    for i, k in enumerate(keys):
        if k.expr_id in columns:
            return i
    return None

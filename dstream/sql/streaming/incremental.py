"""One micro-batch as a batch query: the plan over the batch's data and how it is planned.

What this module owns
---------------------
* :class:`MicroBatchInfo`: what batch N's operators need from the engine: the batch
  id, the run id, where state lives and into how many partitions, the output mode, the
  watermarks (for late rows: the previous batch's; for eviction: this batch's), the
  batch timestamp, and the accumulators operators report through.
* :class:`MicroBatchPlanner`: the planner hook of a micro-batch (``QueryContext.streaming``).
  It plans ``withWatermark`` as a measuring operator and every operator that reads the
  stream and keeps state (aggregation, deduplication, stream-stream join, the
  ``*GroupsWithState`` functions) with the stateful physical operator registered for
  it; operator ids are given in the order planning meets them, top-down, so the same
  plan gets the same ids in every batch and after a restart.
* :class:`IncrementalExecution`: the execution of the batch's plan with the hook;
  ``current_timestamp()`` is the batch timestamp; exchanges use the pinned number of
  state partitions.
* :func:`micro_batch_dataframe`: what a sink receives, as Spark's sinks do: a batch
  DataFrame over the RDD of the micro-batch's result. What a ``foreachBatch`` function
  does with it (``limit``, ``groupBy``, a join) is batch work on those rows, never
  another stateful step of the stream; each action on it computes the batch again,
  which the state operators make idempotent (version N is read, N+1 rewritten).

Invariants
----------
* Planning never depends on the batch's data: a re-run batch gets the same operators,
  the same ids and the same partitioning, so it reads and writes the same state
  versions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..execution.context import QueryContext
from ..execution.physical import PhysicalPlan
from ..execution.planner import plan_physical
from ..expressions.base import EvalContext
from ..plan.logical import LogicalPlan
from ..query import QueryExecution
from .relation import ArrowRDDRelation, EventTimeWatermark
from .watermark import EventTimeWatermarkExec, StatsParam

if TYPE_CHECKING:
    from ..dataframe import DataFrame
    from ..session import SparkSession

__all__ = ["IncrementalExecution", "MicroBatchInfo", "MicroBatchPlanner", "micro_batch_dataframe",
           "StatefulOperatorInfo", "register_stateful"]


class _DictSumParam:
    """Accumulator parameter summing dicts of counters key by key."""

    def zero(self, value: dict[str, Any]) -> dict[str, Any]:
        return {}

    def addInPlace(self, value1: dict[str, Any], value2: dict[str, Any]) -> dict[str, Any]:  # noqa: N802
        out = dict(value1)
        for k, v in value2.items():
            if isinstance(v, dict):
                out[k] = self.addInPlace(out.get(k, {}), v)
            else:
                out[k] = out.get(k, 0) + v
        return out


@dataclass
class StatefulOperatorInfo:
    """A stateful operator of the last planned batch, as the engine sees it afterwards."""

    operator_id: int
    name: str
    accumulator: Any
    #: Whether a batch without data would do work at a new watermark (emit, evict, time out).
    needs_batch: Callable[[int], bool]
    partitions: int
    custom_metrics: tuple[str, ...] = ()


@dataclass
class MicroBatchInfo:
    """What batch ``batch_id``'s operators need from the engine."""

    sc: Any
    batch_id: int
    run_id: str
    state_root: str
    state_partitions: int
    output_mode: str
    batch_timestamp_ms: int
    has_watermark: bool
    watermark_for_late_ms: int
    watermark_for_eviction_ms: int
    conf: dict[str, str]
    query_id: str = ""
    #: The run's residency scope (see ``state/residency.py``); -1 outside a query run.
    state_scope: int = -1
    watermark_stats: dict[int, Any] = field(default_factory=dict)
    operators: dict[int, StatefulOperatorInfo] = field(default_factory=dict)

    def stats_accumulator(self, watermark_id: int) -> Any:
        """The accumulator of event-time statistics of one ``withWatermark`` (one per batch)."""
        acc = self.watermark_stats.get(watermark_id)
        if acc is None:
            from .watermark import EMPTY_STATS

            acc = self.sc.accumulator(EMPTY_STATS, StatsParam())
            self.watermark_stats[watermark_id] = acc
        return acc

    def operator(self, operator_id: int, name: str, needs_batch: Callable[[int], bool], partitions: int,
                 custom_metrics: tuple[str, ...] = ()) -> StatefulOperatorInfo:
        """The record of stateful operator ``operator_id`` (its metrics accumulator made once per batch)."""
        op = self.operators.get(operator_id)
        if op is None:
            op = StatefulOperatorInfo(operator_id, name, self.sc.accumulator({}, _DictSumParam()), needs_batch,
                                      partitions, custom_metrics)
            self.operators[operator_id] = op
        return op


#: Logical node type -> its stateful planner ``fn(node, qctx, planner)``.
_STATEFUL: dict[type, Callable[[LogicalPlan, QueryContext, MicroBatchPlanner], PhysicalPlan | None]] = {}


def register_stateful(node_type: type,
                      fn: Callable[[LogicalPlan, QueryContext, MicroBatchPlanner], PhysicalPlan | None]) -> None:
    """Plan ``node_type`` nodes of micro-batches with ``fn`` (``None``: the batch planner's way)."""
    _STATEFUL[node_type] = fn


class MicroBatchPlanner:
    """``QueryContext.streaming`` of one planning of a micro-batch."""

    def __init__(self, info: MicroBatchInfo) -> None:
        self.info = info
        self._next_id = 0

    def next_operator_id(self) -> int:
        """The id of the next stateful operator met (top-down)."""
        op = self._next_id
        self._next_id += 1
        return op

    def plan(self, node: LogicalPlan, qctx: QueryContext) -> PhysicalPlan | None:
        if isinstance(node, EventTimeWatermark):
            acc = self.info.stats_accumulator(node.watermark_id)
            return EventTimeWatermarkExec(node, acc, plan_physical(node.child, qctx))
        fn = _STATEFUL.get(type(node))
        if fn is None:
            return None
        return fn(node, qctx, self)


class IncrementalExecution(QueryExecution):
    """The execution of a micro-batch's plan: the batch planner with the micro-batch hook."""

    def __init__(self, session: SparkSession, plan: LogicalPlan, info: MicroBatchInfo) -> None:
        super().__init__(session, plan)
        self.info = info

    def context(self) -> QueryContext:
        base = super().context()
        eval_ctx = EvalContext(ansi=base.eval_ctx.ansi, time_zone=base.eval_ctx.time_zone,
                               now_us=self.info.batch_timestamp_ms * 1000, extras=dict(base.eval_ctx.extras))
        return QueryContext(sc=base.sc, eval_ctx=eval_ctx, shuffle_partitions=self.info.state_partitions,
                            broadcast_threshold=base.broadcast_threshold, conf=base.conf,
                            streaming=MicroBatchPlanner(self.info))


def micro_batch_dataframe(session: SparkSession, execution: IncrementalExecution) -> DataFrame:
    """The batch DataFrame of a micro-batch's result rows (planned once, computed by each action)."""
    rdd = execution.to_rdd()
    return session._new_dataframe(ArrowRDDRelation(execution.analyzed.output(), rdd, "MicroBatch"))

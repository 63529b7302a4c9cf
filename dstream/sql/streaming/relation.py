"""The logical nodes Structured Streaming adds: stream leaves and the watermark.

What this module owns
---------------------
* :class:`StreamingRelation`: the leaf of ``spark.readStream...load()``, a source
  not yet started (its format, options and schema). A query's sources are its
  distinct streaming relations, numbered in the order a walk of the plan meets them.
* :class:`EventTimeWatermark`: ``withWatermark(col, delay)``. It passes rows through;
  in a micro-batch it also measures the batch's event times (max, min, average) from
  which the engine advances the watermark. On a batch DataFrame it does nothing.
* :class:`ArrowRDDRelation`: a leaf over an RDD of Arrow record batches, which is what
  a source that reads in tasks (Kafka, rate) hands back for an offset range.
* :func:`reads_stream`: whether a plan has a streaming leaf below it.

Invariants
----------
* A leaf substituted for a streaming relation in a micro-batch keeps the relation's
  output attributes and is marked ``is_streaming``, so the planner knows which
  operators are stateful (those reading a stream) and which read static data.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..execution.context import QueryContext
from ..execution.physical import PhysicalPlan
from ..execution.planner import plan_physical, register_planner
from ..expressions.base import AttributeReference, Expression
from ..plan.logical import LeafPlan, LogicalPlan, UnaryPlan
from ..types import StructType

__all__ = ["ArrowRDDRelation", "EventTimeWatermark", "SourceSpec", "StreamingRelation", "reads_stream",
           "streaming_relations"]


class SourceSpec:
    """What ``readStream`` was told: the format, its options (lower-cased keys) and the schema."""

    def __init__(self, format_name: str, options: dict[str, str], schema: StructType) -> None:
        self.format_name = format_name
        self.options = dict(options)
        self.schema = schema


class StreamingRelation(LeafPlan):
    """A streaming source in a DataFrame's plan, not yet started."""

    is_streaming = True

    def __init__(self, output: Sequence[AttributeReference], spec: SourceSpec) -> None:
        super().__init__(output)
        self.spec = spec

    def describe(self) -> str:
        cols = ", ".join(repr(a) for a in self._output)
        return f"StreamingRelation {self.spec.format_name}, [{cols}]"


class ArrowRDDRelation(LeafPlan):
    """Rows computed by an RDD of Arrow record batches (columns named by the output's ids)."""

    def __init__(self, output: Sequence[AttributeReference], rdd: Any, name: str) -> None:
        super().__init__(output)
        self.rdd = rdd
        self.name = name

    def describe(self) -> str:
        cols = ", ".join(repr(a) for a in self._output)
        return f"{self.name} [{cols}]"


class EventTimeWatermark(UnaryPlan):
    """``withWatermark``: rows pass through; ``event_time`` is watermarked with ``delay_ms``."""

    def __init__(self, event_time: AttributeReference, delay_ms: int, child: LogicalPlan) -> None:
        super().__init__(child)
        self.event_time = event_time
        self.delay_ms = delay_ms

    def expressions(self) -> list[Expression]:
        return [self.event_time]

    def with_children(self, children: Sequence[LogicalPlan]) -> LogicalPlan:
        return EventTimeWatermark(self.event_time, self.delay_ms, children[0])

    def map_expressions(self, fn: Callable[[Expression], Expression]) -> LogicalPlan:
        return self

    def describe(self) -> str:
        return f"EventTimeWatermark {self.event_time!r}: {self.delay_ms} milliseconds"


def reads_stream(plan: LogicalPlan) -> bool:
    """Whether ``plan`` has a streaming leaf (a relation, or its data in a micro-batch)."""
    return any(node.is_streaming for node in plan.walk())


def streaming_relations(plan: LogicalPlan) -> list[StreamingRelation]:
    """The distinct streaming relations of ``plan``, in the order a walk meets them (source ids)."""
    seen: dict[int, StreamingRelation] = {}
    for node in plan.walk():
        if isinstance(node, StreamingRelation) and id(node) not in seen:
            seen[id(node)] = node
    return list(seen.values())


class ArrowRDDScanExec(PhysicalPlan):
    """Scan of an :class:`ArrowRDDRelation`."""

    def __init__(self, relation: ArrowRDDRelation) -> None:
        self.relation = relation
        self.output = relation.output()

    def execute(self, qctx: QueryContext) -> Any:
        return self.relation.rdd

    def describe(self) -> str:
        return f"Scan {self.relation.describe()}"


class _PassThroughExec(PhysicalPlan):
    def __init__(self, node: EventTimeWatermark, child: PhysicalPlan) -> None:
        self.node = node
        self.children = (child,)
        self.output = child.output

    def execute(self, qctx: QueryContext) -> Any:
        return self.child.execute(qctx)

    def describe(self) -> str:
        return self.node.describe()


def _plan_arrow_rdd(plan: LogicalPlan, qctx: QueryContext) -> PhysicalPlan:
    assert isinstance(plan, ArrowRDDRelation)
    return ArrowRDDScanExec(plan)


def _plan_watermark(plan: LogicalPlan, qctx: QueryContext) -> PhysicalPlan:
    # Outside a micro-batch (a batch DataFrame) a watermark does nothing, as in Spark.
    assert isinstance(plan, EventTimeWatermark)
    return _PassThroughExec(plan, plan_physical(plan.child, qctx))


def _plan_streaming_relation(plan: LogicalPlan, qctx: QueryContext) -> PhysicalPlan:
    from ..errors import AnalysisException

    raise AnalysisException("Queries with streaming sources must be executed with writeStream.start();")


register_planner(ArrowRDDRelation, _plan_arrow_rdd)
register_planner(EventTimeWatermark, _plan_watermark)
register_planner(StreamingRelation, _plan_streaming_relation)

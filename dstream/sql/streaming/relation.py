"""The logical nodes Structured Streaming adds: stream leaves and the watermark.

What this module owns
---------------------
* :class:`StreamingRelation`: the leaf of ``spark.readStream...load()``, a source
  not yet started (its format, options and schema). A query's sources are its
  distinct streaming relations, numbered in the order a walk of the plan meets them.
* :class:`EventTimeWatermark`: ``withWatermark(col, delay)``. It passes rows through;
  in a micro-batch it also measures the batch's event times (max, min, average) from
  which the engine advances the watermark. On a batch DataFrame it does nothing.
* :class:`ArrowRDDRelation` (the core's, re-exported): a leaf over an RDD of Arrow record
  batches, which is what a source that reads in tasks (Kafka, rate) hands back for an
  offset range.
* :func:`reads_stream` (the plan layer's, re-exported): whether a plan has a streaming
  leaf below it.

Invariants
----------
* In a micro-batch each streaming relation is replaced by a :class:`MicroBatchSource`
  over the source's rows for the batch, with the relation's output attributes, so the
  planner knows which operators are stateful (those reading a stream) and which read
  static data.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..execution.context import QueryContext
from ..execution.physical import PhysicalPlan
from ..execution.planner import plan_physical, register_planner
from ..expressions.base import AttributeReference, Expression, new_expr_id
from ..plan.arrow_rdd import ArrowRDDRelation
from ..plan.logical import LeafPlan, LogicalPlan, UnaryPlan
from ..plan.streams import reads_stream
from ..types import StructType

__all__ = ["ArrowRDDRelation", "EventTimeWatermark", "MicroBatchSource", "SourceSpec", "StreamingRelation",
           "reads_stream", "streaming_relations"]


class SourceSpec:
    """What ``readStream`` was told: the format, its options (lower-cased keys) and the schema.

    ``provider`` makes the source when a query starts (a ``MemoryStream`` is its own).
    """

    def __init__(self, format_name: str, options: dict[str, str], schema: StructType, provider: Any) -> None:
        self.format_name = format_name
        self.options = dict(options)
        self.schema = schema
        self.provider = provider


class StreamingRelation(LeafPlan):
    """A streaming source in a DataFrame's plan, not yet started."""

    is_streaming = True
    stream_input = True

    def __init__(self, output: Sequence[AttributeReference], spec: SourceSpec,
                 metadata: AttributeReference | None = None) -> None:
        super().__init__(output)
        self.spec = spec
        #: A file source's hidden ``_metadata`` column (each batch's file scan carries it on).
        self.metadata = metadata

    def describe(self) -> str:
        cols = ", ".join(repr(a) for a in self._output)
        return f"StreamingRelation {self.spec.format_name}, [{cols}]"


class EventTimeWatermark(UnaryPlan):
    """``withWatermark``: rows pass through; ``event_time`` is watermarked with ``delay_ms``."""

    passes_rows_through = True

    def __init__(self, event_time: AttributeReference, delay_ms: int, child: LogicalPlan,
                 watermark_id: int | None = None) -> None:
        super().__init__(child)
        self.event_time = event_time
        self.delay_ms = delay_ms
        #: Identifies this watermark across the batches of a query (plans are rebuilt per batch).
        self.watermark_id = new_expr_id() if watermark_id is None else watermark_id

    def expressions(self) -> list[Expression]:
        return [self.event_time]

    def filter_barrier(self) -> frozenset[int] | None:
        # Spark pushes a filter that does not read the event time below the watermark: the
        # rows it drops never move the watermark on.
        return frozenset({self.event_time.expr_id})

    def with_children(self, children: Sequence[LogicalPlan]) -> LogicalPlan:
        return EventTimeWatermark(self.event_time, self.delay_ms, children[0], self.watermark_id)

    def map_expressions(self, fn: Callable[[Expression], Expression]) -> LogicalPlan:
        return self

    def describe(self) -> str:
        return f"EventTimeWatermark {self.event_time!r}: {self.delay_ms} milliseconds"


class MicroBatchSource(UnaryPlan):
    """In a micro-batch, the rows a source gave for the batch's offset range (``child``).

    It marks what reads the stream (the planner makes the operators above it stateful)
    and counts the rows into ``counter`` (an accumulator) for progress' ``numInputRows``.
    """

    passes_rows_through = True
    stream_input = True

    def __init__(self, child: LogicalPlan, source_index: int, counter: Any) -> None:
        super().__init__(child)
        self.source_index = source_index
        self.counter = counter

    def with_children(self, children: Sequence[LogicalPlan]) -> LogicalPlan:
        return MicroBatchSource(children[0], self.source_index, self.counter)

    def describe(self) -> str:
        return f"MicroBatchSource {self.source_index}"


def streaming_relations(plan: LogicalPlan) -> list[StreamingRelation]:
    """The distinct streaming relations of ``plan``, in the order a walk meets them (source ids)."""
    seen: dict[int, StreamingRelation] = {}
    for node in plan.walk():
        if isinstance(node, StreamingRelation) and id(node) not in seen:
            seen[id(node)] = node
    return list(seen.values())


class _PassThroughExec(PhysicalPlan):
    def __init__(self, node: EventTimeWatermark, child: PhysicalPlan) -> None:
        self.node = node
        self.children = (child,)
        self.output = child.output

    def execute(self, qctx: QueryContext) -> Any:
        return self.child.execute(qctx)

    def describe(self) -> str:
        return self.node.describe()


class MicroBatchSourceExec(PhysicalPlan):
    """Counts the rows of a micro-batch's source into its accumulator; rows pass through."""

    def __init__(self, node: MicroBatchSource, child: PhysicalPlan) -> None:
        self.node = node
        self.children = (child,)
        self.output = child.output

    def execute(self, qctx: QueryContext) -> Any:
        return self.child.execute(qctx).mapPartitions(functools.partial(_count_rows, self.node.counter))

    def describe(self) -> str:
        return self.node.describe()


def _count_rows(counter: Any, batches: Iterator[Any]) -> Iterator[Any]:
    rows = 0
    for batch in batches:
        rows += batch.num_rows
        yield batch
    counter.add(rows)


def _plan_micro_batch_source(plan: LogicalPlan, qctx: QueryContext) -> PhysicalPlan:
    assert isinstance(plan, MicroBatchSource)
    return MicroBatchSourceExec(plan, plan_physical(plan.child, qctx))


def _plan_watermark(plan: LogicalPlan, qctx: QueryContext) -> PhysicalPlan:
    # Outside a micro-batch (a batch DataFrame) a watermark does nothing, as in Spark.
    assert isinstance(plan, EventTimeWatermark)
    return _PassThroughExec(plan, plan_physical(plan.child, qctx))


class _StreamingRelationExec(PhysicalPlan):
    """A source not started, in the plan ``explain()`` prints for a streaming DataFrame; never runs."""

    def __init__(self, node: StreamingRelation) -> None:
        self.node = node
        self.output = list(node.output())

    def execute(self, qctx: QueryContext) -> Any:
        from ..errors import AnalysisException

        raise AnalysisException("Queries with streaming sources must be executed with writeStream.start();",
                                "_LEGACY_ERROR_TEMP_3102")

    def describe(self) -> str:
        return self.node.describe()


def _plan_streaming_relation(plan: LogicalPlan, qctx: QueryContext) -> PhysicalPlan:
    # Planned only for explain(): a micro-batch replaces the relation before planning,
    # and running the plan of a streaming DataFrame raises (see execute).
    assert isinstance(plan, StreamingRelation)
    return _StreamingRelationExec(plan)


register_planner(EventTimeWatermark, _plan_watermark)
register_planner(StreamingRelation, _plan_streaming_relation)
register_planner(MicroBatchSource, _plan_micro_batch_source)

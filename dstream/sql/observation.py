"""``DataFrame.observe``: named aggregate metrics of the rows an action passes, and ``Observation``.

What this module owns
---------------------
* :class:`Observation` (PySpark's ``pyspark.sql.Observation``): ``df.observe(observation,
  F.count(F.lit(1)).alias("rows"), ...)`` returns a DataFrame with the same rows; once an
  action ran on it, ``observation.get`` is ``{"rows": ...}``.
* :class:`CollectMetrics`, the logical node ``observe`` adds (Spark's name): rows and
  columns pass through unchanged; its metrics are aggregates over them.
* :class:`CollectMetricsExec`: each task aggregates its partition's rows into partial
  buffers (the aggregation's own first phase) while passing them on, and adds them, with
  its partition index, to an accumulator made for that execution; the driver merges the
  partitions' buffers and finishes the metrics (:meth:`MetricsCollector.metrics`).

Invariants
----------
* An ``Observation``'s metrics are those of the first action that ran the observed
  DataFrame to the end: an execution counts once every partition has reported, and a
  re-run task's partition counts once. Later actions do not change them (Spark's
  ``Observation``). A named ``observe`` in a streaming query reports each micro-batch's
  metrics in its progress' ``observedMetrics`` (:func:`observed_metrics`).
* Each metric is named (``alias``) and aggregates (``count``, ``max``, ``sum(...) * 2``...),
  as Spark requires; anything else is refused when ``observe`` is called.
* ``Observation.get`` before any action finished raises, naming the observation (Spark
  would wait for ever in a program that runs no action).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa

from .errors import AnalysisException, PySparkTypeError, PySparkValueError
from .execution.aggregate import AggregateSpec
from .execution.arrays import table_as_batch
from .execution.context import QueryContext
from .execution.physical import PhysicalPlan, arrow_schema, as_array
from .execution.planner import plan_physical, register_planner
from .execution.shuffle import to_ipc
from .expressions.aggregate_base import AggregateFunction
from .expressions.aggregates import aggregate_functions
from .expressions.base import Alias, EvalContext, Expression
from .plan.logical import LogicalPlan, UnaryPlan

__all__ = ["CollectMetrics", "MetricsCollector", "Observation", "observed_metrics"]


class _Partials:
    """Accumulator param: the ``(partition, IPC bytes)`` pairs of an execution's partial buffers."""

    def zero(self, value: list[Any]) -> list[Any]:
        return []

    def addInPlace(self, value1: list[Any], value2: list[Any]) -> list[Any]:  # noqa: N802 - PySpark's name
        value1.extend(value2)
        return value1


class MetricsCollector:
    """The metrics of one ``observe`` call: its expressions and the executions that ran them."""

    def __init__(self, name: str, metrics: Sequence[Expression], first_only: bool = True) -> None:
        self.name = name
        #: An Observation keeps its first complete execution; a named observe (streaming
        #: progress) the latest one.
        self.first_only = first_only
        self.metrics = list(metrics)
        functions: dict[Any, AggregateFunction] = {}
        for metric in self.metrics:
            for function in aggregate_functions(metric):
                functions.setdefault(function.semantic_key(), function)
        self.functions = list(functions.values())
        self._lock = threading.Lock()
        self._runs: list[tuple[Any, int, AggregateSpec, EvalContext]] = []
        self._result: dict[str, Any] | None = None

    def register(self, accumulator: Any, partitions: int, spec: AggregateSpec, ctx: EvalContext) -> None:
        """An execution of the observed plan: ``partitions`` tasks will add to ``accumulator``."""
        with self._lock:
            if self.first_only and self._result is not None:
                return  # the metrics are known: later actions do not change them
            if not self.first_only:
                self._runs.clear()  # only the latest execution is read
            self._runs.append((accumulator, partitions, spec, ctx))

    def latest_metrics(self) -> dict[str, Any] | None:
        """The metrics of the latest execution, once all its partitions reported (a micro-batch's)."""
        with self._lock:
            return self._metrics_of(*self._runs[-1]) if self._runs else None

    def metrics_dict(self) -> dict[str, Any] | None:
        """The metrics of the first execution all of whose partitions reported; ``None`` before."""
        with self._lock:
            for run in self._runs if self._result is None else ():
                self._result = self._metrics_of(*run)
                if self._result is not None:
                    self._runs.clear()
                    break
            return self._result

    def _metrics_of(self, accumulator: Any, partitions: int, spec: AggregateSpec,
                    ctx: EvalContext) -> dict[str, Any] | None:
        """One execution's metrics, or ``None`` while a partition has not reported."""
        reported = dict(accumulator.value)  # one entry per partition, re-runs included once
        if len(reported) < partitions:
            return None
        buffers = [pa.ipc.open_stream(blob).read_all() for blob in reported.values()]  # a schema even if empty
        final = table_as_batch(spec.final(pa.concat_tables(buffers) if buffers else None, ctx))
        values = {}
        for metric in self.metrics:
            name = metric.name if isinstance(metric, Alias) else metric.sql()
            values[name] = as_array(spec.rewrite(metric).eval(final, ctx), final.num_rows)[0].as_py()
        return values


class CollectMetrics(UnaryPlan):
    """``observe(name, *metrics)``: the child's rows, and aggregate metrics over them."""

    passes_rows_through = True

    def __init__(self, collector: MetricsCollector, child: LogicalPlan) -> None:
        super().__init__(child)
        self.collector = collector

    def expressions(self) -> list[Expression]:
        return list(self.collector.metrics)

    def with_children(self, children: Sequence[LogicalPlan]) -> LogicalPlan:
        return CollectMetrics(self.collector, children[0])

    def describe(self) -> str:
        return f"CollectMetrics {self.collector.name}, [{', '.join(m.sql() for m in self.collector.metrics)}]"


class CollectMetricsExec(PhysicalPlan):
    """Passes its child's batches on; aggregates them into an accumulator per execution."""

    def __init__(self, node: CollectMetrics, child: PhysicalPlan) -> None:
        self.node = node
        self.children = (child,)
        self.output = child.output

    def execute(self, qctx: QueryContext) -> Any:
        collector = self.node.collector
        spec = AggregateSpec([], collector.functions, arrow_schema(self.child.output))
        rdd = self.child.execute(qctx)
        accumulator = qctx.sc.accumulator([], _Partials())
        collector.register(accumulator, rdd.getNumPartitions(), spec, qctx.eval_ctx)
        return rdd.mapPartitionsWithIndex(functools.partial(_observe, spec, qctx.eval_ctx, accumulator))

    def describe(self) -> str:
        return self.node.describe()


def _observe(spec: AggregateSpec, ctx: EvalContext, accumulator: Any, partition: int,
             batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    partials = []
    for batch in batches:
        partials.append(spec.partial(pa.Table.from_batches([batch]), ctx))
        yield batch
    table = spec.merge(pa.concat_tables(partials)) if partials else spec.partial(spec.input_schema.empty_table(), ctx)
    accumulator.add([(partition, to_ipc(table, table.schema))])


def _plan_collect_metrics(plan: LogicalPlan, qctx: QueryContext) -> PhysicalPlan:
    assert isinstance(plan, CollectMetrics)
    return CollectMetricsExec(plan, plan_physical(plan.child, qctx))


register_planner(CollectMetrics, _plan_collect_metrics)


def check_metrics(name: str, metrics: Sequence[Expression]) -> None:
    """Spark's rules for ``observe``'s expressions: at least one, each named and aggregating."""
    if not metrics:
        raise PySparkValueError(f"observe({name!r}) needs at least one metric expression (as count(lit(1))"
                                ".alias('rows')).", "CANNOT_BE_EMPTY", {"item": "exprs"})
    for metric in metrics:
        if not isinstance(metric, Alias):
            raise AnalysisException(
                f"The observed metric {metric.sql()} of {name!r} has no name: give it one with alias().",
                "INVALID_OBSERVED_METRICS.MISSING_NAME", {"expr": metric.sql()})
        if not aggregate_functions(metric):
            raise AnalysisException(
                f"The observed metric {metric.sql()} of {name!r} does not aggregate: a metric is an aggregate "
                "over the observed rows (count, sum, max...).",
                "INVALID_OBSERVED_METRICS.NON_AGGREGATE_FUNC_ARG_IS_ATTRIBUTE", {"expr": metric.sql()})


class Observation:
    """Named metrics of a DataFrame, read after an action ran on it (PySpark's ``Observation``).

    Parameters
    ----------
    name : str, optional
        The metrics' name (a generated one when omitted).

    Examples
    --------
    >>> from dstream.sql import Observation, functions as F
    >>> observation = Observation("stats")
    >>> df = spark.createDataFrame([(1,), (5,)], "v long").observe(
    ...     observation, F.count(F.lit(1)).alias("rows"), F.max("v").alias("top"))
    >>> df.count()
    2
    >>> observation.get
    {'rows': 2, 'top': 5}
    """

    _ids = iter(range(1, 1 << 62))

    def __init__(self, name: str | None = None) -> None:
        if name is not None and (not isinstance(name, str) or not name):
            raise PySparkTypeError(f"Observation's name must be a non-empty str, got {name!r}.", "NOT_STR",
                                   {"arg_name": "name", "arg_type": type(name).__name__})
        self.name = name if name is not None else f"observation-{next(self._ids)}"
        self._collector: MetricsCollector | None = None

    def _attach(self, collector: MetricsCollector) -> None:
        if self._collector is not None:
            raise PySparkValueError(f"The Observation {self.name!r} already observes a DataFrame: make a new one.",
                                    "REUSE_OBSERVATION", {})
        self._collector = collector

    @property
    def get(self) -> dict[str, Any]:
        """The metrics (name -> value) of the first action that ran the observed DataFrame."""
        result = self._collector.metrics_dict() if self._collector is not None else None
        if result is None:
            raise PySparkValueError(
                f"The Observation {self.name!r} has no metrics yet: run an action (count, collect, write...) on the "
                "DataFrame observe() returned first.", "NO_OBSERVE_BEFORE_GET", {})
        return result


def observed_metrics(plan: LogicalPlan) -> dict[str, dict[str, Any]]:
    """``observedMetrics`` of a streaming progress: each named ``observe`` of ``plan`` with the
    metrics of its latest execution (the micro-batch that just ran)."""
    out: dict[str, dict[str, Any]] = {}
    for node in plan.walk():
        if isinstance(node, CollectMetrics) and not node.collector.first_only:
            metrics = node.collector.latest_metrics()
            if metrics is not None:
                out[node.collector.name] = metrics
    return dict(sorted(out.items()))

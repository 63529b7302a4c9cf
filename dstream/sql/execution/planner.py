"""The physical planner: an optimized logical plan becomes a tree of physical operators.

What this module owns
---------------------
:func:`plan_physical`, Spark's ``SparkPlanner`` for our operators: which join
strategy (broadcast when a side's estimated size is within
``broadcast_threshold``, else shuffled hash; nested loop without equi-keys), where the
exchanges go (hash on the grouping or join keys, single partition for global
aggregates and limits, range for global sorts), and the two phases of aggregation.

Invariants
----------
* The planner never changes what a plan computes, only how: output attributes of a
  physical node are those of its logical node, same ids, same order.
* Exchanges use ``qctx.shuffle_partitions`` partitions (``repartition(n)`` uses its ``n``).
* A broadcast build side is never one an outer join must keep every row of.
"""

from __future__ import annotations

from collections.abc import Callable

from ..expressions.base import AttributeReference, Expression
from ..plan import logical as L  # noqa: N812 - the plan's node classes, as Spark's L prefix
from ..plan.arrow_rdd import ArrowRDDRelation
from ..plan.cached import CachedRelation
from ..plan.grouping_sets import Expand
from ..plan.window_plan import WindowPlan
from ..plan.windowing import SessionWindowAssign
from .aggregate import AggregateSpec, DeduplicateExec, FinalAggregateExec, PartialAggregateExec, collect_aggregates
from .context import QueryContext
from .exchange import ShuffleExchangeExec
from .joins import BroadcastHashJoinExec, JoinSpec, ShuffledHashJoinExec, join_sources, split_join_condition
from .physical import (
    CoalesceExec,
    ExpandExec,
    FilterExec,
    GenerateExec,
    GlobalLimitExec,
    LocalLimitExec,
    PhysicalPlan,
    ProjectExec,
    SampleExec,
    UnionExec,
    arrow_schema,
    key_names,
)
from .scans import ArrowRDDScanExec, CachedScanExec, FileScanExec, LocalTableScanExec, RangeExec, RDDScanExec
from .session_window import SessionWindowExec
from .sort import SortExec, TakeOrderedExec
from .window_exec import WindowExec

__all__ = ["plan_physical", "register_planner"]


def register_planner(node_type: type, fn: Callable[[L.LogicalPlan, QueryContext], PhysicalPlan]) -> None:
    """Plan logical nodes of ``node_type`` (defined by a layer above, such as streaming) with ``fn``."""
    _PLANNERS[node_type] = fn


def plan_physical(plan: L.LogicalPlan, qctx: QueryContext) -> PhysicalPlan:
    """The physical plan computing the (optimized) logical ``plan``."""
    if qctx.streaming is not None:
        # A micro-batch plans its stateful operators itself (state stores, watermarks).
        chosen = qctx.streaming.plan(plan, qctx)
        if chosen is not None:
            return chosen
    planner = _PLANNERS.get(type(plan))
    if planner is None:
        for cls, fn in _PLANNERS.items():
            if isinstance(plan, cls):
                planner = fn
                break
    if planner is None:
        raise NotImplementedError(f"no physical operator for the logical node {type(plan).__name__}")
    return planner(plan, qctx)


def _local(plan: L.LogicalPlan, qctx: QueryContext) -> PhysicalPlan:
    assert isinstance(plan, L.LocalRelation)
    return LocalTableScanExec(plan.output(), plan.table)


def _range(plan: L.LogicalPlan, qctx: QueryContext) -> PhysicalPlan:
    assert isinstance(plan, L.RangeRelation)
    return RangeExec(plan.output(), plan.start, plan.end, plan.step, plan.num_slices)


def _rdd(plan: L.LogicalPlan, qctx: QueryContext) -> PhysicalPlan:
    assert isinstance(plan, L.RDDRelation)
    return RDDScanExec(plan.output(), plan.rdd, plan.schema)


def _arrow_rdd(plan: L.LogicalPlan, qctx: QueryContext) -> PhysicalPlan:
    assert isinstance(plan, ArrowRDDRelation)
    return ArrowRDDScanExec(plan.output(), plan.rdd, plan.describe())


def _file(plan: L.LogicalPlan, qctx: QueryContext) -> PhysicalPlan:
    assert isinstance(plan, L.FileRelation)
    return FileScanExec(plan.output(), plan.format_name, plan.files, plan.options, plan.schema, plan.pushed_filters,
                        None if plan.metadata is None else plan.metadata.expr_id)


def _cached(plan: L.LogicalPlan, qctx: QueryContext) -> PhysicalPlan:
    assert isinstance(plan, CachedRelation)
    return CachedScanExec(plan.output(), plan, lambda child: plan_physical(child, qctx).execute(qctx))


def _project(plan: L.LogicalPlan, qctx: QueryContext) -> PhysicalPlan:
    assert isinstance(plan, L.Project)
    return ProjectExec(plan.exprs, plan_physical(plan.child, qctx))


def _filter(plan: L.LogicalPlan, qctx: QueryContext) -> PhysicalPlan:
    assert isinstance(plan, L.Filter)
    return FilterExec(plan.condition, plan_physical(plan.child, qctx))


def _aggregate(plan: L.LogicalPlan, qctx: QueryContext) -> PhysicalPlan:
    assert isinstance(plan, L.Aggregate)
    child = plan_physical(plan.child, qctx)
    spec = AggregateSpec(plan.grouping, collect_aggregates(plan.aggregates), arrow_schema(child.output))
    partial = PartialAggregateExec(spec, child)
    if spec.grouping:
        exchange = ShuffleExchangeExec("hash", spec.key_attrs, qctx.shuffle_partitions, partial)
    else:
        exchange = ShuffleExchangeExec("single", [], 1, partial)
    return FinalAggregateExec(spec, plan.aggregates, plan.output(), exchange)


def _dedup(plan: L.LogicalPlan, qctx: QueryContext) -> PhysicalPlan:
    assert isinstance(plan, L.Deduplicate)
    child = plan_physical(plan.child, qctx)
    keys = list(plan.keys) or list(child.output)
    partial = DeduplicateExec(keys, child, final=False)
    kind = "hash" if keys else "single"
    return DeduplicateExec(keys, ShuffleExchangeExec(kind, keys, qctx.shuffle_partitions, partial), final=True)


def _sort(plan: L.LogicalPlan, qctx: QueryContext) -> PhysicalPlan:
    assert isinstance(plan, L.Sort)
    child = plan_physical(plan.child, qctx)
    if plan.is_global:
        child = ShuffleExchangeExec("range", plan.orders, qctx.shuffle_partitions, child)
    return SortExec(plan.orders, plan.is_global, child)


def _limit(plan: L.LogicalPlan, qctx: QueryContext) -> PhysicalPlan:
    assert isinstance(plan, L.Limit)
    below = plan.child
    while isinstance(below, L.SubqueryAlias):
        below = below.child
    if isinstance(below, L.Sort) and below.is_global:
        return TakeOrderedExec(plan.n, below.orders, plan_physical(below.child, qctx), plan.offset)
    child = plan_physical(plan.child, qctx)
    # n < 0: an offset alone (df.offset(k)), no partition's rows may be cut before the global skip.
    local = LocalLimitExec(plan.n + plan.offset, child) if plan.n >= 0 else child
    return GlobalLimitExec(plan.n, ShuffleExchangeExec("single", [], 1, local), plan.offset)


def _union(plan: L.LogicalPlan, qctx: QueryContext) -> PhysicalPlan:
    assert isinstance(plan, L.Union)
    return UnionExec([plan_physical(c, qctx) for c in plan.children], plan.output())


def _alias(plan: L.LogicalPlan, qctx: QueryContext) -> PhysicalPlan:
    return plan_physical(plan.child, qctx)


def _repartition(plan: L.LogicalPlan, qctx: QueryContext) -> PhysicalPlan:
    assert isinstance(plan, L.Repartition)
    child = plan_physical(plan.child, qctx)
    if not plan.shuffle:
        return CoalesceExec(plan.num_partitions, child)
    n = plan.num_partitions or qctx.shuffle_partitions
    if plan.by_range:
        return ShuffleExchangeExec("range", plan.keys, n, child)
    if plan.keys:
        return ShuffleExchangeExec("hash", plan.keys, n, child)
    return ShuffleExchangeExec("roundrobin", [], n, child)


def _sample(plan: L.LogicalPlan, qctx: QueryContext) -> PhysicalPlan:
    assert isinstance(plan, L.Sample)
    return SampleExec(plan.fraction, plan.with_replacement, plan.seed, plan_physical(plan.child, qctx), plan.lower)


def _generate(plan: L.LogicalPlan, qctx: QueryContext) -> PhysicalPlan:
    assert isinstance(plan, L.Generate)
    return GenerateExec(plan.generator, plan.outer, plan.generator_output, plan.child_output(),
                        plan_physical(plan.child, qctx))


def _clustered(plan: L.LogicalPlan, keys: list[Expression], qctx: QueryContext) -> PhysicalPlan:
    """``plan`` exchanged so that every row of a value of ``keys`` is in one partition (all in one without keys)."""
    child = plan_physical(plan, qctx)
    if keys:
        return ShuffleExchangeExec("hash", keys, qctx.shuffle_partitions, child)
    return ShuffleExchangeExec("single", [], 1, child)


def _session_window(plan: L.LogicalPlan, qctx: QueryContext) -> PhysicalPlan:
    assert isinstance(plan, SessionWindowAssign)
    # Every row of a key must meet in one partition before its sessions can be merged.
    child = _clustered(plan.child, plan.partition_keys, qctx)
    return SessionWindowExec(plan.window, plan.partition_keys, plan.output_attr, child)


def _expand(plan: L.LogicalPlan, qctx: QueryContext) -> PhysicalPlan:
    assert isinstance(plan, Expand)
    return ExpandExec(plan.projections, plan.output(), plan_physical(plan.child, qctx))


def _window(plan: L.LogicalPlan, qctx: QueryContext) -> PhysicalPlan:
    assert isinstance(plan, WindowPlan)
    child = _clustered(plan.child, plan.partition_by, qctx)
    return WindowExec(plan.window_exprs, plan.partition_by, plan.order_by, child)


def _within(size: int, threshold: int) -> bool:
    return threshold >= 0 and size <= threshold


def _join(plan: L.LogicalPlan, qctx: QueryContext) -> PhysicalPlan:
    assert isinstance(plan, L.Join)
    left, right = plan_physical(plan.left, qctx), plan_physical(plan.right, qctx)
    left_ids = {a.expr_id for a in left.output}
    right_ids = {a.expr_id for a in right.output}
    lkeys, rkeys, null_safe, residual = split_join_condition(plan.condition, left_ids, right_ids)
    have = {(k.expr_id, r.expr_id) for k, r in zip(lkeys, rkeys)
            if isinstance(k, AttributeReference) and isinstance(r, AttributeReference)}
    for l_attr, r_attr in plan.using:
        # A USING join's condition already names its keys; add only the ones it lacks.
        if l_attr.expr_id in left_ids and r_attr.expr_id in right_ids and (l_attr.expr_id, r_attr.expr_id) not in have:
            lkeys.append(l_attr)
            rkeys.append(r_attr)
            null_safe.append(False)
    how = "inner" if plan.how == "cross" and lkeys else plan.how
    output = plan.output()
    sources = join_sources(output, left.output, right.output, plan.using)
    spec = JoinSpec(how, lkeys, rkeys, null_safe, residual, sources, key_names(output))
    can_build_right = how not in ("right_outer", "full_outer")
    can_build_left = how in ("inner", "cross", "right_outer")
    lsize, rsize = left.estimated_size(), right.estimated_size()
    threshold = qctx.broadcast_threshold
    build: str | None = None
    if can_build_right and _within(rsize, threshold) and (not can_build_left or rsize <= lsize
                                                          or not _within(lsize, threshold)):
        build = "right"
    elif can_build_left and _within(lsize, threshold):
        build = "left"
    elif not lkeys and how != "full_outer":
        # Without equi-keys only a nested loop over one whole side works.
        build = "right" if can_build_right and (rsize <= lsize or not can_build_left) else "left"
    if build is not None:
        return BroadcastHashJoinExec(spec, build, left, right, output)
    n = qctx.shuffle_partitions if lkeys else 1
    kind = "hash" if lkeys else "single"
    return ShuffledHashJoinExec(spec, ShuffleExchangeExec(kind, lkeys, n, left),
                                ShuffleExchangeExec(kind, rkeys, n, right), output)


_PLANNERS: dict[type, Callable[[L.LogicalPlan, QueryContext], PhysicalPlan]] = {
    L.LocalRelation: _local,
    L.RangeRelation: _range,
    L.RDDRelation: _rdd,
    ArrowRDDRelation: _arrow_rdd,
    L.FileRelation: _file,
    CachedRelation: _cached,
    L.Project: _project,
    L.Filter: _filter,
    L.Aggregate: _aggregate,
    L.Deduplicate: _dedup,
    L.Sort: _sort,
    L.Limit: _limit,
    L.Union: _union,
    L.SubqueryAlias: _alias,
    L.Repartition: _repartition,
    L.Sample: _sample,
    L.Generate: _generate,
    L.Join: _join,
    SessionWindowAssign: _session_window,
    WindowPlan: _window,
    Expand: _expand,
}

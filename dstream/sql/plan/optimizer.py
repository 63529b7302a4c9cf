"""The rule-based optimizer: rewrites a resolved logical plan into a cheaper equivalent.

What this module owns
---------------------
The rules Spark's optimizer applies that matter most on this engine, run in order
until the plan stops changing (at most :data:`MAX_ITERATIONS` rounds):

* **constant folding**: deterministic expressions without column references are
  evaluated once (``lit(1) + 2`` becomes ``3``);
* **combine filters** (adjacent filters become one ``AND``) and **collapse
  projects** (a projection of a projection becomes one, aliases substituted);
* **predicate pushdown**: filter conjuncts move below projections (through
  deterministic aliases), into the side of an inner/outer/semi join they read, below
  a ``Union`` into each child's columns, below ``withWatermark`` when they do not read
  its event time, and into file scans, where the reader uses them (Parquet skips the
  row groups whose statistics exclude them);
* **not-null inference** (once, first) for joins that read a stream: the columns the
  join condition compares are filtered ``isnotnull`` on the sides that drop such rows;
  and **outer join elimination** for them: an outer join under a filter that rejects
  the nulls it would pad a side with becomes the join that drops those rows;
* **column pruning**: each scan reads only the columns some operator above uses;
* **combine unions**: a union of unions becomes one union of all their children.

Invariants
----------
* Every rule preserves results: non-deterministic expressions are never moved or
  duplicated; a filter pushed into a scan is also kept above it (the reader's
  filters are hints, except that Parquet row-group pruning must be exact).
* The optimizer never changes a plan's output attributes (ids, names, order).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextvars import ContextVar
from typing import Any

import pyarrow as pa

from ..expressions.base import Alias, AttributeReference, EvalContext, Expression, Literal, is_deterministic
from ..expressions.cast import Cast
from ..expressions.operators import Add, Multiply, Subtract, UnaryMinus
from ..expressions.predicates import (
    And,
    EqualTo,
    GreaterThan,
    GreaterThanOrEqual,
    In,
    IsNotNull,
    IsNull,
    LessThan,
    LessThanOrEqual,
    Not,
    Or,
)
from ..type_trees import holds_type
from ..types import BooleanType, CalendarIntervalType, DataType, DateType, NumericType, StringType
from .cached import CachedRelation
from .logical import (
    Aggregate,
    Deduplicate,
    FileRelation,
    Filter,
    Generate,
    Join,
    LeafPlan,
    Limit,
    LogicalPlan,
    Project,
    Repartition,
    Sample,
    Sort,
    SubqueryAlias,
    Union,
)
from .streams import reads_stream

__all__ = ["MAX_ITERATIONS", "optimize", "split_conjuncts"]

MAX_ITERATIONS = 100


def split_conjuncts(expr: Expression) -> list[Expression]:
    """``a AND b AND c`` -> ``[a, b, c]``."""
    if isinstance(expr, And):
        return split_conjuncts(expr.children[0]) + split_conjuncts(expr.children[1])
    return [expr]


def _conjoin(parts: Sequence[Expression]) -> Expression:
    result = parts[0]
    for part in parts[1:]:
        result = And(result, part)
    return result


# -- expression rules -------------------------------------------------------------------


#: Folded results by expression object (identity) and the settings a value may depend on,
#: so that a streaming query, which plans the same expression objects again every
#: micro-batch, evaluates each constant once. The keys are held, so an id is never reused
#: while cached; the cache is cleared when full.
_FOLDED: dict[tuple[Expression, str, bool], Expression | None] = {}
_FOLDED_MAX = 4096
#: The session's settings while :func:`optimize` runs: a constant folds to the value the
#: query would compute (``to_timestamp('2024-01-01 10:15')`` is a wall time in the session zone).
_FOLD_CONTEXT: ContextVar[EvalContext | None] = ContextVar("fold_context", default=None)


def _fold(expr: Expression) -> Expression | None:
    if isinstance(expr, Literal | Alias) or not expr.foldable:
        return None
    ctx = _FOLD_CONTEXT.get() or EvalContext()
    key = (expr, ctx.time_zone, ctx.ansi)
    if key in _FOLDED:
        return _FOLDED[key]
    folded: Expression | None = None
    # A calendar interval's Python value (Arrow's MonthDayNano) cannot be pickled into a task: not folded.
    if is_deterministic(expr) and not holds_type(expr.data_type(), lambda t: isinstance(t, CalendarIntervalType)):
        try:
            batch = pa.RecordBatch.from_arrays([pa.array([0])], names=["_"])
            value = expr.eval(batch, EvalContext(ansi=ctx.ansi, time_zone=ctx.time_zone))[0].as_py()
            folded = Literal(value, expr.data_type())
        except Exception:  # noqa: BLE001 - an error (1/0 under ANSI) must surface when the query runs
            folded = None
    if len(_FOLDED) >= _FOLDED_MAX:
        _FOLDED.clear()
    _FOLDED[key] = folded
    return folded


def _fold_plan(plan: LogicalPlan) -> LogicalPlan | None:
    changed = False

    def fold(expr: Expression) -> Expression:
        nonlocal changed
        if isinstance(expr, Alias):
            inner = fold_tree(expr.child)
            return expr if inner is expr.child else expr.with_children([inner])
        return fold_tree(expr)

    def fold_tree(expr: Expression) -> Expression:
        nonlocal changed
        new = expr.transform_up(_fold)
        changed = changed or new is not expr
        return new

    new_plan = plan.map_expressions(fold)
    return new_plan if changed else None


# -- plan rules -------------------------------------------------------------------------


def _combine_filters(plan: LogicalPlan) -> LogicalPlan | None:
    if isinstance(plan, Filter) and isinstance(plan.child, Filter) and is_deterministic(plan.condition):
        return Filter(And(plan.child.condition, plan.condition), plan.child.child)
    if isinstance(plan, Filter) and isinstance(plan.condition, Literal) and plan.condition.value is True:
        return plan.child
    return None


def _substitute(expr: Expression, aliases: dict[int, Expression]) -> Expression:
    def swap(node: Expression) -> Expression | None:
        if isinstance(node, AttributeReference) and node.expr_id in aliases:
            return aliases[node.expr_id]
        return None

    return expr.transform_up(swap)


def _collapse_projects(plan: LogicalPlan) -> LogicalPlan | None:
    if not (isinstance(plan, Project) and isinstance(plan.child, Project)):
        return None
    inner = plan.child
    aliases = {e.expr_id: e.child for e in inner.exprs if isinstance(e, Alias)}
    if not all(is_deterministic(e) for e in aliases.values()):
        return None
    used: dict[int, int] = {}
    for expr in plan.exprs:
        for ref in expr.references():
            used[ref] = used.get(ref, 0) + 1
    # Substituting an alias used twice would compute it twice: keep such plans as they are
    # unless the aliased expression is a plain column.
    if any(n > 1 and not isinstance(aliases[i], AttributeReference) for i, n in used.items() if i in aliases):
        return None
    merged: list[Expression] = []
    for expr in plan.exprs:
        if isinstance(expr, AttributeReference) and expr.expr_id in aliases:
            merged.append(Alias(aliases[expr.expr_id], expr.name, expr.expr_id))
        elif isinstance(expr, Alias):
            merged.append(Alias(_substitute(expr.child, aliases), expr.name, expr.expr_id, expr.metadata))
        else:
            merged.append(_substitute(expr, aliases))
    return Project(merged, inner.child)


def _remove_noop_project(plan: LogicalPlan) -> LogicalPlan | None:
    if isinstance(plan, Project):
        child_out = plan.child.output()
        if [e for e in plan.exprs] == child_out or (
                len(plan.exprs) == len(child_out)
                and all(isinstance(e, AttributeReference) and e.expr_id == a.expr_id and e.name == a.name
                        for e, a in zip(plan.exprs, child_out))):
            return plan.child
    return None


def _push_filter(plan: LogicalPlan) -> LogicalPlan | None:
    if not isinstance(plan, Filter):
        return None
    child = plan.child
    conjuncts = split_conjuncts(plan.condition)
    if isinstance(child, Project):
        aliases = {e.expr_id: e.child for e in child.exprs if isinstance(e, Alias)}
        if all(is_deterministic(a) for a in aliases.values()) and all(is_deterministic(c) for c in conjuncts):
            return Project(child.exprs, Filter(_substitute(plan.condition, aliases), child.child))
    if isinstance(child, SubqueryAlias):
        return SubqueryAlias(child.alias, Filter(plan.condition, child.child))
    if isinstance(child, Sort | Repartition) and all(is_deterministic(c) for c in conjuncts):
        return child.with_children([Filter(plan.condition, child.child)])
    if isinstance(child, Join):
        return _push_into_join(plan, child, conjuncts)
    if isinstance(child, Aggregate):
        return _push_through_aggregate(child, conjuncts)
    barrier = child.filter_barrier()
    if barrier is not None and len(child.children) == 1:
        # A node that lets the filters not reading ``barrier`` through (withWatermark).
        down = [c for c in conjuncts if is_deterministic(c) and not c.references() & barrier]
        if down:
            stay = [c for c in conjuncts if not any(c is d for d in down)]
            moved = child.with_children([Filter(_conjoin(down), child.children[0])])
            return Filter(_conjoin(stay), moved) if stay else moved
    if isinstance(child, FileRelation) and not child.pushed_filters:
        pushed = [f for f in (_to_source_filter(c, child) for c in conjuncts) if f is not None]
        if pushed:
            return Filter(plan.condition, child.with_scan(pushed_filters=pushed))
    return None


def _push_into_join(plan: Filter, join: Join, conjuncts: list[Expression]) -> LogicalPlan | None:
    left_ids = {a.expr_id for a in join.left.output()}
    right_ids = {a.expr_id for a in join.right.output()}
    to_left: list[Expression] = []
    to_right: list[Expression] = []
    stay: list[Expression] = []
    left_ok = join.how in ("inner", "left_outer", "left_semi", "left_anti", "cross")
    right_ok = join.how in ("inner", "right_outer", "cross")
    using_ids = {a.expr_id for a in join.using_output}
    for conjunct in conjuncts:
        refs = conjunct.references()
        if not is_deterministic(conjunct) or refs & using_ids - left_ids - right_ids:
            stay.append(conjunct)
        elif refs and refs <= left_ids and left_ok:
            to_left.append(conjunct)
        elif refs and refs <= right_ids and right_ok:
            to_right.append(conjunct)
        else:
            stay.append(conjunct)
    if not to_left and not to_right:
        return None
    left = Filter(_conjoin(to_left), join.left) if to_left else join.left
    right = Filter(_conjoin(to_right), join.right) if to_right else join.right
    new_join = join.with_children([left, right])
    return Filter(_conjoin(stay), new_join) if stay else new_join


def _push_through_aggregate(agg: Aggregate, conjuncts: list[Expression]) -> LogicalPlan | None:
    grouping_ids: dict[int, Expression] = {}
    for expr in agg.aggregates:
        if isinstance(expr, AttributeReference) and any(expr.semantic_key() == g.semantic_key()
                                                        for g in agg.grouping):
            grouping_ids[expr.expr_id] = expr
    down = [c for c in conjuncts if c.references() and c.references() <= set(grouping_ids) and is_deterministic(c)]
    if not down:
        return None
    stay = [c for c in conjuncts if c not in down]
    new_agg = Aggregate(agg.grouping, agg.aggregates, Filter(_conjoin(down), agg.child))
    return Filter(_conjoin(stay), new_agg) if stay else new_agg


_COMPARISONS: dict[type, str] = {EqualTo: "=", LessThan: "<", LessThanOrEqual: "<=", GreaterThan: ">",
                                 GreaterThanOrEqual: ">="}
_FLIPPED = {"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _source_type_ok(dt: DataType) -> bool:
    return isinstance(dt, NumericType | StringType | BooleanType | DateType)


def _to_source_filter(expr: Expression, scan: FileRelation) -> Any:
    """A conjunct in the readers' filter language, or ``None`` if it has no translation."""
    names = {a.expr_id: a.name for a in scan.all_output()}

    def column(e: Expression) -> str | None:
        if isinstance(e, AttributeReference) and e.expr_id in names and _source_type_ok(e.dtype):
            return names[e.expr_id]
        return None

    op = _COMPARISONS.get(type(expr))
    if op is not None:
        left, right = expr.children
        if column(left) and isinstance(right, Literal) and right.value is not None:
            return (op, column(left), right.value)
        if column(right) and isinstance(left, Literal) and left.value is not None:
            return (_FLIPPED[op], column(right), left.value)
        return None
    if isinstance(expr, IsNull) and column(expr.children[0]):
        return ("is_null", column(expr.children[0]))
    if isinstance(expr, IsNotNull) and column(expr.children[0]):
        return ("is_not_null", column(expr.children[0]))
    if isinstance(expr, In) and column(expr.children[0]) and all(
            isinstance(v, Literal) and v.value is not None for v in expr.children[1:]):
        return ("in", column(expr.children[0]), [v.value for v in expr.children[1:] if isinstance(v, Literal)])
    if isinstance(expr, And | Or):
        parts = [_to_source_filter(c, scan) for c in expr.children]
        if all(p is not None for p in parts):
            return ("and" if isinstance(expr, And) else "or", parts[0], parts[1])
        return None
    if isinstance(expr, Not):
        inner = _to_source_filter(expr.children[0], scan)
        return None if inner is None else ("not", inner)
    return None


# -- column pruning ---------------------------------------------------------------------


def _prune(plan: LogicalPlan, required: set[int]) -> LogicalPlan:
    """``plan`` producing at least the ``required`` columns, its scans reading no others."""
    if isinstance(plan, FileRelation):
        keep = [a.expr_id for a in plan.all_output() if a.expr_id in required]
        if not keep:
            keep = [plan.all_output()[0].expr_id]
        return plan.with_scan(required=keep)
    if isinstance(plan, CachedRelation):
        return plan
    if isinstance(plan, Project):
        exprs = [e for e in plan.exprs if _named_id(e) in required or not is_deterministic(e)] or plan.exprs[:1]
        needed = set().union(*(e.references() for e in exprs))
        return Project(exprs, _prune(plan.child, needed))
    if isinstance(plan, Aggregate):
        needed = set().union(*(e.references() for e in plan.grouping + plan.aggregates))
        return plan.with_children([_prune(plan.child, needed)])
    if isinstance(plan, Generate):
        child_ids = {a.expr_id for a in plan.child.output()}
        kept = required & child_ids
        needed = kept | plan.generator.references()
        return Generate(plan.generator, plan.outer, plan.generator_output, _prune(plan.child, needed),
                        sorted(kept, key=[a.expr_id for a in plan.child.output()].index))
    if isinstance(plan, Join):
        needed = required | (plan.condition.references() if plan.condition is not None else set())
        needed |= {a.expr_id for pair in plan.using for a in pair}
        return plan.with_children([_prune(plan.left, needed), _prune(plan.right, needed)])
    if isinstance(plan, Filter | Sort | Repartition) or plan.passes_rows_through:
        needed = required | set().union(*(e.references() for e in plan.expressions()))
        return plan.with_children([_prune(plan.child, needed)])
    if isinstance(plan, Limit | Sample | SubqueryAlias):
        return plan.with_children([_prune(plan.child, required)])
    if isinstance(plan, Deduplicate | Union):
        return plan.with_children([_prune(c, {a.expr_id for a in c.output()}) for c in plan.children])
    return plan.with_children([_prune(c, {a.expr_id for a in c.output()}) for c in plan.children]) \
        if plan.children else plan


def _named_id(expr: Expression) -> int | None:
    if isinstance(expr, AttributeReference | Alias):
        return expr.expr_id
    return None


# -- driver -----------------------------------------------------------------------------

def _combine_unions(plan: LogicalPlan) -> LogicalPlan | None:
    """A union of unions as one union of all their children (Spark's CombineUnions).

    ``reduce(DataFrame.union, frames)`` nests one union per frame; flat, it runs as one
    union of the frames' partitions, not as a lineage as deep as the list is long (which
    could not be pickled past a few hundred). Output ids are kept: a union's output is
    its first child's.
    """
    if not isinstance(plan, Union) or not any(isinstance(c, Union) for c in plan.children):
        return None
    return Union([g for c in plan.children for g in (c.children if isinstance(c, Union) else (c,))])


#: The sides whose rows with a null join key can be dropped before the join: they match
#: nothing and the join type does not emit them unmatched.
_NOT_NULL_SIDES = {"inner": (0, 1), "cross": (0, 1), "left_semi": (0, 1), "left_outer": (1,), "left_anti": (1,),
                   "right_outer": (0,)}
_NULL_REJECTING = (EqualTo, LessThan, LessThanOrEqual, GreaterThan, GreaterThanOrEqual)
_NULL_IN_NULL_OUT = (Add, Subtract, Multiply, UnaryMinus, Cast)


def _compared_columns(expr: Expression) -> list[AttributeReference]:
    """The columns whose null makes ``expr`` null, through arithmetic and casts."""
    if isinstance(expr, AttributeReference):
        return [expr]
    if isinstance(expr, _NULL_IN_NULL_OUT):
        return [a for child in expr.children for a in _compared_columns(child)]
    return []


def _infer_join_not_null(plan: LogicalPlan) -> LogicalPlan | None:
    """Spark's InferFiltersFromConstraints for a join that reads a stream: ``isnotnull``
    filters for the columns its condition compares (``k = k2``, ``t2 >= t - x``), on the
    sides whose rows with such a null match nothing and are not emitted unmatched.

    Pushed below ``withWatermark`` by the rules, they keep rows that can never join from
    moving the watermark and from the join's state, as in Spark. Batch joins are left
    alone: there the filters would change nothing but the plan's text.
    """
    if not isinstance(plan, Join) or plan.how not in _NOT_NULL_SIDES or not reads_stream(plan):
        return None
    columns: dict[int, AttributeReference] = {}
    for conjunct in split_conjuncts(plan.condition) if plan.condition is not None else []:
        if isinstance(conjunct, _NULL_REJECTING):
            columns.update((a.expr_id, a) for child in conjunct.children for a in _compared_columns(child))
    columns.update((a.expr_id, a) for pair in plan.using for a in pair)
    sides = list(plan.children)
    for index in _NOT_NULL_SIDES[plan.how]:
        ids = {a.expr_id for a in sides[index].output()}
        tests = [IsNotNull(a) for a in columns.values() if a.expr_id in ids and a.nullable]
        if tests:
            sides[index] = Filter(_conjoin(tests), sides[index])
    return None if all(a is b for a, b in zip(sides, plan.children)) else plan.with_children(sides)


def _rejects_nulls_of(conjunct: Expression, ids: set[int]) -> bool:
    """Whether ``conjunct`` is false or null when the columns ``ids`` are all null."""
    if isinstance(conjunct, IsNotNull):
        return any(a.expr_id in ids for a in _compared_columns(conjunct.children[0]))
    return isinstance(conjunct, _NULL_REJECTING) and any(
        a.expr_id in ids for child in conjunct.children for a in _compared_columns(child))


def _eliminate_outer_join(plan: LogicalPlan) -> LogicalPlan | None:
    """Spark's EliminateOuterJoin, for a join that reads a stream: a filter above an outer join
    that rejects the nulls it pads one side with (``isnotnull(t)`` of a window over that side's
    time) makes that side's unmatched rows vanish anyway, so the join drops them itself; the
    join is then given the ``isnotnull`` filters of its new type, as Spark infers them after."""
    if not isinstance(plan, Filter) or not isinstance(plan.child, Join):
        return None
    join = plan.child
    if join.how not in ("left_outer", "right_outer", "full_outer") or not reads_stream(join):
        return None
    conjuncts = split_conjuncts(plan.condition)
    left = any(_rejects_nulls_of(c, {a.expr_id for a in join.left.output()}) for c in conjuncts)
    right = any(_rejects_nulls_of(c, {a.expr_id for a in join.right.output()}) for c in conjuncts)
    if join.how == "left_outer":
        how = "inner" if right else join.how
    elif join.how == "right_outer":
        how = "inner" if left else join.how
    else:  # full outer: rejecting one side's nulls keeps the other side's unmatched rows only
        how = "inner" if left and right else "left_outer" if left else "right_outer" if right else join.how
    if how == join.how:
        return None
    narrowed = Join(join.left, join.right, how, join.condition, join.using, join.using_output, join.exposed)
    return Filter(plan.condition, _infer_join_not_null(narrowed) or narrowed)


_RULES: list[Callable[[LogicalPlan], LogicalPlan | None]] = [
    _fold_plan, _combine_filters, _push_filter, _eliminate_outer_join, _collapse_projects, _remove_noop_project,
    _combine_unions,
]


def _once(plan: LogicalPlan) -> LogicalPlan:
    def apply(node: LogicalPlan) -> LogicalPlan | None:
        changed = None
        for rule in _RULES:
            result = rule(changed or node)
            if result is not None:
                changed = result
        return changed

    return plan.transform_up(apply)


def optimize(plan: LogicalPlan, settings: EvalContext | None = None) -> LogicalPlan:
    """The optimized form of a resolved plan (same output, same results).

    ``settings`` are the session's ANSI mode and time zone, which constants fold under
    (the defaults, ANSI and UTC, when ``None``).
    """
    token = _FOLD_CONTEXT.set(settings)
    try:
        return _optimize(plan)
    finally:
        _FOLD_CONTEXT.reset(token)


def _optimize(plan: LogicalPlan) -> LogicalPlan:
    if isinstance(plan, LeafPlan) and not plan.expressions():
        return plan  # no rule rewrites a lone leaf (a streaming batch's result is one, every micro-batch)
    output = plan.output()
    # Once, before the rules: the filters it adds are then pushed down like the others.
    current = plan.transform_up(_infer_join_not_null)
    for round_number in range(MAX_ITERATIONS):
        new = _once(current)
        if new is current:
            break
        # A rewrite may print the same (a folded ``CAST(2 AS BIGINT)`` prints as ``2``):
        # keep it, and stop once the text no longer changes. Not looked at after the first
        # round: most plans settle in the second, whose unchanged result ends the loop
        # without printing two trees (a streaming query plans every micro-batch).
        settled = round_number > 0 and new.tree_string() == current.tree_string()
        current = new
        if settled:
            break
    current = _prune(current, {a.expr_id for a in output})
    if [a.expr_id for a in current.output()] != [a.expr_id for a in output]:
        current = Project(list(output), current)
    return current

"""Building resolved logical plans from DataFrame calls.

What this module owns
---------------------
The rules the DataFrame methods follow when they turn user expressions into plan
nodes: ``select`` (``*`` expansion, generators such as ``explode`` becoming a
:class:`Generate` node, aggregates without ``groupBy`` becoming a global
:class:`Aggregate`), ``groupBy().agg()`` (grouping columns first, Spark's
``MISSING_AGGREGATION`` check), joins (Spark's join-type names, ``USING`` columns,
self-join de-duplication), ``union``/``unionByName`` (column counts, widening casts)
and sort keys.

Invariants
----------
* Every plan built here holds resolved expressions only (see :mod:`.analysis`).
* Two sides of a join never share an expression id: a self-join gives the right
  side fresh ids, as Spark's ``DeduplicateRelations`` does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..errors import AnalysisException, PySparkIndexError, PySparkValueError
from ..expressions.aggregate_base import AggregateFunction, SortOrder
from ..expressions.base import (
    Alias,
    AttributeReference,
    Expression,
    UnresolvedAttribute,
    UnresolvedStar,
    is_deterministic,
)
from ..expressions.cast import Cast
from ..expressions.checks import quoted_type
from ..expressions.extractors import extract_field
from ..expressions.generators import Generator
from ..expressions.predicates import And, EqualNullSafe, EqualTo
from ..expressions.window_functions import WindowExpression
from ..types import DataType
from ..variant.casting import contains_variant
from .analysis import Resolver, ensure_named, quote, resolve_star, unique_outputs
from .logical import (
    Aggregate,
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
from .window_plan import aggregate_then_window, extract_windows, refuse_bare_window_functions
from .windowing import rewrite_window_projection

__all__ = [
    "JOIN_ALIASES",
    "build_aggregate",
    "check_grouped",
    "build_join",
    "build_select",
    "build_sort",
    "build_union",
    "dedup_right",
    "refuse_nested_aggregates",
    "null_safe_match",
    "hidden_columns",
    "resolver_for",
    "sort_keys",
]

#: ``df.join(how=...)`` spellings -> the plan's join types.
JOIN_ALIASES = {
    "inner": "inner", "cross": "cross",
    "outer": "full_outer", "full": "full_outer", "fullouter": "full_outer", "full_outer": "full_outer",
    "left": "left_outer", "leftouter": "left_outer", "left_outer": "left_outer",
    "right": "right_outer", "rightouter": "right_outer", "right_outer": "right_outer",
    "semi": "left_semi", "leftsemi": "left_semi", "left_semi": "left_semi",
    "anti": "left_anti", "leftanti": "left_anti", "left_anti": "left_anti",
}


def resolver_for(plan: LogicalPlan, case_sensitive: bool, extra: Sequence[AttributeReference] = ()) -> Resolver:
    """A resolver over ``plan``'s output (and, for names it lacks, a file scan's hidden ``_metadata``)."""
    return Resolver(plan.output(), case_sensitive, extract_field, [*extra, *hidden_columns(plan)])


def hidden_columns(plan: LogicalPlan) -> list[AttributeReference]:
    """The hidden columns ``plan`` can still show: the ``_metadata`` of the file scan it reads, when
    only nodes that keep their child's columns (filters, sorts, limits...) are in between."""
    while not isinstance(plan, LeafPlan):
        if not (isinstance(plan, Filter | Sort | Limit | Sample | Repartition | SubqueryAlias)
                or plan.passes_rows_through):
            return []
        plan = plan.children[0]
    metadata = getattr(plan, "metadata", None)  # a FileRelation's, or a file stream's
    return [metadata] if isinstance(metadata, AttributeReference) else []


def _aggregates_rows(expr: Expression) -> bool:
    """Whether ``expr`` holds an aggregate that is not the function of a window (``sum(v)``, not ``sum(v) OVER w``)."""
    if isinstance(expr, AggregateFunction):
        return True
    if isinstance(expr, WindowExpression):
        return any(_aggregates_rows(c) for c in expr.children[1:]) or any(
            _aggregates_rows(c) for c in expr.function.children)
    return any(_aggregates_rows(c) for c in expr.children)


def _contains_generator(expr: Expression) -> bool:
    return any(isinstance(e, Generator) for e in expr.walk())


def expand(exprs: Sequence[Expression], plan: LogicalPlan, case_sensitive: bool) -> list[Expression]:
    """``*`` and ``alias.*`` replaced by the columns they stand for."""
    out: list[Expression] = []
    for expr in exprs:
        if isinstance(expr, UnresolvedStar):
            # y.* after a USING join: that side's columns in its order, its hidden key too (as Spark)
            pool = _join_sides(plan) if expr.qualifier is not None and _hidden_keys(plan) else plan.output()
            out.extend(resolve_star(expr, pool, case_sensitive, extract_field))
        else:
            out.append(expr)
    return out


def build_select(plan: LogicalPlan, exprs: Sequence[Expression], case_sensitive: bool) -> LogicalPlan:
    """The plan of ``df.select(*exprs)``."""
    hidden = _hidden_keys(plan)
    resolver = resolver_for(plan, case_sensitive, hidden)
    # A generator is named by its output fields (explode of a map: key, value), not by its text.
    resolved: list[Expression] = [e if isinstance(e, Generator) else ensure_named(e)
                                  for e in (resolver.resolve(x) for x in expand(exprs, plan, case_sensitive))]
    used = set().union(*(e.references() for e in resolved)) & {a.expr_id for a in hidden}
    if used:
        plan = _expose(plan, used)
    generators = [e for e in resolved if _contains_generator(e)]
    if len(generators) > 1:
        names = ", ".join(quote(g.sql()) for g in generators)
        raise AnalysisException(
            f"The generator is not supported: only one generator allowed per SELECT clause but found "
            f"{len(generators)}: {names}.", "UNSUPPORTED_GENERATOR.MULTI_GENERATOR",
            {"num": str(len(generators)), "generators": names})
    if generators:
        plan, resolved = _plan_generator(plan, resolved, generators[0])
    if any(_aggregates_rows(e) for e in resolved):
        return build_aggregate(plan, [], resolved)  # its windows are computed over its one group
    plan, resolved = rewrite_window_projection(plan, resolved)
    plan, resolved = extract_windows(plan, resolved)
    return Project(unique_outputs(resolved), plan)


def _hidden_keys(plan: LogicalPlan) -> list[AttributeReference]:
    """The USING keys a select over ``plan`` may still name by qualifier (under a WHERE too), as in Spark."""
    if isinstance(plan, Filter):
        return _hidden_keys(plan.child)
    return plan.hidden() if isinstance(plan, Join) else []


def _join_sides(plan: LogicalPlan) -> list[AttributeReference]:
    """Every column of both sides of the USING join under ``plan``, keys from the output where shown."""
    join = plan
    while isinstance(join, Filter):
        join = join.child
    assert isinstance(join, Join)
    shown = {a.expr_id: a for a in join.output()}
    hidden = {a.expr_id: a for a in join.hidden()}
    return [shown.get(a.expr_id) or hidden.get(a.expr_id) or a
            for a in join.left.output() + join.right.output() if a.expr_id in shown or a.expr_id in hidden]


def _expose(plan: LogicalPlan, ids: set[int]) -> LogicalPlan:
    """``plan`` with the hidden USING keys ``ids`` added to its join's output, for a select to read."""
    if isinstance(plan, Filter):
        return plan.with_children([_expose(plan.child, ids)])
    assert isinstance(plan, Join)
    return Join(plan.left, plan.right, plan.how, plan.condition, plan.using, plan.using_output,
                [a for a in plan.hidden() if a.expr_id in ids])


def _plan_generator(plan: LogicalPlan, resolved: list[Expression],
                    top: Expression) -> tuple[LogicalPlan, list[Expression]]:
    names: list[str] | None = None
    generator = top
    if isinstance(top, Alias):
        generator = top.child
        names = top.name.split("\x00") if "\x00" in top.name else [top.name]
    if not isinstance(generator, Generator):
        raise AnalysisException(
            f"The generator is not supported: nested in expressions {top.sql()}.",
            "UNSUPPORTED_GENERATOR.NESTED_IN_EXPRESSIONS", {"expression": top.sql()})
    fields = generator.output_fields()
    if names is not None and len(names) != len(fields):
        raise AnalysisException(
            f"The number of aliases supplied in the AS clause does not match the number of columns output by "
            f"the UDTF. Expected {len(fields)} aliases, but got {', '.join(names)}.",
            "UDTF_ALIAS_NUMBER_MISMATCH", {"aliasesSize": str(len(names)), "aliasesNames": ", ".join(names)})
    attrs = [AttributeReference(names[i] if names else name, dtype, nullable)
             for i, (name, dtype, nullable) in enumerate(fields)]
    generate = Generate(generator, generator.outer, attrs, plan)
    projected: list[Expression] = []
    for expr in resolved:
        if expr is top:
            projected.extend(attrs)
        else:
            projected.append(expr)
    return generate, projected


def build_aggregate(plan: LogicalPlan, grouping: Sequence[Expression], aggregates: Sequence[Expression],
                    case_sensitive: bool = False, resolved: bool = True) -> LogicalPlan:
    """The plan of ``groupBy(*grouping).agg(*aggregates)`` (both resolved over ``plan``).

    Raises ``MISSING_AGGREGATION`` for a column that is neither grouped nor aggregated.
    """
    keys = {g.semantic_key() for g in grouping}
    for g in grouping:
        shown = quoted_type(g.data_type())
        if contains_variant(g.data_type()):
            raise AnalysisException(
                f'The expression "{g.sql()}" cannot be used as a grouping expression because its data type '
                f"{shown} is not an orderable data type.", "GROUP_EXPRESSION_TYPE_IS_NOT_ORDERABLE",
                {"sqlExpr": f'"{g.sql()}"', "dataType": shown})
    for expr in aggregates:
        refuse_bare_window_functions(expr)
        refuse_nested_aggregates(expr)
    if any(isinstance(e, WindowExpression) for expr in aggregates for e in expr.walk()):
        return aggregate_then_window(plan, grouping, unique_outputs(aggregates), lambda e: check_grouped(e, keys))
    for expr in aggregates:
        check_grouped(expr, keys)
    return Aggregate(list(grouping), unique_outputs(aggregates), plan)


def refuse_nested_aggregates(expr: Expression, outer: AggregateFunction | None = None) -> None:
    """Raise Spark's ``NESTED_AGGREGATE_FUNCTION`` for an aggregate in the argument of another (``sum(max(v))``).

    The function of a window (``sum(max(v)) OVER w`` after a ``groupBy``) aggregates the
    groups' results, so an aggregate may sit inside it.
    """
    if isinstance(expr, WindowExpression):
        for part in (*expr.function.children, *expr.children[1:]):
            refuse_nested_aggregates(part, outer)
        return
    if isinstance(expr, AggregateFunction):
        if outer is not None:
            raise AnalysisException(
                "It is not allowed to use an aggregate function in the argument of another aggregate function. "
                f"Please use the inner aggregate function in a sub-query. ({expr.sql()} is inside {outer.sql()}: "
                "aggregate in a first agg(), then aggregate its result in a second one.)",
                "NESTED_AGGREGATE_FUNCTION", {})
        if not all(is_deterministic(child) for child in expr.children):
            # A partial aggregation may be computed again (a retried task, a re-run batch) and
            # must give the same buffers: Spark refuses such an argument at analysis.
            raise AnalysisException(
                f'Non-deterministic expression "{expr.sql()}" should not appear in the arguments of an aggregate '
                "function. Compute the value in a select() before the aggregation (or make the function "
                "deterministic).", "AGGREGATE_FUNCTION_WITH_NONDETERMINISTIC_EXPRESSION",
                {"sqlExpr": f'"{expr.sql()}"'})
        outer = expr
    for child in expr.children:
        refuse_nested_aggregates(child, outer)


def check_grouped(expr: Expression, keys: set[object]) -> None:
    """Raise ``MISSING_AGGREGATION`` for a column of ``expr`` neither among the grouping ``keys`` nor aggregated."""
    if expr.semantic_key() in keys or isinstance(expr, AggregateFunction):
        return
    if isinstance(expr, AttributeReference):
        raise AnalysisException(
            f"The non-aggregating expression {quote(expr.name)} is based on columns which are not participating "
            "in the GROUP BY clause. Add the columns or the expression to the GROUP BY, aggregate the "
            "expression, or use `any_value(" + expr.name + ")` if you do not care which of the values within "
            "a group is returned.", "MISSING_AGGREGATION",
            {"expression": quote(expr.name), "expressionAnyValue": f"`any_value({expr.name})`"})
    for child in expr.children:
        check_grouped(child, keys)


def build_sort(plan: LogicalPlan, orders: Sequence[Expression], is_global: bool, case_sensitive: bool) -> LogicalPlan:
    """The plan of ``orderBy``/``sortWithinPartitions``: each key a :class:`SortOrder`."""
    resolver = resolver_for(plan, case_sensitive, _below_project(plan))
    keys: list[Expression] = []
    for order in orders:
        sort_order = order if isinstance(order, SortOrder) else SortOrder(order)
        keys.append(resolver.resolve(sort_order))
    needed = set().union(*(k.references() for k in keys)) if keys else set()
    have = {a.expr_id for a in plan.output()}
    if needed - have and isinstance(plan, Project):
        # Spark adds the missing columns to the projection, sorts, then projects them away.
        missing = [a for a in plan.child.output() if a.expr_id in needed - have]
        widened = Project([*plan.exprs, *missing], plan.child)
        return Project(list(plan.output()), Sort(keys, is_global, widened))
    return Sort(keys, is_global, plan)


def _below_project(plan: LogicalPlan) -> list[AttributeReference]:
    return plan.child.output() if isinstance(plan, Project) else []


def normalize_join_type(how: str | None) -> str:
    """Spark's join type for a ``how=`` spelling, or an error listing the accepted ones."""
    key = (how or "inner").lower().replace("_", "") if how else "inner"
    for alias, canonical in JOIN_ALIASES.items():
        if alias.replace("_", "") == key:
            return canonical
    accepted = "'" + "', '".join(JOIN_ALIASES) + "'"
    raise AnalysisException(
        f"Unsupported join type '{how}'. Supported join types include: {accepted}.",
        "UNSUPPORTED_JOIN_TYPE", {"typ": str(how), "supported": accepted})


def dedup_right(left: LogicalPlan, right: LogicalPlan) -> LogicalPlan:
    """``right``, its columns that ``left`` also has given new ids (Spark's ``dedupRight``)."""
    clash = {a.expr_id for a in left.output()} & {a.expr_id for a in right.output()}
    if not clash:
        return right
    if isinstance(right, SubqueryAlias):
        # Re-number below the alias, so ``alias.col`` still names the right side's columns.
        return SubqueryAlias(right.alias, dedup_right(left, right.child))
    return Project([Alias(a, a.name) if a.expr_id in clash else a for a in right.output()], right)


def build_join(left: LogicalPlan, right: LogicalPlan, on: object, how: str | None,
               condition: Expression | None, case_sensitive: bool) -> LogicalPlan:
    """The plan of ``left.join(right, on, how)``.

    ``on`` is ``None``, a column name, or a list of names; ``condition`` an unresolved
    join condition (``df1.k == df2.k``), resolved here over both sides' columns.
    """
    join_type = normalize_join_type(how)
    before = right.output()
    right = dedup_right(left, right)
    renumbered = {old.expr_id: new for old, new in zip(before, right.output()) if old.expr_id != new.expr_id}
    if isinstance(on, str):
        on = [on]
    if isinstance(on, list | tuple) and on and all(isinstance(n, str) for n in on):
        return _using_join(left, right, [str(n) for n in on], join_type, case_sensitive)
    if condition is None:
        if join_type not in ("inner", "cross"):
            raise AnalysisException(
                f"A {join_type} join needs a join condition: pass on=... (a column name, a list of names or "
                "a Column condition).", "JOIN_CONDITION_IS_NOT_BOOLEAN_TYPE", {"joinType": join_type})
        return Join(left, right, "cross", None)
    both = Resolver(left.output() + right.output(), case_sensitive, extract_field)
    resolved = _self_join_equalities(both.resolve(condition), renumbered)
    return Join(left, right, "inner" if join_type == "cross" else join_type, resolved)


def _self_join_equalities(condition: Expression, renumbered: dict[int, AttributeReference]) -> Expression:
    """``a = a`` (one column of both sides' common lineage) as ``left.a = right.a``, as Spark.

    ``df.join(df.groupBy("g").agg(...), df.g == agg.g)``: both columns are the same one
    until the right side is renumbered, so the condition would compare each left row with
    itself (always true: a cross product). Spark's Dataset.join rewrites exactly these
    trivially true equalities to one column of each side.
    """
    if not renumbered:
        return condition

    def rewrite(e: Expression) -> Expression | None:
        if isinstance(e, EqualTo | EqualNullSafe) and len(e.children) == 2:
            a, b = e.children
            if (isinstance(a, AttributeReference) and isinstance(b, AttributeReference)
                    and a.expr_id == b.expr_id and a.expr_id in renumbered):
                return e.with_children([a, renumbered[a.expr_id]])
        return None

    return condition.transform_up(rewrite)


def _using_join(left: LogicalPlan, right: LogicalPlan, names: list[str], join_type: str,
                case_sensitive: bool) -> LogicalPlan:
    pairs: list[tuple[AttributeReference, AttributeReference]] = []
    for name in names:
        pairs.append((_side_key(left, name, "left", case_sensitive), _side_key(right, name, "right", case_sensitive)))
    outputs: list[AttributeReference] = []
    for lkey, rkey in pairs:
        if join_type == "right_outer":
            outputs.append(rkey)
        elif join_type == "full_outer":
            outputs.append(AttributeReference(lkey.name, lkey.dtype, lkey.nullable or rkey.nullable))
        else:
            outputs.append(lkey)
    condition: Expression | None = None
    for lkey, rkey in pairs:
        eq = EqualTo(lkey, rkey).coerce()
        condition = eq if condition is None else And(condition, eq)
    how = "inner" if join_type == "cross" else join_type
    return Join(left, right, how, condition, pairs, outputs)


def _side_key(plan: LogicalPlan, name: str, side: str, case_sensitive: bool) -> AttributeReference:
    resolver = Resolver(plan.output(), case_sensitive)
    try:
        found = resolver.resolve(UnresolvedAttribute([name]))
    except AnalysisException:
        columns = ", ".join(quote(a.name) for a in plan.output())
        raise AnalysisException(
            f"USING column {quote(name)} cannot be resolved on the {side} side of the join. "
            f"The {side}-side columns: [{columns}].",
            "UNRESOLVED_USING_COLUMN_FOR_JOIN",
            {"colName": quote(name), "side": side, "suggestion": columns}) from None
    assert isinstance(found, AttributeReference)
    return found


def build_union(children: Sequence[LogicalPlan], widen: object, operator: str = "UNION") -> Union:
    """The plan of ``union`` (by position): same column count, types widened to a common type.

    ``widen(a, b) -> DataType | None`` is the type-coercion rule (``None``: incompatible).
    ``INTERSECT`` and ``EXCEPT`` widen their sides the same way: their children, cast, are
    the union's (``operator`` names the operation in the errors).
    """
    outputs = [child.output() for child in children]  # once each: a child may be a deep chain of unions
    first = outputs[0]
    for i, out in enumerate(outputs[1:], start=1):
        if len(out) != len(first):
            raise AnalysisException(
                f"{operator} can only be performed on inputs with the same number of columns, but the first input has "
                f"{len(first)} columns and the {_ordinal(i + 1)} input has {len(out)} columns.",
                "NUM_COLUMNS_MISMATCH",
                {"operator": operator, "firstNumColumns": str(len(first)), "invalidOrdinalNum": _ordinal(i + 1),
                 "invalidNumColumns": str(len(out))})
    types: list[DataType] = [a.dtype for a in first]
    for out in outputs[1:]:
        for i, attr in enumerate(out):
            common = widen(types[i], attr.dtype)  # type: ignore[operator]
            if common is None:
                raise AnalysisException(
                    f"{operator} can only be performed on inputs with compatible column types. The column "
                    f"{quote(first[i].name)} has type {attr.dtype.simpleString().upper()} in one input and "
                    f"{types[i].simpleString().upper()} in another.", "INCOMPATIBLE_COLUMN_TYPE",
                    {"columnOrdinalNumber": _ordinal(i + 1), "tableOrdinalNumber": "second",
                     "dataType1": attr.dtype.simpleString().upper(), "dataType2": types[i].simpleString().upper()})
            types[i] = common
    cast_children: list[LogicalPlan] = []
    for child, out in zip(children, outputs):
        if all(a.dtype == t for a, t in zip(out, types)):
            cast_children.append(child)
        else:
            cast_children.append(Project([a if a.dtype == t else Alias(Cast(a, t), a.name)
                                          for a, t in zip(out, types)], child))
    return Union(cast_children)


def _ordinal(n: int) -> str:
    return {1: "first", 2: "second", 3: "third"}.get(n, f"{n}th")


def sort_keys(cols: Sequence[Any], ascending: Any, output: Sequence[AttributeReference],
              to_expr: Callable[[Any], Expression]) -> list[Expression]:
    """``orderBy``'s arguments as :class:`SortOrder` keys.

    ``ascending`` is a bool for every column or one flag per column; an int column
    argument is a 1-based position; a Column already made with ``asc()``/``desc()`` keeps
    its own direction.
    """
    if not cols:
        raise PySparkValueError("orderBy needs at least one column.", "CANNOT_BE_EMPTY", {"item": "column"})
    if ascending is None:
        flags = [True] * len(cols)
    elif isinstance(ascending, bool | int):
        flags = [bool(ascending)] * len(cols)
    else:
        flags = [bool(a) for a in ascending]
        if len(flags) != len(cols):
            raise PySparkValueError("ascending must have one flag for each column.",
                                    "LENGTH_SHOULD_BE_THE_SAME", {"arg1": "cols", "arg2": "ascending"})
    keys: list[Expression] = []
    for col, asc in zip(cols, flags):
        if isinstance(col, int) and not isinstance(col, bool):
            # PySpark 4: a 1-based position; a negative one sorts that column descending.
            if col == 0:
                raise PySparkIndexError("Index 0 is invalid: column positions start at 1 (use -1 for the first "
                                        "column in descending order).", "ZERO_INDEX", {})
            if abs(col) > len(output):
                raise PySparkIndexError(
                    f"Column ordinal must be positive and within the number of columns: {abs(col)} is out of "
                    f"range for {len(output)} column(s).", "COLUMN_ORDINAL_OUT_OF_BOUNDS", {"index": str(col)})
            keys.append(SortOrder(output[col - 1], asc) if col > 0 else SortOrder(output[-col - 1], False))
            continue
        expr = to_expr(col)
        keys.append(expr if isinstance(expr, SortOrder) else SortOrder(expr, asc))
    return keys


def null_safe_match(left: Sequence[AttributeReference], right: Sequence[AttributeReference]) -> Expression | None:
    """``l1 <=> r1 AND l2 <=> r2 ...``: rows equal column by column, nulls equal (set operations)."""
    cond: Expression | None = None
    for a, b in zip(left, right):
        eq = EqualNullSafe(a, b)
        cond = eq if cond is None else And(cond, eq)
    return cond

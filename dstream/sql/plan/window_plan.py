"""Window functions in a plan: the ``Window`` node and the rewrite that makes it.

What this module owns
---------------------
:class:`WindowPlan` (Spark's logical ``Window``): the child's rows and columns plus one
column per window expression, all of one window (same partition keys and ordering),
and :func:`extract_windows`, Spark's ``ExtractWindowExpressions`` for ``select``: the
window expressions of the projected columns are computed by ``WindowPlan`` nodes below
the projection (one node per distinct window, stacked), and the projection reads their
columns.

Invariants
----------
* A window node keeps every column of its child (same ids) and appends its own.
* Each window expression is checked (:meth:`WindowExpression.check`) as it is
  extracted; a window function anywhere else (no ``over``) is refused.
* Two equal window expressions of one ``select`` are computed once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..errors import AnalysisException
from ..expressions.aggregate_base import AggregateFunction
from ..expressions.base import Alias, AttributeReference, Expression
from ..expressions.window_functions import WindowExpression, WindowFunction
from .logical import Aggregate, LogicalPlan, Project, UnaryPlan

__all__ = ["WindowPlan", "aggregate_then_window", "extract_windows", "refuse_bare_window_functions"]


class WindowPlan(UnaryPlan):
    """The child's rows, each with the values of ``window_exprs`` (aliases of window expressions).

    Parameters
    ----------
    window_exprs : sequence of Alias
        Each an alias of a :class:`WindowExpression`; all share ``partition_by`` and
        ``order_by``.
    partition_by, order_by : sequence of Expression
        The window's keys and orderings.
    child : LogicalPlan
    """

    def __init__(self, window_exprs: Sequence[Alias], partition_by: Sequence[Expression],
                 order_by: Sequence[Expression], child: LogicalPlan) -> None:
        super().__init__(child)
        self.window_exprs = list(window_exprs)
        self.partition_by = list(partition_by)
        self.order_by = list(order_by)

    def output(self) -> list[AttributeReference]:
        return self.child.output() + [e.to_attribute() for e in self.window_exprs]

    def expressions(self) -> list[Expression]:
        return [*self.window_exprs, *self.partition_by, *self.order_by]

    def with_children(self, children: Sequence[LogicalPlan]) -> LogicalPlan:
        return WindowPlan(self.window_exprs, self.partition_by, self.order_by, children[0])

    def map_expressions(self, fn: Callable[[Expression], Expression]) -> LogicalPlan:
        mapped = [fn(e) for e in self.window_exprs]
        if not all(isinstance(e, Alias) and isinstance(e.child, WindowExpression) for e in mapped):
            return self  # a rewrite must not turn a window expression into something else
        window_exprs: list[Alias] = [e for e in mapped if isinstance(e, Alias)]
        first = window_exprs[0].child
        assert isinstance(first, WindowExpression)
        return WindowPlan(window_exprs, first.partition_by, first.order_by, self.child)

    def describe(self) -> str:
        exprs = ", ".join(f"{e.child.sql()} AS {e.name}#{e.expr_id}" for e in self.window_exprs)
        keys = ", ".join(repr(p) for p in self.partition_by)
        orders = ", ".join(repr(o) for o in self.order_by)
        return f"Window [{exprs}], [{keys}], [{orders}]"


def refuse_bare_window_functions(expr: Expression) -> None:
    """Raise ``WINDOW_FUNCTION_WITHOUT_OVER_CLAUSE`` for a window function outside ``over``."""
    if isinstance(expr, WindowExpression):
        return
    if isinstance(expr, WindowFunction):
        raise AnalysisException(
            f"Window function {expr.sql()} requires an OVER clause: write {expr.sql()}.over(Window...) "
            "(Window.partitionBy(...).orderBy(...)).", "WINDOW_FUNCTION_WITHOUT_OVER_CLAUSE",
            {"funcName": expr.sql()})
    for child in expr.children:
        refuse_bare_window_functions(child)


def _spec_key(window: WindowExpression) -> Any:
    return (tuple(p.semantic_key() for p in window.partition_by), tuple(o.semantic_key() for o in window.order_by))


def extract_windows(plan: LogicalPlan, exprs: list[Expression]) -> tuple[LogicalPlan, list[Expression]]:
    """``plan`` with window nodes computing the window expressions of ``exprs``, and ``exprs``
    reading their columns instead (unchanged when there is none)."""
    for expr in exprs:
        refuse_bare_window_functions(expr)
    if not any(isinstance(e, WindowExpression) for expr in exprs for e in expr.walk()):
        return plan, exprs
    by_spec: dict[Any, list[Alias]] = {}
    seen: dict[Any, AttributeReference] = {}

    def replace(node: Expression) -> Expression | None:
        if not isinstance(node, WindowExpression):
            return None
        key = node.semantic_key()
        attr = seen.get(key)
        if attr is None:
            node.check()
            alias = Alias(node, node.sql())
            by_spec.setdefault(_spec_key(node), []).append(alias)
            attr = seen[key] = alias.to_attribute()
        return attr

    rewritten = [e.transform_down(replace) for e in exprs]
    for aliases in by_spec.values():
        first = aliases[0].child
        assert isinstance(first, WindowExpression)
        plan = WindowPlan(aliases, first.partition_by, first.order_by, plan)
    return plan, rewritten


def aggregate_then_window(plan: LogicalPlan, grouping: Sequence[Expression], outputs: Sequence[Expression],
                          check_grouped: Callable[[Expression], None]) -> LogicalPlan:
    """``groupBy(grouping).agg(outputs)`` where some outputs hold window expressions (Spark's
    ``ExtractWindowExpressions`` over an ``Aggregate``).

    The aggregation computes the outputs without windows and every value the windowed ones
    read (aggregates and grouping keys, as hidden columns); window nodes above it compute
    the window expressions over the groups (``rank() OVER (ORDER BY sum(v))``,
    ``sum(sum(v)) OVER ()``), and a projection gives the outputs in order, under their
    names. ``check_grouped`` refuses a column that is neither grouped nor aggregated.
    """
    keys = {g.semantic_key() for g in grouping}
    hidden: dict[Any, Alias] = {}

    def value(expr: Expression) -> Expression:
        """``expr`` (below a window, or beside one) reading what the aggregation computes."""
        if isinstance(expr, WindowExpression):
            raise AnalysisException(
                f"It is not allowed to use a window function inside another window function's arguments: "
                f"{expr.sql()}. Compute the inner one in a select first.", "NESTED_WINDOW_FUNCTION", {})
        if isinstance(expr, AggregateFunction) or expr.semantic_key() in keys:
            key = expr.semantic_key()
            if key not in hidden:
                hidden[key] = Alias(expr, f"_w{len(hidden)}")
            return hidden[key].to_attribute()
        if isinstance(expr, AttributeReference):
            check_grouped(expr)
        if not expr.children:
            return expr
        return expr.with_children([value(c) for c in expr.children])

    def above(expr: Expression) -> Expression:
        if isinstance(expr, WindowExpression):
            function = expr.function
            return WindowExpression(function.with_children([value(c) for c in function.children]),
                                    [value(p) for p in expr.partition_by], [value(o) for o in expr.order_by],
                                    expr.frame)
        if not any(isinstance(e, WindowExpression) for e in expr.walk()):
            return value(expr)
        return expr.with_children([above(c) for c in expr.children])

    direct: list[Expression] = []
    projected: list[Expression] = []
    for output in outputs:
        if any(isinstance(e, WindowExpression) for e in output.walk()):
            projected.append(above(output))  # an Alias keeps its name and id
        else:
            direct.append(output)
            projected.append(output.to_attribute() if isinstance(output, Alias) else output)
    aggregate = Aggregate(list(grouping), [*direct, *hidden.values()], plan)
    windowed, exprs = extract_windows(aggregate, projected)
    return Project(exprs, windowed)

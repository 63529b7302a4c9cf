"""``cube`` and ``rollup``: an aggregation over several grouping sets at once.

What this module owns
---------------------
:class:`Expand` (Spark's: each input row once per grouping set, the keys outside the set
made null, plus the set's grouping id) and :func:`build_grouping_sets`, Spark's
``ResolveGroupingAnalytics``: an ``Expand`` below one ``Aggregate`` grouped by the
expanded keys and the grouping id, so every set's groups come from one pass over the
input. :func:`cube_sets` and :func:`rollup_sets` list the sets.

Invariants
----------
* The grouping id has one bit per key, the first key the most significant, set where
  the key is not in the row's set (Spark's ``spark_grouping_id``); it is grouped on, so
  a null key value never merges with the null of an aggregated-over key.
* Outside aggregate functions, the outputs read the expanded (nullable) keys; inside
  them, the original columns (``rollup("k").agg(count("k"))`` counts every ``k`` on the
  grand total row), as in Spark.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..errors import AnalysisException
from ..expressions.aggregate_base import AggregateFunction
from ..expressions.base import Alias, AttributeReference, Expression, Literal
from ..expressions.bitwise import BitwiseAnd
from ..expressions.cast import Cast
from ..expressions.grouping import Grouping, GroupingID
from ..expressions.operators import Add, Multiply
from ..expressions.predicates import GreaterThan
from ..types import ByteType, LongType
from .logical import Aggregate, LogicalPlan, UnaryPlan

__all__ = ["Expand", "build_grouping_sets", "cube_sets", "rollup_sets"]


class Expand(UnaryPlan):
    """Each child row once per projection (all of the same output)."""

    def __init__(self, projections: Sequence[Sequence[Expression]], output: Sequence[AttributeReference],
                 child: LogicalPlan) -> None:
        super().__init__(child)
        self.projections = [list(p) for p in projections]
        self._output = list(output)

    def output(self) -> list[AttributeReference]:
        return list(self._output)

    def expressions(self) -> list[Expression]:
        return [e for p in self.projections for e in p]

    def with_children(self, children: Sequence[LogicalPlan]) -> LogicalPlan:
        return Expand(self.projections, self._output, children[0])

    def describe(self) -> str:
        sets = ", ".join("[" + ", ".join(repr(e) for e in p) + "]" for p in self.projections)
        return f"Expand [{sets}], [{', '.join(repr(a) for a in self._output)}]"


def cube_sets(n: int) -> list[list[int]]:
    """Every subset of the ``n`` keys, the full set first (Spark's order)."""
    return [[i for i in range(n) if not mask >> (n - 1 - i) & 1] for mask in range(1 << n)]


def rollup_sets(n: int) -> list[list[int]]:
    """The prefixes of the keys, longest first."""
    return [list(range(k)) for k in range(n, -1, -1)]


def build_grouping_sets(plan: LogicalPlan, keys: Sequence[Expression], named_keys: Sequence[Expression],
                        sets: Sequence[Sequence[int]], aggregates: Sequence[Expression],
                        check_grouped: Callable[[Expression, set[Any]], None]) -> LogicalPlan:
    """The aggregation of ``aggregates`` over each grouping set of ``keys`` (see the module doc)."""
    n = len(keys)
    names = [k.name if isinstance(k, AttributeReference | Alias) else k.sql() for k in named_keys]
    expanded = [AttributeReference(name, key.data_type(), True) for name, key in zip(names, keys)]
    grouping_id = AttributeReference("spark_grouping_id", LongType(), False)
    child_output = plan.output()
    projections = []
    for grouped in sets:
        bits = sum(1 << (n - 1 - i) for i in range(n) if i not in grouped)
        projections.append([*child_output,
                            *[keys[i] if i in grouped else Literal(None, keys[i].data_type()) for i in range(n)],
                            Literal(bits, LongType())])
    expand = Expand(projections, [*child_output, *expanded, grouping_id], plan)
    index_of = {k.semantic_key(): i for i, k in enumerate(keys)}

    def bit(index: int) -> Expression:
        """1 where key ``index`` is aggregated over (its bit of the grouping id is set), else 0."""
        mask = BitwiseAnd(grouping_id, Literal(1 << (n - 1 - index), LongType()))
        return Cast(GreaterThan(mask, Literal(0, LongType())), LongType())

    def position(expr: Expression, what: str) -> int:
        index = index_of.get(expr.semantic_key())
        if index is not None:
            return index
        raise AnalysisException(f"Column of {what} ({expr.sql()}) can't be found in grouping columns "
                                f"{', '.join(k.sql() for k in keys)}.", "GROUPING_COLUMN_MISMATCH",
                                {"grouping": expr.sql(), "groupingColumns": ", ".join(k.sql() for k in keys)})

    def rewrite(expr: Expression) -> Expression:
        if isinstance(expr, AggregateFunction):
            return expr
        if isinstance(expr, Grouping):
            return Cast(bit(position(expr.children[0], "grouping")), ByteType())
        if isinstance(expr, GroupingID):
            if not expr.children:
                return grouping_id
            indices = [position(c, "grouping_id") for c in expr.children]
            total: Expression = Literal(0, LongType())
            for j, i in enumerate(indices):
                total = Add(total, Multiply(bit(i), Literal(1 << (len(indices) - 1 - j), LongType())))
            return total
        index = index_of.get(expr.semantic_key())
        if index is not None:
            return expanded[index]
        if not expr.children:
            return expr
        return expr.with_children([rewrite(c) for c in expr.children])

    outputs: list[Expression] = []
    for expr in aggregates:
        if isinstance(expr, Alias):
            outputs.append(Alias(rewrite(expr.child), expr.name, expr.expr_id, expr.metadata))
        else:
            outputs.append(rewrite(expr))
    grouping = [*expanded, grouping_id]
    keys_set = {g.semantic_key() for g in grouping}
    for expr in outputs:
        check_grouped(expr, keys_set)
    return Aggregate(grouping, outputs, expand)

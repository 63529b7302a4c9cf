"""The contract between aggregate functions and the hash-aggregate operator.

What this module owns
---------------------
:class:`AggregateFunction`, the base of ``count``, ``sum``, ``avg``... and
:class:`SortOrder`. An aggregate is computed in two phases, as Spark's
``HashAggregateExec`` does (*Partial* on each input partition, *Final* after the
exchange), both with Arrow's grouped aggregation (``pyarrow.Table.group_by``):

1. **partial**: for each input partition, the operator evaluates the function's
   children into columns and asks :meth:`AggregateFunction.partial_aggs` which Arrow
   hash aggregations to run over them (``"sum"``, ``"count"``, ``"min"``,
   ``"list"``, ``"distinct"``...). Their results are the function's *buffer* columns.
2. **merge**: after the exchange, :meth:`AggregateFunction.merge_aggs` says how to
   combine each buffer column across partitions (sum of partial sums...).
3. **finish**: :meth:`AggregateFunction.finish` turns the merged buffers of every group
   into the result column (``avg = sum / count``, ``count`` of nothing is 0).

Invariants
----------
* ``len(merge_aggs()) == len(partial_aggs(...))``: one merge step per buffer column.
* ``finish`` receives arrays of equal length (one value per group) and returns one
  array of :meth:`data_type`'s Arrow type; a group whose buffers are all null (no
  non-null input) gets the value Spark gives an aggregate over no rows.
* Aggregates are never evaluated row-wise: :meth:`Expression.eval` raises.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from ..types import DataType
from .base import EvalContext, Expression, with_new_children

__all__ = ["AggregateFunction", "ArrowAgg", "SortOrder"]

#: One Arrow hash aggregation: (function name without ``hash_``, FunctionOptions or None).
ArrowAgg = tuple[str, Any]


class AggregateFunction(Expression):
    """An aggregate function (``sum(v)``, ``count(DISTINCT v)``).

    Parameters
    ----------
    children : sequence of Expression
        The inputs (``count(*)`` has the literal 1).
    distinct : bool
        ``count(DISTINCT v)``: duplicates of the input are counted once.
    """

    #: Spark's name of the function, as it appears in the generated column name.
    name: str = "agg"
    #: Whether its first buffer is a bigint sum Spark adds row by row, each addition checked
    #: under ANSI (``sum``): the aggregation then replays the running sums (see ``long_sums``).
    checks_running_sum: bool = False

    def __init__(self, children: Sequence[Expression], distinct: bool = False) -> None:
        self.children = tuple(children)
        self.distinct = distinct

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return with_new_children(self, children)

    @property
    def foldable(self) -> bool:
        return False

    def sql(self) -> str:
        args = ", ".join(c.sql() for c in self.children)
        return f"{self.name}(DISTINCT {args})" if self.distinct else f"{self.name}({args})"

    def _options(self) -> Any:
        return (self.name, self.distinct)

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        raise TypeError(f"the aggregate {self.sql()} is computed by an aggregation, not row by row")

    def partial_aggs(self) -> list[ArrowAgg]:
        """The Arrow hash aggregations over the evaluated children that make the buffers.

        Each applies to the function's first child's column (the operator evaluates
        every child; functions of several inputs combine them in ``finish``).
        """
        raise NotImplementedError

    def partial_input(self, j: int, values: pa.Array) -> pa.Array:
        """The column partial aggregation ``j`` reads: the first child's ``values`` unless overridden.

        Lets one function derive several buffers from its input (``max`` of doubles also
        records whether a NaN was seen: Arrow's ``max`` skips NaN, Spark's does not).
        """
        return values

    def merge_aggs(self) -> list[ArrowAgg]:
        """How each buffer column combines across partitions (same length as partial)."""
        raise NotImplementedError

    def partial_output(self, j: int, buffer: pa.Array, ctx: EvalContext) -> pa.Array:
        """Buffer column ``j`` as the partial aggregation leaves it: ``buffer`` unless overridden.

        For a function whose buffer Arrow cannot compute (a sketch): its partial
        aggregation collects each group's values, and this turns them into the buffer.
        """
        return buffer

    def merge_output(self, j: int, buffer: pa.Array, ctx: EvalContext) -> pa.Array:
        """Buffer column ``j`` as a merge leaves it: ``buffer`` unless overridden (a fold of the
        partial buffers a merge collected, so that merging merged buffers stays bounded)."""
        return buffer

    def finish(self, buffers: list[pa.Array], ctx: EvalContext) -> pa.Array:
        """The results from the merged buffers, one per group."""
        raise NotImplementedError

    def data_type(self) -> DataType:
        raise NotImplementedError


class SortOrder(Expression):
    """One ordering key: ``col.asc()``, ``col.desc_nulls_first()``.

    Spark's default null placement: first when ascending, last when descending.
    """

    def __init__(self, child: Expression, ascending: bool = True, nulls_first: bool | None = None) -> None:
        self.children = (child,)
        self.ascending = ascending
        self.nulls_first = ascending if nulls_first is None else nulls_first

    @property
    def child(self) -> Expression:
        return self.children[0]

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return SortOrder(children[0], self.ascending, self.nulls_first)

    def data_type(self) -> DataType:
        return self.child.data_type()

    def check_input_types(self) -> None:
        from ..variant.casting import contains_variant  # noqa: PLC0415 - variants are rare in orderings
        from .checks import mismatch, quoted_type  # noqa: PLC0415

        dt = self.child.data_type()
        if contains_variant(dt):
            raise mismatch(self, "INVALID_ORDERING_TYPE",
                           f"The `sortorder` does not support ordering on type {quoted_type(dt)}")

    def sql(self) -> str:
        direction = "ASC" if self.ascending else "DESC"
        nulls = "NULLS FIRST" if self.nulls_first else "NULLS LAST"
        return f"{self.child.sql()} {direction} {nulls}"

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        return self.child.eval(batch, ctx)

    def _options(self) -> Any:
        return (self.ascending, self.nulls_first)

"""Small expressions and aggregate functions for the execution tests (the real ones live elsewhere).

They follow the expression and aggregate-function contracts exactly, so the operators
are tested through the same interface the real functions use.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from dstream.sql.expressions.aggregate_base import AggregateFunction, ArrowAgg
from dstream.sql.expressions.base import AttributeReference, EvalContext, Expression, column_key
from dstream.sql.plan.logical import LocalRelation
from dstream.sql.types import BooleanType, DataType, DoubleType, LongType


class _Binary(Expression):
    op = ""

    def __init__(self, left: Expression, right: Expression) -> None:
        self.children = (left, right)

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return type(self)(children[0], children[1])

    def data_type(self) -> DataType:
        return BooleanType()

    def sql(self) -> str:
        return f"({self.children[0].sql()} {self.op} {self.children[1].sql()})"


class EqualTo(_Binary):
    op = "="

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        return pc.equal(self.children[0].eval(batch, ctx), self.children[1].eval(batch, ctx))


class EqualNullSafe(_Binary):
    op = "<=>"

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        a, b = self.children[0].eval(batch, ctx), self.children[1].eval(batch, ctx)
        both_null = pc.and_(a.is_null(), b.is_null())
        return pc.if_else(both_null, True, pc.fill_null(pc.equal(a, b), False))


class GreaterThan(_Binary):
    op = ">"

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        return pc.greater(self.children[0].eval(batch, ctx), self.children[1].eval(batch, ctx))


class LessThan(_Binary):
    op = "<"

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        return pc.less(self.children[0].eval(batch, ctx), self.children[1].eval(batch, ctx))


class And(_Binary):
    op = "AND"

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        return pc.and_kleene(self.children[0].eval(batch, ctx), self.children[1].eval(batch, ctx))


class Plus(Expression):
    """``child + k`` on longs."""

    def __init__(self, child: Expression, k: int) -> None:
        self.children = (child,)
        self.k = k

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return Plus(children[0], self.k)

    def data_type(self) -> DataType:
        return LongType()

    def sql(self) -> str:
        return f"({self.children[0].sql()} + {self.k})"

    def _options(self) -> Any:
        return (self.k,)

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        return pc.add(self.children[0].eval(batch, ctx), self.k)


class Sum(AggregateFunction):
    name = "sum"

    def partial_aggs(self) -> list[ArrowAgg]:
        return [("sum", pc.ScalarAggregateOptions(min_count=1))]

    def merge_aggs(self) -> list[ArrowAgg]:
        return [("sum", pc.ScalarAggregateOptions(min_count=1))]

    def finish(self, buffers: list[pa.Array], ctx: EvalContext) -> pa.Array:
        return buffers[0].cast(pa.int64())

    def data_type(self) -> DataType:
        return LongType()


class Count(AggregateFunction):
    name = "count"

    def partial_aggs(self) -> list[ArrowAgg]:
        return [("count", pc.CountOptions(mode="only_valid"))]

    def merge_aggs(self) -> list[ArrowAgg]:
        return [("sum", None)]

    def finish(self, buffers: list[pa.Array], ctx: EvalContext) -> pa.Array:
        return pc.fill_null(buffers[0], 0).cast(pa.int64())

    def data_type(self) -> DataType:
        return LongType()

    @property
    def nullable(self) -> bool:
        return False


class Avg(AggregateFunction):
    name = "avg"

    def partial_aggs(self) -> list[ArrowAgg]:
        return [("sum", pc.ScalarAggregateOptions(min_count=1)), ("count", pc.CountOptions(mode="only_valid"))]

    def merge_aggs(self) -> list[ArrowAgg]:
        return [("sum", pc.ScalarAggregateOptions(min_count=1)), ("sum", None)]

    def finish(self, buffers: list[pa.Array], ctx: EvalContext) -> pa.Array:
        total, count = buffers
        return pc.divide(total.cast(pa.float64()), pc.if_else(pc.equal(count, 0), None, count).cast(pa.float64()))

    def data_type(self) -> DataType:
        return DoubleType()


def relation(columns: dict[str, tuple[DataType, list[Any]]]) -> tuple[LocalRelation, list[AttributeReference]]:
    """A LocalRelation with one attribute per column (name -> (type, values))."""
    from dstream.sql.execution.physical import to_arrow_type  # noqa: PLC0415

    attrs = [AttributeReference(name, dt) for name, (dt, _) in columns.items()]
    table = pa.table({column_key(a.expr_id): pa.array(vals, to_arrow_type(dt))
                      for a, (dt, vals) in zip(attrs, columns.values())})
    return LocalRelation(attrs, table), attrs

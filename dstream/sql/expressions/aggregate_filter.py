"""The name of an aggregate with a SQL ``FILTER (WHERE ...)`` clause.

What this module owns
---------------------
:class:`FilteredAggregate`, a pass-through wrapper around an aggregate whose inputs were
already nulled outside the filter (``sum(CASE WHEN cond THEN v END)``). The aggregation
computes the wrapped aggregate as usual; the wrapper only gives the result Spark's name,
``sum(v) FILTER (WHERE cond)``, where the rewritten aggregate would read
``sum(CASE WHEN ... END)``.

Invariants
----------
* The wrapper is not an aggregate itself: the aggregate operator finds the aggregate below
  it (as below any other expression) and replaces it with its result column; the wrapper
  then passes that column through unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from ..types import DataType
from .base import EvalContext, Expression

__all__ = ["FilteredAggregate"]


class FilteredAggregate(Expression):
    """``agg(...) FILTER (WHERE cond)``: the value of ``child`` under the name ``text``.

    Parameters
    ----------
    child : Expression
        The aggregate over inputs that are null (or skipped) outside the filter.
    text : str
        Spark's SQL text of the original call with its clause.
    """

    def __init__(self, child: Expression, text: str) -> None:
        self.children = (child,)
        self.text = text

    @property
    def child(self) -> Expression:
        return self.children[0]

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return FilteredAggregate(children[0], self.text)

    def data_type(self) -> DataType:
        return self.child.data_type()

    @property
    def nullable(self) -> bool:
        return self.child.nullable

    @property
    def foldable(self) -> bool:
        return False

    def sql(self) -> str:
        return self.text

    def _options(self) -> Any:
        return (self.text,)

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        return self.child.eval(batch, ctx)

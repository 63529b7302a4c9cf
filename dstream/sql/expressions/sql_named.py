"""An expression shown under the SQL text Spark gives it, where its rewriting would print another.

What this module owns
---------------------
:class:`SqlNamed`, a pass-through wrapper for SQL forms the parser rewrites into other
expressions: ``sum(v) FILTER (WHERE cond)`` is computed as ``sum(CASE WHEN cond THEN v END)``,
``s LIKE ANY ('a%', 'b%')`` as ``s LIKE 'a%' OR s LIKE 'b%'``. The wrapper evaluates the
rewriting and gives the result Spark's name (``sum(v) FILTER (WHERE cond)``, ``likeany(s)``).

Invariants
----------
* The wrapper is not an aggregate itself: the aggregate operator finds an aggregate below
  it (as below any other expression) and replaces it with its result column; the wrapper
  then passes that column through unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from ..types import DataType
from .base import EvalContext, Expression

__all__ = ["SqlNamed"]


class SqlNamed(Expression):
    """The value of ``child`` under the name ``text``.

    Parameters
    ----------
    child : Expression
        The expression that computes the value.
    text : str
        Spark's SQL text of the form the user wrote.
    """

    def __init__(self, child: Expression, text: str) -> None:
        self.children = (child,)
        self.text = text

    @property
    def child(self) -> Expression:
        return self.children[0]

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return SqlNamed(children[0], self.text)

    def data_type(self) -> DataType:
        return self.child.data_type()

    @property
    def nullable(self) -> bool:
        return self.child.nullable

    @property
    def foldable(self) -> bool:
        return self.child.foldable

    def sql(self) -> str:
        return self.text

    def _options(self) -> Any:
        return (self.text,)

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        return self.child.eval(batch, ctx)

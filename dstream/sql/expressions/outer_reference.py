"""``col.outer()``: a column of the outer DataFrame of a ``lateralJoin``.

What this module owns
---------------------
:class:`OuterReference`, the mark ``Column.outer()`` puts on a column expression: it
names a column of the DataFrame a lateral join starts from, not of the DataFrame the
expression is written against. It never resolves on its own: ``DataFrame.lateralJoin``
takes it out of the table function call it was passed to (``spark.tvf.explode(
col("arr").outer())``), where it stands for the outer column; anywhere else it is an
analysis error naming the column.

Invariants
----------
* ``resolved`` is always false; :func:`has_outer` and :func:`without_outer` find and remove
  the marks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..types import DataType
from .base import Expression

__all__ = ["OuterReference", "has_outer", "without_outer"]


class OuterReference(Expression):
    """``outer(column)`` (see the module doc).

    The marked column is no child: the analyzer meets the mark before it would try to
    resolve the column against the wrong DataFrame.
    """

    def __init__(self, column: Expression) -> None:
        self.column = column
        self.children = ()

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return self

    @property
    def resolved(self) -> bool:
        return False

    def data_type(self) -> DataType:
        from ..errors import AnalysisException  # noqa: PLC0415 - the error path only

        raise AnalysisException(
            f"{self.sql()} names a column of the outer DataFrame of a lateral join: here it is taken only as an "
            "argument of a table function passed to lateralJoin (df.lateralJoin(spark.tvf.explode("
            "col('arr').outer()))); a lateral subquery DataFrame using outer() is not supported yet.",
            "UNSUPPORTED_FEATURE", {"feature": "outer() outside a table function of lateralJoin"})

    def sql(self) -> str:
        return f"outer({self.column.sql()})"

    def _options(self) -> Any:
        return self.column.sql()


def has_outer(expr: Expression) -> bool:
    """Whether ``expr`` holds an :class:`OuterReference`."""
    return any(isinstance(e, OuterReference) for e in expr.walk())


def without_outer(expr: Expression) -> Expression:
    """``expr`` with each :class:`OuterReference` replaced by the column it marks."""
    return expr.transform_up(lambda e: e.column if isinstance(e, OuterReference) else None)

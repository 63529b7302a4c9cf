"""``grouping(col)`` and ``grouping_id(cols...)``: which keys a row of a ``cube``/``rollup`` aggregates over.

What this module owns
---------------------
:class:`Grouping` and :class:`GroupingID`, markers the grouping-sets rewrite
(``plan.grouping_sets``) replaces by arithmetic on the hidden grouping id; anywhere else
they are refused, as Spark refuses them outside ``GROUPING SETS``/``CUBE``/``ROLLUP``.

Invariants
----------
* ``grouping(c)`` is 1 (a ``tinyint``) on rows where ``c`` is aggregated over (not in the
  row's grouping set), else 0; ``grouping_id(c1, ..., cn)`` is the ``bigint`` whose bits
  are those, ``c1`` the most significant; ``grouping_id()`` is over every key in order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from ..errors import AnalysisException
from ..types import ByteType, DataType, LongType
from .base import EvalContext, Expression, with_new_children

__all__ = ["Grouping", "GroupingID"]


class _GroupingMarker(Expression):
    name = "grouping"

    def __init__(self, *children: Expression) -> None:
        self.children = tuple(children)

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return with_new_children(self, children)

    @property
    def foldable(self) -> bool:
        return False

    @property
    def nullable(self) -> bool:
        return False

    def sql(self) -> str:
        return f"{self.name}({', '.join(c.sql() for c in self.children)})"

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        raise AnalysisException(f"{self.sql()} can only be used with GroupingSets/Cube/Rollup: aggregate with "
                                "df.cube(...) or df.rollup(...).", "UNSUPPORTED_GROUPING_EXPRESSION", {})

    def _options(self) -> Any:
        return (self.name,)


class Grouping(_GroupingMarker):
    """``grouping(c)``."""

    name = "grouping"

    def data_type(self) -> DataType:
        return ByteType()


class GroupingID(_GroupingMarker):
    """``grouping_id(c1, ..., cn)``."""

    name = "grouping_id"

    def data_type(self) -> DataType:
        return LongType()

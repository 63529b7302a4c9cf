"""The aggregates that keep one of a group's values: ``min``, ``max``, ``first``, ``last``.

What this module owns
---------------------
Each function's generated name, its Arrow hash aggregations (the same function for the
partial and the merge phase) and its finish: ``min``/``max`` by the type's order (any NaN
makes a double's ``max`` NaN, as Spark's NaN is above every number), ``first``/``last``
in input order, nulls skipped with ``ignorenulls``.

Invariants
----------
* Results keep the input type; a group without values gives null.
* ``first``/``last`` depend on row order: the operator runs Arrow's grouping with
  ``use_threads=False``.
* Types without an order (VARIANT) are refused by ``min``/``max`` when defined
  (``INVALID_ORDERING_TYPE``).
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..types import DoubleType, FloatType
from .aggregate_base import ArrowAgg
from .aggregates import _fit, _Simple
from .base import EvalContext, Expression
from .checks import mismatch, quoted_type

__all__ = ["First", "Last", "Max", "Min"]


class Min(_Simple):
    """``min(v)``: keeps the input type."""

    name = "min"
    arrow_fn = "min"

    def check_input_types(self) -> None:
        from ..variant.casting import contains_variant  # noqa: PLC0415 - variants are rare here

        dt = self.child.data_type()
        if contains_variant(dt):
            raise mismatch(self, "INVALID_ORDERING_TYPE",
                           f"The `{self.name}` does not support ordering on type {quoted_type(dt)}")


class Max(Min):
    """``max(v)``: keeps the input type; NaN is above every double, so any NaN makes the max NaN."""

    name = "max"
    arrow_fn = "max"

    def _floating(self) -> bool:
        return isinstance(self.child.data_type(), (DoubleType, FloatType))

    def partial_aggs(self) -> list[ArrowAgg]:
        # Arrow's max skips NaN: a second buffer remembers whether a group saw one.
        return [("max", None), ("max", None)] if self._floating() else super().partial_aggs()

    def merge_aggs(self) -> list[ArrowAgg]:
        return self.partial_aggs()

    def partial_input(self, j: int, values: pa.Array) -> pa.Array:
        return pc.is_nan(values) if j == 1 else values

    def finish(self, buffers: list[pa.Array], ctx: EvalContext) -> pa.Array:
        if not self._floating():
            return super().finish(buffers, ctx)
        best = _fit(buffers[0], self.data_type())
        return pc.if_else(pc.fill_null(buffers[1], False), pa.scalar(float("nan"), best.type), best)


class First(_Simple):
    """``first(v[, ignorenulls])``: the first value of the group in input order."""

    name = "first"
    arrow_fn = "first"

    def __init__(self, child: Expression, ignore_nulls: bool = False) -> None:
        super().__init__(child)
        self.ignore_nulls = ignore_nulls

    @property
    def options(self) -> Any:
        return pc.ScalarAggregateOptions(skip_nulls=self.ignore_nulls, min_count=0)

    def _options(self) -> Any:
        return (self.name, self.ignore_nulls)


class Last(First):
    """``last(v[, ignorenulls])``: the last value of the group in input order."""

    name = "last"
    arrow_fn = "last"

"""More aggregate functions: ``bool_and`` (``every``), ``bool_or`` (``some``, ``bool_or``),
``count_if``, ``product``, ``any_value``, ``first_value`` and ``last_value``.

What this module owns
---------------------
Their :class:`AggregateFunction` s, each a thin variant of a two-phase Arrow aggregation
(see ``aggregate_base``).

Invariants
----------
* ``bool_and``/``bool_or`` take booleans, skip nulls, and are null over no non-null value.
* ``count_if(p)`` counts the rows where ``p`` is true (null counts as false); never null.
* ``product`` multiplies the non-null values as doubles (Spark's result type); null over
  none.
* ``any_value``, ``first_value`` and ``last_value`` are ``first``/``last`` under their
  own names (``ignoreNulls`` as there).
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from ..types import BooleanType, DataType, DoubleType
from .aggregate_base import AggregateFunction, ArrowAgg
from .aggregates import Count, _Simple
from .base import EvalContext
from .checks import mismatch, quoted_type
from .coercion import is_numeric
from .value_aggregates import First, Last

__all__ = ["AnyValue", "BoolAnd", "BoolOr", "CountIf", "FirstValue", "LastValue", "Product"]

_SKIP_NULLS = pc.ScalarAggregateOptions(skip_nulls=True, min_count=1)


def _require(fn: AggregateFunction, ok: bool, wanted: str) -> None:
    if not ok:
        child = fn.children[0]
        raise mismatch(fn, "UNEXPECTED_INPUT_TYPE",
                       f'the first parameter requires the "{wanted}" type, however "{child.sql()}" has the type '
                       f"{quoted_type(child.data_type())}")


class BoolAnd(_Simple):
    """``bool_and(p)``: whether every non-null ``p`` is true."""

    name = "bool_and"
    arrow_fn = "all"
    options = _SKIP_NULLS

    def check_input_types(self) -> None:
        _require(self, isinstance(self.child.data_type(), BooleanType), "BOOLEAN")

    def data_type(self) -> DataType:
        return BooleanType()


class BoolOr(BoolAnd):
    """``bool_or(p)``: whether some non-null ``p`` is true."""

    name = "bool_or"
    arrow_fn = "any"


class CountIf(Count):
    """``count_if(p)``: the rows where ``p`` is true (``count``'s merge and result, summing ones)."""

    name = "count_if"

    def check_input_types(self) -> None:
        _require(self, isinstance(self.children[0].data_type(), BooleanType), "BOOLEAN")

    def partial_aggs(self) -> list[ArrowAgg]:
        return [("sum", None)]

    def partial_input(self, j: int, values: pa.Array) -> pa.Array:
        return pc.fill_null(values, False).cast(pa.int64())


class Product(_Simple):
    """``product(v)``: the product of the non-null values, as a double."""

    name = "product"
    arrow_fn = "product"
    options = _SKIP_NULLS

    def check_input_types(self) -> None:
        _require(self, is_numeric(self.child.data_type()), "NUMERIC")

    def partial_input(self, j: int, values: pa.Array) -> pa.Array:
        return values.cast(pa.float64())

    def finish(self, buffers: list[pa.Array], ctx: EvalContext) -> pa.Array:
        return buffers[0].cast(pa.float64())

    def data_type(self) -> DataType:
        return DoubleType()


class AnyValue(First):
    """``any_value(v[, ignoreNulls])``: a value of the group (the first, here)."""

    name = "any_value"


class FirstValue(First):
    """``first_value(v[, ignoreNulls])``: ``first`` under SQL's window-function name."""

    name = "first_value"


class LastValue(Last):
    """``last_value(v[, ignoreNulls])``: ``last`` under SQL's window-function name."""

    name = "last_value"

"""The key that stands for a tuple of columns in ``count(DISTINCT a, b, ...)``.

What this module owns
---------------------
:class:`DistinctTuple`: one binary value per row that is equal for two rows exactly
when their columns are all equal, and null when any column is null (Spark counts
only tuples without nulls). Arrow's distinct hash aggregations take no struct input,
so ``count(DISTINCT a, b)`` counts these keys with the one-column machinery.

Invariants
----------
* Injective: each column's text is prefixed by its length (``3:abc``), so no two
  different tuples join to the same bytes.
* Floating-point columns are normalized as Spark normalizes grouping keys: ``-0.0``
  equals ``0.0`` and every NaN equals every other.
* Its SQL text is the columns' own (``a, b``), so the aggregate is named
  ``count(DISTINCT a, b)`` as in Spark.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..types import BinaryType, DataType
from .base import EvalContext, Expression

__all__ = ["DistinctTuple"]


class DistinctTuple(Expression):
    """A binary key per row of ``children`` (see the module doc); null if any child is null."""

    name = "distinct_tuple"

    def __init__(self, children: Sequence[Expression]) -> None:
        self.children = tuple(children)

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return type(self)(children)

    def data_type(self) -> DataType:
        return BinaryType()

    @property
    def nullable(self) -> bool:
        return any(c.nullable for c in self.children)

    def sql(self) -> str:
        return ", ".join(c.sql() for c in self.children)

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        parts: list[Any] = []
        for child in self.children:
            text = _as_bytes(child.eval(batch, ctx))
            length = pc.cast(pc.binary_length(text), pa.string()).cast(pa.binary())
            parts += [length, pa.scalar(b":"), text]
        # A null in any part makes the key null (binary_join's default null handling).
        return pc.binary_join_element_wise(*parts, pa.scalar(b""))


def _as_bytes(values: pa.Array) -> pa.Array:
    """Each value as bytes that only an equal value has."""
    t = values.type
    if pa.types.is_floating(t):
        # -0.0 == 0.0 is true, so this turns -0.0 into 0.0; NaN compares false and stays NaN.
        values = pc.if_else(pc.equal(values, 0), pa.scalar(0.0, t), values)
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return values.cast(pa.binary())
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return values.cast(pa.string()).cast(pa.binary())
    if pa.types.is_nested(t) or pa.types.is_dictionary(t):
        # Arrays, structs, maps: their Python values' repr (equal values, equal text).
        return pa.array([None if v is None else repr(v).encode() for v in values.to_pylist()], pa.binary())
    return values.cast(pa.string()).cast(pa.binary())

"""``arrays_zip(a1, a2, ...)``: the arrays merged element by element into an array of structs.

What this module owns
---------------------
:class:`ArraysZip`. Its struct's fields are named after the arguments, as Spark names
them: a column's name (an attribute or an alias), else the argument's position (``"0"``,
``"1"``...).

Invariants
----------
* The result is as long as the longest array; a shorter array contributes nulls.
* A null array makes the whole result null.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from ..types import ArrayType, DataType, StructField, StructType
from .base import Alias, AttributeReference, EvalContext, Expression, UnresolvedAttribute
from .checks import mismatch, quoted_type

__all__ = ["ArraysZip"]


def _name(child: Expression, index: int) -> str:
    if isinstance(child, AttributeReference | Alias):
        return child.name
    if isinstance(child, UnresolvedAttribute) and len(child.parts) == 1:
        return child.parts[0]
    return str(index)


class ArraysZip(Expression):
    """``arrays_zip(a1, a2, ...)`` (see the module doc)."""

    def __init__(self, children: Sequence[Expression], names: Sequence[str] | None = None) -> None:
        self.children = tuple(children)
        # Named once, from the arguments as written: resolution replaces them by attributes
        # of the same names, and later rewrites must not rename the fields.
        self.names = list(names) if names is not None else [_name(c, i) for i, c in enumerate(self.children)]

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return ArraysZip(children, self.names)

    def data_type(self) -> DataType:
        fields = []
        for name, child in zip(self.names, self.children):
            dt = child.data_type()
            element = dt.elementType if isinstance(dt, ArrayType) else dt
            fields.append(StructField(name, element, True))
        return ArrayType(StructType(fields), False)

    def sql(self) -> str:
        return f"arrays_zip({', '.join(c.sql() for c in self.children)})"

    def check_input_types(self) -> None:
        for i, child in enumerate(self.children):
            dt = child.data_type()
            if not isinstance(dt, ArrayType):
                raise mismatch(self, "UNEXPECTED_INPUT_TYPE",
                               f'the parameter {i + 1} requires the "ARRAY" type, however "{child.sql()}" has the '
                               f"type {quoted_type(dt)}")

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - light import at run time only

        columns = [child.eval(batch, ctx) for child in self.children]
        values = [c.to_pylist() if isinstance(c, pa.Array | pa.ChunkedArray) else [c] * batch.num_rows
                  for c in columns]
        rows: list[Any] = []
        for arrays in zip(*values):
            if any(a is None for a in arrays):
                rows.append(None)
                continue
            rows.append([dict(zip(self.names, items)) for items in itertools.zip_longest(*arrays)])
        return pa.array(rows, to_arrow_type(self.data_type()))

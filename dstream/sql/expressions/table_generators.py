"""More generators: ``inline``/``inline_outer`` (an array of structs as rows and columns)
and ``stack`` (values spread over rows).

What this module owns
---------------------
:class:`Inline` and :class:`Stack`, planned by ``Generate`` as the explode family is.

Invariants
----------
* ``inline(a)`` yields one row per element of the array of structs ``a``, one column
  per struct field (named after it); a null element gives a row of nulls; a null or
  empty array gives no row, or one row of nulls with ``inline_outer``.
* ``stack(n, v1, ..., vk)`` yields exactly ``n`` rows per input row with
  ``ceil(k / n)`` columns ``col0``, ``col1``...: row ``i`` holds ``v(i*cols+1)``...
  (nulls past the last value). ``n`` is a positive integer constant and the values of
  one column share a type (a null literal fits any), as Spark requires.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..types import ArrayType, DataType, IntegerType, NullType, StructType
from .base import EvalContext, Expression
from .checks import mismatch, quoted_type
from .generators import Explode, Generator
from .predicates import fold

__all__ = ["Inline", "Stack"]


class Inline(Explode):
    """``inline(a)``: the structs of array ``a`` as rows, their fields as columns."""

    base_name = "inline"

    def check_input_types(self) -> None:
        dt = self.child.data_type()
        if not (isinstance(dt, ArrayType) and isinstance(dt.elementType, StructType)):
            raise mismatch(self, "UNEXPECTED_INPUT_TYPE",
                           f'the first parameter requires the "ARRAY<STRUCT>" type, however "{self.child.sql()}" '
                           f"has the type {quoted_type(dt)}")

    def output_fields(self) -> list[tuple[str, DataType, bool]]:
        dt = self.child.data_type()
        if not (isinstance(dt, ArrayType) and isinstance(dt.elementType, StructType)):
            return []
        return [(f.name, f.dataType, True) for f in dt.elementType.fields]

    def generate(self, batch: pa.RecordBatch, ctx: EvalContext) -> tuple[pa.Array, list[pa.Array]]:
        parents, [structs] = super().generate(batch, ctx)
        if isinstance(structs, pa.ChunkedArray):
            structs = structs.combine_chunks()
        missing = structs.is_null()
        columns = []
        for i in range(structs.type.num_fields):
            field = structs.field(i)
            columns.append(pc.if_else(missing, pa.nulls(len(field), field.type), field) if structs.null_count
                           else field)
        return parents, columns


class Stack(Generator):
    """``stack(n, v1, ..., vk)``: ``n`` rows per row, the values laid out row by row."""

    def __init__(self, *children: Expression) -> None:
        self.children = tuple(children)

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return Stack(*children)

    def sql(self) -> str:
        return f"stack({', '.join(c.sql() for c in self.children)})"

    def _rows(self) -> int:
        first = self.children[0] if self.children else None
        value = fold(first) if first is not None and first.foldable else None
        if first is None or not isinstance(first.data_type(), IntegerType) or not isinstance(value, int) \
                or value < 1:
            raise mismatch(self, "NON_FOLDABLE_INPUT",
                           "the first argument requires a positive integer constant (the number of rows)")
        return value

    def _layout(self) -> tuple[int, int]:
        rows = self._rows()
        values = len(self.children) - 1
        return rows, -(-values // rows) if values else 0

    def check_input_types(self) -> None:
        if len(self.children) < 2:
            raise mismatch(self, "WRONG_NUM_ARGS", "stack needs the number of rows and at least one value")
        self.output_fields()

    def output_fields(self) -> list[tuple[str, DataType, bool]]:
        return self._fields(*self._layout())

    def _fields(self, rows: int, cols: int) -> list[tuple[str, DataType, bool]]:
        values = self.children[1:]
        fields: list[tuple[str, DataType, bool]] = []
        for j in range(cols):
            types = [values[i * cols + j].data_type() for i in range(rows) if i * cols + j < len(values)]
            typed = [t for t in types if not isinstance(t, NullType)]
            if any(t != typed[0] for t in typed):
                raise mismatch(self, "STACK_COLUMN_DIFF_TYPES",
                               f"the values of column {j} must share one type, not "
                               f"{', '.join(quoted_type(t) for t in typed)}; cast them to one")
            fields.append((f"col{j}", typed[0] if typed else NullType(), True))
        return fields

    def generate(self, batch: pa.RecordBatch, ctx: EvalContext) -> tuple[pa.Array, list[pa.Array]]:
        from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - a leaf import
        from ..execution.physical import as_array  # noqa: PLC0415 - execution loads at run time

        rows, cols = self._layout()
        count = batch.num_rows
        values = self.children[1:]
        parents = pa.array(np.repeat(np.arange(count, dtype=np.int64), rows))
        # Slot i of every input row, then slot i + 1...: pick row-major for the output.
        order = pa.array((np.arange(rows)[None, :] * count + np.arange(count)[:, None]).reshape(-1), pa.int64())
        columns: list[Any] = []
        for j, (_, dtype, _) in enumerate(self._fields(rows, cols)):
            target = to_arrow_type(dtype)
            slots = []
            for i in range(rows):
                k = i * cols + j
                slot = as_array(values[k].eval(batch, ctx), count) if k < len(values) else pa.nulls(count, target)
                slots.append(slot if slot.type == target else slot.cast(target))
            columns.append(pa.concat_arrays(slots).take(order))
        return parents, columns

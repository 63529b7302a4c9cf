"""Generators: ``explode``, ``explode_outer``, ``posexplode``, ``posexplode_outer``.

What this module owns
---------------------
:class:`Generator` (the base the analyzer looks for to plan a ``Generate``) and the
explode family. A generator does not produce one value per row: the physical
``Generate`` calls :meth:`Generator.generate` and gets, for a batch, the parent row of
every generated row and the generated columns.

Invariants
----------
* ``output_fields()`` lists ``(name, DataType, nullable)`` of the generated columns:
  ``col`` for an array, ``key``, ``value`` for a map, with ``pos`` first for
  ``posexplode``.
* ``generate`` returns parent indices in increasing order (the input order is kept);
  an ``_outer`` generator yields one row of nulls for a null or empty collection.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..types import ArrayType, DataType, IntegerType, MapType, StructField, StructType
from .base import EvalContext, Expression
from .checks import mismatch, quoted_type
from .extractors import as_list

__all__ = ["Explode", "Generator", "PosExplode"]


class Generator(Expression):
    """An expression producing zero or more rows per input row."""

    #: Whether a row with nothing to generate still yields one row (of nulls).
    outer: bool = False

    def output_fields(self) -> list[tuple[str, DataType, bool]]:
        """``(name, type, nullable)`` of each generated column."""
        raise NotImplementedError

    def data_type(self) -> DataType:
        return StructType([StructField(n, t, nl) for n, t, nl in self.output_fields()])

    def generate(self, batch: pa.RecordBatch, ctx: EvalContext) -> tuple[pa.Array, list[pa.Array]]:
        """``(parent_indices, generated columns)`` for ``batch``."""
        raise NotImplementedError

    def eval_generate(self, batch: pa.RecordBatch, ctx: EvalContext) -> tuple[pa.Array, list[pa.Array]]:
        """Alias of :meth:`generate`."""
        return self.generate(batch, ctx)

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        raise TypeError(f"the generator {self.sql()} produces rows; it is run by a Generate operator")


class Explode(Generator):
    """``explode(a)``: one row per element (``col``) or map entry (``key``, ``value``)."""

    base_name = "explode"
    with_position = False

    def __init__(self, child: Expression, outer: bool = False) -> None:
        self.children = (child,)
        self.outer = outer

    @property
    def child(self) -> Expression:
        return self.children[0]

    @property
    def name(self) -> str:
        """Spark's function name (``posexplode_outer``...)."""
        return self.base_name + ("_outer" if self.outer else "")

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return type(self)(children[0], self.outer)

    def sql(self) -> str:
        return f"{self.name}({self.child.sql()})"

    def check_input_types(self) -> None:
        dt = self.child.data_type()
        if not isinstance(dt, (ArrayType, MapType)):
            raise mismatch(self, "UNEXPECTED_INPUT_TYPE",
                           f'the first parameter requires the ("ARRAY" or "MAP") type, however "{self.child.sql()}" '
                           f"has the type {quoted_type(dt)}")

    def output_fields(self) -> list[tuple[str, DataType, bool]]:
        dt = self.child.data_type()
        fields: list[tuple[str, DataType, bool]] = []
        if self.with_position:
            fields.append(("pos", IntegerType(), self.outer))
        if isinstance(dt, MapType):
            fields += [("key", dt.keyType, self.outer), ("value", dt.valueType, True)]
        elif isinstance(dt, ArrayType):
            fields.append(("col", dt.elementType, True))
        return fields

    def generate(self, batch: pa.RecordBatch, ctx: EvalContext) -> tuple[pa.Array, list[pa.Array]]:
        values = as_list(self.child.eval(batch, ctx))
        is_map = isinstance(self.child.data_type(), MapType)
        flat = pc.list_flatten(values)
        parents = pc.list_parent_indices(values).cast(pa.int64())
        generated = [flat.field(0), flat.field(1)] if is_map else [flat]
        if self.with_position:
            offsets = values.offsets.cast(pa.int64())
            base = offsets[0] if len(offsets) else pa.scalar(0, pa.int64())
            starts = pc.subtract(pc.take(offsets, parents), base) if len(parents) else pa.array([], pa.int64())
            index = pa.array(range(len(parents)), pa.int64())
            generated.insert(0, pc.subtract(index, starts).cast(pa.int32()))
        if self.outer:
            empty = pc.fill_null(pc.equal(pc.fill_null(pc.list_value_length(values), 0), 0), True)
            extra = pa.array(range(len(values)), pa.int64()).filter(empty)
            if len(extra):
                parents = pa.concat_arrays([parents, extra])
                generated = [pa.concat_arrays([g, pa.nulls(len(extra), g.type)]) for g in generated]
                order = pc.sort_indices(parents)
                parents = parents.take(order)
                generated = [g.take(order) for g in generated]
        return parents, generated

    def _options(self) -> Any:
        return (self.name,)


class PosExplode(Explode):
    """``posexplode(a)``: ``pos`` (0-based) and the element."""

    base_name = "posexplode"
    with_position = True

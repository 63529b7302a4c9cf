"""Complex values: ``struct``, ``named_struct``, ``array``, ``size``, ``element_at``, ``array_contains``,
``from_json``, ``to_json``.

What this module owns
---------------------
The nodes that build or inspect arrays, maps and structs, named as Spark names them
(``struct(a, b)``, ``array(a, b)``, ``size(a)``, ``element_at(a, 1)``,
``array_contains(a, 1)``, ``from_json(a)``, ``to_json(a)``).

Invariants
----------
* ``struct``'s field names are its arguments' names: a column's name, an alias's name,
  else ``col1``, ``col2``... by position.
* ``size`` of null is null under ANSI and -1 otherwise (Spark's ``sizeOfNull``).
* ``element_at`` is 1-based (negative from the end); index 0 always raises; out of range
  raises under ANSI, null otherwise. A missing map key gives null.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import ArrayIndexOutOfBoundsException
from ..types import (
    ArrayType,
    BooleanType,
    DataType,
    IntegerType,
    MapType,
    NullType,
    StringType,
    StructField,
    StructType,
    VariantType,
)
from .base import Alias, AttributeReference, EvalContext, Expression, UnresolvedAttribute, with_new_children
from .cast import cast_to
from .checks import mismatch, quoted_type
from .coercion import find_common_type
from .extractors import as_list, list_item, map_lookup
from .interval_cast import intervals_as_text, intervals_from_text, text_type

__all__ = ["ArrayContains", "CreateArray", "CreateStruct", "ElementAt", "FromJson", "Size", "ToJson", "TryElementAt"]


def _arrow(dt: DataType) -> pa.DataType:
    from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - light import at run time only

    return to_arrow_type(dt)


def _field_name(expr: Expression, position: int) -> str:
    if isinstance(expr, (Alias, AttributeReference)):
        return expr.name
    if isinstance(expr, UnresolvedAttribute):
        return expr.parts[-1]
    return f"col{position + 1}"


class CreateStruct(Expression):
    """``struct(a, b)`` or, with explicit ``names``, ``named_struct(n1, a, n2, b)``."""

    def __init__(self, children: Sequence[Expression], names: Sequence[str] | None = None,
                 resolved_names: Sequence[str] | None = None) -> None:
        self.children = tuple(children)
        self.names = None if names is None else tuple(names)
        #: ``struct(x, y)``'s field names once its columns were resolved: the optimizer may
        #: then replace ``x`` by the expression it names, which must not rename the field.
        self.resolved_names = None if resolved_names is None else tuple(resolved_names)

    def with_children(self, children: Sequence[Expression]) -> Expression:
        kept = self.resolved_names
        if self.names is None and kept is None and all(c.resolved for c in self.children):
            kept = tuple(self.field_names())
        return CreateStruct(children, self.names, kept)

    def field_names(self) -> list[str]:
        """The struct's field names."""
        if self.names is not None:
            return list(self.names)
        if self.resolved_names is not None:
            return list(self.resolved_names)
        return [_field_name(c, i) for i, c in enumerate(self.children)]

    def data_type(self) -> DataType:
        return StructType([StructField(n, c.data_type(), c.nullable)
                           for n, c in zip(self.field_names(), self.children)])

    @property
    def nullable(self) -> bool:
        return False

    def sql(self) -> str:
        if self.names is not None:
            args = [f"{n}, {c.sql()}" for n, c in zip(self.names, self.children)]
            return f"named_struct({', '.join(args)})"
        args = [f"{c.child.sql()} AS {c.name}" if isinstance(c, Alias) else c.sql() for c in self.children]
        return f"struct({', '.join(args)})"

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        arrays = [c.eval(batch, ctx) for c in self.children]
        if not arrays:
            return pa.StructArray.from_arrays([], fields=[]) if batch.num_rows == 0 else pa.array(
                [{}] * batch.num_rows, pa.struct([]))
        fields = [pa.field(n, a.type) for n, a in zip(self.field_names(), arrays)]
        return pa.StructArray.from_arrays(arrays, fields=fields)

    def _options(self) -> Any:
        return (self.names, self.resolved_names)


class CreateArray(Expression):
    """``array(a, b, ...)``: the values of each row as one array (elements cast to their common type)."""

    def __init__(self, children: Sequence[Expression]) -> None:
        self.children = tuple(children)

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return CreateArray(children)

    def data_type(self) -> DataType:
        common = find_common_type([c.data_type() for c in self.children]) if self.children else NullType()
        return ArrayType(common if common is not None else StringType(), any(c.nullable for c in self.children))

    @property
    def nullable(self) -> bool:
        return False

    def sql(self) -> str:
        return f"array({', '.join(c.sql() for c in self.children)})"

    def coerce(self) -> Expression:
        types = [c.data_type() for c in self.children]
        common = find_common_type(types)
        if common is None:
            raise mismatch(self, "DATA_DIFF_TYPES",
                           "Input to `array` should all be the same type, but it's ["
                           + ", ".join(quoted_type(t) for t in types) + "]")
        children = [cast_to(c, common) for c in self.children]
        return self if all(n is o for n, o in zip(children, self.children)) else CreateArray(children)

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        n, k = batch.num_rows, len(self.children)
        dt = self.data_type()
        assert isinstance(dt, ArrayType)
        item_type = _arrow(dt.elementType)
        if k == 0:
            return pa.ListArray.from_arrays(pa.array([0] * (n + 1), pa.int32()), pa.array([], item_type))
        arrays = [c.eval(batch, ctx).cast(item_type) for c in self.children]
        stacked = pa.concat_arrays(arrays)
        order = pa.array([j * n + i for i in range(n) for j in range(k)], pa.int64())
        values = stacked.take(order)
        offsets = pa.array(range(0, n * k + 1, k), pa.int32())
        return pa.ListArray.from_arrays(offsets, values)


class Size(Expression):
    """``size(a)``: elements of an array or entries of a map."""

    name = "size"  # an instance may show SQL's other name, cardinality

    def __init__(self, child: Expression) -> None:
        self.children = (child,)

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return with_new_children(self, children)

    def data_type(self) -> DataType:
        return IntegerType()

    def sql(self) -> str:
        return f"{self.name}({self.children[0].sql()})"

    def check_input_types(self) -> None:
        dt = self.children[0].data_type()
        if not isinstance(dt, (ArrayType, MapType)):
            raise mismatch(self, "UNEXPECTED_INPUT_TYPE",
                           f'the first parameter requires the ("ARRAY" or "MAP") type, however '
                           f'"{self.children[0].sql()}" has the type {quoted_type(dt)}')

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        lengths = pc.list_value_length(as_list(self.children[0].eval(batch, ctx))).cast(pa.int32())
        return lengths if ctx.ansi else pc.fill_null(lengths, -1)


class ElementAt(Expression):
    """``element_at(a, i)`` (1-based array item) or ``element_at(m, k)`` (map value)."""

    def __init__(self, child: Expression, key: Expression) -> None:
        self.children = (child, key)

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return type(self)(children[0], children[1])

    def data_type(self) -> DataType:
        dt = self.children[0].data_type()
        if isinstance(dt, ArrayType):
            return dt.elementType
        if isinstance(dt, MapType):
            return dt.valueType
        raise mismatch(self, "UNEXPECTED_INPUT_TYPE",
                       f'the first parameter requires the ("ARRAY" or "MAP") type, however '
                       f'"{self.children[0].sql()}" has the type {quoted_type(dt)}')

    @property
    def nullable(self) -> bool:
        return True

    def sql(self) -> str:
        return f"element_at({self.children[0].sql()}, {self.children[1].sql()})"

    def coerce(self) -> Expression:
        self.data_type()
        dt = self.children[0].data_type()
        key = cast_to(self.children[1], dt.keyType if isinstance(dt, MapType) else IntegerType())
        return self if key is self.children[1] else type(self)(self.children[0], key)

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        values = self.children[0].eval(batch, ctx)
        keys = self.children[1].eval(batch, ctx)
        if pa.types.is_map(values.type):
            return map_lookup(values, keys)
        _refuse_index_zero(values, keys)
        return list_item(values, keys, True, ctx.ansi, "INVALID_ARRAY_INDEX_IN_ELEMENT_AT")


def _refuse_index_zero(values: pa.Array, keys: Any) -> None:
    """Raise ``INVALID_INDEX_OF_ZERO`` if a row of a non-null array asks for position 0 (a null
    array is null, as in Spark), for ``element_at`` and ``try_element_at`` alike."""
    zero = pc.equal(keys, 0)
    if pc.any(pc.fill_null(pc.and_(zero, values.is_valid()), False)).as_py():
        raise ArrayIndexOutOfBoundsException(
            "The index 0 is invalid. An index shall be either < 0 or > 0 (the first element has index 1).",
            "INVALID_INDEX_OF_ZERO", {})


class TryElementAt(ElementAt):
    """``try_element_at(a, i)``: ``element_at`` with null for an index out of range, even under ANSI;
    index 0 still raises ``INVALID_INDEX_OF_ZERO`` (as PySpark 4.0.1: it is no position at all)."""

    def sql(self) -> str:
        return f"try_element_at({self.children[0].sql()}, {self.children[1].sql()})"

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        values = self.children[0].eval(batch, ctx)
        keys = self.children[1].eval(batch, ctx)
        if pa.types.is_map(values.type):
            return map_lookup(values, keys)
        _refuse_index_zero(values, keys)
        return list_item(values, keys, True, False, "INVALID_ARRAY_INDEX_IN_ELEMENT_AT")


class ArrayContains(Expression):
    """``array_contains(a, v)``: true if found; null if ``a`` or ``v`` is null, or not found but ``a`` has a null."""

    def __init__(self, child: Expression, value: Expression) -> None:
        self.children = (child, value)

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return ArrayContains(children[0], children[1])

    def data_type(self) -> DataType:
        return BooleanType()

    def sql(self) -> str:
        return f"array_contains({self.children[0].sql()}, {self.children[1].sql()})"

    def coerce(self) -> Expression:
        dt = self.children[0].data_type()
        if not isinstance(dt, ArrayType):
            raise mismatch(self, "UNEXPECTED_INPUT_TYPE",
                           f'the first parameter requires the "ARRAY" type, however "{self.children[0].sql()}" '
                           f"has the type {quoted_type(dt)}")
        common = find_common_type([dt.elementType, self.children[1].data_type()])
        if common is None:
            raise mismatch(self, "ARRAY_FUNCTION_DIFF_TYPES",
                           f"Input to `array_contains` should have been \"ARRAY\" followed by a value with same "
                           f"element type, but it's [{quoted_type(dt)}, {quoted_type(self.children[1].data_type())}]")
        child = cast_to(self.children[0], ArrayType(common, dt.containsNull))
        value = cast_to(self.children[1], common)
        return self if (child is self.children[0] and value is self.children[1]) else ArrayContains(child, value)

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        lists = self.children[0].eval(batch, ctx)
        values = self.children[1].eval(batch, ctx)
        parents = pc.list_parent_indices(lists)
        flat = pc.list_flatten(lists)
        eq = pc.equal(flat, values.take(parents)) if len(flat) else pa.array([], pa.bool_())
        table = pa.table({"p": parents, "eq": eq, "null": pc.is_null(flat)})
        grouped = table.group_by("p").aggregate([("eq", "any"), ("null", "any")])
        found = pa.nulls(len(lists), pa.bool_())
        has_null = pa.nulls(len(lists), pa.bool_())
        if grouped.num_rows:
            idx = pc.index_in(pa.array(range(len(lists)), pa.int64()),
                              value_set=grouped.column("p").combine_chunks().cast(pa.int64()))
            found = grouped.column("eq_any").combine_chunks().take(idx)
            has_null = grouped.column("null_any").combine_chunks().take(idx)
        found = pc.fill_null(found, False)
        has_null = pc.fill_null(has_null, False)
        result = pc.if_else(found, True, pc.if_else(has_null, pa.scalar(None, pa.bool_()), False))
        valid = pc.and_(pc.is_valid(lists), pc.is_valid(values))
        return pc.if_else(valid, result, pa.scalar(None, pa.bool_()))


class FromJson(Expression):
    """``from_json(a, schema)``: parse JSON text into ``schema`` (malformed text gives null)."""

    def __init__(self, child: Expression, schema: DataType, options: dict[str, str] | None = None) -> None:
        self.children = (child,)
        self.schema = schema
        self.options = dict(options or {})

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return FromJson(children[0], self.schema, self.options)

    def data_type(self) -> DataType:
        return self.schema

    @property
    def nullable(self) -> bool:
        return True

    def sql(self) -> str:
        return f"from_json({self.children[0].sql()})"

    def coerce(self) -> Expression:
        child = cast_to(self.children[0], StringType())
        return self if child is self.children[0] else FromJson(child, self.schema, self.options)

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        from ..kernels import jsonfn  # noqa: PLC0415 - kernels load at run time

        options = {"timeZone": ctx.time_zone, **self.options}
        # Intervals are read as their text, then as the schema's intervals (Arrow's types carry no fields).
        parsed = jsonfn.from_json(self.children[0].eval(batch, ctx), text_type(self.schema), options)
        return intervals_from_text(parsed, self.schema)

    def _options(self) -> Any:
        return (self.schema.simpleString(), tuple(sorted(self.options.items())))


class ToJson(Expression):
    """``to_json(a)``: a struct, map or array as JSON text (null fields omitted)."""

    def __init__(self, child: Expression, options: dict[str, str] | None = None) -> None:
        self.children = (child,)
        self.options = dict(options or {})

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return ToJson(children[0], self.options)

    def data_type(self) -> DataType:
        return StringType()

    def sql(self) -> str:
        return f"to_json({self.children[0].sql()})"

    def check_input_types(self) -> None:
        dt = self.children[0].data_type()
        if not isinstance(dt, (StructType, MapType, ArrayType, VariantType)):
            raise mismatch(self, "INVALID_JSON_SCHEMA",
                           f'Input schema {quoted_type(dt)} must be a struct, an array, a map or a variant')

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        from ..kernels import jsonfn  # noqa: PLC0415 - kernels load at run time

        values, dt = intervals_as_text(self.children[0].eval(batch, ctx), self.children[0].data_type())
        return jsonfn.to_json(values, dt, self.options, ctx.time_zone)

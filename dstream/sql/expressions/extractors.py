"""Extracting a part of a complex value: ``s.x`` (struct field), ``a[0]`` (array item), ``m[k]`` (map value).

What this module owns
---------------------
:class:`GetStructField`, :class:`GetArrayStructFields` (``v.a`` of an array of structs),
:class:`GetArrayItem`, :class:`GetMapValue`,
:class:`ExtractValue` (``col["x"]``/``col.getItem(...)`` before the child's type is
known: it becomes one of the three in ``coerce()``) and :func:`extract_field`, which
the analyzer calls for the ``a.b`` of a dotted name.

Invariants
----------
* Array indexes of ``getItem`` are 0-based; an index out of range raises
  ``INVALID_ARRAY_INDEX`` under ANSI and gives null otherwise (``element_at`` is the
  1-based function, in :mod:`collection_functions`).
* A missing map key gives null.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import AnalysisException, ArrayIndexOutOfBoundsException
from ..types import ArrayType, DataType, IntegerType, MapType, StringType, StructType
from ..variant.arrow import python_array
from .base import EvalContext, Expression, Literal
from .cast import cast_to
from .checks import quoted_type
from .deferred import Deferred

__all__ = ["ExtractValue", "GetArrayItem", "GetArrayStructFields", "GetMapValue", "GetStructField", "as_list",
           "extract_field", "list_item"]


def _field_index(node: Expression, struct: StructType, name: str) -> int:
    exact = [i for i, f in enumerate(struct.fields) if f.name == name]
    if exact:
        return exact[0]
    loose = [i for i, f in enumerate(struct.fields) if f.name.lower() == name.lower()]
    if len(loose) == 1:
        return loose[0]
    fields = ", ".join(f"`{f.name}`" for f in struct.fields)
    if loose:
        raise AnalysisException(f"Ambiguous reference to fields {fields}.", "AMBIGUOUS_REFERENCE_TO_FIELDS",
                                {"field": name})
    raise AnalysisException(f"No such struct field `{name}` in {fields}.", "FIELD_NOT_FOUND",
                            {"fieldName": f"`{name}`", "fields": fields})


class GetStructField(Expression):
    """``s.x``: one field of a struct (null when the struct is null)."""

    def __init__(self, child: Expression, name: str) -> None:
        self.children = (child,)
        self.name = name

    @property
    def child(self) -> Expression:
        return self.children[0]

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return GetStructField(children[0], self.name)

    def _index(self) -> int:
        dt = self.child.data_type()
        assert isinstance(dt, StructType)
        return _field_index(self, dt, self.name)

    def data_type(self) -> DataType:
        dt = self.child.data_type()
        assert isinstance(dt, StructType)
        return dt.fields[self._index()].dataType

    @property
    def nullable(self) -> bool:
        return True

    def sql(self) -> str:
        return f"{self.child.sql()}.{self.name}"

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        values = self.child.eval(batch, ctx)
        field = pc.struct_field(values, [self._index()])
        if values.null_count:
            field = pc.if_else(values.is_valid(), field, pa.scalar(None, field.type))
        return field

    def _options(self) -> Any:
        return (self.name,)


class GetArrayStructFields(Expression):
    """``v.a`` of an array of structs: the field of every element, as an array (Spark's ``GetArrayStructFields``)."""

    def __init__(self, child: Expression, name: str) -> None:
        self.children = (child,)
        self.name = name

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return GetArrayStructFields(children[0], self.name)

    def _struct(self) -> StructType:
        dt = self.children[0].data_type()
        assert isinstance(dt, ArrayType) and isinstance(dt.elementType, StructType)
        return dt.elementType

    def data_type(self) -> DataType:
        dt = self.children[0].data_type()
        assert isinstance(dt, ArrayType)
        field = self._struct().fields[_field_index(self, self._struct(), self.name)]
        return ArrayType(field.dataType, dt.containsNull or field.nullable)

    @property
    def nullable(self) -> bool:
        return self.children[0].nullable

    def sql(self) -> str:
        return f"{self.children[0].sql()}.{self.name}"

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        values = self.children[0].eval(batch, ctx)
        # list_flatten honours a slice's offsets; the lengths rebuild the lists over the result.
        elements = pc.list_flatten(values)
        field = pc.struct_field(elements, [_field_index(self, self._struct(), self.name)])
        if elements.null_count:  # a null struct has a null field
            field = pc.if_else(elements.is_valid(), field, pa.scalar(None, field.type))
        lengths = pc.fill_null(pc.list_value_length(values), 0).cast(pa.int32())
        offsets = pa.concat_arrays([pa.array([0], pa.int32()), pc.cumulative_sum(lengths)])
        mask = values.is_null() if values.null_count else None
        return pa.ListArray.from_arrays(offsets, field, type=pa.list_(pa.field("element", field.type)), mask=mask)

    def _options(self) -> Any:
        return (self.name,)


def list_item(values: pa.Array, positions: pa.Array, one_based: bool, ansi: bool, error: str) -> pa.Array:
    """Item ``positions[i]`` of list ``values[i]`` (0- or 1-based, negative counts from the end if 1-based).

    Out-of-range positions raise ``ArrayIndexOutOfBoundsException`` (condition ``error``)
    when ``ansi``, else give null.
    """
    lengths = pc.list_value_length(values).cast(pa.int64())
    pos = positions.cast(pa.int64())
    if one_based:
        rel = pc.if_else(pc.greater(pos, 0), pc.subtract(pos, 1), pc.add(lengths, pos))
    else:
        rel = pos
    inside = pc.and_(pc.greater_equal(rel, 0), pc.less(rel, lengths))
    if ansi:
        bad = pc.fill_null(pc.and_(pc.invert(inside), pc.is_valid(values)), False)
        if pc.any(bad).as_py():
            i = pc.index(bad, True).as_py()
            index, size = pos[i].as_py(), lengths[i].as_py()
            if error == "INVALID_ARRAY_INDEX":
                detail = ("Use the SQL function `get()` to tolerate accessing element at invalid index and return "
                          "NULL instead.")
            else:
                detail = "Use `try_element_at` to tolerate accessing element at invalid index and return NULL instead."
            raise ArrayIndexOutOfBoundsException(
                f"The index {index} is out of bounds. The array has {size} elements. {detail}", error,
                {"indexValue": str(index), "arraySize": str(size)})
    offsets = values.offsets.cast(pa.int64())
    starts = offsets[:-1] if len(values) else pa.array([], pa.int64())
    flat_index = pc.if_else(inside, pc.add(starts, rel), pa.scalar(None, pa.int64()))
    flat = values.values
    return flat.take(flat_index)


class GetArrayItem(Expression):
    """``a[i]``: 0-based array item."""

    def __init__(self, child: Expression, index: Expression) -> None:
        self.children = (child, index)

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return GetArrayItem(children[0], children[1])

    def data_type(self) -> DataType:
        dt = self.children[0].data_type()
        assert isinstance(dt, ArrayType)
        return dt.elementType

    @property
    def nullable(self) -> bool:
        return True

    def sql(self) -> str:
        return f"{self.children[0].sql()}[{self.children[1].sql()}]"

    def coerce(self) -> Expression:
        index = cast_to(self.children[1], IntegerType())
        return self if index is self.children[1] else GetArrayItem(self.children[0], index)

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        values = self.children[0].eval(batch, ctx)
        positions = self.children[1].eval(batch, ctx)
        return list_item(values, positions, False, ctx.ansi, "INVALID_ARRAY_INDEX")


def as_list(values: pa.Array) -> pa.Array:
    """A map array as ``list<struct<key, value>>`` (list kernels do not take maps); lists unchanged.

    Right for a slice of a map array too: its ``keys``/``items`` are the whole arrays the
    slice's offsets point into, so the entries are cut to the slice's range and the
    offsets moved to start at 0 (Arrow takes no null bitmap beside offsets that do not).
    """
    if not pa.types.is_map(values.type):
        return values
    offsets = values.offsets
    start = offsets[0].as_py() if len(offsets) else 0
    size = (offsets[-1].as_py() if len(offsets) else 0) - start
    entries = pa.StructArray.from_arrays([values.keys.slice(start, size), values.items.slice(start, size)],
                                         names=["key", "value"])
    mask = values.is_null() if values.null_count else None
    return pa.ListArray.from_arrays(pc.subtract(offsets, start), entries, mask=mask)


def map_lookup(maps: pa.Array, keys: pa.Array) -> pa.Array:
    """The value of ``keys[i]`` in ``maps[i]`` (null if absent or either is null)."""
    out = []
    for m, k in zip(maps.to_pylist(), keys.to_pylist()):
        value = None
        if m is not None and k is not None:
            for mk, mv in m:
                if mk == k:
                    value = mv
        out.append(value)
    return python_array(out, maps.type.item_type)


class GetMapValue(Expression):
    """``m[k]``: the value of a key (null if absent)."""

    def __init__(self, child: Expression, key: Expression) -> None:
        self.children = (child, key)

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return GetMapValue(children[0], children[1])

    def data_type(self) -> DataType:
        dt = self.children[0].data_type()
        assert isinstance(dt, MapType)
        return dt.valueType

    @property
    def nullable(self) -> bool:
        return True

    def sql(self) -> str:
        return f"{self.children[0].sql()}[{self.children[1].sql()}]"

    def coerce(self) -> Expression:
        dt = self.children[0].data_type()
        assert isinstance(dt, MapType)
        key = cast_to(self.children[1], dt.keyType)
        return self if key is self.children[1] else GetMapValue(self.children[0], key)

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        return map_lookup(self.children[0].eval(batch, ctx), self.children[1].eval(batch, ctx))


class ExtractValue(Deferred):
    """``col[key]`` / ``col.getItem(key)`` / ``col.getField(name)`` before the child's type is known."""

    def __init__(self, child: Expression, key: Expression, field_only: bool = False) -> None:
        self.children = (child, key)
        self.field_only = field_only

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return ExtractValue(children[0], children[1], self.field_only)

    def resolve(self) -> Expression:
        """The concrete extraction for the child's type."""
        child, key = self.children
        dt = child.data_type()
        if isinstance(dt, StructType):
            if not (isinstance(key, Literal) and isinstance(key.value, str)):
                raise AnalysisException(
                    f'Field name should be a non-null string literal, but it\'s {key.sql()}.',
                    "INVALID_EXTRACT_FIELD_TYPE", {"extraction": key.sql()})
            return GetStructField(child, key.value)
        if isinstance(dt, ArrayType) and isinstance(dt.elementType, StructType) \
                and isinstance(key, Literal) and isinstance(key.value, str):
            # Spark reads a name on an array of structs as that field of every element.
            return GetArrayStructFields(child, key.value)
        if self.field_only:
            raise AnalysisException(
                f"Can't extract a value from {child.sql()}. Need a complex type [STRUCT, ARRAY, MAP] but got "
                f"{quoted_type(dt)}.", "INVALID_EXTRACT_BASE_FIELD_TYPE",
                {"base": child.sql(), "other": quoted_type(dt)})
        if isinstance(dt, ArrayType):
            return GetArrayItem(child, key).coerce()
        if isinstance(dt, MapType):
            return GetMapValue(child, key).coerce()
        raise AnalysisException(
            f"Can't extract a value from {child.sql()}. Need a complex type [STRUCT, ARRAY, MAP] but got "
            f"{quoted_type(dt)}.", "INVALID_EXTRACT_BASE_FIELD_TYPE", {"base": child.sql(), "other": quoted_type(dt)})

    def sql(self) -> str:
        child, key = self.children
        if isinstance(key, Literal) and isinstance(key.value, str) and (
                self.field_only or not isinstance(child, Expression) or not child.resolved
                or isinstance(child.data_type(), StructType) or _structs(child.data_type())):
            return f"{child.sql()}.{key.value}"
        return f"{child.sql()}[{key.sql()}]"

    def _options(self) -> Any:
        return (self.field_only,)


def _structs(dt: DataType) -> bool:
    return isinstance(dt, ArrayType) and isinstance(dt.elementType, StructType)


def extract_field(expr: Expression, name: str) -> Expression:
    """``expr.name`` for a resolved ``expr``: a struct field, or a map's value under a string key."""
    dt = expr.data_type()
    if isinstance(dt, MapType) and isinstance(dt.keyType, StringType):
        return GetMapValue(expr, Literal(name, StringType()))
    return ExtractValue(expr, Literal(name, StringType()), field_only=True).resolve()

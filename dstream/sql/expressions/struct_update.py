"""``Column.withField`` and ``Column.dropFields``: a struct with fields added, replaced or dropped.

What this module owns
---------------------
:class:`UpdateFields`, Spark's expression of the same name: a struct and a list of
operations, each a field path (``"a"`` or, inside nested structs, ``"a.b"``) with the
value to put there or, for a drop, none. The operations apply in order, on the type
(:meth:`data_type`) and on the Arrow arrays (:meth:`eval`) alike.

Invariants
----------
* A null struct gives null (its fields are not looked at); a null nested struct on the way
  to a field stays null, as Spark's ``withField`` leaves it.
* ``withField`` replaces every field of that name (Spark's rule for duplicates) or, when
  there is none, appends the field; ``dropFields`` removes every field of that name and
  ignores a name that is absent. A path's intermediate fields must exist and be structs.
* Dropping the last field is refused (``CANNOT_DROP_ALL_FIELDS``), as are a non-struct
  input and a path through a non-struct, each naming the column and the field.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from ..errors import AnalysisException
from ..types import DataType, StructField, StructType
from .base import EvalContext, Expression

__all__ = ["UpdateFields"]

Operation = tuple[tuple[str, ...], Expression | None]  # a field path, and its value (None: drop it)


def _path(name: str) -> tuple[str, ...]:
    return tuple(name.split("."))


def _refuse(message: str, condition: str) -> AnalysisException:
    return AnalysisException(message, condition, {})


class UpdateFields(Expression):
    """``struct.withField(name, value)`` / ``struct.dropFields(*names)`` (see the module doc)."""

    def __init__(self, struct: Expression, paths: Sequence[tuple[str, ...]], drops: Sequence[bool],
                 values: Sequence[Expression]) -> None:
        self.paths = tuple(paths)
        self.drops = tuple(drops)  # per operation: a drop (no value) or a set (the next value)
        self.children = (struct, *values)

    @classmethod
    def with_field(cls, struct: Expression, name: str, value: Expression) -> UpdateFields:
        if isinstance(struct, UpdateFields):  # chained calls make one expression, as Spark folds them
            return cls(struct.children[0], (*struct.paths, _path(name)), (*struct.drops, False),
                       (*struct.children[1:], value))
        return cls(struct, [_path(name)], [False], [value])

    @classmethod
    def drop_fields(cls, struct: Expression, names: Sequence[str]) -> UpdateFields:
        base, paths, drops, values = struct, [], [], []
        if isinstance(struct, UpdateFields):
            base, paths, drops, values = struct.children[0], list(struct.paths), list(struct.drops), \
                list(struct.children[1:])
        return cls(base, [*paths, *(_path(n) for n in names)], [*drops, *([True] * len(names))], values)

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return UpdateFields(children[0], self.paths, self.drops, children[1:])

    def _operations(self) -> list[Operation]:
        values = iter(self.children[1:])
        return [(path, None if drop else next(values)) for path, drop in zip(self.paths, self.drops)]

    def data_type(self) -> DataType:
        dtype = self.children[0].data_type()
        if not isinstance(dtype, StructType):
            raise _refuse(f'Cannot resolve "{self.sql()}": withField and dropFields need a struct column, and '
                          f'"{self.children[0].sql()}" is a {dtype.simpleString()}.',
                          "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE")
        for path, value in self._operations():
            dtype = self._updated(dtype, path, value)
        return dtype

    def _updated(self, dtype: StructType, path: tuple[str, ...], value: Expression | None) -> StructType:
        head, rest = path[0], path[1:]
        fields = list(dtype.fields)
        if rest:
            inner = next((f for f in fields if f.name == head), None)
            if inner is None or not isinstance(inner.dataType, StructType):
                raise _refuse(f"No such struct field `{head}` in {', '.join(f.name for f in fields)} (a struct is "
                              f"needed there to reach `{'.'.join(path)}`).", "FIELD_NOT_FOUND")
            fields = [StructField(f.name, self._updated(f.dataType, rest, value), f.nullable)  # type: ignore[arg-type]
                      if f.name == head else f for f in fields]
        elif value is None:
            fields = [f for f in fields if f.name != head]
            if not fields:
                raise _refuse(f"Cannot drop all fields in struct: {self.sql()}.", "CANNOT_DROP_ALL_FIELDS")
        elif any(f.name == head for f in fields):
            fields = [StructField(head, value.data_type(), value.nullable) if f.name == head else f for f in fields]
        else:
            fields.append(StructField(head, value.data_type(), value.nullable))
        return StructType(fields)

    @property
    def nullable(self) -> bool:
        return self.children[0].nullable

    def sql(self) -> str:
        parts = []
        for path, value in self._operations():
            name = ".".join(path)
            parts.append(f"DropField({name})" if value is None else f"WithField({name}, {value.sql()})")
        return f"update_fields({self.children[0].sql()}, {', '.join(parts)})"

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        self.data_type()  # refuses what cannot be done before touching the data
        struct = self.children[0].eval(batch, ctx)
        if isinstance(struct, pa.ChunkedArray):
            struct = struct.combine_chunks()
        for path, value in self._operations():
            array = None if value is None else value.eval(batch, ctx)
            if isinstance(array, pa.ChunkedArray):
                array = array.combine_chunks()
            struct = _apply(struct, path, array)
        return struct

    def _options(self) -> Any:
        return (self.paths, self.drops)


def _apply(struct: pa.StructArray, path: tuple[str, ...], value: pa.Array | None) -> pa.StructArray:
    """``struct`` with the field at ``path`` set to ``value`` (dropped when ``None``), its nulls kept."""
    head, rest = path[0], path[1:]
    names = [struct.type.field(i).name for i in range(struct.type.num_fields)]
    children = [struct.field(i) for i in range(len(names))]
    if rest:
        children = [_apply(c, rest, value) if n == head else c for n, c in zip(names, children)]
    elif value is None:
        kept = [(n, c) for n, c in zip(names, children) if n != head]
        names, children = [n for n, _ in kept], [c for _, c in kept]
    elif head in names:
        children = [value if n == head else c for n, c in zip(names, children)]
    else:
        names, children = [*names, head], [*children, value]
    mask = struct.is_null() if struct.null_count else None
    fields = [pa.field(n, c.type) for n, c in zip(names, children)]
    return pa.StructArray.from_arrays(children, fields=fields, mask=mask)

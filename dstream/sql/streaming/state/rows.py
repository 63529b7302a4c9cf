"""Arrow columns <-> rows of plain Python values: what state stores keep.

What this module owns
---------------------
:class:`RowCodec`, which turns the rows of a few Arrow columns into tuples of plain
values (``None``, ``bool``, ``int``, ``float``, ``str``, ``bytes`` and tuples of
them) and back. State stores persist these with msgpack, so no value needs a class
to be read back: timestamps travel as microseconds, dates as days, decimals as text,
structs as tuples, lists as tuples.

Invariants
----------
* ``to_arrays(to_rows(cols)) == cols`` for every supported type, nulls included.
* Rows are hashable (usable as state keys): nested values are tuples, never lists.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

__all__ = ["RowCodec", "key_time_us", "physical_type"]


def physical_type(t: pa.DataType) -> pa.DataType:
    """The Arrow type whose Python values are plain (what a value of ``t`` is stored as)."""
    if pa.types.is_timestamp(t) or pa.types.is_duration(t) or pa.types.is_time64(t) or pa.types.is_date64(t):
        return pa.int64()
    if pa.types.is_date32(t) or pa.types.is_time32(t):
        return pa.int32()
    if pa.types.is_decimal(t):
        return pa.string()
    if pa.types.is_dictionary(t):
        return physical_type(t.value_type)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return pa.list_(physical_type(t.value_type))
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, physical_type(f.type), f.nullable) for f in t])
    return t


def _plain(arr: pa.Array) -> list[Any]:
    t = arr.type
    if pa.types.is_struct(t):
        fields = [_plain(arr.field(i)) for i in range(t.num_fields)]
        valid = arr.is_valid().to_pylist()
        return [tuple(f[i] for f in fields) if ok else None for i, ok in enumerate(valid)]
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        values = arr.to_pylist()
        return [None if v is None else _freeze(v) for v in values]
    return arr.to_pylist()


def _freeze(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple(_freeze(v) for v in value.values())
    return value


def _build(values: Sequence[Any], t: pa.DataType) -> pa.Array:
    if pa.types.is_struct(t):
        n = len(values)
        fields = [_build([None if v is None else v[i] for v in values], t.field(i).type) for i in range(t.num_fields)]
        mask = pa.array([v is None for v in values], pa.bool_()) if any(v is None for v in values) else None
        return pa.StructArray.from_arrays(fields, fields=list(t), mask=mask) if n or fields else \
            pa.array([], t)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return pa.array([None if v is None else [_thaw(x, t.value_type) for x in v] for v in values], t)
    return pa.array(values, t)


def _thaw(value: Any, t: pa.DataType) -> Any:
    if value is None:
        return None
    if pa.types.is_struct(t):
        return {f.name: _thaw(v, f.type) for f, v in zip(t, value)}
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [_thaw(v, t.value_type) for v in value]
    return value


class RowCodec:
    """Rows of columns of the given Arrow types <-> tuples of plain values."""

    def __init__(self, types: Sequence[pa.DataType]) -> None:
        self.types = list(types)
        self.physical = [physical_type(t) for t in self.types]

    def to_rows(self, arrays: Sequence[pa.Array | pa.ChunkedArray]) -> list[tuple[Any, ...]]:
        """One tuple per row of ``arrays`` (one array per type)."""
        cols = []
        for arr, phys in zip(arrays, self.physical):
            if isinstance(arr, pa.ChunkedArray):
                arr = arr.combine_chunks()
            if pa.types.is_dictionary(arr.type):
                arr = arr.dictionary_decode()
            cols.append(_plain(arr.cast(phys) if arr.type != phys else arr))
        if not cols:
            return []
        return list(zip(*cols))

    def to_arrays(self, rows: Sequence[Sequence[Any]]) -> list[pa.Array]:
        """One array per type holding ``rows``."""
        # zip(*rows) transposes in C; an empty input still gives one (empty) column per type.
        columns = list(zip(*rows)) if rows else [() for _ in self.types]
        if len(columns) < len(self.types):
            raise ValueError(f"rows of {len(columns)} values given to a codec of {len(self.types)} columns")
        out = []
        for column, t, phys in zip(columns, self.types, self.physical):
            arr = _build(column, phys)
            out.append(arr.cast(t) if arr.type != t else arr)
        return out


def key_time_us(value: Any) -> int | None:
    """The event time (microseconds) of a stored key value: a timestamp, or a window's end."""
    if value is None:
        return None
    if isinstance(value, tuple):
        return value[1]
    return int(value)

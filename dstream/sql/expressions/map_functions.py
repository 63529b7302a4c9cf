"""Map functions for the registry: ``create_map``, ``map_keys``, ``map_values``,
``map_entries``, ``map_from_arrays``, ``map_from_entries``, ``map_concat``,
``map_contains_key`` and ``str_to_map``.

What this module owns
---------------------
The :class:`FunctionSpec` of each, on Arrow map arrays (a list of key/value structs).

Invariants
----------
* Keys are never null: a null key raises ``NULL_MAP_KEY``, as Spark does.
* A key given twice in one map raises ``DUPLICATED_MAP_KEY``, from every builder (Spark's
  default ``spark.sql.mapKeyDedupPolicy=EXCEPTION``).
* ``create_map``'s keys share one type, its values another (the common types of the
  arguments, as ``array`` does); its values may be null.
* A null map gives null from ``map_keys``/``map_values``/``map_entries``/``map_contains_key``;
  a null argument of ``map_concat``/``map_from_arrays`` gives null.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import SparkRuntimeException
from ..types import ArrayType, BooleanType, DataType, MapType, StringType, StructField, StructType
from .base import EvalContext
from .coercion import find_common_type
from .extractors import as_list
from .function_registry import FunctionSpec, register

__all__ = ["build_map"]


def _null_key() -> SparkRuntimeException:
    return SparkRuntimeException("Cannot use null as map key. Filter the nulls out, or give them a "
                                 "key with coalesce(key, ...).", "NULL_MAP_KEY", {})


def _duplicate(key: Any) -> SparkRuntimeException:
    return SparkRuntimeException(
        f"Duplicate map key {key} was found, please check the input data. If you want to "
        'remove the duplicated keys, you can set "spark.sql.mapKeyDedupPolicy" to "LAST_WIN" so that the key '
        "inserted at last takes precedence.", "DUPLICATED_MAP_KEY", {"key": str(key)})


def build_map(offsets: np.ndarray, keys: pa.Array, values: pa.Array, invalid: np.ndarray | None,
           map_type: pa.DataType) -> pa.Array:
    """A map array, checking that keys are not null nor repeated within a map."""
    if keys.null_count:
        raise _null_key()
    rows = len(offsets) - 1
    if len(keys):
        owner = np.repeat(np.arange(rows), np.diff(offsets))
        pairs = pa.table({"m": pa.array(owner, pa.int64()), "k": keys})
        counted = pairs.group_by(["m", "k"]).aggregate([("k", "count")])
        repeated = pc.greater(counted.column("k_count"), 1)
        if pc.any(repeated).as_py():
            raise _duplicate(counted.column("k").filter(repeated)[0].as_py())
    built = pa.MapArray.from_arrays(pa.array(offsets, pa.int32()), keys, values)
    if invalid is not None and invalid.any():
        built = pc.if_else(pa.array(~invalid), built, pa.nulls(rows, built.type))
    return built.cast(map_type) if built.type != map_type else built


def _arrow(dt: DataType) -> pa.DataType:
    from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - a leaf import

    return to_arrow_type(dt)


# -- create_map -----------------------------------------------------------------------------


def _create_types(types: list[DataType]) -> list[DataType | None]:
    if len(types) % 2:
        raise TypeError(f"create_map expects a positive even number of arguments, got {len(types)}")
    keys = find_common_type(types[0::2]) if types else StringType()
    values = find_common_type(types[1::2]) if types else StringType()
    if keys is None or values is None:
        raise TypeError("the keys (and the values) of create_map must share one type")
    if isinstance(keys, MapType):
        raise TypeError("a map cannot be a map key")
    return [keys if i % 2 == 0 else values for i in range(len(types))]


def _create_type(types: list[DataType]) -> DataType:
    if not types:
        return MapType(StringType(), StringType(), False)
    return MapType(types[0], types[1], True)


def _create(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    pairs = len(args) // 2
    if not pairs:  # map(): one empty map, repeated for the batch
        return pa.MapArray.from_arrays(pa.array([0, 0], pa.int32()), pa.array([], pa.string()),
                                       pa.array([], pa.string()))
    rows = len(args[0])
    order = (np.arange(pairs)[None, :] * rows + np.arange(rows)[:, None]).reshape(-1)
    index = pa.array(order, pa.int64())
    keys = pa.concat_arrays([a.combine_chunks() if isinstance(a, pa.ChunkedArray) else a for a in args[0::2]])
    values = pa.concat_arrays([a.combine_chunks() if isinstance(a, pa.ChunkedArray) else a for a in args[1::2]])
    offsets = np.arange(0, rows * pairs + 1, pairs)
    return build_map(offsets, keys.take(index), values.take(index), None, _arrow(rt))


register(FunctionSpec("map", 0, -1, _create_types, _create_type, _create, null_intolerant=False), "create_map")


# -- reading a map ----------------------------------------------------------------------------


def _map_arg(types: list[DataType]) -> list[DataType | None]:
    if not isinstance(types[0], MapType):
        raise TypeError(f'the argument requires the "MAP" type, not "{types[0].simpleString().upper()}"')
    return [None] * len(types)


def _field_lists(maps: pa.Array, field: int) -> pa.Array:
    """Each map's keys (``field`` 0) or values (1), as a list."""
    entries = as_list(maps)
    return pa.ListArray.from_arrays(entries.offsets, entries.values.field(field),
                                    mask=maps.is_null() if maps.null_count else None)


def _keys(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    return _field_lists(args[0], 0)


def _values(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    return _field_lists(args[0], 1)


def _entries(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    return as_list(args[0]).cast(_arrow(rt))


def _entry_type(types: list[DataType]) -> DataType:
    m = types[0]
    assert isinstance(m, MapType)
    return ArrayType(StructType([StructField("key", m.keyType, False),
                                 StructField("value", m.valueType, m.valueContainsNull)]), False)


register(FunctionSpec("map_keys", 1, 1, _map_arg,
                      lambda ts: ArrayType(ts[0].keyType, False), _keys))  # type: ignore[attr-defined]
register(FunctionSpec("map_values", 1, 1, _map_arg,
                      lambda ts: ArrayType(ts[0].valueType, ts[0].valueContainsNull), _values))  # type: ignore[attr-defined]
register(FunctionSpec("map_entries", 1, 1, _map_arg, _entry_type, _entries))


def _contains_types(types: list[DataType]) -> list[DataType | None]:
    _map_arg(types)
    return [None, types[0].keyType]  # type: ignore[attr-defined]


def _contains(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    maps, wanted = as_list(args[0]), args[1]
    rows = len(maps)
    parents = pc.list_parent_indices(maps).to_numpy()
    keys = pc.list_flatten(maps).field(0)
    hit = pc.fill_null(pc.equal(keys, wanted.take(pa.array(parents, pa.int64()))), False)
    found = np.bincount(parents[hit.to_numpy(zero_copy_only=False)], minlength=rows) > 0
    return pa.array(found, pa.bool_(), mask=pc.or_(maps.is_null(), wanted.is_null()).to_numpy(zero_copy_only=False))


register(FunctionSpec("map_contains_key", 2, 2, _contains_types, lambda ts: BooleanType(), _contains))


# -- building from arrays, entries, other maps, text -----------------------------------------


def _from_arrays_types(types: list[DataType]) -> list[DataType | None]:
    if not all(isinstance(t, ArrayType) for t in types):
        raise TypeError("map_from_arrays requires two arrays: the keys and the values")
    return [None, None]


def _from_arrays(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    keys, values = args
    invalid = pc.or_(keys.is_null(), values.is_null()).to_numpy(zero_copy_only=False)
    key_lengths = pc.fill_null(pc.list_value_length(keys), 0).to_numpy(zero_copy_only=False)
    value_lengths = pc.fill_null(pc.list_value_length(values), 0).to_numpy(zero_copy_only=False)
    if (key_lengths[~invalid] != value_lengths[~invalid]).any():
        raise SparkRuntimeException("The key array and value array of MapData must have the same length.",
                                    "INVALID_MAP_ARRAYS", {})
    keep = pa.array(~invalid)
    keys, values = pc.if_else(keep, keys, pa.nulls(len(keys), keys.type)), \
        pc.if_else(keep, values, pa.nulls(len(values), values.type))
    offsets = np.concatenate([[0], np.cumsum(np.where(invalid, 0, key_lengths))])
    return build_map(offsets, pc.list_flatten(keys), pc.list_flatten(values), invalid, _arrow(rt))


register(FunctionSpec("map_from_arrays", 2, 2, _from_arrays_types,
                      lambda ts: MapType(ts[0].elementType, ts[1].elementType, ts[1].containsNull),  # type: ignore[attr-defined]
                      _from_arrays))


def _entries_type(types: list[DataType]) -> list[DataType | None]:
    t = types[0]
    if not (isinstance(t, ArrayType) and isinstance(t.elementType, StructType) and len(t.elementType.fields) == 2):
        raise TypeError(f'the argument requires "ARRAY<STRUCT<KEY, VALUE>>", not "{t.simpleString().upper()}"')
    return [None]


def _from_entries(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    entries = args[0]
    invalid = entries.is_null().to_numpy(zero_copy_only=False)
    flat = pc.list_flatten(entries)
    if flat.null_count:
        raise _null_key()
    lengths = pc.fill_null(pc.list_value_length(entries), 0).to_numpy(zero_copy_only=False)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    return build_map(offsets, flat.field(0), flat.field(1), invalid, _arrow(rt))


def _from_entries_type(types: list[DataType]) -> DataType:
    fields = types[0].elementType.fields  # type: ignore[attr-defined]
    return MapType(fields[0].dataType, fields[1].dataType, fields[1].nullable)


register(FunctionSpec("map_from_entries", 1, 1, _entries_type, _from_entries_type, _from_entries))


def _concat_types(types: list[DataType]) -> list[DataType | None]:
    if not all(isinstance(t, MapType) for t in types):
        raise TypeError("map_concat requires maps")
    common = find_common_type(types)
    if common is None:
        raise TypeError("the maps of map_concat must share one type")
    return [common] * len(types)


def _concat(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    args = [as_list(m) for m in args]
    rows = len(args[0])
    invalid = np.zeros(rows, dtype=bool)
    for m in args:
        invalid |= m.is_null().to_numpy(zero_copy_only=False)
    lengths = [np.where(invalid, 0, pc.fill_null(pc.list_value_length(m), 0).to_numpy(zero_copy_only=False))
               for m in args]
    total = np.sum(lengths, axis=0)
    offsets = np.concatenate([[0], np.cumsum(total)])
    # Each map's entries in order: the rows' entries of map 0, then map 1... reordered row-major.
    flats = [pc.list_flatten(pc.if_else(pa.array(~invalid), m, pa.nulls(rows, m.type))) for m in args]
    entries = pa.concat_arrays(flats)
    origin = np.concatenate([np.repeat(np.arange(rows), n) for n in lengths])
    which = np.concatenate([np.full(int(n.sum()), i) for i, n in enumerate(lengths)])
    order = np.lexsort((which, origin))
    taken = entries.take(pa.array(order, pa.int64()))
    return build_map(offsets, taken.field(0), taken.field(1), invalid, _arrow(rt))


register(FunctionSpec("map_concat", 1, -1, _concat_types, lambda ts: ts[0], _concat, null_intolerant=False))


def _text_types(types: list[DataType]) -> list[DataType | None]:
    return [StringType()] * len(types)


def _str_to_map(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    from ..kernels.regexes import split  # noqa: PLC0415 - kernels load at run time

    text = args[0]
    pair_delim = args[1] if len(args) > 1 else ","
    value_delim = args[2] if len(args) > 2 else ":"
    # Both delimiters are Java regular expressions (Spark splits with String.split(delim, -1),
    # then each pair with a limit of 2).
    pairs = split(text, pair_delim, -1, "str_to_map")
    counts = pc.fill_null(pc.list_value_length(pairs), 0).to_numpy(zero_copy_only=False)
    keys: list[str] = []
    values: list[str | None] = []
    for parts in split(pc.list_flatten(pairs), value_delim, 2, "str_to_map").to_pylist():
        keys.append(parts[0])
        values.append(parts[1] if len(parts) > 1 else None)
    offsets = np.concatenate([[0], np.cumsum(counts)])
    return build_map(offsets, pa.array(keys, pa.string()), pa.array(values, pa.string()),
                     text.is_null().to_numpy(zero_copy_only=False), _arrow(rt))


register(FunctionSpec("str_to_map", 1, 3, _text_types, lambda ts: MapType(StringType(), StringType(), True),
                      _str_to_map, scalar_positions=(1, 2)))

"""Higher-order functions over maps: ``map_filter``, ``transform_keys``,
``transform_values`` and ``map_zip_with``.

What this module owns
---------------------
The expressions that apply a lambda of ``(key, value)`` to each entry of a batch's maps,
evaluated once over all the entries at once as ``higher_order`` does for arrays: the
maps are flattened into keys and values, the body is evaluated over them (with the row
columns it reads repeated per entry), and the results are cut back into maps.

Invariants
----------
* A null map gives null; an empty map gives an empty map.
* ``transform_keys`` refuses a null key (``NULL_MAP_KEY``) and a key made twice in one
  map (``DUPLICATED_MAP_KEY``), as Spark's default ``mapKeyDedupPolicy=EXCEPTION`` does.
* ``map_filter`` keeps the entries whose predicate is true (null counts as false).
* ``map_zip_with`` runs over the union of both maps' keys, in the first map's order
  then the second's new keys, the missing side's value null; a null map gives null.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import AnalysisException
from ..execution.physical import as_array
from ..types import DataType, MapType
from .base import EvalContext, Expression
from .extractors import as_list
from .higher_order import HigherOrderFunction, _element_batch, _evaluate, _lengths, _ordinal
from .map_functions import build_map

__all__ = ["MapFilter", "MapZipWith", "TransformKeys", "TransformValues"]


class _Entries:
    """A batch's maps as flat keys and values, with each entry's row (``parents``)."""

    def __init__(self, maps: pa.Array, rows: int) -> None:
        maps = as_array(maps, rows)
        if pa.types.is_null(maps.type):
            maps = pa.nulls(rows, pa.map_(pa.string(), pa.null()))
        lists = as_list(maps)
        flat = pc.list_flatten(lists)  # a null map's entries (if any) are left out
        self.keys, self.values = flat.field(0), flat.field(1)
        self.counts = _lengths(lists)
        self.missing = lists.is_null().to_numpy(zero_copy_only=False)
        self.parents = np.repeat(np.arange(rows), self.counts)


def _maps(keys: pa.Array, values: pa.Array, counts: np.ndarray, missing: np.ndarray,
          map_type: pa.DataType) -> pa.Array:
    """Maps of ``counts[i]`` entries each, null where ``missing``."""
    offsets = pa.array(np.concatenate([[0], np.cumsum(counts)]), pa.int32())
    built = pa.MapArray.from_arrays(offsets, keys.cast(map_type.key_type), values.cast(map_type.item_type))
    if missing.any():
        built = pc.if_else(pa.array(~missing), built, pa.nulls(len(counts), built.type))
    return built


def _arrow(dtype: DataType) -> pa.DataType:
    from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - a leaf import

    return to_arrow_type(dtype)


class _MapFunction(HigherOrderFunction):
    """A map function with a lambda of ``(key, value)``."""

    def _map(self, i: int) -> MapType:
        dtype = self.inputs[i].data_type()
        if not isinstance(dtype, MapType):
            raise AnalysisException(
                f'Cannot resolve "{self.sql()}" due to data type mismatch: the {_ordinal(i)} parameter requires '
                f'the "MAP" type, however "{self.inputs[i].sql()}" has the type "{dtype.simpleString()}".',
                "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", {"sqlExpr": self.sql()})
        return dtype

    def bind_lambdas(self) -> list[Expression]:
        dtype = self._map(0)
        return [self.functions[0].bind([(dtype.keyType, False), (dtype.valueType, dtype.valueContainsNull)])]

    def _apply(self, batch: pa.RecordBatch, ctx: EvalContext) -> tuple[_Entries, pa.Array]:
        """The entries of the first input and the lambda's result for each."""
        function = self.functions[0]
        entries = _Entries(self.inputs[0].eval(batch, ctx), batch.num_rows)
        variables = {function.variables[0].expr_id: entries.keys}
        if len(function.variables) > 1:
            variables[function.variables[1].expr_id] = entries.values
        result = _evaluate(function.body, _element_batch(batch, function.body, entries.parents, variables), ctx)
        return entries, result


class MapFilter(_MapFunction):
    """``map_filter(m, (k, v) -> p)``: the entries whose predicate is true."""

    name = "map_filter"

    def check_input_types(self) -> None:
        self.require_predicate()

    def data_type(self) -> DataType:
        return self.inputs[0].data_type()

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        entries, tested = self._apply(batch, ctx)
        keep = pc.fill_null(tested, False)
        kept = np.bincount(entries.parents[keep.to_numpy(zero_copy_only=False)], minlength=batch.num_rows)
        return _maps(entries.keys.filter(keep), entries.values.filter(keep), kept, entries.missing,
                     _arrow(self.data_type()))


class TransformValues(_MapFunction):
    """``transform_values(m, (k, v) -> f)``: the same keys, each value replaced by ``f``."""

    name = "transform_values"

    def data_type(self) -> DataType:
        function = self.functions[0]
        return MapType(self._map(0).keyType, function.data_type(), function.body.nullable)

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        entries, values = self._apply(batch, ctx)
        return _maps(entries.keys, values, entries.counts, entries.missing, _arrow(self.data_type()))


class TransformKeys(_MapFunction):
    """``transform_keys(m, (k, v) -> f)``: the same values, each key replaced by ``f`` (never null nor repeated)."""

    name = "transform_keys"

    def data_type(self) -> DataType:
        dtype = self._map(0)
        return MapType(self.functions[0].data_type(), dtype.valueType, dtype.valueContainsNull)

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        entries, keys = self._apply(batch, ctx)
        offsets = np.concatenate([[0], np.cumsum(entries.counts)])
        # The map builders' checks: a null or repeated key is refused.
        return build_map(offsets, keys, entries.values, entries.missing, _arrow(self.data_type()))


class MapZipWith(_MapFunction):
    """``map_zip_with(m1, m2, (k, v1, v2) -> f)``: ``f`` over the union of the keys, a missing value null."""

    name = "map_zip_with"
    n_inputs = 2

    def bind_lambdas(self) -> list[Expression]:
        left, right = self._map(0), self._map(1)
        if left.keyType != right.keyType:
            raise AnalysisException(
                f'Cannot resolve "{self.sql()}" due to data type mismatch: the maps\' keys must share one type, '
                f'not "{left.keyType.simpleString()}" and "{right.keyType.simpleString()}".',
                "DATATYPE_MISMATCH.MAP_ZIP_WITH_DIFF_TYPES", {"sqlExpr": self.sql()})
        return [self.functions[0].bind([(left.keyType, False), (left.valueType, True), (right.valueType, True)])]

    def data_type(self) -> DataType:
        function = self.functions[0]
        return MapType(self._map(0).keyType, function.data_type(), True)

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        rows = batch.num_rows
        function = self.functions[0]
        left = _Entries(self.inputs[0].eval(batch, ctx), rows)
        right = _Entries(self.inputs[1].eval(batch, ctx), rows)
        missing = left.missing | right.missing
        keys, first, second, parents = _union(left, right, missing)
        counts = np.bincount(parents, minlength=rows) if len(parents) else np.zeros(rows, dtype=np.int64)
        names = [v.expr_id for v in function.variables]
        variables = dict(zip(names, (keys, first, second)))
        values = _evaluate(function.body, _element_batch(batch, function.body, parents, variables), ctx)
        return _maps(keys, values, counts, missing, _arrow(self.data_type()))


def _union(left: _Entries, right: _Entries, missing: np.ndarray) -> tuple[pa.Array, pa.Array, pa.Array, np.ndarray]:
    """Per row: the first map's keys, then the second's new ones; each side's value for them (or null)."""
    left_index = {}  # (row, key) -> position among the left entries
    keys: list[Any] = []
    first: list[int | None] = []
    second: list[int | None] = []
    parents: list[int] = []
    left_keys, right_keys = left.keys.to_pylist(), right.keys.to_pylist()
    by_row_right: dict[int, list[int]] = {}
    for j, row in enumerate(right.parents.tolist()):
        by_row_right.setdefault(row, []).append(j)
    by_row_left: dict[int, list[int]] = {}
    for i, row in enumerate(left.parents.tolist()):
        by_row_left.setdefault(row, []).append(i)
    for row in range(len(missing)):
        if missing[row]:
            continue
        right_at = {right_keys[j]: j for j in by_row_right.get(row, ())}
        for i in by_row_left.get(row, ()):
            left_index[(row, left_keys[i])] = i
            keys.append(left_keys[i])
            first.append(i)
            second.append(right_at.get(left_keys[i]))
            parents.append(row)
        for j in by_row_right.get(row, ()):
            if (row, right_keys[j]) not in left_index:
                keys.append(right_keys[j])
                first.append(None)
                second.append(j)
                parents.append(row)
    key_type = left.keys.type if len(left.keys) or not len(right.keys) else right.keys.type
    return (pa.array(keys, key_type), left.values.take(pa.array(first, pa.int64())),
            right.values.take(pa.array(second, pa.int64())), np.array(parents, dtype=np.int64))

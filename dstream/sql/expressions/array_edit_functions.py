"""Array functions of the registry that add, drop or read one element: ``array_append``,
``array_prepend``, ``array_insert``, ``array_compact``, ``get`` and ``array_size``.

What this module owns
---------------------
Their specs (Spark's names and types) and their evaluation, per row over Python lists.

Invariants
----------
* A null array gives null; a null element to add is added (arrays hold nulls).
* The result's element type is the common type of the array's elements and the value
  added (``array_append(array(1), 2L)`` is an array of bigint).
* ``array_insert`` counts positions from 1; a negative position counts from the end, -1
  placing the value after the last element; a position past either end pads with nulls;
  position 0 raises ``INVALID_INDEX_OF_ZERO`` (Spark 3.5's rules).
* ``get`` reads a 0-based index and gives null outside the array, never an error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyarrow as pa

from ..errors import SparkRuntimeException
from ..types import ArrayType, DataType, IntegerType
from .base import EvalContext
from .coercion import find_common_type
from .function_registry import FunctionSpec, per_row, register

__all__: list[str] = []


def _over_array(fn: Callable[..., Any]) -> Callable[[list[Any], list[DataType], DataType, EvalContext], pa.Array]:
    """``fn(row values...)`` per row, ``None`` when the array (first argument) is null."""
    return per_row(lambda array, *rest: None if array is None else fn(array, *rest))


def _array(types: list[DataType], what: str) -> ArrayType:
    dt = types[0]
    if not isinstance(dt, ArrayType):
        raise TypeError(f'the first parameter of {what} requires the "ARRAY" type, not "{dt.simpleString().upper()}"')
    return dt


def _with_element(types: list[DataType], what: str, value_at: int) -> list[DataType | None]:
    dt = _array(types, what)
    common = find_common_type([dt.elementType, types[value_at]])
    if common is None:
        raise TypeError(f"{what} adds a value of type {types[value_at].simpleString()} to an array of "
                        f"{dt.elementType.simpleString()}: the types must meet (cast one of them)")
    wanted: list[DataType | None] = [ArrayType(common, True)] + [None] * (len(types) - 1)
    wanted[value_at] = common
    if value_at == 2:
        wanted[1] = IntegerType()
    return wanted


def _first(types: list[DataType]) -> DataType:
    return types[0]


def _insert(values: list[Any], position: int | None, value: Any) -> list[Any] | None:
    if position is None:
        return None
    if position == 0:
        raise SparkRuntimeException(
            "[INVALID_INDEX_OF_ZERO] The index 0 is invalid. An index shall be either < 0 or > 0 (the first "
            "element has index 1).", "INVALID_INDEX_OF_ZERO", {})
    n = len(values)
    if position > 0:
        if position > n + 1:
            return values + [None] * (position - n - 1) + [value]
        return values[:position - 1] + [value] + values[position - 1:]
    at = n + position + 1  # 0-based place of the new element: -1 appends
    if at < 0:  # the value lands -position places from the end: nulls fill the gap
        return [value] + [None] * -at + values
    return values[:at] + [value] + values[at:]


def _get(values: list[Any], index: int | None) -> Any:
    return None if index is None or not 0 <= index < len(values) else values[index]


register(FunctionSpec("array_append", 2, 2, lambda ts: _with_element(ts, "array_append", 1), _first,
                      _over_array(lambda a, v: a + [v]), null_intolerant=False))
register(FunctionSpec("array_prepend", 2, 2, lambda ts: _with_element(ts, "array_prepend", 1), _first,
                      _over_array(lambda a, v: [v] + a), null_intolerant=False))
register(FunctionSpec("array_insert", 3, 3, lambda ts: _with_element(ts, "array_insert", 2), _first,
                      _over_array(_insert), null_intolerant=False))
register(FunctionSpec("array_compact", 1, 1, lambda ts: [_array(ts, "array_compact")], _first,
                      _over_array(lambda a: [v for v in a if v is not None])))
register(FunctionSpec("get", 2, 2, lambda ts: [_array(ts, "get"), IntegerType()],
                      lambda ts: ts[0].elementType,  # type: ignore[attr-defined]
                      _over_array(_get), null_intolerant=False))
register(FunctionSpec("array_size", 1, 1, lambda ts: [_array(ts, "array_size")], lambda ts: IntegerType(),
                      _over_array(len)))

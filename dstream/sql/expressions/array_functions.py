"""Array functions of the registry: ``sort_array``, ``array_distinct``, ``array_max``, ``array_min``.

What this module owns
---------------------
The :class:`FunctionSpec` of each, with Spark's ordering of elements: nulls before every
value (``sort_array`` ascending puts them first, descending last; ``array_max`` and
``array_min`` skip them), ``NaN`` after every other number and equal to itself.

Invariants
----------
* The first argument must be an array of atomic values; the result keeps its element type.
* A null array gives null; an empty one gives an empty array (``array_max``: null).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pyarrow as pa

from ..types import ArrayType, BooleanType, DataType, MapType, StructType
from .base import EvalContext
from .function_registry import FunctionSpec, register

__all__: list[str] = []


def _array_input(types: list[DataType]) -> list[DataType | None]:
    dt = types[0]
    if not isinstance(dt, ArrayType):
        raise TypeError(f'the first parameter requires the "ARRAY" type, not "{dt.simpleString().upper()}"')
    if isinstance(dt.elementType, ArrayType | MapType | StructType):
        raise TypeError(f'arrays of "{dt.elementType.simpleString().upper()}" are not supported here yet: '
                        "only arrays of atomic values (numbers, strings, dates...)")
    wanted: list[DataType | None] = [None, BooleanType()]
    return wanted[: len(types)]


def _key(value: Any) -> tuple[int, Any]:
    # NaN sorts after every number, as Spark orders doubles.
    if isinstance(value, float) and math.isnan(value):
        return (1, 0.0)
    return (0, value)


def _rows(run: Callable[[list[Any], list[Any]], Any]) -> Callable[[list[Any], list[DataType], DataType, EvalContext],
                                                                  pa.Array]:
    def evaluate(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - light import at run time only

        arrays = args[0].to_pylist()
        extra = args[1:]
        return pa.array([None if a is None else run(a, extra) for a in arrays], to_arrow_type(rt))
    return evaluate


def _sort(values: list[Any], extra: list[Any]) -> list[Any]:
    ascending = True if not extra or extra[0] is None else bool(extra[0])
    present = sorted((v for v in values if v is not None), key=_key, reverse=not ascending)
    nulls = [None] * (len(values) - len(present))
    return nulls + present if ascending else present + nulls


def _distinct(values: list[Any], extra: list[Any]) -> list[Any]:
    seen: set[Any] = set()
    out = []
    for v in values:
        marker = ("nan",) if isinstance(v, float) and math.isnan(v) else v
        if marker not in seen:
            seen.add(marker)
            out.append(v)
    return out


def _extreme(largest: bool) -> Callable[[list[Any], list[Any]], Any]:
    def run(values: list[Any], extra: list[Any]) -> Any:
        present = [v for v in values if v is not None]
        if not present:
            return None
        return (max if largest else min)(present, key=_key)
    return run


def _same(types: list[DataType]) -> DataType:
    return types[0]


def _element(types: list[DataType]) -> DataType:
    dt = types[0]
    assert isinstance(dt, ArrayType)
    return dt.elementType


register(FunctionSpec("sort_array", 1, 2, _array_input, _same, _rows(_sort), scalar_positions=(1,)))
register(FunctionSpec("array_distinct", 1, 1, _array_input, _same, _rows(_distinct)))
register(FunctionSpec("array_max", 1, 1, _array_input, _element, _rows(_extreme(True))))
register(FunctionSpec("array_min", 1, 1, _array_input, _element, _rows(_extreme(False))))

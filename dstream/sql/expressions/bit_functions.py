"""Bit shifts, bitwise NOT and ``nvl2`` for the registry: ``shiftleft``, ``shiftright``,
``shiftrightunsigned``, ``bitwise_not`` (SQL's ``~a``) and ``nvl2(a, b, c)``.

What this module owns
---------------------
The :class:`FunctionSpec` of each, with Java's integer semantics.

Invariants
----------
* A shifted value is an ``int`` (``tinyint`` and ``smallint`` widen to it) or a
  ``bigint``, and the result has its type; the shift count is an ``int`` and is taken
  modulo the width (Java masks it: ``1 << 33`` on an ``int`` is ``2``). Bits shifted
  out are lost, never an overflow error; ``shiftright`` keeps the sign,
  ``shiftrightunsigned`` shifts zeros in.
* ``bitwise_not`` keeps its argument's integral type.
* ``nvl2(a, b, c)`` is ``b`` where ``a`` is not null, else ``c``, at the common type of
  ``b`` and ``c``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..types import ByteType, DataType, IntegerType, LongType, ShortType
from .base import EvalContext
from .coercion import find_common_type, is_integral
from .function_registry import FunctionSpec, register

__all__: list[str] = []


def _shift_types(types: list[DataType]) -> list[DataType | None]:
    value, count = types
    if not isinstance(value, (ByteType, ShortType, IntegerType, LongType)):
        raise TypeError(f'the first argument requires the "INT" or "BIGINT" type, not "{value.simpleString().upper()}"')
    if not isinstance(count, (ByteType, ShortType, IntegerType)):
        raise TypeError(f'the shift count requires the "INT" type, not "{count.simpleString().upper()}"')
    return [None if isinstance(value, LongType) else IntegerType(), IntegerType()]


def _shift_result(types: list[DataType]) -> DataType:
    return LongType() if isinstance(types[0], LongType) else IntegerType()


def _shift(kind: str) -> Any:
    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        values, counts = args  # both as long as the batch (literals too)
        signed = np.int64 if isinstance(rt, LongType) else np.int32
        width = 64 if signed is np.int64 else 32
        valid = pc.and_(pc.is_valid(values), pc.is_valid(counts))
        v = values.fill_null(0).to_numpy(zero_copy_only=False).astype(signed)
        c = (counts.fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64) & (width - 1)).astype(signed)
        if kind == "left":
            out = np.left_shift(v, c)
        elif kind == "right":
            out = np.right_shift(v, c)
        else:
            unsigned = np.uint64 if width == 64 else np.uint32
            out = np.right_shift(v.view(unsigned), c.astype(unsigned)).view(signed)
        return pa.array(out, mask=pc.invert(valid).to_numpy(zero_copy_only=False))
    return run


for _name, _kind in (("shiftleft", "left"), ("shiftright", "right"), ("shiftrightunsigned", "unsigned")):
    register(FunctionSpec(_name, 2, 2, _shift_types, _shift_result, _shift(_kind)))


def _integral_types(types: list[DataType]) -> list[DataType | None]:
    if not is_integral(types[0]):
        raise TypeError(f'the argument requires the "INTEGRAL" type, not "{types[0].simpleString().upper()}"')
    return [None]


def _run_not(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    return pc.bit_wise_not(args[0])


register(FunctionSpec("bitwise_not", 1, 1, _integral_types, lambda ts: ts[0], _run_not,
                      display=lambda args: f"~{args[0]}"))


def _nvl2_types(types: list[DataType]) -> list[DataType | None]:
    common = find_common_type(types[1:])
    if common is None:
        raise TypeError("the second and third arguments of nvl2 must have a common type, got "
                        + ", ".join(t.simpleString() for t in types[1:]))
    return [None, common, common]


def _nvl2_result(types: list[DataType]) -> DataType:
    common = find_common_type(types[1:])
    assert common is not None  # checked by _nvl2_types
    return common


def _run_nvl2(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    test, present, absent = args  # each as long as the batch (literals too)
    return pc.if_else(pc.is_valid(test), present, absent)


register(FunctionSpec("nvl2", 3, 3, _nvl2_types, _nvl2_result, _run_nvl2, null_intolerant=False))

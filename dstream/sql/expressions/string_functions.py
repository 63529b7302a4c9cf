"""String functions of the registry: ``lower``, ``trim``, ``concat_ws``, ``regexp_extract``, ``md5``...

What this module owns
---------------------
The :class:`FunctionSpec` of each string function (types, coercion, generated name)
and its call into ``kernels.strings``. Arguments that are not strings are cast to
string (Spark's implicit cast of atomic values to ``STRING`` for string functions).

Invariants
----------
* Pattern, position and separator arguments are constants (``scalar_positions``),
  handed to the kernels as Python values; ``substring``'s positions and ``regexp_replace``'s
  pattern and replacement may also be columns (``per_row_positions``), handed as arrays.
* ``regexp_replace``'s name shows its position argument (``regexp_replace(a, x, y, 1)``)
  as Spark's does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..types import ArrayType, BinaryType, DataType, IntegerType, StringType
from .base import EvalContext
from .coercion import find_common_type
from .function_registry import FunctionSpec, register

__all__: list[str] = []

ArgTypes = Callable[[list[DataType]], list[DataType | None]]


def _to_string(types: list[DataType]) -> list[DataType | None]:
    return [None if isinstance(t, (StringType, BinaryType)) else StringType() for t in types]


def _first_string(*rest: DataType | None) -> ArgTypes:
    def arg_types(types: list[DataType]) -> list[DataType | None]:
        return [StringType(), *rest][: len(types)]
    return arg_types


def _const(dt: DataType) -> Callable[[list[DataType]], DataType]:
    return lambda types: dt


def _strings_module() -> Any:
    from ..kernels import strings  # noqa: PLC0415 - kernels load at run time

    return strings


def _unary(kernel_name: str) -> Callable[[list[Any], list[DataType], DataType, EvalContext], pa.Array]:
    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        return getattr(_strings_module(), kernel_name)(*args)
    return run


for _name in ("lower", "upper", "initcap", "reverse"):
    register(FunctionSpec(_name, 1, 1, _first_string(), _const(StringType()), _unary(_name)))
# Spark's aliases that name their column after themselves (``lcase(a)``, not ``lower(a)``).
for _alias, _name in (("lcase", "lower"), ("ucase", "upper")):
    register(FunctionSpec(_alias, 1, 1, _first_string(), _const(StringType()), _unary(_name)))

def _trim_display(name: str, side: str) -> Callable[[list[str]], str]:
    """Spark's name of a trim: ``trim(s)``, but ``TRIM(BOTH x FROM s)`` with characters to trim."""
    def display(args: list[str]) -> str:
        return f"{name}({args[0]})" if len(args) == 1 else f"TRIM({side} {args[1]} FROM {args[0]})"
    return display


for _name, _side in (("trim", "BOTH"), ("ltrim", "LEADING"), ("rtrim", "TRAILING")):
    register(FunctionSpec(_name, 1, 2, _first_string(StringType()), _const(StringType()), _unary(_name),
                          scalar_positions=(1,), display=_trim_display(_name, _side)))


def _length_types(types: list[DataType]) -> list[DataType | None]:
    return [None if isinstance(types[0], (StringType, BinaryType)) else StringType()]


for _name in ("length", "char_length", "character_length"):
    register(FunctionSpec(_name, 1, 1, _length_types, _const(IntegerType()), _unary("length")))


def _run_concat(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    if isinstance(rt, ArrayType):
        return _concat_arrays(args)
    return _strings_module().concat(args)


def _concat_arrays(arrays: list[pa.Array]) -> pa.Array:
    rows = [a.to_pylist() for a in arrays]
    out = []
    for values in zip(*rows):
        out.append(None if any(v is None for v in values) else [x for v in values for x in v])
    return pa.array(out, arrays[0].type)


def _concat_types(types: list[DataType]) -> list[DataType | None]:
    if types and all(isinstance(t, ArrayType) for t in types):
        # Arrays meet at their common element type (array() with array(1): array<int>).
        common = find_common_type(types)
        if common is None:
            raise TypeError("the arrays of concat must have a common element type, got "
                            + ", ".join(t.simpleString() for t in types))
        return [common] * len(types)
    if types and all(isinstance(t, BinaryType) for t in types):
        return [None] * len(types)
    return [StringType()] * len(types)


def _concat_result(types: list[DataType]) -> DataType:
    if types and all(isinstance(t, ArrayType) for t in types):
        return find_common_type(types) or types[0]
    if types and all(isinstance(t, BinaryType) for t in types):
        return types[0]
    return StringType()


register(FunctionSpec("concat", 0, -1, _concat_types, _concat_result, _run_concat))


def _concat_ws_types(types: list[DataType]) -> list[DataType | None]:
    return [StringType()] + [None if isinstance(t, ArrayType) else StringType() for t in types[1:]]


def _run_concat_ws(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    return _strings_module().concat_ws(args[0], args[1:])


register(FunctionSpec("concat_ws", 1, -1, _concat_ws_types, _const(StringType()), _run_concat_ws,
                      scalar_positions=(0,), null_intolerant=False))


def _run_split(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    return _strings_module().split(args[0], args[1], -1 if len(args) < 3 else args[2])


register(FunctionSpec("split", 2, 3, _first_string(StringType(), IntegerType()),
                      _const(ArrayType(StringType(), False)), _run_split, scalar_positions=(1, 2)))


def _run_regexp_extract(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    return _strings_module().regexp_extract(args[0], args[1], 1 if len(args) < 3 else args[2])


register(FunctionSpec("regexp_extract", 2, 3, _first_string(StringType(), IntegerType()), _const(StringType()),
                      _run_regexp_extract, scalar_positions=(1, 2)))


def _run_regexp_replace(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    return _strings_module().regexp_replace(args[0], args[1], args[2])


def _show_replace(args: list[str]) -> str:
    return f"regexp_replace({', '.join(args)}, 1)" if len(args) == 3 else f"regexp_replace({', '.join(args)})"


register(FunctionSpec("regexp_replace", 3, 3, _first_string(StringType(), StringType()), _const(StringType()),
                      _run_regexp_replace, scalar_positions=(1, 2), per_row_positions=(1, 2),
                      display=_show_replace))


def _run_substring(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    length = 2**31 - 1 if len(args) < 3 else args[2]
    return _strings_module().substring(args[0], args[1], length)


for _name in ("substring", "substr"):
    register(FunctionSpec(_name, 2, 3, _first_string(IntegerType(), IntegerType()), _const(StringType()),
                          _run_substring, scalar_positions=(1, 2), per_row_positions=(1, 2)))


def _run_pad(kernel_name: str) -> Callable[[list[Any], list[DataType], DataType, EvalContext], pa.Array]:
    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        pad = " " if len(args) < 3 else args[2]
        return getattr(_strings_module(), kernel_name)(args[0], args[1], pad)
    return run


for _name in ("lpad", "rpad"):
    register(FunctionSpec(_name, 2, 3, _first_string(IntegerType(), StringType()), _const(StringType()),
                          _run_pad(_name), scalar_positions=(1, 2)))


def _run_repeat(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    return _strings_module().repeat(args[0], args[1])


register(FunctionSpec("repeat", 2, 2, _first_string(IntegerType()), _const(StringType()), _run_repeat))


def _run_instr(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    return _strings_module().instr(args[0], args[1])


register(FunctionSpec("instr", 2, 2, _first_string(StringType()), _const(IntegerType()), _run_instr,
                      scalar_positions=(1,)))


def _digest(algorithm: str) -> Callable[[list[Any], list[DataType], DataType, EvalContext], pa.Array]:
    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        values = args[0]
        if pa.types.is_string(values.type) or pa.types.is_large_string(values.type):
            values = pc.cast(values, pa.binary())
        out = [None if v is None else hashlib.new(algorithm, v).hexdigest() for v in values.to_pylist()]
        return pa.array(out, pa.string())
    return run


def _to_binary(types: list[DataType]) -> list[DataType | None]:
    return [BinaryType()] + [None] * (len(types) - 1)


register(FunctionSpec("md5", 1, 1, _to_binary, _const(StringType()), _digest("md5")))
register(FunctionSpec("sha1", 1, 1, _to_binary, _const(StringType()), _digest("sha1")), "sha")


def _run_sha2(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    bits = args[1]
    if bits not in (0, 224, 256, 384, 512):
        return pa.nulls(len(args[0]), pa.string())
    return _digest(f"sha{bits or 256}")(args[:1], types[:1], rt, ctx)


register(FunctionSpec("sha2", 2, 2, lambda ts: [BinaryType(), IntegerType()], _const(StringType()), _run_sha2,
                      scalar_positions=(1,)))

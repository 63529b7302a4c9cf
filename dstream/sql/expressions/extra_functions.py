"""Smaller Spark 4 functions of the registry: ``replace``, ``len``, ``space``, ``bit_count``, ``bit_get``...

What this module owns
---------------------
The :class:`FunctionSpec` of ``replace(s, search, rep)``, ``len(s)``, ``space(n)``,
``bit_count(x)``, ``bit_get(x, pos)``/``getbit``, ``json_array_length(j)``,
``json_object_keys(j)``, ``shuffle(a)``, ``to_timestamp_ltz(s[, fmt])`` and
``to_timestamp_ntz(s[, fmt])``: small functions evaluated row by row in Python or on the
kernels of their larger relatives.

Invariants
----------
* NULL in, NULL out; text that is not the JSON a function wants gives NULL, never an error.
* ``bit_count`` counts the bits of the value widened to a 64-bit ``long`` (``bit_count(-1)``
  is 64 for every integral type, as Java's ``Long.bitCount`` gives); a boolean counts 1 or 0.
* ``bit_get``'s position must be in ``[0, bits of the type)``: otherwise
  ``INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pyarrow as pa

from ..types import (
    ArrayType,
    BooleanType,
    ByteType,
    DataType,
    IntegerType,
    LongType,
    ShortType,
    StringType,
    TimestampNTZType,
    TimestampType,
)
from .base import EvalContext
from .coercion import is_integral
from .function_registry import FunctionSpec, null_safe, per_row, register

__all__: list[str] = []


def _const(dt: DataType) -> Callable[[list[DataType]], DataType]:
    return lambda types: dt


def _strings(types: list[DataType]) -> list[DataType | None]:
    return [StringType()] * len(types)


def _replace(s: str, search: str, rep: str) -> str:
    # Java's UTF8String.replace leaves the string alone for an empty search (Python's would insert).
    return s if search == "" else s.replace(search, rep)


register(FunctionSpec("replace", 2, 3, _strings, _const(StringType()),
                      per_row(null_safe(lambda s, search, rep="": _replace(s, search, rep)))))


def _run_len(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    from ..kernels import strings  # noqa: PLC0415 - kernels load at run time

    return strings.length(args[0])


register(FunctionSpec("len", 1, 1, _strings, _const(IntegerType()), _run_len))
register(FunctionSpec("space", 1, 1, lambda ts: [IntegerType()], _const(StringType()),
                      per_row(null_safe(lambda n: " " * max(n, 0)))))

#: Bits of each integral type, for ``bit_get``'s position check.
_BITS: dict[type[DataType], int] = {ByteType: 8, ShortType: 16, IntegerType: 32, LongType: 64}


def _bit_count_types(types: list[DataType]) -> list[DataType | None]:
    if not (is_integral(types[0]) or isinstance(types[0], BooleanType)):
        raise TypeError(f'the parameter 1 requires the ("INTEGRAL" or "BOOLEAN") type, however the argument has '
                        f'the type "{types[0].simpleString().upper()}"')
    return [None]


def _bit_count(x: int | bool) -> int:
    return int(x) if isinstance(x, bool) else bin(x & 0xFFFFFFFFFFFFFFFF).count("1")


register(FunctionSpec("bit_count", 1, 1, _bit_count_types, _const(IntegerType()), per_row(null_safe(_bit_count))))


def _bit_get_types(types: list[DataType]) -> list[DataType | None]:
    if not is_integral(types[0]):
        raise TypeError(f'the parameter 1 requires the "INTEGRAL" type, however the argument has the type '
                        f'"{types[0].simpleString().upper()}"')
    return [None, IntegerType()]


def _run_bit_get(name: str) -> Callable[[list[Any], list[DataType], DataType, EvalContext], pa.Array]:
    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        bits = _BITS[type(types[0])]
        values, positions = args[0].to_pylist(), args[1].to_pylist()
        out = []
        for v, pos in zip(values, positions):
            if pos is not None and not 0 <= pos < bits:
                from ..errors import IllegalArgumentException  # noqa: PLC0415 - errors is a leaf module

                raise IllegalArgumentException(
                    f"The value of parameter(s) `pos` in `{name}` is invalid: expects an integer value in "
                    f"[0, {bits}), but got {pos}. Use a position from 0 (the lowest bit) to {bits - 1}.",
                    "INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE",
                    {"parameter": "`pos`", "functionName": f"`{name}`", "upper": str(bits), "invalidValue": str(pos)})
            out.append(None if v is None or pos is None else (v >> pos) & 1)
        return pa.array(out, pa.int8())
    return run


for _name in ("bit_get", "getbit"):
    register(FunctionSpec(_name, 2, 2, _bit_get_types, _const(ByteType()), _run_bit_get(_name)))


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _array_length(text: str) -> int | None:
    value = _json(text)
    return len(value) if isinstance(value, list) else None


def _object_keys(text: str) -> list[str] | None:
    # Keys in the order the text gives them (object_pairs_hook keeps duplicates as Spark does).
    try:
        pairs = json.loads(text, object_pairs_hook=lambda items: items)
    except ValueError:
        return None
    return [k for k, _ in pairs] if isinstance(pairs, list) and text.lstrip().startswith("{") else None


register(FunctionSpec("json_array_length", 1, 1, _strings, _const(IntegerType()),
                      per_row(null_safe(_array_length))))
register(FunctionSpec("json_object_keys", 1, 1, _strings, _const(ArrayType(StringType())),
                      per_row(null_safe(_object_keys))))


def _shuffle_types(types: list[DataType]) -> list[DataType | None]:
    if not isinstance(types[0], ArrayType):
        raise TypeError(f'the parameter 1 requires the "ARRAY" type, however the argument has the type '
                        f'"{types[0].simpleString().upper()}"')
    return [None] * len(types)


def _run_shuffle(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - light import at run time only

    seed = args[1] if len(args) > 1 else None
    rng = random.Random(seed)  # a seed makes the permutations repeatable, as Spark's does
    out = []
    for value in args[0].to_pylist():
        if value is not None:
            value = list(value)
            rng.shuffle(value)
        out.append(value)
    return pa.array(out, to_arrow_type(rt))


register(FunctionSpec("shuffle", 1, 2, _shuffle_types, lambda ts: ts[0], _run_shuffle, scalar_positions=(1,),
                      foldable=False, deterministic=False, display=lambda args: f"shuffle({args[0]})"))


def _parse_types(types: list[DataType]) -> list[DataType | None]:
    from .datetime_functions import _parse_input  # noqa: PLC0415 - the same inputs as to_timestamp

    return _parse_input(types)


def _run_to_timestamp(ntz: bool) -> Callable[[list[Any], list[DataType], DataType, EvalContext], pa.Array]:
    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        from ..kernels import cast as cast_kernels  # noqa: PLC0415 - kernels load at run time
        from ..kernels import datetimes  # noqa: PLC0415

        if not isinstance(types[0], StringType):
            mode = "ansi" if ctx.ansi else "legacy"
            return args[0] if types[0] == rt else cast_kernels.cast(args[0], types[0], rt, mode, ctx.time_zone)
        fmt = args[1] if len(args) > 1 else None
        # A timestamp_ntz is its wall time read in UTC: parse there and drop the zone.
        parsed = datetimes.to_timestamp(args[0], fmt, "UTC" if ntz else ctx.time_zone, ctx.ansi)
        return parsed.cast(pa.timestamp("us")) if ntz else parsed
    return run


register(FunctionSpec("to_timestamp_ltz", 1, 2, _parse_types, _const(TimestampType()), _run_to_timestamp(False),
                      scalar_positions=(1,)))
register(FunctionSpec("to_timestamp_ntz", 1, 2, _parse_types, _const(TimestampNTZType()), _run_to_timestamp(True),
                      scalar_positions=(1,)))

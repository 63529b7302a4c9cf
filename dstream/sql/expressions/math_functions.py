"""Math functions of the registry: ``SQRT``, ``EXP``, ``ln``/``LOG``, ``POWER``, ``FLOOR``, ``CEIL``,
``round``, ``bround``, ``greatest``, ``least``.

What this module owns
---------------------
The specs (types, generated names as Spark prints them: upper-case for the old math
functions, ``round(a, 0)`` with the scale shown) and their calls into
``kernels.mathfuncs`` and ``kernels.arith`` (rounding).

Invariants
----------
* Math on doubles: arguments are cast to ``double`` (strings too); ``round`` keeps the
  argument's type (decimal results get Spark's ``DecimalType`` for the new scale).
* ``FLOOR``/``CEIL`` with a scale are Spark's ``RoundFloor``/``RoundCeil``: the value
  becomes a decimal and the result type is ``round``'s for that decimal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..types import DataType, DecimalType, DoubleType, FloatType, IntegerType, LongType, NullType, StringType
from .base import EvalContext
from .coercion import bounded_decimal, decimal_of, find_common_type, is_numeric
from .function_registry import FunctionSpec, register

__all__: list[str] = []

Run = Callable[[list[Any], list[DataType], DataType, EvalContext], pa.Array]


def _doubles(types: list[DataType]) -> list[DataType | None]:
    return [DoubleType()] * len(types)


def _double_result(types: list[DataType]) -> DataType:
    return DoubleType()


def _math() -> Any:
    from ..kernels import mathfuncs  # noqa: PLC0415 - kernels load at run time

    return mathfuncs


def _arith() -> Any:
    from ..kernels import arith  # noqa: PLC0415 - kernels load at run time

    return arith


def _unary(fn_name: str) -> Run:
    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        return getattr(_math(), fn_name)(args[0])
    return run


register(FunctionSpec("SQRT", 1, 1, _doubles, _double_result, _unary("sqrt")))
register(FunctionSpec("EXP", 1, 1, _doubles, _double_result, _unary("exp")))


def _log_kind(kind: str) -> Run:
    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        return _math().log_(args[0], None, kind)
    return run


register(FunctionSpec("ln", 1, 1, _doubles, _double_result, _log_kind("ln"), null_intolerant=False))
register(FunctionSpec("LOG10", 1, 1, _doubles, _double_result, _log_kind("log10"), null_intolerant=False))
register(FunctionSpec("LOG2", 1, 1, _doubles, _double_result, _log_kind("log2"), null_intolerant=False))


def _run_log_base(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    if args[0] is None:
        return pa.nulls(len(args[1]), pa.float64())
    return _math().log_(args[1], float(args[0]))


register(FunctionSpec("LOG", 2, 2, _doubles, _double_result, _run_log_base, scalar_positions=(0,),
                      null_intolerant=False))


def _run_pow(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    return _math().power(args[0], args[1])


register(FunctionSpec("POWER", 2, 2, _doubles, _double_result, _run_pow), "pow")


#: The decimal a float or double becomes where a decimal is needed (Spark's ``DecimalType.forType``).
_FRACTIONAL_DECIMALS: dict[type[DataType], DecimalType] = {
    FloatType: DecimalType(14, 7), DoubleType: DecimalType(30, 15)}


def _floor_types(types: list[DataType]) -> list[DataType | None]:
    dt = types[0]
    if len(types) == 1:
        return [None if is_numeric(dt) else DoubleType()]
    # With a scale, Spark's RoundCeil/RoundFloor take (decimal, int): the value becomes a decimal.
    if is_numeric(dt):
        return [_FRACTIONAL_DECIMALS.get(type(dt)) or decimal_of(dt), IntegerType()]
    return [DecimalType(38, 18), IntegerType()]


def _floor_result(types: list[DataType], scalars: list[Any]) -> DataType:
    dt = types[0]
    if len(types) > 1:
        scale = scalars[1] if scalars[1] is not None else 0
        return _round_result_for(dt, scale)
    if isinstance(dt, DecimalType):
        return DecimalType(min(38, dt.precision - dt.scale + 1), 0)
    return LongType()


def _run_floor(kind: str) -> Run:
    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        if len(args) == 1:
            return _math().floor_(args[0], kind)
        return _run_round_with(lambda values, scale: pc.round(
            values, ndigits=scale, round_mode="down" if kind == "floor" else "up"))(args, types, rt, ctx)
    return run


def _long_result(types: list[DataType]) -> DataType:
    return LongType()


def _show_floor(name: str) -> Callable[[list[str]], str]:
    # Spark names the one-argument forms FLOOR(x)/CEIL(x), the scaled ones floor(x, 1)/ceil(x, 1).
    return lambda args: f"{name.upper()}({args[0]})" if len(args) == 1 else f"{name}({args[0]}, {args[1]})"


register(FunctionSpec("FLOOR", 1, 2, _floor_types, _long_result, _run_floor("floor"), scalar_positions=(1,),
                      display=_show_floor("floor"), result_from_values=_floor_result))
register(FunctionSpec("CEIL", 1, 2, _floor_types, _long_result, _run_floor("ceil"), scalar_positions=(1,),
                      display=_show_floor("ceil"), result_from_values=_floor_result), "ceiling")


def _round_types(types: list[DataType]) -> list[DataType | None]:
    first: DataType | None = None if is_numeric(types[0]) else DoubleType()
    return [first, IntegerType()][: len(types)]


def _round_result_for(dt: DataType, scale: int) -> DataType:
    if isinstance(dt, DecimalType):
        int_digits = dt.precision - dt.scale + 1
        if scale < 0:
            return DecimalType(min(38, max(int_digits, 1 - scale)), 0)
        new_scale = min(scale, dt.scale)
        return bounded_decimal(int_digits + new_scale, new_scale)
    return dt


def _round_result(types: list[DataType], scalars: list[Any]) -> DataType:
    scale = scalars[1] if len(scalars) > 1 and scalars[1] is not None else 0
    return _round_result_for(types[0], scale)


def _run_round(kernel_name: str) -> Run:
    return _run_round_with(lambda values, scale: getattr(_arith(), kernel_name)(values, scale))


def _run_round_with(kernel: Callable[[pa.Array, int], pa.Array]) -> Run:
    """A runner rounding its first argument to the constant scale of its second with ``kernel``."""
    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - light import at run time only

        scale = 0 if len(args) < 2 else args[1]
        if scale is None:
            return pa.nulls(len(args[0]), to_arrow_type(rt))
        values = args[0]
        if pa.types.is_decimal(values.type) and scale >= values.type.scale:
            result = values  # nothing to round away (Arrow refuses to round to more digits)
        else:
            if pa.types.is_decimal(values.type):
                # Arrow rounds within the input's precision and fails when the rounding carries
                # into a new digit (0.5 -> 1, 9.95 -> 10.0; 0.5 to -1 digits needs a tens digit);
                # Spark's result type has that digit.
                t = values.type
                digits = max(t.precision, t.scale - min(scale, 0)) + 1
                values = values.cast((pa.decimal128 if digits <= 38 else pa.decimal256)(digits, t.scale))
            result = kernel(values, scale)
        if pa.types.is_floating(result.type):
            # Spark rounds a double through BigDecimal, which has no negative zero: -0.4 gives 0.0.
            # Adding +0.0 turns -0.0 into 0.0 and leaves every other value (NaN included) as it is.
            result = pc.add(result, pa.scalar(0.0, result.type))
        target = to_arrow_type(rt)
        return result if result.type == target else result.cast(target)
    return run


def _show_round(name: str) -> Callable[[list[str]], str]:
    return lambda args: f"{name}({args[0]}, {args[1] if len(args) > 1 else 0})"


register(FunctionSpec("round", 1, 2, _round_types, _double_result, _run_round("round_half_up"),
                      scalar_positions=(1,), display=_show_round("round"), result_from_values=_round_result))
register(FunctionSpec("bround", 1, 2, _round_types, _double_result, _run_round("round_half_even"),
                      scalar_positions=(1,), display=_show_round("bround"), result_from_values=_round_result))


class _DifferentTypesError(TypeError):
    """Arguments that meet at no type: Spark's ``DATATYPE_MISMATCH.DATA_DIFF_TYPES``."""

    subclass = "DATA_DIFF_TYPES"


def _common_types_of(name: str) -> Callable[[list[DataType]], list[DataType | None]]:
    def common_types(types: list[DataType]) -> list[DataType | None]:
        # Spark widens greatest/least's arguments without promoting strings: a string and a
        # number do not meet (where a union of them is a bigint).
        present = [t for t in types if not isinstance(t, NullType)]
        strings = any(isinstance(t, StringType) for t in present)
        common = None if strings and not all(isinstance(t, StringType) for t in present) else find_common_type(types)
        if common is None:
            shown = ", ".join(f'"{t.simpleString().upper()}"' for t in types)
            raise _DifferentTypesError(f"Input to `{name}` should all be the same type, but it's [{shown}].")
        return [common] * len(types)
    return common_types


def _common_result(types: list[DataType]) -> DataType:
    common = find_common_type(types)
    return common if common is not None else types[0]


def _run_extreme(fn_name: str) -> Run:
    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        return getattr(_math(), fn_name)(args)
    return run


register(FunctionSpec("greatest", 2, -1, _common_types_of("greatest"), _common_result, _run_extreme("greatest"),
                      null_intolerant=False))
register(FunctionSpec("least", 2, -1, _common_types_of("least"), _common_result, _run_extreme("least"),
                      null_intolerant=False))

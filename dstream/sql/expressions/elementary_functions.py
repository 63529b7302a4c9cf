"""Elementary math functions of the registry: trigonometric and hyperbolic functions and their
inverses, ``DEGREES``/``RADIANS``, ``CBRT``, ``EXPM1``, ``LOG1P``, ``SIGNUM``, ``rint``,
``ATAN2``, ``HYPOT``, ``nanvl``, ``factorial``, ``E()`` and ``PI()``.

What this module owns
---------------------
Their specs (Spark's generated names: upper-case for the ``java.lang.Math`` ones, as
``SIN(x)``; ``rint(x)``, ``nanvl(a, b)``, ``factorial(n)``) and their evaluation over whole
arrays with numpy, whose functions give what ``java.lang.Math`` gives: NaN outside a
function's domain (``ASIN(2)``), infinities at its poles (``COT(0)``).

Invariants
----------
* Arguments are cast to ``double`` and results are ``double`` (``factorial``: ``bigint``);
  null in, null out.
* ``LOG1P`` is null at and below -1, as Spark's logarithms are outside their domain.
* ``ATAN2`` adds ``0.0`` to both arguments first, as Spark does, so ``-0.0`` counts as
  ``0.0``; ``ASINH``, ``ACOSH`` and ``ATANH`` are Spark's logarithm formulas.
* ``factorial`` is null outside 0..20 (``21!`` does not fit a ``bigint``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pyarrow as pa

from ..types import DataType, IntegerType, LongType
from .base import EvalContext
from .function_registry import FunctionSpec, register
from .math_functions import _double_result as _double
from .math_functions import _doubles

__all__: list[str] = []

Run = Callable[[list[Any], list[DataType], DataType, EvalContext], pa.Array]


def _values(array: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    valid = array.is_valid().to_numpy(zero_copy_only=False)
    return array.fill_null(0.0).to_numpy(zero_copy_only=False).astype(np.float64), valid


def _elementwise(fn: Callable[..., np.ndarray]) -> Run:
    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        pairs = [_values(a) for a in args]
        valid = np.logical_and.reduce([v for _, v in pairs])
        with np.errstate(all="ignore"):  # NaN and infinities are the answers, as java.lang.Math's
            out = fn(*[x for x, _ in pairs])
        return pa.array(out, pa.float64(), mask=~valid)
    return run


def _cot(x: np.ndarray) -> np.ndarray:
    return 1.0 / np.tan(x)


def _sec(x: np.ndarray) -> np.ndarray:
    return 1.0 / np.cos(x)


def _csc(x: np.ndarray) -> np.ndarray:
    return 1.0 / np.sin(x)


def _degrees(x: np.ndarray) -> np.ndarray:
    return x * (180.0 / math.pi)  # Math.toDegrees' constant


def _radians(x: np.ndarray) -> np.ndarray:
    return x * (math.pi / 180.0)  # Math.toRadians' constant


def _rint(x: np.ndarray) -> np.ndarray:
    return np.rint(x)  # half to even, as Math.rint


def _atan2(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    return np.arctan2(y + 0.0, x + 0.0)


# Spark defines the inverse hyperbolic functions by these formulas (not java.lang.Math,
# which has none), so their rounding, and asinh's cancellation for large negative x, are Spark's.
def _asinh(x: np.ndarray) -> np.ndarray:
    return np.where(x == -np.inf, -np.inf, np.log(x + np.sqrt(x * x + 1.0)))


def _acosh(x: np.ndarray) -> np.ndarray:
    return np.log(x + np.sqrt(x * x - 1.0))


def _atanh(x: np.ndarray) -> np.ndarray:
    return 0.5 * (np.log1p(x) - np.log1p(-x))


def _signum(x: np.ndarray) -> np.ndarray:
    # Java's Math.signum returns a zero itself: signum(-0.0) is -0.0 (numpy's sign gives 0.0).
    return np.where(x == 0, x, np.sign(x))


def _nanvl(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.where(np.isnan(a), b, a)


def _run_nanvl(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    # Spark's NaNvl: null when the first is null, the first when it is a number (whatever the
    # second is), the second only in place of a NaN.
    (a, a_valid), (b, b_valid) = _values(args[0]), _values(args[1])
    nan = np.isnan(a) & a_valid
    return pa.array(np.where(nan, b, a), pa.float64(), mask=~np.where(nan, b_valid, a_valid))


_UNARY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "SIN": np.sin, "COS": np.cos, "TAN": np.tan, "COT": _cot, "SEC": _sec, "CSC": _csc,
    "ASIN": np.arcsin, "ACOS": np.arccos, "ATAN": np.arctan,
    "SINH": np.sinh, "COSH": np.cosh, "TANH": np.tanh,
    "ASINH": _asinh, "ACOSH": _acosh, "ATANH": _atanh,
    "DEGREES": _degrees, "RADIANS": _radians, "CBRT": np.cbrt, "EXPM1": np.expm1, "SIGNUM": _signum,
    "rint": _rint,
}

for _name, _fn in _UNARY.items():
    register(FunctionSpec(_name, 1, 1, _doubles, _double, _elementwise(_fn)))
register(FunctionSpec("ATAN2", 2, 2, _doubles, _double, _elementwise(_atan2)))
register(FunctionSpec("HYPOT", 2, 2, _doubles, _double, _elementwise(np.hypot)))
# Both arguments null-tolerant in Spark too (nanvl(NaN, null) is null, nanvl(null, 1) is null).
register(FunctionSpec("nanvl", 2, 2, _doubles, _double, _run_nanvl))


def _run_log1p(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    x, valid = _values(args[0])
    valid = valid & (x > -1.0)
    with np.errstate(all="ignore"):
        return pa.array(np.log1p(x), pa.float64(), mask=~valid)


register(FunctionSpec("LOG1P", 1, 1, _doubles, _double, _run_log1p, null_intolerant=False))

_FACTORIALS = np.array([math.factorial(n) for n in range(21)], dtype=np.int64)


def _run_factorial(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    n = args[0].fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)
    valid = (n >= 0) & (n <= 20)
    return pa.array(_FACTORIALS[np.where(valid, n, 0)], pa.int64(), mask=~valid)


register(FunctionSpec("factorial", 1, 1, lambda ts: [IntegerType()], lambda ts: LongType(), _run_factorial,
                      null_intolerant=False))


def _constant(value: float) -> Run:
    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        return pa.array([value], pa.float64())
    return run


register(FunctionSpec("E", 0, 0, lambda ts: [], _double, _constant(math.e), null_intolerant=False))
register(FunctionSpec("PI", 0, 0, lambda ts: [], _double, _constant(math.pi), null_intolerant=False))

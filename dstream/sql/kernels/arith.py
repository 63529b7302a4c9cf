"""Spark 4 arithmetic over pyarrow arrays: ``+ - * / % pmod div``, negation, ``abs``, rounding.

What this module owns
---------------------
Signatures (``a``/``b`` are ``pa.Array`` of equal length, or one of them a Python scalar;
``dt`` is the *result* type, a Spark ``DataType`` or ``pa.DataType``; ``ansi`` is
``spark.sql.ansi.enabled``):

* ``add(a, b, dt, ansi)``, ``subtract(a, b, dt, ansi)``, ``multiply(a, b, dt, ansi)``
* ``divide(a, b, ansi, dt=None)`` -- double result, or decimal when an input is decimal
  (``dt`` then gives the result precision/scale; Spark's rule when omitted)
* ``remainder(a, b, dt, ansi)``, ``pmod(a, b, dt, ansi)``, ``int_divide(a, b, ansi)`` (bigint)
* ``negate(a, dt, ansi)``, ``abs_(a, dt, ansi)``
* ``round_half_up(a, scale)``, ``round_half_even(a, scale)``

Spark's rules: integral overflow raises ``ARITHMETIC_OVERFLOW`` (int, bigint) or
``BINARY_ARITHMETIC_OVERFLOW`` (tinyint, smallint) under ANSI and wraps otherwise; a
zero divisor (integral, decimal *and* floating) raises ``DIVIDE_BY_ZERO`` under ANSI and
gives NULL otherwise (never Infinity/NaN from ``x / 0``), a NULL dividend wins over a zero
divisor; ``%`` takes the sign of the dividend; decimals round HALF_UP to the result scale
and overflow to ``NUMERIC_VALUE_OUT_OF_RANGE`` (ANSI) or NULL; ``round`` of a double
rounds its shortest decimal text (``round(2.675, 2) = 2.68``).

``%``/``pmod`` of floating values is numpy's ``fmod`` (Java's exact remainder; Arrow has
none). Per-row Python (no Arrow kernel has the semantics): decimal arithmetic whose exact
result exceeds 38 digits or that Arrow rejects, decimal ``/`` and ``%``, the near-tie rows of double rounding, and the
search for the offending row when an error is raised.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal, InvalidOperation, localcontext
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from dstream.sql.kernels.conditions import (
    arithmetic_overflow,
    binary_arithmetic_overflow,
    divide_by_zero,
    numeric_out_of_range,
)
from dstream.sql.kernels.sparktypes import INT_RANGES, arrow_type, is_integral

__all__ = ["add", "subtract", "multiply", "divide", "remainder", "pmod", "int_divide", "negate", "abs_",
           "round_half_up", "round_half_even", "fit_decimal", "as_array", "zero_of"]

Operand = Any  # pa.Array, pa.ChunkedArray or a Python scalar

_OPS: dict[str, tuple[str, str, Callable[[Any, Any], Any]]] = {
    "add": ("+", "try_add", lambda x, y: x + y),
    "subtract": ("-", "try_subtract", lambda x, y: x - y),
    "multiply": ("*", "try_multiply", lambda x, y: x * y),
}


def as_array(x: Operand, t: pa.DataType | None = None, length: int | None = None) -> pa.Array:
    """``x`` as one ``pa.Array`` (chunks combined; a scalar repeated ``length`` times), cast to ``t`` if given."""
    if isinstance(x, pa.ChunkedArray):
        x = x.combine_chunks()
    elif not isinstance(x, pa.Array):
        scalar = x if isinstance(x, pa.Scalar) else pa.scalar(x, type=t)
        x = pa.repeat(scalar, length if length is not None else 1)
    if t is not None and x.type != t:
        x = pc.cast(x, t, safe=False) if pa.types.is_floating(t) else pc.cast(x, t)
    return x


def _pair(a: Operand, b: Operand, t: pa.DataType | None) -> tuple[pa.Array, pa.Array]:
    n = len(a) if isinstance(a, (pa.Array, pa.ChunkedArray)) else len(b) if isinstance(
        b, (pa.Array, pa.ChunkedArray)) else 1
    return as_array(a, t, n), as_array(b, t, n)


def zero_of(t: pa.DataType) -> pa.Scalar:
    """The zero of numeric type ``t``."""
    if pa.types.is_decimal(t):
        return pa.scalar(Decimal(0), t)
    return pa.scalar(0.0 if pa.types.is_floating(t) else 0, t)


def _first_true(mask: pa.Array) -> int:
    return int(pc.indices_nonzero(pc.fill_null(mask, False))[0].as_py())


def _overflow_error(name: str, t: pa.DataType, a: pa.Array, b: pa.Array) -> Exception:
    """The error for the first row whose exact result leaves ``t``'s range."""
    symbol, hint, fn = _OPS[name]
    lo, hi = INT_RANGES[t]
    approx = getattr(pc, name)(pc.cast(a, pa.float64(), safe=False), pc.cast(b, pa.float64(), safe=False))
    suspects = pc.indices_nonzero(pc.fill_null(pc.greater(pc.abs(approx), min(hi, 2**62) / 2), False))
    for i in suspects.to_pylist():
        x, y = a[i].as_py(), b[i].as_py()
        if not lo <= fn(x, y) <= hi:
            if t in (pa.int8(), pa.int16()):
                return binary_arithmetic_overflow(x, symbol, y, hint)
            return arithmetic_overflow("integer overflow" if t == pa.int32() else "long overflow", hint)
    return arithmetic_overflow("long overflow", hint)  # unreachable: Arrow reported an overflow


def _binary(name: str, a: Operand, b: Operand, dt: Any, ansi: bool) -> pa.Array:
    t = arrow_type(dt)
    if pa.types.is_decimal(t):
        return _decimal_binary(name, a, b, t, ansi)
    x, y = _pair(a, b, t)
    if is_integral(t) and ansi:
        try:
            return getattr(pc, name + "_checked")(x, y)
        except pa.ArrowInvalid:
            raise _overflow_error(name, t, x, y) from None
    return getattr(pc, name)(x, y)


def add(a: Operand, b: Operand, dt: Any, ansi: bool) -> pa.Array:
    """``a + b`` with result type ``dt`` (Spark's ``+``).

    Parameters
    ----------
    a, b : pa.Array or scalar
    dt : DataType or pa.DataType
        The result type; both inputs are cast to it first.
    ansi : bool
        Raise on integral/decimal overflow instead of wrapping / returning NULL.

    Returns
    -------
    pa.Array
    """
    return _binary("add", a, b, dt, ansi)


def subtract(a: Operand, b: Operand, dt: Any, ansi: bool) -> pa.Array:
    """``a - b`` with result type ``dt`` (see :func:`add`)."""
    return _binary("subtract", a, b, dt, ansi)


def multiply(a: Operand, b: Operand, dt: Any, ansi: bool) -> pa.Array:
    """``a * b`` with result type ``dt`` (see :func:`add`)."""
    return _binary("multiply", a, b, dt, ansi)


# ---------------------------------------------------------------------------------------------- decimals

def fit_decimal(a: pa.Array, t: pa.DataType, ansi: bool) -> pa.Array:
    """Decimal (or integral) ``a`` rounded HALF_UP to ``t``'s scale; values too wide for ``t`` raise or become NULL.

    Parameters
    ----------
    a : pa.Array
        decimal or integer values.
    t : pa.Decimal128Type
        The target decimal type.
    ansi : bool
        Raise ``NUMERIC_VALUE_OUT_OF_RANGE`` instead of returning NULL.

    Returns
    -------
    pa.Array
        of type ``t``.
    """
    p, s = t.precision, t.scale
    if not pa.types.is_decimal(a.type):
        a = pc.cast(a, pa.decimal128(38, s)) if is_integral(a.type) and s <= 18 else a
    if not pa.types.is_decimal(a.type):
        return _decimal_rows([None if v is None else Decimal(v) for v in a.to_pylist()], t, ansi)
    if a.type.scale > s:
        a = pc.round(a, ndigits=s, round_mode="half_towards_infinity")
    wide = pa.decimal128(38, s)
    if a.type.precision - a.type.scale + s > 38:
        return _decimal_rows(a.to_pylist(), t, ansi)
    a = pc.cast(a, wide)
    bound = pa.scalar(Decimal(10) ** (p - s), wide) if p - s < 38 - s else None
    if bound is not None:
        too_wide = pc.greater_equal(pc.abs(a), bound)
        if pc.any(too_wide).as_py():
            if ansi:
                raise numeric_out_of_range(a[_first_true(too_wide)].as_py(), p, s)
            a = pc.if_else(too_wide, pa.scalar(None, wide), a)
    return pc.cast(a, t)


def _decimal_rows(values: list[Any], t: pa.DataType, ansi: bool) -> pa.Array:
    p, s = t.precision, t.scale
    quantum = Decimal(1).scaleb(-s)
    out: list[Decimal | None] = []
    with localcontext() as ctx:
        ctx.prec = 80
        for v in values:
            if v is None:
                out.append(None)
                continue
            r = v.quantize(quantum, rounding=ROUND_HALF_UP)
            if r.adjusted() >= p - s and r != 0:
                if ansi:
                    raise numeric_out_of_range(r, p, s)
                out.append(None)
            else:
                out.append(r)
    return pa.array(out, t)


def _decimal_values(x: pa.Array) -> list[Decimal | None]:
    return [None if v is None else Decimal(v) if not isinstance(v, Decimal) else v for v in x.to_pylist()]


def _decimal_binary(name: str, a: Operand, b: Operand, t: pa.DataType, ansi: bool) -> pa.Array:
    x, y = _pair(a, b, None)
    try:
        return fit_decimal(getattr(pc, name)(x, y), t, ansi)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        pass  # Arrow's result would exceed 38 digits: compute exactly in Python
    fn = _OPS[name][2]
    with localcontext() as ctx:
        ctx.prec = 80
        exact = [None if u is None or v is None else fn(u, v)
                 for u, v in zip(_decimal_values(x), _decimal_values(y))]
    return _decimal_rows(exact, t, ansi)


def _decimal_divide_type(t1: pa.DataType, t2: pa.DataType) -> pa.DataType:
    """Spark's result type of decimal ``/`` (with the precision-loss adjustment to 38 digits)."""
    p1, s1 = (t1.precision, t1.scale) if pa.types.is_decimal(t1) else (20, 0)
    p2, s2 = (t2.precision, t2.scale) if pa.types.is_decimal(t2) else (20, 0)
    scale = max(6, s1 + p2 + 1)
    precision = p1 - s1 + s2 + scale
    if precision <= 38:
        return pa.decimal128(precision, scale)
    int_digits = precision - scale
    min_scale = min(scale, 6)
    scale = max(38 - int_digits, min_scale)
    return pa.decimal128(38, scale)


# ---------------------------------------------------------------------------------------------- division

def _zero_divisor(x: pa.Array, y: pa.Array, ansi: bool) -> pa.Array:
    """The rows whose divisor is zero; raises under ANSI when one has a non-null dividend."""
    zero = pc.fill_null(pc.equal(y, zero_of(y.type)), False)
    if ansi and pc.any(pc.and_(zero, pc.is_valid(x))).as_py():
        raise divide_by_zero()
    return zero


def divide(a: Operand, b: Operand, ansi: bool, dt: Any = None) -> pa.Array:
    """``a / b`` (Spark's ``/``): double, or decimal when an input is decimal.

    Parameters
    ----------
    a, b : pa.Array or scalar
    ansi : bool
        A zero divisor raises ``DIVIDE_BY_ZERO`` (else NULL).
    dt : DataType or pa.DataType, optional
        Result type for decimal division (Spark's rule when omitted).

    Returns
    -------
    pa.Array
    """
    x, y = _pair(a, b, None)
    if pa.types.is_decimal(x.type) or pa.types.is_decimal(y.type):
        t = arrow_type(dt) if dt is not None else _decimal_divide_type(x.type, y.type)
        _zero_divisor(x, y, ansi)
        with localcontext() as ctx:
            ctx.prec = 80
            q = [None if u is None or v is None or v == 0 else u / v
                 for u, v in zip(_decimal_values(x), _decimal_values(y))]
        return _decimal_rows(q, t, ansi)
    x, y = pc.cast(x, pa.float64(), safe=False), pc.cast(y, pa.float64(), safe=False)
    zero = _zero_divisor(x, y, ansi)
    return pc.if_else(zero, pa.scalar(None, pa.float64()), pc.divide(x, y))


def _int_remainder(x: pa.Array, y: pa.Array, zero: pa.Array) -> pa.Array:
    # a % -1 and a % 1 are 0; using 1 for both avoids MIN / -1 and the zero rows.
    safe = pc.if_else(pc.or_(zero, pc.equal(y, pa.scalar(-1, y.type))), pa.scalar(1, y.type), y)
    q = pc.divide(x, safe)  # truncates toward zero, as Java
    r = pc.subtract(x, pc.multiply(q, safe))
    return pc.if_else(zero, pa.scalar(None, x.type), r)


def remainder(a: Operand, b: Operand, dt: Any, ansi: bool) -> pa.Array:
    """``a % b`` (sign of the dividend, Java's ``%``); zero divisor: ``DIVIDE_BY_ZERO`` under ANSI, else NULL.

    Parameters
    ----------
    a, b : pa.Array or scalar
    dt : DataType or pa.DataType
        Result type.
    ansi : bool

    Returns
    -------
    pa.Array
    """
    t = arrow_type(dt)
    if pa.types.is_decimal(t):
        x, y = _pair(a, b, None)
        _zero_divisor(x, y, ansi)
        with localcontext() as ctx:
            ctx.prec = 80
            r = [None if u is None or v is None or v == 0 else u % v
                 for u, v in zip(_decimal_values(x), _decimal_values(y))]
        return _decimal_rows(r, t, ansi)
    x, y = _pair(a, b, t)
    zero = _zero_divisor(x, y, ansi)
    if is_integral(t):
        return _int_remainder(x, y, zero)
    # C's fmod is Java's % on doubles: exact, the dividend's sign, NaN for an infinite
    # dividend (math.fmod raises there), the dividend itself for an infinite divisor.
    xs = x.cast(t).fill_null(0).to_numpy(zero_copy_only=False)
    ys = y.cast(t).fill_null(1).to_numpy(zero_copy_only=False)
    missing = pc.or_kleene(pc.or_kleene(x.is_null(), y.is_null()), pc.equal(y, zero_of(y.type)))
    with np.errstate(invalid="ignore"):
        values = np.fmod(xs, np.where(ys == 0, 1, ys))
    return pa.array(values, t, mask=pc.fill_null(missing, True).to_numpy(zero_copy_only=False))


def pmod(a: Operand, b: Operand, dt: Any, ansi: bool) -> pa.Array:
    """Spark's ``pmod(a, b)``: ``r = a % b; r < 0 ? (r + b) % b : r``.

    Parameters
    ----------
    a, b : pa.Array or scalar
    dt : DataType or pa.DataType
    ansi : bool

    Returns
    -------
    pa.Array
    """
    t = arrow_type(dt)
    x, y = _pair(a, b, t if not pa.types.is_decimal(t) else None)
    r = remainder(x, y, t, ansi)
    negative = pc.fill_null(pc.less(r, zero_of(r.type)), False)
    if not pc.any(negative).as_py():
        return r
    y_t = y if y.type == r.type else pc.cast(y, r.type)
    wrapped = remainder(pc.add(r, y_t), y_t, t, False)
    return pc.if_else(negative, wrapped, r)


def int_divide(a: Operand, b: Operand, ansi: bool) -> pa.Array:
    """Spark's ``a div b``: bigint quotient truncated toward zero.

    Parameters
    ----------
    a, b : pa.Array or scalar
        Integral, decimal or floating (those divided exactly, then truncated).
    ansi : bool
        Zero divisor -> ``DIVIDE_BY_ZERO``; ``MIN div -1`` -> ``ARITHMETIC_OVERFLOW`` (else wraps).

    Returns
    -------
    pa.Array
        int64.
    """
    x, y = _pair(a, b, None)
    if not (pa.types.is_integer(x.type) and pa.types.is_integer(y.type)):
        return _exact_int_divide(x, y, ansi)
    x, y = pc.cast(x, pa.int64(), safe=False), pc.cast(y, pa.int64(), safe=False)
    zero = _zero_divisor(x, y, ansi)
    lo = INT_RANGES[pa.int64()][0]
    edge = pc.fill_null(pc.and_(pc.equal(x, lo), pc.equal(y, -1)), False)
    if pc.any(edge).as_py():
        if ansi:
            raise arithmetic_overflow("Overflow in integral divide", "try_divide")
        y = pc.if_else(edge, pa.scalar(1, pa.int64()), y)  # MIN div -1 wraps to MIN, as MIN div 1
    safe = pc.if_else(zero, pa.scalar(1, pa.int64()), y)
    return pc.if_else(zero, pa.scalar(None, pa.int64()), pc.divide(x, safe))


def _exact_int_divide(x: pa.Array, y: pa.Array, ansi: bool) -> pa.Array:
    """``x div y`` of decimals (or floats): the exact quotient truncated, as Spark's decimal
    division does (``7 div 2.5`` is 2, where truncating the inputs first would give 3)."""
    zero = _zero_divisor(x, y, ansi)
    lo, hi = INT_RANGES[pa.int64()]
    out: list[int | None] = []
    with localcontext() as context:
        context.prec = 80  # decimal(38, s) quotients are exact at this precision
        for p, q, z in zip(x.to_pylist(), y.to_pylist(), zero.to_pylist()):
            if p is None or q is None or z:
                out.append(None)
                continue
            quotient = int(Decimal(p) // Decimal(q))  # Decimal's // truncates toward zero
            if not lo <= quotient <= hi:
                if ansi:
                    raise arithmetic_overflow("Overflow in integral divide", "try_divide")
                quotient = (quotient - lo) % (1 << 64) + lo  # wraps as a long does
            out.append(quotient)
    return pa.array(out, pa.int64())


def _unary(name: str, a: Operand, dt: Any, ansi: bool) -> pa.Array:
    t = arrow_type(dt)
    x = as_array(a, t)
    if is_integral(t) and ansi:
        try:
            return getattr(pc, name + "_checked")(x)
        except pa.ArrowInvalid:
            raise arithmetic_overflow("integer overflow" if t != pa.int64() else "long overflow") from None
    return getattr(pc, name)(x)


def negate(a: Operand, dt: Any, ansi: bool) -> pa.Array:
    """``-a`` (integral ``-MIN`` overflows: error under ANSI, else wraps to MIN).

    Parameters
    ----------
    a : pa.Array
    dt : DataType or pa.DataType
    ansi : bool

    Returns
    -------
    pa.Array
    """
    return _unary("negate", a, dt, ansi)


def abs_(a: Operand, dt: Any, ansi: bool) -> pa.Array:
    """``abs(a)`` (integral ``abs(MIN)`` overflows: error under ANSI, else MIN).

    Parameters
    ----------
    a : pa.Array
    dt : DataType or pa.DataType
    ansi : bool

    Returns
    -------
    pa.Array
    """
    return _unary("abs", a, dt, ansi)


# ---------------------------------------------------------------------------------------------- rounding

def _round(a: Operand, scale: int, arrow_mode: str, py_mode: str) -> pa.Array:
    x = as_array(a)
    t = x.type
    if is_integral(t):
        return x if scale >= 0 else pc.round(x, ndigits=scale, round_mode=arrow_mode)
    if pa.types.is_decimal(t):
        return x if scale >= t.scale else pc.round(x, ndigits=scale, round_mode=arrow_mode)
    d = pc.cast(x, pa.float64())
    # Arrow rounds the binary value; Spark rounds its shortest decimal text. They differ only near a tie.
    rounded = pc.round(d, ndigits=scale, round_mode=arrow_mode)
    scaled = pc.multiply(d, 10.0 ** scale)
    frac = pc.subtract(scaled, pc.floor(scaled))
    near = pc.less(pc.abs(pc.subtract(frac, 0.5)), 1e-6)
    # Arrow also returns a value unchanged when it is within rounding error of the grid
    # (1.6384999999999998 at scale 4), where Spark's decimal text still rounds it.
    off_grid = pc.and_(pc.greater(frac, 0.0), pc.or_(pc.less(frac, 1e-6), pc.greater(frac, 1 - 1e-6)))
    # The scaling itself can land exactly on the grid (1753.6299999999999 * 100 is 175363.0)
    # while the value is off it: Arrow then keeps the value, Spark rounds it to 1753.63.
    landed = pc.and_(pc.equal(frac, 0.0), pc.not_equal(pc.divide(scaled, 10.0 ** scale), d))
    near = pc.or_(pc.or_(near, off_grid), landed)
    near = pc.and_(pc.fill_null(near, False), pc.is_finite(d))
    if pc.any(near).as_py():
        idx = pc.indices_nonzero(near)
        quantum = Decimal(1).scaleb(-scale)
        fixed = []
        for v in pc.take(d, idx).to_pylist():
            try:
                fixed.append(float(Decimal(repr(v)).quantize(quantum, rounding=py_mode)))
            except InvalidOperation:
                fixed.append(v)
        rounded = pc.replace_with_mask(rounded, near, pa.array(fixed, pa.float64()))
    return pc.cast(rounded, t) if t != pa.float64() else rounded


def round_half_up(a: Operand, scale: int = 0) -> pa.Array:
    """Spark's ``round(a, scale)``: HALF_UP (ties away from zero) of the shortest decimal text of doubles.

    Parameters
    ----------
    a : pa.Array
        Numeric values.
    scale : int
        Digits after the point (negative: before it).

    Returns
    -------
    pa.Array
        Same type as ``a``.
    """
    return _round(a, scale, "half_towards_infinity", ROUND_HALF_UP)


def round_half_even(a: Operand, scale: int = 0) -> pa.Array:
    """Spark's ``bround(a, scale)``: HALF_EVEN rounding (see :func:`round_half_up`)."""
    return _round(a, scale, "half_to_even", ROUND_HALF_EVEN)

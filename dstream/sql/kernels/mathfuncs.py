"""Math kernels with Spark 4 semantics: logarithms, powers, ``floor``/``ceil``, ``greatest``/``least``.

What this module owns
---------------------
Vectorized math over ``pyarrow`` arrays where Spark differs from plain Arrow compute:
logarithms of non-positive numbers are null (not ``-inf``/NaN), ``floor``/``ceil`` of a
double are ``bigint`` (saturating as Java's ``(long)`` cast does), and ``greatest``/
``least`` skip nulls and treat NaN as larger than every number.

Invariants
----------
* Inputs and outputs are ``pa.Array`` of equal length; nulls in give nulls out unless
  the function says otherwise (``greatest`` is null only when every argument is).
"""

from __future__ import annotations

import math

import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["ceil_", "floor_", "greatest", "least", "log_", "power", "sqrt", "exp"]

_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


def _double(values: pa.Array) -> pa.Array:
    return values if values.type == pa.float64() else pc.cast(values, pa.float64())


def sqrt(values: pa.Array) -> pa.Array:
    """Square root as a double; negative numbers give NaN (Java's ``Math.sqrt``)."""
    return pc.sqrt(_double(values))


def exp(values: pa.Array) -> pa.Array:
    """``e`` to the power of each value."""
    return pc.exp(_double(values))


def log_(values: pa.Array, base: float | None = None, kind: str = "ln") -> pa.Array:
    """Logarithm (``kind`` ``"ln"``, ``"log10"``, ``"log2"``, or of ``base``); null for values <= 0.

    Parameters
    ----------
    values : pyarrow.Array
        The numbers.
    base : float, optional
        ``log(base, x)``: a base <= 0 makes every result null.
    kind : str
        Which logarithm when ``base`` is not given.
    """
    x = _double(values)
    positive = pc.greater(x, 0.0)
    safe = pc.if_else(positive, x, pa.scalar(1.0))
    if base is not None:
        if base <= 0:
            return pa.nulls(len(values), pa.float64())
        result = pc.divide(pc.ln(safe), math.log(base))
    else:
        result = {"ln": pc.ln, "log10": pc.log10, "log2": pc.log2}[kind](safe)
    return pc.if_else(positive, result, pa.scalar(None, pa.float64()))


def power(base: pa.Array, exponent: pa.Array) -> pa.Array:
    """``base ** exponent`` as doubles (Java's ``Math.pow``)."""
    return pc.power(_double(base), _double(exponent))


def _saturating_long(values: pa.Array) -> pa.Array:
    clipped = pc.min_element_wise(pc.max_element_wise(values, float(_LONG_MIN)), float(_LONG_MAX))
    nan = pc.is_nan(values)
    clipped = pc.if_else(nan, 0.0, clipped)
    out = [None if v is None else (_LONG_MAX if v >= 2.0**63 else int(v)) for v in clipped.to_pylist()] \
        if pc.any(pc.greater_equal(clipped, 2.0**63)).as_py() else None
    if out is not None:
        return pa.array(out, pa.int64())
    return pc.cast(clipped, pa.int64(), safe=False)


def floor_(values: pa.Array, kind: str = "floor") -> pa.Array:
    """``FLOOR``/``CEIL`` (``kind``): integral stay (as bigint), doubles become bigint, decimals scale 0."""
    t = values.type
    fn = pc.floor if kind == "floor" else pc.ceil
    if pa.types.is_integer(t):
        return pc.cast(values, pa.int64())
    if pa.types.is_decimal(t):
        rounded = fn(pc.cast(values, pa.decimal128(min(38, t.precision + 1), t.scale)))
        return pc.cast(rounded, pa.decimal128(min(38, t.precision - t.scale + 1), 0))
    return _saturating_long(fn(_double(values)))


def ceil_(values: pa.Array) -> pa.Array:
    """``CEIL``; see :func:`floor_`."""
    return floor_(values, "ceil")


def _extreme(arrays: list[pa.Array], greatest_: bool) -> pa.Array:
    arrow_type = arrays[0].type
    if pa.types.is_null(arrow_type):
        return pa.nulls(len(arrays[0]))
    if (pa.types.is_timestamp(arrow_type) and arrow_type.tz is not None) or pa.types.is_boolean(arrow_type):
        # Arrow's element-wise extremes take neither zoned timestamps nor booleans: their
        # numbers order the same (an instant's microseconds, false < true).
        numbers = pa.int64() if pa.types.is_timestamp(arrow_type) else pa.int8()
        return _extreme([a.cast(numbers) for a in arrays], greatest_).cast(arrow_type)
    fn = pc.max_element_wise if greatest_ else pc.min_element_wise
    result = fn(*arrays, skip_nulls=True)
    if pa.types.is_floating(result.type):
        any_nan = None
        for a in arrays:
            nan = pc.fill_null(pc.is_nan(a), False)
            any_nan = nan if any_nan is None else pc.or_(any_nan, nan)
        if greatest_:
            result = pc.if_else(any_nan, pa.scalar(math.nan, result.type), result)
        else:
            all_nan = None
            for a in arrays:
                nan_or_null = pc.fill_null(pc.is_nan(a), True)
                all_nan = nan_or_null if all_nan is None else pc.and_(all_nan, nan_or_null)
            result = pc.if_else(pc.and_(all_nan, any_nan), pa.scalar(math.nan, result.type), result)
    return result


def greatest(arrays: list[pa.Array]) -> pa.Array:
    """The largest non-null value of each row (NaN above every number); null if all are null."""
    return _extreme(arrays, True)


def least(arrays: list[pa.Array]) -> pa.Array:
    """The smallest non-null value of each row (NaN only if nothing else); null if all are null."""
    return _extreme(arrays, False)

"""Java's ``Double.toString`` / ``Float.toString``, per value and over whole arrays.

What this module owns
---------------------
The text Spark gives a double or float when it casts it to a string: the shortest
digits that read back as the same value (JDK 19+), in plain notation when
``1e-3 <= |x| < 1e7`` (always with a fractional digit: ``1.0``), otherwise in Java's
scientific form ``1.0E20`` / ``1.0E-4``; ``NaN``, ``Infinity``, ``-Infinity``, ``-0.0``.

Invariants
----------
* :func:`doubles_to_strings` is vectorized for values in the plain range (Arrow's
  shortest formatting plus a ``.0`` suffix); values outside it are formatted per row
  with :func:`java_double_str` (the only per-row path).
"""

from __future__ import annotations

import math
import struct
from decimal import Decimal

import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["java_double_str", "java_float_str", "doubles_to_strings"]


def _layout(digits: str, exponent: int, negative: bool) -> str:
    """Java's layout of the shortest ``digits`` with decimal exponent ``exponent`` (value = 0.digits * 10**exponent)."""
    sign = "-" if negative else ""
    if -2 <= exponent <= 7:  # 1e-3 <= |x| < 1e7
        if exponent <= 0:
            return f"{sign}0.{'0' * -exponent}{digits}"
        whole = digits[:exponent].ljust(exponent, "0")
        frac = digits[exponent:] or "0"
        return f"{sign}{whole}.{frac}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exponent - 1}"


def _shortest(text: str) -> tuple[str, int]:
    sign_, digit_tuple, exp = Decimal(text).as_tuple()
    digits = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    return digits, len(digit_tuple) + int(exp)


def java_double_str(x: float) -> str:
    """Java's ``Double.toString(x)``.

    Parameters
    ----------
    x : float

    Returns
    -------
    str
        ``"1.0"``, ``"1.23456789E7"``, ``"1.0E-4"``, ``"NaN"``, ``"-Infinity"``, ``"-0.0"``...
    """
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    digits, exponent = _shortest(repr(abs(x)))
    return _layout(digits, exponent, x < 0)


def _to_f32(x: float) -> float:
    return float(struct.unpack("f", struct.pack("f", x))[0])


def java_float_str(x: float) -> str:
    """Java's ``Float.toString`` of the float32 nearest ``x`` (shortest digits that read back as it).

    Parameters
    ----------
    x : float

    Returns
    -------
    str
    """
    if math.isnan(x) or math.isinf(x) or x == 0:
        return java_double_str(x)
    f = _to_f32(x)
    for ndigits in range(1, 10):
        text = f"{abs(f):.{ndigits - 1}e}"
        if _to_f32(float(text)) == abs(f):
            digits, exponent = _shortest(text)
            return _layout(digits, exponent, f < 0)
    return java_double_str(f)  # unreachable: 9 digits always identify a float32


def doubles_to_strings(a: pa.Array) -> pa.Array:
    """Java's text of every value of a float32 or float64 array (nulls stay null).

    Parameters
    ----------
    a : pa.Array
        float32 or float64.

    Returns
    -------
    pa.Array
        string.
    """
    text = pc.cast(a, pa.string())
    absval = pc.abs(a)
    plain = pc.and_(pc.greater_equal(absval, 1e-3), pc.less(absval, 1e7))
    # Arrow prints the plain range as shortest decimal digits without exponent; Java adds ".0" to integers.
    needs_point = pc.invert(pc.match_substring(text, "."))
    text = pc.if_else(needs_point, pc.binary_join_element_wise(text, ".0", ""), text)
    others = pc.invert(pc.fill_null(plain, True))
    if not pc.any(others).as_py():
        return text
    fmt = java_float_str if pa.types.is_float32(a.type) else java_double_str
    idx = pc.indices_nonzero(others)
    values = pc.take(a, idx).to_pylist()
    fixed = pa.array([fmt(v) for v in values], pa.string())
    mask = pc.fill_null(others, False)
    return pc.replace_with_mask(text, mask, fixed)

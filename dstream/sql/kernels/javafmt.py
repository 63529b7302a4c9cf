"""Java's ``Double.toString`` / ``Float.toString``, per value and over whole arrays.

What this module owns
---------------------
The text Spark gives a double or float when it casts it to a string: the shortest
digits that read back as the same value (JDK 19+), in plain notation when
``1e-3 <= |x| < 1e7`` (always with a fractional digit: ``1.0``), otherwise in Java's
scientific form ``1.0E20`` / ``1.0E-4``; ``NaN``, ``Infinity``, ``-Infinity``, ``-0.0``.

Invariants
----------
* The per-value functions are :mod:`dstream.sql.formatting`'s (re-exported here).
* :func:`doubles_to_strings` is vectorized for values in the plain range (Arrow's
  shortest formatting plus a ``.0`` suffix); values outside it are formatted per row
  with :func:`java_double_str` (the only per-row path).
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from dstream.sql.formatting import java_double_str, java_float_str

__all__ = ["java_double_str", "java_float_str", "doubles_to_strings"]


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

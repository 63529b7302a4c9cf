"""Spark 4 comparisons and boolean logic over pyarrow arrays.

What this module owns
---------------------
Signatures (``a``/``b``: ``pa.Array`` of equal length or one a Python scalar):

* ``compare(op, a, b)`` with ``op`` in ``= == != <> < <= > >=``
* ``eq_null_safe(a, b)`` (``<=>``: never NULL)
* ``and_(a, b)``, ``or_(a, b)`` (Kleene three-valued logic), ``not_(a)``
* ``isin(a, values)`` (``values`` a Python list), ``between(a, lo, hi)``

Spark's rules: a NULL operand gives NULL; ``NaN = NaN`` is true and NaN is greater than
every other value (``+Infinity`` included); ``-0.0 = 0.0``; strings compare by code point
(Arrow's UTF-8 byte order is the same order); ``a IN (...)`` is true on a match, else
NULL when ``a`` is NULL or the list holds a NULL, else false.

Everything is vectorized (no per-row Python).
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from dstream.sql.kernels.arith import as_array

__all__ = ["compare", "eq_null_safe", "and_", "or_", "not_", "isin", "between"]

_ARROW_OPS = {"=": "equal", "==": "equal", "!=": "not_equal", "<>": "not_equal", "<": "less",
              "<=": "less_equal", ">": "greater", ">=": "greater_equal"}


def _operands(a: Any, b: Any) -> tuple[pa.Array, pa.Array]:
    n = len(a) if isinstance(a, (pa.Array, pa.ChunkedArray)) else len(b)
    x = as_array(a, None, n)
    y = as_array(b, x.type if not isinstance(b, (pa.Array, pa.ChunkedArray)) else None, n)
    if not isinstance(a, (pa.Array, pa.ChunkedArray)):
        x = as_array(x, y.type)
    return x, y


def _floating(t: pa.DataType) -> bool:
    return bool(pa.types.is_floating(t))


def compare(op: str, a: Any, b: Any) -> pa.Array:
    """``a op b`` with Spark's NULL and NaN rules.

    Parameters
    ----------
    op : str
        One of ``= == != <> < <= > >=``.
    a, b : pa.Array or scalar

    Returns
    -------
    pa.Array
        boolean, NULL where either side is NULL.
    """
    if op not in _ARROW_OPS:
        raise ValueError(f"unknown comparison operator {op!r}")
    x, y = _operands(a, b)
    if pa.types.is_null(x.type) or pa.types.is_null(y.type):
        # NULL compared with anything is NULL (Arrow has no comparison kernel for the null type).
        return pa.nulls(max(len(x), len(y)), pa.bool_())
    if not (_floating(x.type) or _floating(y.type)):
        return getattr(pc, _ARROW_OPS[op])(x, y)
    x, y = pc.cast(x, pa.float64(), safe=False), pc.cast(y, pa.float64(), safe=False)
    # NaN sorts above +Infinity: compare with NaN mapped to +Infinity, then break the ties
    # between a real +Infinity and a NaN.
    x_nan, y_nan = pc.is_nan(x), pc.is_nan(y)
    inf = pa.scalar(float("inf"))
    xk, yk = pc.if_else(x_nan, inf, x), pc.if_else(y_nan, inf, y)
    same = pc.equal(xk, yk)
    eq = pc.and_(same, pc.equal(x_nan, y_nan))
    lt = pc.or_(pc.less(xk, yk), pc.and_(same, pc.and_(pc.invert(x_nan), y_nan)))
    if op in ("=", "=="):
        return eq
    if op in ("!=", "<>"):
        return pc.invert(eq)
    if op == "<":
        return lt
    if op == "<=":
        return pc.or_(lt, eq)
    if op == ">":
        return pc.invert(pc.or_(lt, eq))
    return pc.invert(lt)


def eq_null_safe(a: Any, b: Any) -> pa.Array:
    """``a <=> b``: true when both are NULL, false when one is, else ``a = b``.

    Parameters
    ----------
    a, b : pa.Array or scalar

    Returns
    -------
    pa.Array
        boolean without NULLs.
    """
    x, y = _operands(a, b)
    xn, yn = pc.is_null(x), pc.is_null(y)
    if pa.types.is_null(x.type) or pa.types.is_null(y.type):  # a NULL literal: Arrow has no '=' on it
        eq = pa.repeat(pa.scalar(False), len(x))  # nulls are decided below
    else:
        eq = pc.fill_null(compare("=", x, y), False)
    return pc.if_else(pc.or_(xn, yn), pc.and_(xn, yn), eq)


def and_(a: Any, b: Any) -> pa.Array:
    """Kleene ``a AND b`` (false wins over NULL).

    Parameters
    ----------
    a, b : pa.Array or scalar (boolean)

    Returns
    -------
    pa.Array
    """
    x, y = _operands(a, b)
    return pc.and_kleene(x, y)


def or_(a: Any, b: Any) -> pa.Array:
    """Kleene ``a OR b`` (true wins over NULL).

    Parameters
    ----------
    a, b : pa.Array or scalar (boolean)

    Returns
    -------
    pa.Array
    """
    x, y = _operands(a, b)
    return pc.or_kleene(x, y)


def not_(a: Any) -> pa.Array:
    """``NOT a`` (NULL stays NULL).

    Parameters
    ----------
    a : pa.Array (boolean)

    Returns
    -------
    pa.Array
    """
    return pc.invert(as_array(a))


def _canonical(x: pa.Array) -> pa.Array:
    """Floating values with one bit pattern per Spark value: -0.0 + 0.0 is 0.0, every NaN payload one NaN."""
    x = pc.add(x, pa.scalar(0.0, x.type))
    return pc.if_else(pc.is_nan(x), pa.scalar(float("nan"), x.type), x)


def isin(a: Any, values: list[Any]) -> pa.Array:
    """``a IN (values...)`` with Spark's NULL rules.

    Parameters
    ----------
    a : pa.Array
    values : list
        Python values (coerced to ``a``'s type; NULLs allowed).

    Returns
    -------
    pa.Array
        boolean: true on a match; else NULL if ``a`` is NULL or ``values`` holds a NULL; else false.
    """
    x = as_array(a)
    has_null = any(v is None for v in values)
    present = [v for v in values if v is not None]
    if x.type == pa.null():
        return pa.nulls(len(x), pa.bool_())
    try:
        value_set = pa.array(present, x.type)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
        value_set = pc.cast(pa.array(present), x.type, safe=False)
    if _floating(x.type):
        x, value_set = _canonical(x), _canonical(value_set)
    match = pc.is_in(x, value_set=value_set, skip_nulls=True)
    if has_null:
        return pc.if_else(match, True, pa.scalar(None, pa.bool_()))
    return pc.if_else(pc.is_null(x), pa.scalar(None, pa.bool_()), match)


def between(a: Any, lo: Any, hi: Any) -> pa.Array:
    """``a BETWEEN lo AND hi`` = ``a >= lo AND a <= hi`` (Kleene AND).

    Parameters
    ----------
    a : pa.Array
    lo, hi : pa.Array or scalar

    Returns
    -------
    pa.Array
    """
    return and_(compare(">=", a, lo), compare("<=", a, hi))

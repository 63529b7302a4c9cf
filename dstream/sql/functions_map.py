"""The map functions of ``dstream.sql.functions``: ``create_map``, ``map_keys``,
``map_values``, ``map_entries``, ``map_from_arrays``, ``map_from_entries``,
``map_concat``, ``map_contains_key`` and ``str_to_map``.

What this module owns
---------------------
The public builders, with PySpark's names and parameters; the functions are the
registry's (``expressions.map_functions``, where their semantics are stated).

Examples
--------
>>> df = spark.createDataFrame([("a", 1, "b", 2)], "k1 string, v1 int, k2 string, v2 int")
>>> m = df.select(create_map("k1", "v1", "k2", "v2").alias("m"))
>>> m.select(map_keys("m").alias("k"), map_values("m").alias("v"), map_contains_key("m", "b").alias("has")).collect()
[Row(k=['a', 'b'], v=[1, 2], has=True)]
"""

from __future__ import annotations

from typing import Any

from .column import Column, expr_of, lit_expr
from .expressions.scalar_functions import ScalarFunction
from .functions_scalar import _call, _col_or_lit

__all__ = ["create_map", "map_concat", "map_contains_key", "map_entries", "map_from_arrays", "map_from_entries",
           "map_keys", "map_values", "str_to_map"]

ColumnOrName = Column | str


def _columns(cols: tuple[Any, ...]) -> list[Any]:
    return list(cols[0]) if len(cols) == 1 and isinstance(cols[0], list | tuple) else list(cols)


def create_map(*cols: ColumnOrName) -> Column:
    """A map of key, value, key, value... columns (keys must not be null nor repeat).

    Parameters
    ----------
    cols : Column or str
        Keys and values alternately (or one list of them).
    """
    return _call("map", *[expr_of(c) for c in _columns(cols)])


def map_keys(col: ColumnOrName) -> Column:
    """The keys of each map, as an array."""
    return _call("map_keys", expr_of(col))


def map_values(col: ColumnOrName) -> Column:
    """The values of each map, as an array."""
    return _call("map_values", expr_of(col))


def map_entries(col: ColumnOrName) -> Column:
    """The entries of each map, as an array of ``struct<key, value>``."""
    return _call("map_entries", expr_of(col))


def map_from_arrays(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """A map of the keys in one array and the values in another (of the same length)."""
    return _call("map_from_arrays", expr_of(col1), expr_of(col2))


def map_from_entries(col: ColumnOrName) -> Column:
    """A map of an array of ``(key, value)`` structs."""
    return _call("map_from_entries", expr_of(col))


def map_concat(*cols: ColumnOrName) -> Column:
    """The union of maps (a key in two of them raises, as Spark's default policy does)."""
    return _call("map_concat", *[expr_of(c) for c in _columns(cols)])


def map_contains_key(col: ColumnOrName, value: Any) -> Column:
    """Whether each map has the key ``value``."""
    return _call("map_contains_key", expr_of(col), _col_or_lit(value) if not isinstance(value, str)
                 else lit_expr(value))


def str_to_map(text: ColumnOrName, pairDelim: str | None = None, keyValueDelim: str | None = None) -> Column:  # noqa: N803
    """A map of text: pairs split at ``pairDelim`` (regex, default ``,``), each at its first
    ``keyValueDelim`` (regex, default ``:``); a pair without one maps to null.

    Parameters
    ----------
    text : Column or str
        The text.
    pairDelim, keyValueDelim : str, optional
        The delimiters.
    """
    args = [expr_of(text)]
    if pairDelim is not None or keyValueDelim is not None:
        args.append(lit_expr("," if pairDelim is None else pairDelim))
    if keyValueDelim is not None:
        args.append(lit_expr(keyValueDelim))
    # Spark names the call with the delimiters it fills in: str_to_map(a:1, ,, :).
    shown = ["str_to_map({0}, ,, :)", "str_to_map({0}, {1}, :)", None][len(args) - 1]
    return Column(ScalarFunction("str_to_map", args, shown))

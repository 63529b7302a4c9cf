"""More array functions of ``dstream.sql.functions``: ``array_join``, ``array_position``,
``array_remove``, ``array_union``, ``array_intersect``, ``array_except``, ``arrays_overlap``,
``flatten``, ``slice``, ``array_repeat``, ``sequence``.

What this module owns
---------------------
The public builders, with PySpark's names and parameters; the functions are the
registry's (``expressions.array_set_functions``, where their semantics are stated).
"""

from __future__ import annotations

from typing import Any

from .column import Column, expr_of, lit_expr
from .functions_scalar import _call, _col_or_lit

__all__ = [
    "array_except",
    "array_intersect",
    "array_join",
    "array_position",
    "array_remove",
    "array_repeat",
    "array_union",
    "arrays_overlap",
    "flatten",
    "sequence",
    "slice",
]

ColumnOrName = Column | str


def array_join(col: ColumnOrName, delimiter: str, null_replacement: str | None = None) -> Column:
    """The elements joined by ``delimiter`` (nulls skipped, or replaced by ``null_replacement``).

    Parameters
    ----------
    col : Column or str
        The arrays.
    delimiter : str
        The separator.
    null_replacement : str, optional
        The text of a null element.
    """
    args = [expr_of(col), lit_expr(delimiter)] + ([] if null_replacement is None else [lit_expr(null_replacement)])
    return _call("array_join", *args)


def array_position(col: ColumnOrName, value: Any) -> Column:
    """The 1-based position of the first ``value`` (0 if absent).

    Parameters
    ----------
    col : Column or str
        The arrays.
    value : Any
        The value to find.
    """
    return _call("array_position", expr_of(col), lit_expr(value))


def array_remove(col: ColumnOrName, element: Any) -> Column:
    """The array without the elements equal to ``element``.

    Parameters
    ----------
    col : Column or str
        The arrays.
    element : Any
        The value to remove.
    """
    return _call("array_remove", expr_of(col), lit_expr(element))


def _pair(name: str, col1: ColumnOrName, col2: ColumnOrName) -> Column:
    return _call(name, expr_of(col1), expr_of(col2))


def array_union(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """The distinct elements of both arrays, first occurrences in order.

    Parameters
    ----------
    col1, col2 : Column or str
        The arrays.
    """
    return _pair("array_union", col1, col2)


def array_intersect(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """The distinct elements of ``col1`` also in ``col2``.

    Parameters
    ----------
    col1, col2 : Column or str
        The arrays.
    """
    return _pair("array_intersect", col1, col2)


def array_except(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """The distinct elements of ``col1`` not in ``col2``.

    Parameters
    ----------
    col1, col2 : Column or str
        The arrays.
    """
    return _pair("array_except", col1, col2)


def arrays_overlap(a1: ColumnOrName, a2: ColumnOrName) -> Column:
    """Whether the arrays share a non-null element (null when unknown because of nulls).

    Parameters
    ----------
    a1, a2 : Column or str
        The arrays.
    """
    return _pair("arrays_overlap", a1, a2)


def flatten(col: ColumnOrName) -> Column:
    """An array of arrays made one array.

    Parameters
    ----------
    col : Column or str
        The arrays of arrays.
    """
    return _call("flatten", expr_of(col))


def slice(x: ColumnOrName, start: Any, length: Any) -> Column:  # noqa: A001 - PySpark's name
    """``length`` elements from position ``start`` (1-based; negative from the end).

    Parameters
    ----------
    x : Column or str
        The arrays.
    start, length : int or Column
        Where to start and how many.
    """
    return _call("slice", expr_of(x), _col_or_lit(start), _col_or_lit(length))


def array_repeat(col: ColumnOrName, count: Any) -> Column:
    """An array of ``count`` copies of the value.

    Parameters
    ----------
    col : Column or str
        The value.
    count : int or Column
        How many copies.
    """
    return _call("array_repeat", expr_of(col), _col_or_lit(count))


def sequence(start: ColumnOrName, stop: ColumnOrName, step: ColumnOrName | None = None) -> Column:
    """The integers from ``start`` to ``stop`` inclusive, by ``step`` (1 or -1 by default).

    Parameters
    ----------
    start, stop : Column or str
        The bounds.
    step : Column or str, optional
        The increment.
    """
    args = [expr_of(start), expr_of(stop)] + ([] if step is None else [expr_of(step)])
    return _call("sequence", *args)

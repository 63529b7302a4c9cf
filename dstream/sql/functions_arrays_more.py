"""Array functions of ``dstream.sql.functions`` that add, drop or read one element:
``array_append``, ``array_prepend``, ``array_insert``, ``array_compact``, ``get``,
``array_size``, ``cardinality`` and ``arrays_zip``.

What this module owns
---------------------
The public builders, with PySpark's names and parameters; the functions are the
registry's (``expressions.array_edit_functions``, where their semantics are stated), and
``arrays_zip`` is ``expressions.arrays_zip.ArraysZip``.
"""

from __future__ import annotations

from typing import Any

from .column import Column, expr_of, to_expr
from .functions_scalar import _call

__all__ = ["array_append", "array_compact", "array_insert", "array_prepend", "array_size", "arrays_zip", "cardinality",
           "get"]

ColumnOrName = Column | str


def _value(value: Any) -> Any:
    # A value to add is a literal unless it is a Column (a str is a string, not a column name).
    return to_expr(value)


def array_append(col: ColumnOrName, value: Any) -> Column:
    """The array with ``value`` added at its end (null arrays stay null).

    Parameters
    ----------
    col : Column or str
        The arrays.
    value : Any
        A literal or a Column.

    Examples
    --------
    >>> df = spark.createDataFrame([([1, 2],)], "a array<int>")
    >>> df.select(array_append("a", 3).alias("r")).first().r
    [1, 2, 3]
    """
    return _call("array_append", expr_of(col), _value(value))


def array_prepend(col: ColumnOrName, value: Any) -> Column:
    """The array with ``value`` added at its start (null arrays stay null).

    Parameters
    ----------
    col : Column or str
        The arrays.
    value : Any
        A literal or a Column.
    """
    return _call("array_prepend", expr_of(col), _value(value))


def array_insert(arr: ColumnOrName, pos: ColumnOrName | int, value: Any) -> Column:
    """The array with ``value`` placed at 1-based position ``pos``.

    A negative ``pos`` counts from the end (-1: after the last element); a position past
    either end pads with nulls; 0 is an error.

    Parameters
    ----------
    arr : Column or str
        The arrays.
    pos : Column, str or int
        The position (a str names a column).
    value : Any
        A literal or a Column.
    """
    position = expr_of(pos) if isinstance(pos, str) else to_expr(pos)
    return _call("array_insert", expr_of(arr), position, _value(value))


def array_compact(col: ColumnOrName) -> Column:
    """The array without its null elements.

    Parameters
    ----------
    col : Column or str
        The arrays.
    """
    return _call("array_compact", expr_of(col))


def get(col: ColumnOrName, index: ColumnOrName | int) -> Column:
    """The element at 0-based ``index``; null outside the array (never an error).

    Parameters
    ----------
    col : Column or str
        The arrays.
    index : Column, str or int
        The index (a str names a column).
    """
    at = expr_of(index) if isinstance(index, str) else to_expr(index)
    return _call("get", expr_of(col), at)


def array_size(col: ColumnOrName) -> Column:
    """The number of elements of the array; null for a null array.

    Parameters
    ----------
    col : Column or str
        The arrays.
    """
    return _call("array_size", expr_of(col))


def cardinality(col: ColumnOrName) -> Column:
    """The number of elements of an array or map (``size``).

    Parameters
    ----------
    col : Column or str
        The arrays or maps.
    """
    from .expressions.collection_functions import Size  # noqa: PLC0415 - size's expression

    node = Size(expr_of(col))
    node.name = "cardinality"  # Spark names the column by the name called
    return Column(node)


def arrays_zip(*cols: ColumnOrName) -> Column:
    """The arrays merged element by element: an array of structs, one field per argument.

    The fields are named after the columns (a name or an alias), else ``"0"``, ``"1"``...;
    the result is as long as the longest array (the others padded with nulls) and null
    when an array is null.

    Parameters
    ----------
    cols : Column or str
        The arrays.

    Examples
    --------
    >>> df = spark.createDataFrame([([1, 2, 3], ["a", "b"])], "n array<int>, s array<string>")
    >>> df.select(arrays_zip("n", "s").alias("z")).first().z
    [Row(n=1, s='a'), Row(n=2, s='b'), Row(n=3, s=None)]
    """
    from .expressions.arrays_zip import ArraysZip  # noqa: PLC0415 - the expression loads with its first use

    return Column(ArraysZip([expr_of(c) for c in cols]))

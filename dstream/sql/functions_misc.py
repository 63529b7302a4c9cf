"""Assorted functions of ``dstream.sql.functions``: ``array_sort``, ``equal_null``, ``elt``,
``find_in_set``, ``overlay``, ``width_bucket``, ``bin``, ``conv``, ``to_unix_timestamp``,
``window_time``, ``encode``, ``decode``, ``uuid``, ``current_timezone``, ``try_element_at`` and
``typedLit``
(``call_function`` is in the main module, which it looks names up in).

What this module owns
---------------------
The public builders, with PySpark's names and parameters (a ``str`` where PySpark takes
``ColumnOrName`` is a column name; where it takes ``str``/``int`` the value is a
literal). The semantics are stated in ``expressions.misc_functions``;
``array_sort`` with a comparator is :class:`expressions.array_sort.ArraySortWith`.

Examples
--------
>>> df = spark.createDataFrame([([3, None, 1],)], "a array<int>")
>>> df.select(array_sort("a").alias("s"), array_sort("a", lambda x, y: y - x).alias("desc")).collect()
[Row(s=[1, 3, None], desc=[3, 1, None])]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .column import Column, expr_of, lit_expr, to_expr
from .expressions.array_sort import ArraySortWith
from .expressions.collection_functions import TryElementAt
from .expressions.partition_functions import Uuid
from .expressions.scalar_functions import ScalarFunction
from .functions_higher_order import _lambda
from .functions_scalar import _call, _col_or_lit

__all__ = ["array_sort", "bin", "conv", "current_timezone", "decode", "elt", "encode",
           "equal_null", "find_in_set", "overlay", "to_unix_timestamp", "try_element_at", "typedLit", "uuid",
           "width_bucket", "window_time"]

ColumnOrName = Column | str


def array_sort(col: ColumnOrName, comparator: Callable[[Column, Column], Column] | None = None) -> Column:
    """The arrays sorted ascending, nulls last; or by ``comparator(l, r)`` (negative, 0 or positive).

    Parameters
    ----------
    col : Column or str
        The arrays.
    comparator : function, optional
        Of two Columns, returning an integer Column (a null result is an error, as in Spark).
    """
    if comparator is None:
        return _call("array_sort", expr_of(col))
    return Column(ArraySortWith(expr_of(col), _lambda(comparator, (2,))))


def equal_null(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """``col1 <=> col2``: true when both are null or equal, never null."""
    return _call("equal_null", expr_of(col1), expr_of(col2))


def elt(*inputs: ColumnOrName) -> Column:
    """``elt(n, v1, v2, ...)``: ``v(n)`` (1-based)."""
    return _call("elt", *[expr_of(c) for c in inputs])


def find_in_set(str: ColumnOrName, str_array: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    """The 1-based position of ``str`` in the comma-separated ``str_array`` (0 if absent)."""
    return _call("find_in_set", expr_of(str), expr_of(str_array))


def overlay(src: ColumnOrName, replace: ColumnOrName, pos: int | ColumnOrName,
            len: int | ColumnOrName = -1) -> Column:  # noqa: A002 - PySpark's name
    """``src`` with ``len`` characters from ``pos`` (1-based) replaced by ``replace``."""
    return _call("overlay", expr_of(src), expr_of(replace), _col_or_lit(pos), _col_or_lit(len))


def width_bucket(v: ColumnOrName, min: ColumnOrName, max: ColumnOrName,  # noqa: A002 - PySpark's names
                 numBucket: ColumnOrName | int) -> Column:  # noqa: N803 - PySpark's name
    """The bucket of ``v`` among ``numBucket`` equal-width buckets from ``min`` to ``max``."""
    return _call("width_bucket", expr_of(v), expr_of(min), expr_of(max), _col_or_lit(numBucket))


def bin(col: ColumnOrName) -> Column:  # noqa: A001 - PySpark's name
    """The binary digits of a long (two's complement when negative)."""
    return _call("bin", expr_of(col))


def conv(col: ColumnOrName, fromBase: int, toBase: int) -> Column:  # noqa: N803 - PySpark's names
    """The number in ``col``, read in base ``fromBase``, written in base ``toBase`` (negative: signed)."""
    return _call("conv", expr_of(col), lit_expr(fromBase), lit_expr(toBase))


def to_unix_timestamp(timestamp: ColumnOrName, format: ColumnOrName | None = None) -> Column:  # noqa: A002
    """Seconds since the epoch of a timestamp, or of a string parsed with ``format`` (a Column)."""
    args = [expr_of(timestamp)] + ([] if format is None else [expr_of(format)])
    # Spark names the call with the default format it fills in.
    shown = "to_unix_timestamp({0}, yyyy-MM-dd HH:mm:ss)" if format is None else None
    return Column(ScalarFunction("to_unix_timestamp", args, shown))


def window_time(windowColumn: ColumnOrName) -> Column:  # noqa: N803 - PySpark's name
    """The last instant of a ``window``/``session_window`` (its end minus one microsecond)."""
    return _call("window_time", expr_of(windowColumn))


def encode(col: ColumnOrName, charset: str) -> Column:
    """The string's bytes in ``charset`` (US-ASCII, ISO-8859-1, UTF-8, UTF-16, UTF-16BE, UTF-16LE)."""
    return _call("encode", expr_of(col), lit_expr(charset))


def decode(col: ColumnOrName, charset: str) -> Column:
    """The bytes read as text in ``charset``."""
    return _call("decode", expr_of(col), lit_expr(charset))


def uuid() -> Column:
    """A random UUID string per row (not deterministic)."""
    return Column(Uuid())


def current_timezone() -> Column:
    """The session time zone (``spark.sql.session.timeZone``)."""
    return _call("current_timezone")


def typedLit(value: Any) -> Column:  # noqa: N802 - PySpark's name
    """A literal Column, as :func:`lit` (Python values carry their types)."""
    return Column(to_expr(value))


def try_element_at(col: ColumnOrName, extraction: ColumnOrName) -> Column:
    """:func:`element_at` that gives null for an index out of range (or 0) instead of an error.

    Parameters
    ----------
    col : Column or str
        The arrays or maps.
    extraction : Column or str
        The 1-based position (negative from the end) or the key (a ``str`` is a column name, as in PySpark).
    """
    return Column(TryElementAt(expr_of(col), expr_of(extraction)))

"""The window functions of ``dstream.sql.functions``: ``row_number``, ``rank``,
``dense_rank``, ``percent_rank``, ``cume_dist``, ``ntile``, ``lag``, ``lead`` and ``nth_value``.

What this module owns
---------------------
The public builders, with PySpark's names and parameters; the expressions are
``expressions.window_functions``'s. Each is computed over a window with
``Column.over(Window...)``: an ordered one (``orderBy``), as Spark requires. Aggregates
(``sum``, ``count``, ``avg``...) can be computed over a window too.

Examples
--------
>>> from dstream.sql import Window
>>> df = spark.createDataFrame([("a", 3), ("a", 1), ("a", 3), ("b", 2)], "k string, v int")
>>> w = Window.partitionBy("k").orderBy("v")
>>> df.select("k", "v", row_number().over(w).alias("n"), rank().over(w).alias("r"),
...           lag("v").over(w).alias("prev")).orderBy("k", "n").show()
+---+---+---+---+----+
|  k|  v|  n|  r|prev|
+---+---+---+---+----+
|  a|  1|  1|  1|NULL|
|  a|  3|  2|  2|   1|
|  a|  3|  3|  2|   3|
|  b|  2|  1|  1|NULL|
+---+---+---+---+----+
<BLANKLINE>
"""

from __future__ import annotations

from typing import Any

from .column import Column, expr_of, to_expr
from .expressions.window_functions import CumeDist, DenseRank, Lag, Lead, NthValue, NTile, PercentRank, Rank, RowNumber

__all__ = ["cume_dist", "dense_rank", "lag", "lead", "nth_value", "ntile", "percent_rank", "rank", "row_number"]


def row_number() -> Column:
    """The position of each row in its window partition, from 1 (ties get different numbers)."""
    return Column(RowNumber())


def rank() -> Column:
    """The rank of each row in its window partition: ties share a rank and leave a gap after them
    (1, 2, 2, 4)."""
    return Column(Rank())


def dense_rank() -> Column:
    """The rank of each row in its window partition without gaps after ties (1, 2, 2, 3)."""
    return Column(DenseRank())


def percent_rank() -> Column:
    """``(rank - 1) / (rows in the partition - 1)``, 0.0 for a partition of one row."""
    return Column(PercentRank())


def cume_dist() -> Column:
    """The fraction of the partition's rows ordered at or before each row (its peers included)."""
    return Column(CumeDist())


def ntile(n: int) -> Column:
    """The bucket (1 to ``n``) of each row when its ordered partition is cut into ``n`` buckets
    whose sizes differ by at most one, the larger ones first.

    Parameters
    ----------
    n : int
        The number of buckets (positive).
    """
    return Column(NTile(n))


def lag(col: Column | str, offset: int = 1, default: Any | None = None) -> Column:
    """The value of ``col`` ``offset`` rows before the current row in its window partition;
    ``default`` where there is no such row.

    Parameters
    ----------
    col : Column or str
        The column.
    offset : int
        How many rows back (a negative offset looks ahead).
    default : Any, optional
        The value where the row is outside the partition (a null value at that row stays null).
    """
    return Column(Lag(expr_of(col), offset, None if default is None else to_expr(default)))


def lead(col: Column | str, offset: int = 1, default: Any | None = None) -> Column:
    """The value of ``col`` ``offset`` rows after the current row in its window partition;
    ``default`` where there is no such row.

    Parameters
    ----------
    col : Column or str
        The column.
    offset : int
        How many rows ahead (a negative offset looks back).
    default : Any, optional
        The value where the row is outside the partition (a null value at that row stays null).
    """
    return Column(Lead(expr_of(col), offset, None if default is None else to_expr(default)))


def nth_value(col: Column | str, offset: int, ignoreNulls: bool = False) -> Column:  # noqa: N803 - PySpark's name
    """The value of ``col`` at the ``offset``-th row of the window frame (1 is the first), or null
    when the frame has fewer rows; with ``ignoreNulls``, the ``offset``-th non-null value.

    The frame is the window's, as for an aggregate: by default, with an ordering, the rows
    up to the current row's last peer.

    Parameters
    ----------
    col : Column or str
        The column.
    offset : int
        The row of the frame (positive).
    ignoreNulls : bool
        Skip null values.
    """
    return Column(NthValue(expr_of(col), offset, ignoreNulls))

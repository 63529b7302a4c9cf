"""More generator functions of ``dstream.sql.functions``: ``inline``, ``inline_outer`` and
``stack`` (``explode`` and ``posexplode`` are in the main module).

What this module owns
---------------------
The public builders, with PySpark's names and parameters; the semantics are stated in
``expressions.table_generators``.

Examples
--------
>>> df = spark.createDataFrame([([(1, "a"), (2, "b")],)], "s array<struct<n: int, t: string>>")
>>> df.select(inline("s")).collect()
[Row(n=1, t='a'), Row(n=2, t='b')]
>>> spark.range(1).select(stack(lit(2), lit("x"), lit(1), lit("y"), lit(2))).collect()
[Row(col0='x', col1=1), Row(col0='y', col1=2)]
"""

from __future__ import annotations

from typing import Any

from .column import Column, expr_of, to_expr
from .expressions.table_generators import Inline, Stack

__all__ = ["inline", "inline_outer", "stack"]

ColumnOrName = Column | str


def inline(col: ColumnOrName) -> Column:
    """One row per struct of an array of structs, one column per field.

    Parameters
    ----------
    col : Column or str
        The arrays of structs.
    """
    return Column(Inline(expr_of(col)))


def inline_outer(col: ColumnOrName) -> Column:
    """Like :func:`inline`, but a null or empty array gives one row of nulls."""
    return Column(Inline(expr_of(col), outer=True))


def stack(*cols: Any) -> Column:
    """``stack(n, v1, ..., vk)``: ``n`` rows per row, the values laid out row by row in ``col0``, ``col1``...

    Parameters
    ----------
    cols : Column, str or Any
        The number of rows (a positive integer constant), then the values (a ``str`` is a
        column name, as in PySpark).
    """
    return Column(Stack(*[expr_of(c) if isinstance(c, str | Column) else to_expr(c) for c in cols]))

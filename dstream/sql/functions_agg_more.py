"""More aggregate functions of ``dstream.sql.functions``: ``bool_and``, ``every``,
``bool_or``, ``some``, ``count_if``, ``product``, ``any_value``, ``first_value`` and
``last_value``, and ``grouping``/``grouping_id`` for ``cube`` and ``rollup``.

What this module owns
---------------------
The public builders, with PySpark's names and parameters; the functions are
``expressions.logical_aggregates``'s. A name that is another's alias in Spark
(``every`` for ``bool_and``) names the column so, as Spark does.

Examples
--------
>>> df = spark.createDataFrame([("a", True, 2), ("a", False, 3), ("b", True, None)], "k string, p boolean, v int")
>>> df.groupBy("k").agg(bool_and("p").alias("all"), bool_or("p").alias("any"), count_if("p").alias("n"),
...                     product("v").alias("prod")).orderBy("k").collect()
[Row(k='a', all=False, any=True, n=1, prod=6.0), Row(k='b', all=True, any=True, n=1, prod=None)]
"""

from __future__ import annotations

from .column import Column, expr_of
from .expressions.aggregate_base import AggregateFunction
from .expressions.grouping import Grouping, GroupingID
from .expressions.logical_aggregates import AnyValue, BoolAnd, BoolOr, CountIf, FirstValue, LastValue, Product

__all__ = ["any_value", "bool_and", "bool_or", "count_if", "every", "first_value", "grouping", "grouping_id",
           "last_value", "product", "some"]

ColumnOrName = Column | str


def _named(fn: AggregateFunction, name: str) -> Column:
    fn.name = name
    return Column(fn)


def bool_and(col: ColumnOrName) -> Column:
    """Whether every non-null value is true (null over none)."""
    return Column(BoolAnd(expr_of(col)))


def every(col: ColumnOrName) -> Column:
    """:func:`bool_and` under SQL's other name."""
    return _named(BoolAnd(expr_of(col)), "every")


def bool_or(col: ColumnOrName) -> Column:
    """Whether some non-null value is true (null over none)."""
    return Column(BoolOr(expr_of(col)))


def some(col: ColumnOrName) -> Column:
    """:func:`bool_or` under SQL's other name."""
    return _named(BoolOr(expr_of(col)), "some")


def count_if(col: ColumnOrName) -> Column:
    """The number of rows where the condition is true."""
    return Column(CountIf([expr_of(col)]))


def product(col: ColumnOrName) -> Column:
    """The product of the non-null values, as a double (null over none)."""
    return Column(Product(expr_of(col)))


def any_value(col: ColumnOrName, ignoreNulls: bool | None = None) -> Column:  # noqa: N803 - PySpark's name
    """A value of the group (with ``ignoreNulls``, a non-null one if there is one)."""
    return Column(AnyValue(expr_of(col), bool(ignoreNulls)))


def first_value(col: ColumnOrName, ignoreNulls: bool | None = None) -> Column:  # noqa: N803 - PySpark's name
    """The first value of the group (or of a window frame), as ``first``."""
    return Column(FirstValue(expr_of(col), bool(ignoreNulls)))


def last_value(col: ColumnOrName, ignoreNulls: bool | None = None) -> Column:  # noqa: N803 - PySpark's name
    """The last value of the group (or of a window frame), as ``last``."""
    return Column(LastValue(expr_of(col), bool(ignoreNulls)))


def grouping(col: ColumnOrName) -> Column:
    """1 on the rows of a ``cube``/``rollup`` that aggregate over ``col`` (its value there is the
    null of the total, not a null key), else 0."""
    return Column(Grouping(expr_of(col)))


def grouping_id(*cols: ColumnOrName) -> Column:
    """The bits of ``grouping`` of ``cols`` (every key when none), the first the most significant."""
    return Column(GroupingID(*[expr_of(c) for c in cols]))

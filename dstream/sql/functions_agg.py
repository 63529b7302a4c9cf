"""Aggregate functions of ``dstream.sql.functions``: ``count``, ``sum``, ``avg``, ``collect_list``...

What this module owns
---------------------
The public builders of aggregate columns, with PySpark's names and parameters; each
wraps a node of :mod:`dstream.sql.expressions.aggregates`. ``functions`` re-exports
them.

Invariants
----------
* ``count("*")`` is ``count(1)``; a column name or a ``Column`` is accepted everywhere.
"""

from __future__ import annotations

from .column import Column, expr_of
from .expressions.aggregates import (
    ApproxCountDistinct,
    Avg,
    CollectList,
    CollectSet,
    Count,
    CountDistinct,
    StddevSamp,
    Sum,
    VarianceSamp,
)
from .expressions.base import Literal
from .expressions.value_aggregates import First, Last, Max, Min
from .types import IntegerType

__all__ = [
    "approx_count_distinct",
    "avg",
    "collect_list",
    "collect_set",
    "count",
    "countDistinct",
    "count_distinct",
    "first",
    "last",
    "max",
    "mean",
    "min",
    "stddev",
    "stddev_samp",
    "sum",
    "sum_distinct",
    "var_samp",
    "variance",
]


def count(col: Column | str) -> Column:
    """The number of non-null values (``count("*")``: of rows).

    Parameters
    ----------
    col : Column or str
        The column, or ``"*"``.
    """
    if isinstance(col, str) and col == "*":
        return Column(Count([Literal(1, IntegerType())]))
    return Column(Count([expr_of(col)]))


def count_distinct(col: Column | str, *cols: Column | str) -> Column:
    """The number of distinct non-null values, or of distinct tuples of several columns.

    Parameters
    ----------
    col : Column or str
        The first column.
    cols : Column or str
        More columns: then the distinct tuples are counted, those with a null in any
        column left out (``count(DISTINCT a, b)``).
    """
    if cols:
        from .expressions.distinct_tuple import DistinctTuple  # noqa: PLC0415 - rare path

        return Column(CountDistinct(DistinctTuple([expr_of(c) for c in (col, *cols)])))
    return Column(CountDistinct(expr_of(col)))


countDistinct = count_distinct  # noqa: N816 - PySpark's name


def approx_count_distinct(col: Column | str, rsd: float | None = None) -> Column:
    """The number of distinct values (computed exactly).

    Parameters
    ----------
    col : Column or str
        The column.
    rsd : float, optional
        Accepted for compatibility; the count is exact.
    """
    return Column(ApproxCountDistinct(expr_of(col)))


def sum(col: Column | str) -> Column:  # noqa: A001 - PySpark's name
    """The sum of the non-null values (bigint for integers); null over no values.

    Parameters
    ----------
    col : Column or str
        The column.
    """
    return Column(Sum(expr_of(col)))


def sum_distinct(col: Column | str) -> Column:
    """The sum of the distinct non-null values.

    Parameters
    ----------
    col : Column or str
        The column.
    """
    return Column(Sum(expr_of(col), distinct=True))


def avg(col: Column | str) -> Column:
    """The mean of the non-null values.

    Parameters
    ----------
    col : Column or str
        The column.
    """
    return Column(Avg(expr_of(col)))


mean = avg


def min(col: Column | str) -> Column:  # noqa: A001 - PySpark's name
    """The smallest value.

    Parameters
    ----------
    col : Column or str
        The column.
    """
    return Column(Min(expr_of(col)))


def max(col: Column | str) -> Column:  # noqa: A001 - PySpark's name
    """The largest value.

    Parameters
    ----------
    col : Column or str
        The column.
    """
    return Column(Max(expr_of(col)))


def first(col: Column | str, ignorenulls: bool = False) -> Column:
    """The first value of the group (in input order).

    Parameters
    ----------
    col : Column or str
        The column.
    ignorenulls : bool
        Skip nulls.
    """
    return Column(First(expr_of(col), ignorenulls))


def last(col: Column | str, ignorenulls: bool = False) -> Column:
    """The last value of the group (in input order).

    Parameters
    ----------
    col : Column or str
        The column.
    ignorenulls : bool
        Skip nulls.
    """
    return Column(Last(expr_of(col), ignorenulls))


def collect_list(col: Column | str) -> Column:
    """The non-null values of the group as an array.

    Parameters
    ----------
    col : Column or str
        The column.
    """
    return Column(CollectList(expr_of(col)))


def collect_set(col: Column | str) -> Column:
    """The distinct non-null values of the group as an array.

    Parameters
    ----------
    col : Column or str
        The column.
    """
    return Column(CollectSet(expr_of(col)))


def stddev_samp(col: Column | str) -> Column:
    """The sample standard deviation.

    Parameters
    ----------
    col : Column or str
        The column.
    """
    return Column(StddevSamp(expr_of(col)))


def stddev(col: Column | str) -> Column:
    """The sample standard deviation (named ``stddev``).

    Parameters
    ----------
    col : Column or str
        The column.
    """
    return Column(StddevSamp(expr_of(col), name="stddev"))


def var_samp(col: Column | str) -> Column:
    """The sample variance.

    Parameters
    ----------
    col : Column or str
        The column.
    """
    return Column(VarianceSamp(expr_of(col)))


def variance(col: Column | str) -> Column:
    """The sample variance (named ``variance``).

    Parameters
    ----------
    col : Column or str
        The column.
    """
    return Column(VarianceSamp(expr_of(col), name="variance"))

"""Statistical aggregates of ``dstream.sql.functions``: ``var_pop``, ``stddev_pop``, ``skewness``,
``kurtosis``, ``corr``, ``covar_pop``, ``covar_samp``, ``median``, ``percentile``,
``percentile_approx``, ``mode``, ``max_by``, ``min_by``.

What this module owns
---------------------
The public builders, with PySpark's names and parameters, over the aggregate functions
of ``expressions.statistical_aggregates`` (where their semantics are stated).
Percentages are Python numbers or lists of them (a literal Column is read as its value).
"""

from __future__ import annotations

from typing import Any

from .column import Column, expr_of
from .expressions.base import Literal
from .expressions.statistical_aggregates import (
    Corr,
    Covariance,
    ExtremeBy,
    Mode,
    Moment,
    Percentile,
    PercentileApprox,
    StddevPop,
    VariancePop,
)

__all__ = [
    "approx_percentile",
    "histogram_numeric",
    "corr",
    "covar_pop",
    "covar_samp",
    "kurtosis",
    "max_by",
    "median",
    "min_by",
    "mode",
    "percentile",
    "percentile_approx",
    "skewness",
    "stddev_pop",
    "var_pop",
]

ColumnOrName = Column | str


def _value(argument: Any) -> Any:
    """A Python value given as itself or as a literal Column (``F.lit(0.5)``, ``F.array(...)`` of literals)."""
    if isinstance(argument, Column):
        node = argument._expr
        if isinstance(node, Literal):
            return node.value
        if node.children and all(isinstance(c, Literal) for c in node.children):
            return [c.value for c in node.children if isinstance(c, Literal)]
        raise ValueError(f"expected a constant (a number or a list of numbers), got the column {node.sql()}")
    return argument


def var_pop(col: ColumnOrName) -> Column:
    """The population variance.

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return Column(VariancePop(expr_of(col)))


def stddev_pop(col: ColumnOrName) -> Column:
    """The population standard deviation.

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return Column(StddevPop(expr_of(col)))


def skewness(col: ColumnOrName) -> Column:
    """The skewness of the values (population; null without variance).

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return Column(Moment(expr_of(col), "skewness"))


def kurtosis(col: ColumnOrName) -> Column:
    """The excess kurtosis of the values (population; null without variance).

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return Column(Moment(expr_of(col), "kurtosis"))


def corr(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """Pearson's correlation coefficient of the pairs with both values.

    Parameters
    ----------
    col1, col2 : Column or str
        The two numbers of each row.
    """
    return Column(Corr(expr_of(col1), expr_of(col2), "corr"))


def covar_pop(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """The population covariance of the pairs with both values.

    Parameters
    ----------
    col1, col2 : Column or str
        The two numbers of each row.
    """
    return Column(Covariance(expr_of(col1), expr_of(col2), "covar_pop"))


def covar_samp(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """The sample covariance of the pairs with both values.

    Parameters
    ----------
    col1, col2 : Column or str
        The two numbers of each row.
    """
    return Column(Covariance(expr_of(col1), expr_of(col2), "covar_samp"))


def max_by(col: ColumnOrName, ord: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    """The value of ``col`` on the row with the largest ``ord``.

    Parameters
    ----------
    col : Column or str
        The value to return.
    ord : Column or str
        The ordering.
    """
    return Column(ExtremeBy(expr_of(col), expr_of(ord), "max_by"))


def min_by(col: ColumnOrName, ord: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    """The value of ``col`` on the row with the smallest ``ord``.

    Parameters
    ----------
    col : Column or str
        The value to return.
    ord : Column or str
        The ordering.
    """
    return Column(ExtremeBy(expr_of(col), expr_of(ord), "min_by"))


def median(col: ColumnOrName) -> Column:
    """The median (exact, interpolated between the two middle values).

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return Column(Percentile(expr_of(col), 0.5, "median"))


def percentile(col: ColumnOrName, percentage: Any, frequency: Any = 1) -> Column:
    """The exact percentile(s), interpolated between ranks.

    Parameters
    ----------
    col : Column or str
        The numbers.
    percentage : float or list of float
        Between 0.0 and 1.0; a list gives an array.
    frequency : int
        Only 1 (each row counts once) is supported.
    """
    if _value(frequency) != 1:
        raise ValueError(f"percentile's frequency must be 1 here (each row counted once), got {frequency!r}")
    return Column(Percentile(expr_of(col), _value(percentage)))


def percentile_approx(col: ColumnOrName, percentage: Any, accuracy: Any = 10000) -> Column:
    """A value of the group at the percentile(s): the smallest with at least that share at or below it.

    Parameters
    ----------
    col : Column or str
        The values (any orderable type).
    percentage : float or list of float
        Between 0.0 and 1.0; a list gives an array.
    accuracy : int
        Spark's accuracy (the answer here is exact whatever it is).
    """
    return Column(PercentileApprox(expr_of(col), _value(percentage), _value(accuracy)))


def histogram_numeric(col: ColumnOrName, nBins: Any) -> Column:  # noqa: N803 - PySpark's name
    """A histogram of at most ``nBins`` bins: an array of ``struct<x, y>`` (bin centers and heights)
    sorted by ``x``, Spark's streaming histogram (ties broken as Spark breaks them).

    Parameters
    ----------
    col : Column or str
        The numbers.
    nBins : int or Column
        The most bins (a literal of at least 2).
    """
    from .expressions.histogram import HistogramNumeric  # noqa: PLC0415 - loads with its first use

    return Column(HistogramNumeric(expr_of(col), _value(nBins)))


def approx_percentile(col: ColumnOrName, percentage: Any, accuracy: Any = 10000) -> Column:
    """:func:`percentile_approx` by its other name."""
    return percentile_approx(col, percentage, accuracy)


def mode(col: ColumnOrName, deterministic: bool = False) -> Column:
    """The most frequent value (the smallest of equally frequent ones, also without ``deterministic``).

    Parameters
    ----------
    col : Column or str
        The values.
    deterministic : bool
        Accepted for PySpark compatibility: ties always go to the smallest value.
    """
    return Column(Mode(expr_of(col)))

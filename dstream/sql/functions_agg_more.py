"""More aggregate functions of ``dstream.sql.functions``: ``bool_and``, ``every``,
``bool_or``, ``some``, ``count_if``, ``product``, ``any_value``, ``first_value`` and
``last_value``, ``grouping``/``grouping_id`` for ``cube`` and ``rollup``, ``try_sum``,
``try_avg``, ``bit_and``, ``bit_or``, ``bit_xor``, the ``regr_*`` functions and the bitmap
functions (``bitmap_construct_agg``, ``bitmap_or_agg``, ``bitmap_count``, ``bitmap_bucket_number``,
``bitmap_bit_position``).

What this module owns
---------------------
The public builders, with PySpark's names and parameters; the functions are
``expressions.logical_aggregates``'s and ``expressions.numeric_aggregates``'s. A name that is another's alias in Spark
(``every`` for ``bool_and``) names the column so, as Spark does.

Examples
--------
>>> df = spark.createDataFrame([("a", True, 2), ("a", False, 3), ("b", True, None)], "k string, p boolean, v int")
>>> df.groupBy("k").agg(bool_and("p").alias("all"), bool_or("p").alias("any"), count_if("p").alias("n"),
...                     product("v").alias("prod")).orderBy("k").collect()
[Row(k='a', all=False, any=True, n=1, prod=6.0), Row(k='b', all=True, any=True, n=1, prod=None)]
"""

from __future__ import annotations

from typing import Any

from .column import Column, expr_of
from .expressions.aggregate_base import AggregateFunction
from .expressions.base import Literal
from .expressions.bitmap_functions import BitmapConstructAgg, BitmapOrAgg
from .expressions.grouping import Grouping, GroupingID
from .expressions.logical_aggregates import AnyValue, BoolAnd, BoolOr, CountIf, FirstValue, LastValue, Product
from .expressions.numeric_aggregates import BitAggregate, ListAgg, Regression, TryAvg, TrySum
from .functions_scalar import _call
from .types import BinaryType, NullType, StringType

__all__ = ["any_value", "bit_and", "bit_or", "bit_xor", "bitmap_bit_position", "bitmap_bucket_number",
           "bitmap_construct_agg", "bitmap_count", "bitmap_or_agg", "bool_and", "bool_or", "count_if", "every",
           "first_value",
           "grouping", "grouping_id", "last_value", "listagg", "listagg_distinct", "product", "regr_avgx", "regr_avgy",
           "regr_count", "regr_intercept", "regr_r2", "regr_slope", "regr_sxx", "regr_sxy", "regr_syy", "some",
           "string_agg", "string_agg_distinct", "try_avg", "try_sum"]

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


def try_sum(col: ColumnOrName) -> Column:
    """``sum``, but null (instead of an error or a wrapped value) when an integral sum overflows bigint.

    Examples
    --------
    >>> df = spark.createDataFrame([(9223372036854775807,), (1,)], "v bigint")
    >>> df.select(try_sum("v"), try_sum(df.v - 1)).collect()
    [Row(try_sum(v)=None, try_sum((v - 1))=9223372036854775806)]
    """
    return Column(TrySum(expr_of(col)))


def try_avg(col: ColumnOrName) -> Column:
    """``avg``, but null instead of an error on overflow (a double average of integers cannot overflow)."""
    return Column(TryAvg(expr_of(col)))


def bit_and(col: ColumnOrName) -> Column:
    """The bitwise AND of the non-null values of an integral column (null over none).

    Examples
    --------
    >>> df = spark.createDataFrame([(6,), (3,), (None,)], "v int")
    >>> df.select(bit_and("v"), bit_or("v"), bit_xor("v")).collect()
    [Row(bit_and(v)=2, bit_or(v)=7, bit_xor(v)=5)]
    """
    return Column(BitAggregate(expr_of(col), "bit_and"))


def bit_or(col: ColumnOrName) -> Column:
    """The bitwise OR of the non-null values of an integral column (null over none)."""
    return Column(BitAggregate(expr_of(col), "bit_or"))


def bit_xor(col: ColumnOrName) -> Column:
    """The bitwise XOR of the non-null values of an integral column (null over none)."""
    return Column(BitAggregate(expr_of(col), "bit_xor"))


def bitmap_bucket_number(col: ColumnOrName) -> Column:
    """The bucket of a bigint among bitmaps of 32768 values (``(v - 1) / 32768 + 1`` for ``v > 0``)."""
    return _call("bitmap_bucket_number", expr_of(col))


def bitmap_bit_position(col: ColumnOrName) -> Column:
    """The bit of a bigint in its bucket's bitmap (``(v - 1) % 32768`` for ``v > 0``)."""
    return _call("bitmap_bit_position", expr_of(col))


def bitmap_count(col: ColumnOrName) -> Column:
    """The number of bits set in a bitmap (a binary)."""
    return _call("bitmap_count", expr_of(col))


def bitmap_construct_agg(col: ColumnOrName) -> Column:
    """The 4096-byte bitmap with the bit of each of a group's non-null positions set.

    Examples
    --------
    >>> df = spark.createDataFrame([(1,), (2,), (9,)], "v long")
    >>> df.agg(bitmap_construct_agg(bitmap_bit_position("v")).alias("b")).select(bitmap_count("b")).first()[0]
    3
    """
    return Column(BitmapConstructAgg(expr_of(col)))


def bitmap_or_agg(col: ColumnOrName) -> Column:
    """The bitwise OR of a group's bitmaps (4096 bytes)."""
    return Column(BitmapOrAgg(expr_of(col)))


def _regression(name: str, y: ColumnOrName, x: ColumnOrName) -> Column:
    return Column(Regression(expr_of(y), expr_of(x), name))


def regr_count(y: ColumnOrName, x: ColumnOrName) -> Column:
    """The number of rows where neither ``y`` nor ``x`` is null.

    Examples
    --------
    >>> df = spark.createDataFrame([(1.0, 1.0), (3.0, 2.0), (5.0, 3.0), (None, 4.0)], "y double, x double")
    >>> df.select(regr_count("y", "x"), regr_slope("y", "x"), regr_intercept("y", "x"), regr_r2("y", "x")).collect()
    [Row(regr_count(y, x)=3, regr_slope(y, x)=2.0, regr_intercept(y, x)=-1.0, regr_r2(y, x)=1.0)]
    """
    return _regression("regr_count", y, x)


def regr_avgx(y: ColumnOrName, x: ColumnOrName) -> Column:
    """The mean of ``x`` over the rows where neither is null."""
    return _regression("regr_avgx", y, x)


def regr_avgy(y: ColumnOrName, x: ColumnOrName) -> Column:
    """The mean of ``y`` over the rows where neither is null."""
    return _regression("regr_avgy", y, x)


def regr_sxx(y: ColumnOrName, x: ColumnOrName) -> Column:
    """``regr_count * var_pop(x)`` over the rows where neither is null."""
    return _regression("regr_sxx", y, x)


def regr_syy(y: ColumnOrName, x: ColumnOrName) -> Column:
    """``regr_count * var_pop(y)`` over the rows where neither is null."""
    return _regression("regr_syy", y, x)


def regr_sxy(y: ColumnOrName, x: ColumnOrName) -> Column:
    """``regr_count * covar_pop(y, x)`` over the rows where neither is null."""
    return _regression("regr_sxy", y, x)


def regr_slope(y: ColumnOrName, x: ColumnOrName) -> Column:
    """The slope of the least-squares line of ``y`` on ``x`` (null when ``x`` does not vary)."""
    return _regression("regr_slope", y, x)


def regr_intercept(y: ColumnOrName, x: ColumnOrName) -> Column:
    """The intercept of the least-squares line of ``y`` on ``x`` (null when ``x`` does not vary)."""
    return _regression("regr_intercept", y, x)


def regr_r2(y: ColumnOrName, x: ColumnOrName) -> Column:
    """The coefficient of determination of ``y`` on ``x``: null when ``x`` does not vary, 1 when only ``y``
    does not."""
    return _regression("regr_r2", y, x)


def _delimiter(delimiter: Column | str | bytes | None) -> Any:
    if delimiter is None:
        return Literal(None, NullType())
    if isinstance(delimiter, bytes):
        return Literal(delimiter, BinaryType())
    if isinstance(delimiter, str):
        return Literal(delimiter, StringType())
    return expr_of(delimiter)


def listagg(col: ColumnOrName, delimiter: Column | str | bytes | None = None) -> Column:
    """The group's non-null strings (or binaries) joined by ``delimiter`` (none when omitted), in the
    order the rows came; null over none.

    Examples
    --------
    >>> df = spark.createDataFrame([('a',), ('b',), (None,), ('c',)], ['strings'])
    >>> df.select(listagg('strings'), listagg('strings', ', ')).collect()
    [Row(listagg(strings, NULL)='abc', listagg(strings, , )='a, b, c')]
    """
    return Column(ListAgg(expr_of(col), _delimiter(delimiter)))


def listagg_distinct(col: ColumnOrName, delimiter: Column | str | bytes | None = None) -> Column:
    """:func:`listagg` of the distinct values."""
    return Column(ListAgg(expr_of(col), _delimiter(delimiter), distinct=True))


def string_agg(col: ColumnOrName, delimiter: Column | str | bytes | None = None) -> Column:
    """:func:`listagg` under its other name."""
    return Column(ListAgg(expr_of(col), _delimiter(delimiter), "string_agg"))


def string_agg_distinct(col: ColumnOrName, delimiter: Column | str | bytes | None = None) -> Column:
    """:func:`listagg_distinct` under :func:`string_agg`'s name."""
    return Column(ListAgg(expr_of(col), _delimiter(delimiter), "string_agg", distinct=True))

"""The higher-order functions of ``dstream.sql.functions``: ``transform``, ``filter``,
``exists``, ``forall``, ``aggregate`` (and ``reduce``) and ``zip_with`` over arrays;
``map_filter``, ``transform_keys``, ``transform_values`` and ``map_zip_with`` over maps.

What this module owns
---------------------
The public builders, with PySpark's names and parameters, and the making of a lambda
from a Python function of Columns (PySpark's ``_create_lambda``): its parameters are
named ``x_<n>``, ``y_<n>``, ``z_<n>`` with a process-wide counter, as PySpark names
them (a lambda written in SQL keeps its own names). The expressions are
``expressions.higher_order``'s and ``expressions.map_higher_order``'s.

Examples
--------
>>> df = spark.createDataFrame([([1, 2, 3, None],)], "a array<int>")
>>> df.select(transform("a", lambda x: x * 10).alias("t"), filter("a", lambda x: x > 1).alias("f"),
...           exists("a", lambda x: x > 2).alias("e"), aggregate("a", lit(0), lambda acc, x: acc + coalesce(x, lit(0)))
...           .alias("s")).collect()
[Row(t=[10, 20, 30, None], f=[2, 3], e=True, s=6)]
"""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable

from .column import Column, expr_of
from .errors import PySparkTypeError, PySparkValueError
from .expressions.higher_order import (
    ArrayAggregate,
    ArrayExists,
    ArrayFilter,
    ArrayForAll,
    ArrayTransform,
    LambdaFunction,
    LambdaVariable,
    ZipWith,
)
from .expressions.map_higher_order import MapFilter, MapZipWith, TransformKeys, TransformValues

__all__ = ["aggregate", "exists", "filter", "forall", "map_filter", "map_zip_with", "reduce", "transform",
           "transform_keys", "transform_values", "zip_with"]

ColumnOrName = Column | str

_fresh = itertools.count()


def _lambda(f: Callable[..., Column], arities: tuple[int, ...]) -> LambdaFunction:
    if not callable(f):
        raise PySparkTypeError(f"Argument `f` should be a function, got {type(f).__name__}.", "NOT_CALLABLE",
                               {"arg_name": "f", "arg_type": type(f).__name__})
    parameters = [p for p in inspect.signature(f).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(parameters) not in arities:
        raise PySparkValueError(
            f"Function `{getattr(f, '__name__', f)}` should take between {min(arities)} and {max(arities)} "
            f"arguments, but provided function takes {len(parameters)}.",
            "WRONG_NUM_ARGS_FOR_HIGHER_ORDER_FUNCTION", {"func_name": getattr(f, "__name__", str(f)),
                                                         "num_args": str(len(parameters))})
    given = getattr(f, "lambda_names", None)
    names = list(given) if given else [f"{'xyz'[i]}_{next(_fresh)}" for i in range(len(parameters))]
    variables = [LambdaVariable(name) for name in names]
    body = f(*[Column(v) for v in variables])
    if not isinstance(body, Column):
        raise PySparkValueError(
            f"Function `{getattr(f, '__name__', f)}` should return Column, got {type(body).__name__}.",
            "HIGHER_ORDER_FUNCTION_SHOULD_RETURN_COLUMN", {"func_name": getattr(f, "__name__", str(f)),
                                                           "return_type": type(body).__name__})
    return LambdaFunction(body.expr, variables)


def transform(col: ColumnOrName, f: Callable[..., Column]) -> Column:
    """Each element of the arrays mapped by ``f(x)`` or ``f(x, i)`` (``i`` its 0-based position).

    Parameters
    ----------
    col : Column or str
        The arrays.
    f : function
        Of one or two Columns, returning a Column.
    """
    return Column(ArrayTransform(expr_of(col), _lambda(f, (1, 2))))


def filter(col: ColumnOrName, f: Callable[..., Column]) -> Column:  # noqa: A001 - PySpark's name
    """The elements for which ``f(x)`` (or ``f(x, i)``) is true.

    Parameters
    ----------
    col : Column or str
        The arrays.
    f : function
        Of one or two Columns, returning a boolean Column.
    """
    return Column(ArrayFilter(expr_of(col), _lambda(f, (1, 2))))


def exists(col: ColumnOrName, f: Callable[[Column], Column]) -> Column:
    """Whether ``f(x)`` is true for some element (null if none is and some give null).

    Parameters
    ----------
    col : Column or str
        The arrays.
    f : function
        Of one Column, returning a boolean Column.
    """
    return Column(ArrayExists(expr_of(col), _lambda(f, (1,))))


def forall(col: ColumnOrName, f: Callable[[Column], Column]) -> Column:
    """Whether ``f(x)`` is true for every element (null if none is false and some give null).

    Parameters
    ----------
    col : Column or str
        The arrays.
    f : function
        Of one Column, returning a boolean Column.
    """
    return Column(ArrayForAll(expr_of(col), _lambda(f, (1,))))


def aggregate(col: ColumnOrName, initialValue: ColumnOrName, merge: Callable[[Column, Column], Column],  # noqa: N803
              finish: Callable[[Column], Column] | None = None) -> Column:
    """The arrays folded left: ``merge(acc, x)`` from ``initialValue``, then ``finish(acc)``.

    Parameters
    ----------
    col : Column or str
        The arrays.
    initialValue : Column or str
        The start (its type is the accumulator's: ``merge`` must return the same type).
    merge : function
        Of the accumulator and an element.
    finish : function, optional
        Of the final accumulator.
    """
    functions = [_lambda(merge, (2,))] + ([] if finish is None else [_lambda(finish, (1,))])
    return Column(ArrayAggregate(expr_of(col), expr_of(initialValue), *functions))


def reduce(col: ColumnOrName, initialValue: ColumnOrName, merge: Callable[[Column, Column], Column],  # noqa: N803
           finish: Callable[[Column], Column] | None = None) -> Column:
    """:func:`aggregate` under PySpark 3.5's other name."""
    return aggregate(col, initialValue, merge, finish)


def zip_with(left: ColumnOrName, right: ColumnOrName, f: Callable[[Column, Column], Column]) -> Column:
    """``f(x, y)`` of the elements at each position of two arrays (the shorter padded with nulls).

    Parameters
    ----------
    left, right : Column or str
        The arrays.
    f : function
        Of two Columns.
    """
    return Column(ZipWith(expr_of(left), expr_of(right), _lambda(f, (2,))))


def map_filter(col: ColumnOrName, f: Callable[[Column, Column], Column]) -> Column:
    """The entries of each map for which ``f(key, value)`` is true.

    Parameters
    ----------
    col : Column or str
        The maps.
    f : function
        Of two Columns (key, value), returning a boolean Column.
    """
    return Column(MapFilter(expr_of(col), _lambda(f, (2,))))


def transform_values(col: ColumnOrName, f: Callable[[Column, Column], Column]) -> Column:
    """Each map with its values replaced by ``f(key, value)``.

    Parameters
    ----------
    col : Column or str
        The maps.
    f : function
        Of two Columns (key, value).
    """
    return Column(TransformValues(expr_of(col), _lambda(f, (2,))))


def transform_keys(col: ColumnOrName, f: Callable[[Column, Column], Column]) -> Column:
    """Each map with its keys replaced by ``f(key, value)`` (a null or repeated key is an error).

    Parameters
    ----------
    col : Column or str
        The maps.
    f : function
        Of two Columns (key, value).
    """
    return Column(TransformKeys(expr_of(col), _lambda(f, (2,))))


def map_zip_with(col1: ColumnOrName, col2: ColumnOrName, f: Callable[[Column, Column, Column], Column]) -> Column:
    """``f(key, value1, value2)`` over the union of two maps' keys (a missing value is null).

    Parameters
    ----------
    col1, col2 : Column or str
        The maps (their keys of one type).
    f : function
        Of three Columns (key, the first map's value, the second's).
    """
    return Column(MapZipWith(expr_of(col1), expr_of(col2), _lambda(f, (3,))))

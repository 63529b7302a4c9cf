"""``pandas_udf``: Python functions over pandas Series as column functions, in PySpark's forms.

What this module owns
---------------------
:func:`pandas_udf` (``@pandas_udf("double")``, ``pandas_udf(f, returnType)``,
``@pandas_udf(returnType=..., functionType=PandasUDFType.SCALAR)``), :class:`PandasUDFType`
and :class:`PandasUserDefinedFunction`, what it returns: called on columns it builds a
:class:`~dstream.sql.expressions.pandas_udf.PandasUDF` (``SCALAR``, ``SCALAR_ITER``) or a
:class:`~dstream.sql.expressions.pandas_udf.PandasAggUDF` (``GROUPED_AGG``).

Invariants
----------
* Without ``functionType`` the kind comes from the type hints, as PySpark infers it:
  ``Iterator[...]`` in and out is ``SCALAR_ITER``, Series (or DataFrames) in and a Series
  (or DataFrame) out is ``SCALAR``, Series in and anything else out is ``GROUPED_AGG``;
  without hints it is ``SCALAR``.
* ``GROUPED_MAP`` (``PandasUDFType.GROUPED_MAP``, PySpark's older form) makes a UDF for
  ``groupBy(...).apply(udf)`` only, with PySpark's warning; its return type is a struct.
"""

from __future__ import annotations

import collections.abc
import functools
import inspect
import typing
import warnings
from collections.abc import Callable
from typing import Any

from .column import Column, expr_of
from .errors import PySparkTypeError, PySparkValueError
from .types import DataType, StructType, _parse_datatype_string

__all__ = ["PandasUDFType", "pandas_udf"]

ColumnOrName = Column | str


class PandasUDFType:
    """The kinds of pandas UDF (PySpark's constants; type hints are the newer way to say them)."""

    SCALAR = 200
    SCALAR_ITER = 204
    GROUPED_MAP = 201
    GROUPED_AGG = 202


def _is_pandas(hint: Any) -> bool:
    return getattr(hint, "__module__", "").startswith("pandas") and getattr(hint, "__name__", "") in (
        "Series", "DataFrame")


def infer_eval_type(func: Callable[..., Any]) -> int:
    """The kind of pandas UDF ``func``'s type hints declare (see the module doc)."""
    try:
        hints = typing.get_type_hints(func)
    except Exception:  # noqa: BLE001 - unresolvable hints: as if there were none
        hints = {}
    returned = hints.pop("return", None)
    if not hints and returned is None:
        return PandasUDFType.SCALAR
    if typing.get_origin(returned) in (collections.abc.Iterator, collections.abc.Iterable):
        return PandasUDFType.SCALAR_ITER
    if returned is not None and _is_pandas(returned):
        return PandasUDFType.SCALAR
    return PandasUDFType.GROUPED_AGG


class PandasUserDefinedFunction:
    """A pandas UDF, callable on columns (what :func:`pandas_udf` returns).

    Attributes
    ----------
    func : callable
        The function.
    returnType : DataType
        The result type.
    evalType : int
        A :class:`PandasUDFType` value.
    """

    def __init__(self, func: Callable[..., Any], returnType: DataType, evalType: int) -> None:  # noqa: N803
        self.func = func
        self.returnType = returnType
        self.evalType = evalType
        self._name = str(getattr(func, "__name__", type(func).__name__))
        functools.update_wrapper(self, func)

    def __call__(self, *cols: ColumnOrName) -> Column:
        from .expressions.collection_functions import CreateStruct  # noqa: PLC0415 - expressions load when used
        from .expressions.pandas_udf import PandasAggUDF, PandasUDF  # noqa: PLC0415

        if self.evalType == PandasUDFType.GROUPED_MAP:
            raise PySparkTypeError(
                f"The GROUPED_MAP pandas_udf {self._name} is not a column function: pass it to "
                "groupBy(...).apply(udf), or its function to groupBy(...).applyInPandas(func, schema).",
                "INVALID_UDF_EVAL_TYPE", {"eval_type": "SQL_GROUPED_MAP_PANDAS_UDF"})
        args = [expr_of(c) for c in cols]
        if self.evalType == PandasUDFType.GROUPED_AGG:
            return Column(PandasAggUDF(self.func, self.returnType, CreateStruct(args), self._name))
        return Column(PandasUDF(self.func, self.returnType, args, self._name,
                                iterator=self.evalType == PandasUDFType.SCALAR_ITER))


def _return_type(value: Any) -> DataType:
    if isinstance(value, str):
        return _parse_datatype_string(value)
    if isinstance(value, DataType):
        return value
    raise PySparkTypeError(f"pandas_udf: returnType should be a DataType or a DDL string, got {value!r}.",
                           "NOT_DATATYPE_OR_STR", {"arg_name": "returnType", "arg_type": type(value).__name__})


def pandas_udf(f: Any = None, returnType: Any = None, functionType: int | None = None) -> Any:  # noqa: N803
    """A pandas UDF: ``@pandas_udf("double")`` over a function of pandas Series.

    Parameters
    ----------
    f : callable or DataType or str, optional
        The function, or (as a decorator's first argument) the return type.
    returnType : DataType or str, optional
        The result type (a DDL string such as ``"double"``), or, after a return type given
        as ``f``, the function type.
    functionType : int, optional
        A :class:`PandasUDFType`; inferred from the type hints when omitted.

    Examples
    --------
    >>> import pandas as pd
    >>> @pandas_udf("long")
    ... def plus_one(s: pd.Series) -> pd.Series:
    ...     return s + 1
    >>> spark.range(3).select(plus_one("id").alias("n")).collect()
    [Row(n=1), Row(n=2), Row(n=3)]
    """
    if isinstance(f, str | DataType):
        declared, kind = f, returnType if isinstance(returnType, int) else functionType
        return functools.partial(_make, returnType=declared, functionType=kind)
    if f is None:
        return functools.partial(_make, returnType=returnType, functionType=functionType)
    return _make(f, returnType=returnType, functionType=functionType)


def _make(f: Callable[..., Any], returnType: Any = None, functionType: int | None = None) -> Any:  # noqa: N803
    if not callable(f):
        raise PySparkTypeError(f"pandas_udf: argument `f` should be a function, got {type(f).__name__}.",
                               "NOT_CALLABLE", {"arg_name": "f", "arg_type": type(f).__name__})
    if returnType is None:
        raise PySparkValueError("pandas_udf needs the return type: @pandas_udf('double') or "
                                "pandas_udf(f, 'double').", "CANNOT_BE_NONE", {"arg_name": "returnType"})
    kind = infer_eval_type(f) if functionType is None else functionType
    if kind not in (PandasUDFType.SCALAR, PandasUDFType.SCALAR_ITER, PandasUDFType.GROUPED_AGG,
                    PandasUDFType.GROUPED_MAP):
        raise PySparkValueError(f"pandas_udf: unknown functionType {kind!r}; use a PandasUDFType (SCALAR, "
                                "SCALAR_ITER, GROUPED_AGG, GROUPED_MAP).", "INVALID_PANDAS_UDF_TYPE",
                                {"eval_type": str(kind)})
    if kind == PandasUDFType.GROUPED_MAP:
        # PySpark still takes the old form (for groupBy(...).apply), with its warning.
        warnings.warn("In Python 3.6+ and Spark 3.0+, it is preferred to specify type hints for pandas UDF instead "
                      "of specifying pandas UDF type which will be deprecated in the future releases. See "
                      "SPARK-28264 for more details.", UserWarning, stacklevel=3)
        declared = _return_type(returnType)
        if not isinstance(declared, StructType):
            raise PySparkTypeError(
                f"Invalid return type with grouped map Pandas UDFs or at groupby.applyInPandas(WithState) is not "
                f"supported: {declared.simpleString()} (a GROUPED_MAP pandas_udf returns a struct of columns).",
                "INVALID_RETURN_TYPE_FOR_PANDAS_UDF",
                {"eval_type": "SQL_GROUPED_MAP_PANDAS_UDF", "return_type": declared.simpleString()})
    if inspect.isclass(f):
        raise PySparkTypeError("pandas_udf takes a function, not a class.", "NOT_CALLABLE",
                               {"arg_name": "f", "arg_type": "type"})
    return PandasUserDefinedFunction(f, _return_type(returnType), kind)

"""``udf``: Python functions as column functions, in PySpark's forms.

What this module owns
---------------------
:class:`UserDefinedFunction` and :func:`udf` (``udf(f, returnType)``, ``@udf``,
``@udf("int")``, ``@udf(returnType=IntegerType())``); calling one on columns builds a
:class:`~dstream.sql.expressions.udf.PythonUDF`. ``functions`` re-exports them.

Invariants
----------
* The default return type is ``StringType()``; a DDL string names any other type.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .column import Column, expr_of
from .errors import PySparkTypeError
from .expressions.udf import PythonUDF
from .types import DataType, StringType, _parse_datatype_string

__all__ = ["UserDefinedFunction", "udf"]

ColumnOrName = Column | str


class UserDefinedFunction:
    """A Python function callable on columns (what :func:`udf` returns).

    Parameters
    ----------
    func : callable
        The function.
    returnType : DataType or str
        The result type (default string).
    name : str, optional
        The name in generated column names (default: the function's).
    deterministic : bool
        Whether the same input gives the same output.
    """

    def __init__(self, func: Callable[..., Any], returnType: DataType | str | None = None,  # noqa: N803
                 name: str | None = None, deterministic: bool = True) -> None:
        if not callable(func):
            raise PySparkTypeError(f"Argument `func` should be a callable, got "
                                   f"{type(func).__name__}.", "NOT_CALLABLE",
                                   {"arg_name": "func", "arg_type": type(func).__name__})
        self.func = func
        if returnType is None:
            returnType = StringType()  # noqa: N806 - PySpark's name
        self.returnType = _parse_datatype_string(returnType) if isinstance(returnType, str) else returnType
        self._name: str = name or str(getattr(func, "__name__", type(func).__name__))
        self.deterministic = deterministic
        functools.update_wrapper(self, func)

    def __call__(self, *cols: ColumnOrName) -> Column:
        return Column(PythonUDF(self.func, self.returnType, [expr_of(c) for c in cols], self._name,
                                self.deterministic))

    def asNondeterministic(self) -> UserDefinedFunction:  # noqa: N802 - PySpark's name
        """This UDF marked nondeterministic."""
        self.deterministic = False
        return self


def udf(f: Any = None, returnType: DataType | str | None = None, *,  # noqa: N803 - PySpark's names
        useArrow: bool | None = None) -> Any:  # noqa: N803 - PySpark's name
    """A user-defined function: ``udf(f, IntegerType())``, ``@udf``, ``@udf("int")``, ``@udf(returnType=...)``.

    Parameters
    ----------
    f : callable or DataType or str, optional
        The function (or, as a decorator argument, the return type).
    returnType : DataType or str
        The result type (default string).
    useArrow : bool, optional
        Accepted for compatibility; rows are passed one by one.
    """
    if f is None or isinstance(f, (str, DataType)):
        return_type = returnType if f is None else f
        return lambda func: UserDefinedFunction(func, return_type)
    return UserDefinedFunction(f, returnType)



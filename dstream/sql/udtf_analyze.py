"""The ``analyze`` static method of Python UDTFs: a return type (and input layout) computed per call.

What this module owns
---------------------
PySpark's :class:`AnalyzeArgument`, :class:`AnalyzeResult`, :class:`PartitioningColumn`,
:class:`OrderingColumn` and :class:`SelectedColumn` (``pyspark.sql.udtf``'s names, also
importable from ``dstream.sql.udtf``), and :func:`analyze_call`, which runs ``analyze`` on
the driver when a call is defined, as Spark's analyzer does.

Invariants
----------
* ``analyze`` gets one :class:`AnalyzeArgument` per argument: its type, its value when it
  is a constant (``isConstantExpression``), or, for a table, the table's row type with
  ``isTable``.
* Its result must be an :class:`AnalyzeResult` (or a subclass) whose ``schema`` is a
  ``StructType``; otherwise, or when ``analyze`` raises, the call fails with Spark's
  ``TABLE_VALUED_FUNCTION_FAILED_TO_ANALYZE_IN_PYTHON``.
* The result reaches ``__init__`` when the class's constructor takes an argument.
"""

from __future__ import annotations

import contextlib
import inspect
import sys
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import AnalysisException
from .types import DataType, StructType

__all__ = ["AnalyzeArgument", "AnalyzeResult", "OrderingColumn", "PartitioningColumn", "SelectedColumn",
           "analyze_call", "takes_analyze_result"]


@dataclass(frozen=True)
class AnalyzeArgument:
    """An argument as ``analyze`` sees it.

    Parameters
    ----------
    dataType : DataType
        Its type (a table's row type for a table argument).
    value : any
        Its value when it is a constant expression, else None.
    isTable : bool
        Whether it is a ``TABLE(...)`` argument.
    isConstantExpression : bool
        Whether it is a constant (``value`` is then its value, None for a NULL literal).
    """

    dataType: DataType  # noqa: N815 - PySpark's field names
    value: Any
    isTable: bool  # noqa: N815
    isConstantExpression: bool  # noqa: N815


@dataclass(frozen=True)
class PartitioningColumn:
    """A SQL expression over the table argument's columns to partition its rows by."""

    name: str


@dataclass(frozen=True)
class OrderingColumn:
    """A SQL expression over the table argument's columns to sort each partition by."""

    name: str
    ascending: bool = True
    overrideNullsFirst: bool | None = None  # noqa: N815 - PySpark's field name


@dataclass(frozen=True)
class SelectedColumn:
    """A SQL expression over the table argument's columns that ``eval``'s ``Row`` holds (named ``alias``)."""

    name: str
    alias: str = ""


@dataclass
class AnalyzeResult:
    """What ``analyze`` returns: the output ``schema`` and how the table argument reaches ``eval``.

    Not frozen: a UDTF may subclass it to hand more to its ``__init__``.
    """

    schema: StructType
    withSinglePartition: bool = False  # noqa: N815 - PySpark's field names
    partitionBy: Sequence[PartitioningColumn] = field(default_factory=tuple)  # noqa: N815
    orderBy: Sequence[OrderingColumn] = field(default_factory=tuple)  # noqa: N815
    select: Sequence[SelectedColumn] = field(default_factory=tuple)


def _failed(name: str, message: str) -> AnalysisException:
    return AnalysisException(f"Failed to analyze the Python user defined table function: {message}",
                             "TABLE_VALUED_FUNCTION_FAILED_TO_ANALYZE_IN_PYTHON", {"msg": message})


def analyze_call(handler: type, name: str, arguments: Sequence[AnalyzeArgument],
                 named: dict[str, AnalyzeArgument] | None = None) -> AnalyzeResult:
    """``handler.analyze(*arguments, **named)``, checked as Spark checks it."""
    try:
        # Spark runs analyze in a worker of its own, whose prints do not reach the driver's stdout.
        with contextlib.redirect_stdout(sys.stderr):
            result = handler.analyze(*arguments, **(named or {}))  # type: ignore[attr-defined]
    except Exception as exc:
        # The user's frames only (the first is this call), as Spark's message shows them.
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__ and exc.__traceback__.tb_next))
        raise _failed(name, text.rstrip("\n")) from exc
    if not isinstance(result, AnalyzeResult):
        raise _failed(name, f"Failed to evaluate the user-defined table function '{name}' because the static "
                            "'analyze' method expects a result of type pyspark.sql.udtf.AnalyzeResult, but instead "
                            f"this method returned a value of type: {type(result)}")
    if not isinstance(result.schema, StructType):
        raise _failed(name, f"Failed to evaluate the user-defined table function '{name}' because the static "
                            "'analyze' method expects a result of type pyspark.sql.udtf.AnalyzeResult with a "
                            "'schema' field comprising a StructType, but the 'schema' field had the wrong type: "
                            f"{type(result.schema)}")
    return result


def takes_analyze_result(handler: type) -> bool:
    """Whether the class's ``__init__`` takes an argument besides ``self`` (then it gets the result)."""
    init = vars(handler).get("__init__") or next((vars(c)["__init__"] for c in handler.__mro__
                                                   if "__init__" in vars(c)), object.__init__)
    if init is object.__init__:
        return False
    return len(inspect.signature(init).parameters) > 1

"""``udtf``: Python classes as table functions (PySpark's user-defined table functions).

What this module owns
---------------------
:class:`UserDefinedTableFunction` and :func:`udtf` (``udtf(cls, returnType=...)`` and
``@udtf(returnType=...)``), :class:`UDTFRegistration` (``spark.udtf.register``),
:class:`TableArg` (``df.asTable()``, a table argument with its partitioning), and
:func:`udtf_frame`, the DataFrame of a call: a ``Generate`` of a
:class:`~dstream.sql.expressions.udtf.PythonUDTF` over one row (constant arguments),
over a table argument's rows, or, for a lateral call, over the rows on its left.

Invariants
----------
* The return type is a ``StructType`` (or its DDL string); anything else is PySpark's
  ``UDTF_RETURN_TYPE_MISMATCH`` when the UDTF is called or registered (as in PySpark, not
  when it is made). A class without ``eval`` is ``INVALID_UDTF_NO_EVAL`` at once.
* A call runs in the tasks: one instance per partition of its input (per ``PARTITION BY``
  group for a partitioned table argument, one in all ``WITH SINGLE PARTITION``).
* A class with the ``analyze`` static method (and no return type) is analyzed when a call
  is defined (see :mod:`.udtf_analyze`): its result gives the columns, the table
  argument's partitioning, ordering and selected fields, and, if ``__init__`` takes an
  argument, that argument.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .column import Column, column_of, expr_of
from .errors import PySparkAttributeError, PySparkNotImplementedError, PySparkRuntimeError, PySparkTypeError
from .expressions.base import Expression
from .expressions.udtf import PythonUDTF, SkipRestOfInputTableException
from .types import DataType, StructType, _parse_datatype_string
from .udtf_analyze import (
    AnalyzeArgument,
    AnalyzeResult,
    OrderingColumn,
    PartitioningColumn,
    SelectedColumn,
    analyze_call,
    takes_analyze_result,
)

if TYPE_CHECKING:
    from .dataframe import DataFrame
    from .session import SparkSession

__all__ = ["AnalyzeArgument", "AnalyzeResult", "OrderingColumn", "PartitioningColumn", "SelectedColumn",
           "SkipRestOfInputTableException", "TableArg", "UDTFRegistration", "UserDefinedTableFunction", "udtf",
           "udtf_frame"]

ColumnOrName = Column | str

# PySpark's PythonEvalType values of table functions.
SQL_TABLE_UDF = 300
SQL_ARROW_TABLE_UDF = 301


class TableArg:
    """A table passed to a UDTF: its rows each become one ``Row`` argument of ``eval``.

    Made by ``df.asTable()``; ``partitionBy``/``orderBy``/``withSinglePartition`` say how
    the rows are grouped among instances of the UDTF class and ordered within each.
    """

    def __init__(self, df: DataFrame, partition_by: Sequence[Column] = (), order_by: Sequence[Column] = (),
                 single: bool = False) -> None:
        self._df = df
        self._partition_by = list(partition_by)
        self._order_by = list(order_by)
        self._single = single

    def partitionBy(self, *cols: ColumnOrName) -> TableArg:  # noqa: N802 - PySpark's name
        """The rows with equal values of ``cols`` go to one instance of the UDTF class."""
        if self._single:
            raise PySparkNotImplementedError(
                "A table argument cannot be both partitioned and in a single partition; use one of partitionBy or "
                "withSinglePartition.", "PARTITION_BY_AND_SINGLE_PARTITION", {})
        return TableArg(self._df, [_column(c) for c in cols], self._order_by, False)

    def orderBy(self, *cols: ColumnOrName) -> TableArg:  # noqa: N802 - PySpark's name
        """The order of the rows within each partition."""
        return TableArg(self._df, self._partition_by, [_column(c) for c in cols], self._single)

    def withSinglePartition(self) -> TableArg:  # noqa: N802 - PySpark's name
        """All the rows go to one instance of the UDTF class."""
        return TableArg(self._df, [], self._order_by, True)

    def prepared(self) -> tuple[DataFrame, list[Column]]:
        """The table's rows laid out as the call needs them, and the partition key columns."""
        df = self._df
        if self._single:
            df = df.repartition(1)
        elif self._partition_by:
            df = df.repartition(*self._partition_by)
        if self._partition_by or self._order_by:
            df = df.sortWithinPartitions(*self._partition_by, *self._order_by)
        return df, list(self._partition_by)


def _column(c: ColumnOrName) -> Column:
    return column_of(c)


def _expr(text: str) -> Column:
    """``F.expr(text)``, without importing the functions module (it imports this one)."""
    from .udf_registration import sql_column  # noqa: PLC0415 - loads with the first expression

    result = sql_column(text)
    assert isinstance(result, Column)
    return result


def _validate(cls: Any, return_type: Any) -> None:
    """PySpark's checks of a UDTF class (``_validate_udtf_handler``)."""
    if not isinstance(cls, type):
        raise PySparkTypeError(
            f"The UDTF is invalid. The function handler must be a class, but got '{type(cls).__name__}'. Please "
            "provide a class as the function handler.", "INVALID_UDTF_HANDLER_TYPE", {"type": type(cls).__name__})
    if not hasattr(cls, "eval"):
        raise PySparkAttributeError(
            f"The UDTF '{cls.__name__}' is invalid. It does not implement the required 'eval' method. Please "
            f"implement the 'eval' method in '{cls.__name__}' and try again.", "INVALID_UDTF_NO_EVAL",
            {"name": cls.__name__})
    has_analyze = hasattr(cls, "analyze")
    if return_type is None and not has_analyze:
        raise PySparkAttributeError(
            f"The UDTF '{cls.__name__}' is invalid. It does not specify its return type or implement the required "
            f"'analyze' static method. Please specify the return type or implement the 'analyze' static method in "
            f"'{cls.__name__}' and try again.", "INVALID_UDTF_RETURN_TYPE", {"name": cls.__name__})
    if return_type is not None and has_analyze:
        raise PySparkAttributeError(
            f"The UDTF '{cls.__name__}' is invalid. It has both its return type and an 'analyze' attribute. Please "
            f"make it have one of either the return type or the 'analyze' static method in '{cls.__name__}' and try "
            "again.", "INVALID_UDTF_BOTH_RETURN_TYPE_AND_ANALYZE", {"name": cls.__name__})


class UserDefinedTableFunction:
    """A Python class callable as a table function (what :func:`udtf` returns).

    Parameters
    ----------
    func : type
        The class: ``eval(self, *args)`` yields rows; optional ``__init__(self)``,
        ``terminate(self)`` (yields rows after the last input row) and ``cleanup(self)``.
    returnType : StructType or str
        The columns the rows fill (a DDL string such as ``"num: int, squared: int"``).
    name : str, optional
        The name in plans and errors (default: the class's).
    evalType : int
        PySpark's evaluation type (300 pickled rows, 301 Arrow): how yielded rows convert.
    deterministic : bool
        Whether the same input gives the same output.
    """

    def __init__(self, func: type, returnType: StructType | str | None,  # noqa: N803 - PySpark's names
                 name: str | None = None, evalType: int = SQL_TABLE_UDF,  # noqa: N803 - PySpark's names
                 deterministic: bool = False) -> None:
        _validate(func, returnType)
        self.func = func
        self._returnType = returnType
        self._function_name = name or func.__name__
        self.evalType = evalType
        self.deterministic = deterministic

    @property
    def returnType(self) -> StructType | None:  # noqa: N802 - PySpark's name
        """The columns of the rows, as a ``StructType`` (None when ``analyze`` computes them per call)."""
        if self._returnType is None:
            return None
        parsed: DataType = (_parse_datatype_string(self._returnType) if isinstance(self._returnType, str)
                            else self._returnType)
        if not isinstance(parsed, StructType):
            raise PySparkTypeError(
                f"Mismatch in return type for the UDTF '{self._function_name}'. Expected a 'StructType', "
                f"but got '{parsed}'. Please ensure the return type is a correctly formatted StructType.",
                "UDTF_RETURN_TYPE_MISMATCH",
                {"name": self._function_name, "return_type": str(parsed)})
        return parsed

    def __call__(self, *args: ColumnOrName | TableArg, **kwargs: ColumnOrName | TableArg) -> DataFrame:
        """The rows of the function for these arguments (``kwargs`` reach ``eval`` by name): a DataFrame."""
        return udtf_frame(_session(), self, list(args), kwargs=kwargs)

    def asDeterministic(self) -> UserDefinedTableFunction:  # noqa: N802 - PySpark's name
        """This UDTF marked deterministic."""
        self.deterministic = True
        return self


def _session() -> SparkSession:
    """The active session, or a new one, as PySpark's UDTF call takes it.

    The session module is looked up, not imported: it imports the functions, which import
    this module. A session exists only once that module was imported.
    """
    module = sys.modules.get("dstream.sql.session")
    if module is None:
        raise PySparkRuntimeError(
            "A UDTF called on Columns needs a SparkSession: create one first with "
            "SparkSession.builder.getOrCreate().", "NO_ACTIVE_OR_DEFAULT_SESSION", {})
    session: SparkSession = module.SparkSession.builder.getOrCreate()
    return session


def udtf(cls: type | None = None, *, returnType: StructType | str | None = None,  # noqa: N803 - PySpark's names
         useArrow: bool | None = None) -> Any:  # noqa: N803 - PySpark's name
    """A user-defined table function: ``udtf(Cls, returnType="a: int")`` or ``@udtf(returnType="a: int")``.

    Parameters
    ----------
    cls : type, optional
        The class (absent when used as ``@udtf(...)``).
    returnType : StructType or str
        The columns of its rows.
    useArrow : bool, optional
        Whether the rows ``eval`` yields convert by PySpark's Arrow rules (casts, as
        ``pyarrow`` casts) rather than the pickled ones (a mismatched type gives null);
        by default the session's ``spark.sql.execution.pythonUDTF.arrow.enabled``.
        Arguments reach ``eval`` as Python values either way.

    Examples
    --------
    >>> from dstream.sql.functions import lit, udtf
    >>> @udtf(returnType="num: int, squared: int")
    ... class SquareNumbers:
    ...     def eval(self, start: int, end: int):
    ...         for num in range(start, end + 1):
    ...             yield (num, num * num)
    >>> SquareNumbers(lit(1), lit(2)).collect()
    [Row(num=1, squared=1), Row(num=2, squared=4)]
    """
    if useArrow is None:  # PySpark's default: the session's spark.sql.execution.pythonUDTF.arrow.enabled
        module = sys.modules.get("dstream.sql.session")  # looked up, not imported: see _session
        session = None if module is None else module.SparkSession.getActiveSession()
        useArrow = session is not None and session.conf.get_boolean(  # noqa: N806 - PySpark's name
            "spark.sql.execution.pythonUDTF.arrow.enabled", False)
    eval_type = SQL_ARROW_TABLE_UDF if useArrow else SQL_TABLE_UDF
    if cls is None:
        return lambda c: UserDefinedTableFunction(c, returnType, evalType=eval_type)
    return UserDefinedTableFunction(cls, returnType, evalType=eval_type)


class UDTFRegistration:
    """The session's registered table functions (``spark.udtf``)."""

    def __init__(self, session: SparkSession) -> None:
        self._session = session
        self._functions: dict[str, UserDefinedTableFunction] = {}

    def register(self, name: str, f: UserDefinedTableFunction) -> UserDefinedTableFunction:
        """Register the UDTF ``f`` as the SQL table function ``name`` (any case); return it under that name.

        Parameters
        ----------
        name : str
            The name SQL calls it by: ``SELECT * FROM name(...)``, ``LATERAL name(col)``.
        f : UserDefinedTableFunction
            A UDTF made by :func:`udtf`.
        """
        if not isinstance(f, UserDefinedTableFunction):
            raise PySparkTypeError(f"Cannot register the UDTF '{name}': expected a 'UserDefinedTableFunction'. "
                                   "Please make sure the UDTF is correctly defined as a class, and then either "
                                   "wrap it in the `udtf()` function or annotate it with `@udtf(...)`.",
                                   "CANNOT_REGISTER_UDTF", {"name": name})
        registered = UserDefinedTableFunction(f.func, f.returnType, name, f.evalType, f.deterministic)
        self._functions[name.lower()] = registered
        return registered

    def lookup(self, name: str) -> UserDefinedTableFunction | None:
        """The UDTF registered as ``name`` (any case), or ``None``."""
        return self._functions.get(name.lower())


def registered_udtf(session: SparkSession, name: str) -> UserDefinedTableFunction | None:
    """The UDTF ``session`` has registered as ``name``, if any (without creating the registry)."""
    registry = getattr(session, "_udtf_registration", None)
    return None if registry is None else registry.lookup(name)


def udtf_frame(session: SparkSession, function: UserDefinedTableFunction, args: Sequence[Any],
               left: DataFrame | None = None, aliases: Sequence[str] = (),
               kwargs: dict[str, Any] | None = None) -> DataFrame:
    """The DataFrame of a call of ``function`` on ``args`` (Columns, names or one :class:`TableArg`).

    With ``left``, a lateral call: each row of ``left`` followed by the rows the function
    makes from it (the arguments may name ``left``'s columns). ``aliases`` rename the
    function's columns; ``kwargs`` are arguments by name. A class with ``analyze`` is
    analyzed here, on the driver.
    """
    keywords = tuple(kwargs or {})
    args = [*args, *(kwargs or {}).values()]  # the named ones last: the UDTF node passes them by name
    tables = [a for a in args if isinstance(a, TableArg)]
    if len(tables) > 1 or (tables and left is not None):
        raise PySparkNotImplementedError(
            f"The UDTF {function._function_name} takes at most one TABLE argument here, and none in a lateral "
            "call; pass one table.", "NOT_IMPLEMENTED", {"feature": "several TABLE arguments of a Python UDTF"})
    return_type = function.returnType
    selected: list[tuple[str, Column]] | None = None
    init_args: tuple[Any, ...] = ()
    if return_type is None:
        scope = tables[0]._df if tables else (left if left is not None else session.range(0, 1, 1, 1).select())
        described = [_analyze_argument(scope, a) for a in args]
        result = analyze_call(function.func, function._function_name, described[:len(args) - len(keywords)],
                              dict(zip(keywords, described[len(args) - len(keywords):])))
        return_type = result.schema
        if tables:
            tables, selected = [_as_analyzed(tables[0], result)], _selection(result)
        args = [tables[0] if isinstance(a, TableArg) else a for a in args]
        init_args = (result,) if takes_analyze_result(function.func) else ()
    layout: list[tuple[str, ...] | None] = []
    children: list[Expression] = []
    keys: list[Column] = []
    if tables:
        base, keys = tables[0].prepared()
    elif left is not None:
        base = left
    else:
        base = session.range(0, 1, 1, 1).select()  # one row of no columns: one instance, one eval
    for arg in args:
        if isinstance(arg, TableArg):
            columns = selected if selected is not None else [(n, _column(f"`{n.replace('`', '``')}`"))
                                                             for n in base.columns]
            layout.append(tuple(n for n, _ in columns))
            children.extend(expr_of(c) for _, c in columns)
        else:
            layout.append(None)
            children.append(expr_of(arg))
    children.extend(expr_of(k) for k in keys)
    name = function._function_name
    generator = Column(PythonUDTF(function.func, return_type, children, name, tuple(layout), len(keys),
                                  init_args, keywords, function.evalType == SQL_ARROW_TABLE_UDF))
    if aliases:
        generator = generator.alias(*aliases)
    return base.select("*", generator) if left is not None else base.select(generator)


def _analyze_argument(scope: DataFrame, arg: Any) -> AnalyzeArgument:
    """What ``analyze`` learns of ``arg``: its type, and its value if it is a constant."""
    from .expressions.predicates import fold  # noqa: PLC0415 - run once per analyzed call

    if isinstance(arg, TableArg):
        return AnalyzeArgument(arg._df.schema, None, True, False)
    projected = scope.select(_column(arg))
    resolved = projected._plan.exprs[0] if hasattr(projected._plan, "exprs") else None
    resolved = getattr(resolved, "child", resolved)  # under the alias select gives it
    constant = resolved is not None and bool(resolved.foldable)
    value = fold(resolved) if constant and resolved is not None else None
    return AnalyzeArgument(projected.schema.fields[0].dataType, value, False, constant)


def _as_analyzed(table: TableArg, result: AnalyzeResult) -> TableArg:
    """The table argument laid out as ``analyze`` asked (when the call itself did not say)."""
    if table._single or table._partition_by:
        return table
    orders = []
    for o in result.orderBy:
        c = _expr(o.name)
        nulls_first = o.ascending if o.overrideNullsFirst is None else o.overrideNullsFirst
        orders.append((c.asc_nulls_first() if nulls_first else c.asc_nulls_last()) if o.ascending else
                      (c.desc_nulls_first() if nulls_first else c.desc_nulls_last()))
    return TableArg(table._df, [_expr(p.name) for p in result.partitionBy], orders, result.withSinglePartition)


def _selection(result: AnalyzeResult) -> list[tuple[str, Column]] | None:
    """The ``Row`` fields ``analyze`` selected (name, expression), or None for the table's columns."""
    return [(s.alias or s.name, _expr(s.name)) for s in result.select] or None

"""``GroupedData``: what ``df.groupBy(...)`` returns, PySpark's aggregation entry point.

What this module owns
---------------------
The aggregation methods of a grouping: ``agg`` (Columns, or a dict of column ->
function name), ``count``, ``sum``, ``avg``/``mean``, ``min``, ``max``; ``pivot`` (each
aggregate computed per pivot value, over that value's rows only); and the
Scala API's arbitrary stateful processing, ``mapGroupsWithState`` and
``flatMapGroupsWithState`` (built in ``streaming/groups_with_state.py``); the grouped map
functions ``applyInPandas`` and ``applyInArrow`` (built in ``group_pandas.py``). Results have
the grouping columns first, then one column per aggregate, named as Spark names them
(``count``, ``sum(v)``, ``avg(v)``).

Invariants
----------
* Aggregates are resolved against the grouped DataFrame when ``agg`` is called; a
  column neither grouped nor aggregated raises ``MISSING_AGGREGATION`` there.
* ``sum``/``avg``/``mean`` without arguments aggregate every numeric column; with
  arguments each must be numeric.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

from .column import Column, expr_of
from .errors import AnalysisException, PySparkTypeError
from .expressions.aggregate_base import AggregateFunction
from .expressions.aggregates import CollectList, CollectSet
from .expressions.base import Alias, Expression
from .expressions.collection_functions import CreateStruct
from .expressions.value_aggregates import First
from .plan.analysis import ensure_named, unique_outputs
from .plan.builders import build_aggregate, check_grouped, resolver_for
from .plan.grouping_sets import build_grouping_sets
from .plan.windowing import rewrite_window_grouping
from .types import NumericType

if TYPE_CHECKING:
    from .dataframe import DataFrame
    from .group_pandas import PandasCogroupedOps

__all__ = ["GroupedData"]


#: Spark's ``spark.sql.pivotMaxValues``: the most distinct values a pivot finds by itself.
PIVOT_MAX_VALUES = 10000


def _pivot_name(value: Any) -> str:
    """A pivot value as Spark names its column (``2012``, ``dotNET``, ``null``)."""
    from . import functions  # noqa: PLC0415 - functions imports this module's users

    return "null" if value is None else expr_of(functions.lit(value)).sql()


def _only_where(expr: Expression, condition: Column) -> Expression:
    """``expr`` with each aggregate reading only the rows where ``condition`` holds."""
    from . import functions  # noqa: PLC0415

    def rewrite(node: Expression) -> Expression:
        if isinstance(node, AggregateFunction):
            def gated(child: Expression) -> Expression:
                if isinstance(child, CreateStruct):  # the inputs of a two-input aggregate
                    return child.with_children([gated(c) for c in child.children])
                return expr_of(functions.when(condition, Column(child)))
            if isinstance(node, First):  # and Last: as Spark's pivot, skipping the other values' nulls
                return type(node)(gated(node.children[0]), True)
            return node.with_children([gated(c) for c in node.children])
        if not node.children:
            return node
        return node.with_children([rewrite(c) for c in node.children])

    return rewrite(expr)


class GroupedData:
    """The rows of a DataFrame grouped by some columns (``pyspark.sql.GroupedData``)."""

    def __init__(self, df: DataFrame, keys: list[Expression],
                 pivot: tuple[Expression, list[Any]] | None = None,
                 grouping_sets: list[list[int]] | None = None) -> None:
        self._df = df
        self._keys = keys
        self._pivot = pivot
        #: ``cube``/``rollup``: the sets of key indices aggregated over, in one pass.
        self._grouping_sets = grouping_sets

    def pivot(self, pivot_col: Any, values: list[Any] | None = None) -> GroupedData:
        """Pivot: one output column per value of ``pivot_col`` (and aggregate), per group.

        Parameters
        ----------
        pivot_col : str or Column
            The column whose values become columns.
        values : list, optional
            The values, in the output's order; found (sorted, nulls first) when omitted.

        Notes
        -----
        A group with no row for a value gets null in that value's columns, whatever the
        aggregate (``count`` too), as Spark's pivot does.
        """
        from . import functions  # noqa: PLC0415

        if self._pivot is not None:
            raise AnalysisException("Repeated pivots are not supported: pivot once per groupBy.",
                                    "REPEATED_CLAUSE", {"clause": "pivot", "operation": "groupBy"})
        column = functions.col(pivot_col) if isinstance(pivot_col, str) else pivot_col
        if values is None:
            found = self._df.select(column).distinct().orderBy(column).limit(PIVOT_MAX_VALUES + 1).collect()
            if len(found) > PIVOT_MAX_VALUES:
                raise AnalysisException(
                    f"The pivot column {expr_of(column).sql()} has more than {PIVOT_MAX_VALUES} distinct values, "
                    "this could indicate an error. If this was intended, pass the values to pivot(col, values).",
                    "PIVOT_VALUE_DATA_TYPE_MISMATCH", {})
            values = [r[0] for r in found]
        if self._grouping_sets is not None:
            raise AnalysisException("pivot cannot follow cube or rollup: pivot after a groupBy instead.",
                                    "UNSUPPORTED_FEATURE.PIVOT_AFTER_GROUPING_SETS", {})
        return GroupedData(self._df, self._keys, (expr_of(column), list(values)))

    def _pivoted(self, aggregates: list[Expression]) -> list[Expression]:
        """Per pivot value, each aggregate over that value's rows, null where the group has none."""
        from . import functions  # noqa: PLC0415

        assert self._pivot is not None
        pivot, values = self._pivot
        out: list[Expression] = []
        for value in values:
            matches = Column(pivot).eqNullSafe(functions.lit(value))
            present = functions.count(functions.when(matches, 1)) > 0
            for agg in aggregates:
                label = _pivot_name(value)
                if len(aggregates) > 1:
                    label += "_" + (agg.name if isinstance(agg, Alias) else agg.sql())
                body = agg.child if isinstance(agg, Alias) else agg
                # Spark: an atomic result is null where the group has no row for the value;
                # others (collect_list...) aggregate no rows (an empty array).
                only = Column(_only_where(body, matches))
                atomic = not any(isinstance(n, CollectList | CollectSet) for n in body.walk())
                out.append(Alias(expr_of(functions.when(present, only) if atomic else only), label))
        return out

    def agg(self, *exprs: Any) -> DataFrame:
        """Aggregate each group: ``agg(F.sum("v"), F.max("w"))`` or ``agg({"v": "sum"})``."""
        from . import functions

        columns: list[Column] = []
        if len(exprs) == 1 and isinstance(exprs[0], dict):
            for name, fn in exprs[0].items():
                fn_name = {"mean": "avg"}.get(fn.lower(), fn.lower())
                if fn_name == "count" and name == "*":
                    columns.append(functions.count("*"))
                    continue
                func = getattr(functions, fn_name, None)
                if func is None:
                    raise AnalysisException(
                        f"Cannot resolve function `{fn}`: it is not an aggregate function.",
                        "UNRESOLVED_ROUTINE", {"routineName": f"`{fn}`"})
                columns.append(func(name))
        else:
            for expr in exprs:
                if not isinstance(expr, Column):
                    raise PySparkTypeError(f"Argument `exprs` should be a Column or dict, got {type(expr).__name__}.",
                                           "NOT_COLUMN_OR_DICT", {"arg_name": "exprs",
                                                                 "arg_type": type(expr).__name__})
                columns.append(expr)
        if not columns:
            raise AnalysisException("agg() needs at least one aggregate expression.", "INVALID_AGG_EXPRESSION", {})
        return self._aggregate([expr_of(c) for c in columns])

    def _aggregate(self, aggregates: list[Expression]) -> DataFrame:
        if self._pivot is not None:
            aggregates = self._pivoted(aggregates)
        df = self._df
        resolver = resolver_for(df._plan, df._case_sensitive)
        resolved = [resolver.resolve(e) for e in aggregates]
        child, rewritten = rewrite_window_grouping(df._plan, self._keys, resolved)
        keys, resolved = rewritten[:len(self._keys)], rewritten[len(self._keys):]
        # The result names a key by its alias (groupBy(expr.alias("x"))); the grouping is on
        # the expression itself, so aggregates may refer to it as written.
        keys_named = [ensure_named(k) for k in keys]
        grouping = [k.child if isinstance(k, Alias) else k for k in keys]
        if self._grouping_sets is not None:
            return df._new(build_grouping_sets(child, grouping, keys_named, self._grouping_sets,
                                               unique_outputs(keys_named + resolved), check_grouped))
        plan = build_aggregate(child, grouping, keys_named + resolved)
        return df._new(plan)

    def count(self) -> DataFrame:
        """The number of rows in each group, as a ``count`` column."""
        from . import functions

        return self._aggregate([Alias(expr_of(functions.count("*")), "count")])

    def _numeric(self, fn_name: str, cols: tuple[str, ...]) -> DataFrame:
        from . import functions

        df = self._df
        if not cols:
            key_ids = {k.semantic_key() for k in self._keys}
            names = [a.name for a in df._plan.output()
                     if isinstance(a.dtype, NumericType) and a.semantic_key() not in key_ids]
        else:
            names = list(cols)
            for name in names:
                attr = resolver_for(df._plan, df._case_sensitive).resolve(expr_of(functions.col(name)))
                if not isinstance(attr.data_type(), NumericType):
                    raise AnalysisException(
                        f"\"{name}\" is not a numeric column. Aggregation function can only be applied on a "
                        "numeric column.", "UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE", {"columnName": name})
        func = getattr(functions, fn_name)
        return self._aggregate([expr_of(func(n)) for n in names])

    def sum(self, *cols: str) -> DataFrame:
        """The sum of each numeric column (or of ``cols``) per group."""
        return self._numeric("sum", cols)

    def avg(self, *cols: str) -> DataFrame:
        """The mean of each numeric column (or of ``cols``) per group."""
        return self._numeric("avg", cols)

    mean = avg

    def min(self, *cols: str) -> DataFrame:
        """The minimum of each numeric column (or of ``cols``) per group."""
        return self._numeric("min", cols)

    def max(self, *cols: str) -> DataFrame:
        """The maximum of each numeric column (or of ``cols``) per group."""
        return self._numeric("max", cols)

    def apply(self, udf: Any) -> DataFrame:
        """Each group through a ``PandasUDFType.GROUPED_MAP`` pandas_udf (PySpark's older form of
        :meth:`applyInPandas`, which it warns about, as PySpark does)."""
        from .functions_pandas_udf import PandasUDFType, PandasUserDefinedFunction  # noqa: PLC0415 - pandas code

        if not isinstance(udf, PandasUserDefinedFunction) or udf.evalType != PandasUDFType.GROUPED_MAP:
            raise PySparkTypeError("Eval type for UDF must be SQL_GROUPED_MAP_PANDAS_UDF.", "INVALID_UDF_EVAL_TYPE",
                                   {"eval_type": "SQL_GROUPED_MAP_PANDAS_UDF"})
        warnings.warn("It is preferred to use 'applyInPandas' over this API. This API will be deprecated in the "
                      "future releases. See SPARK-28264 for more details.", UserWarning, stacklevel=2)
        return self.applyInPandas(udf.func, schema=udf.returnType)

    def applyInPandas(self, func: Any, schema: Any) -> DataFrame:  # noqa: N802 - PySpark's name
        """Each group, whole, through ``func`` as a ``pandas.DataFrame``; the DataFrames it returns, as rows.

        Parameters
        ----------
        func : callable
            ``func(pdf) -> pandas.DataFrame`` or ``func(key, pdf)``, ``key`` the group's key
            values as a tuple; ``pdf`` has every column of the grouped DataFrame.
        schema : StructType or str
            The returned rows' schema (DDL text such as ``"k long, n long"``); the returned
            columns are matched to it by name (by position when they are not named).

        Examples
        --------
        >>> df = spark.createDataFrame([(1, 1.0), (1, 2.0), (2, 3.0)], "id long, v double")
        >>> def center(pdf):
        ...     return pdf.assign(v=pdf.v - pdf.v.mean())
        >>> df.groupBy("id").applyInPandas(center, "id long, v double").orderBy("id", "v").collect()
        [Row(id=1, v=-0.5), Row(id=1, v=0.5), Row(id=2, v=0.0)]
        """
        from .group_pandas import apply_in_groups  # noqa: PLC0415 - pandas functions load when used

        return apply_in_groups(self._df, self._keys, func, schema, arrow=False)

    def applyInArrow(self, func: Any, schema: Any) -> DataFrame:  # noqa: N802 - PySpark's name
        """Each group, whole, through ``func`` as a ``pyarrow.Table`` (``func(table)`` or
        ``func(key, table)``, ``key`` a tuple of ``pyarrow.Scalar`` s); the tables it returns, as rows
        of ``schema`` (see :meth:`applyInPandas`)."""
        from .group_pandas import apply_in_groups  # noqa: PLC0415 - kept beside applyInPandas

        return apply_in_groups(self._df, self._keys, func, schema, arrow=True)

    def cogroup(self, other: GroupedData) -> PandasCogroupedOps:
        """Cogroup with ``other`` (grouped by as many keys): see :class:`PandasCogroupedOps`.

        Examples
        --------
        >>> left.groupBy("id").cogroup(right.groupBy("id")).applyInPandas(merge, "id long, v double")  # doctest: +SKIP
        """
        from .group_pandas import PandasCogroupedOps  # noqa: PLC0415 - pandas functions load when used

        return PandasCogroupedOps(self, other)

    def transformWithStateInPandas(self, statefulProcessor: Any, outputStructType: Any,  # noqa: N802, N803
                                   outputMode: str, timeMode: str, initialState: GroupedData | None = None,  # noqa: N803
                                   eventTimeColumnName: str = "") -> DataFrame:  # noqa: N803 - PySpark's names
        """Run a ``StatefulProcessor`` over each group, with named state variables and timers (state API v2).

        Per key the processor's ``handleInputRows(key, rows, timerValues)`` gets the key's
        rows as an iterator of ``pandas.DataFrame`` and yields frames of
        ``outputStructType``; state lives in the value, list and map variables ``init``
        declares on its handle, optionally with a time-to-live, and timers call
        ``handleExpiredTimer`` when the processing time or the watermark passes them.
        On a batch DataFrame each group is handled once and no timer fires.

        Parameters
        ----------
        statefulProcessor : StatefulProcessor
            An instance of a subclass of ``dstream.sql.streaming.StatefulProcessor``.
        outputStructType : StructType or str
            The schema of the frames the processor yields (DDL string accepted).
        outputMode : str
            ``"Append"`` or ``"Update"`` (case-insensitive).
        timeMode : str
            ``"None"``, ``"ProcessingTime"`` (timers on the batch timestamp, TTLs) or
            ``"EventTime"`` (timers on the watermark; late rows are dropped).
        initialState : GroupedData, optional
            A batch DataFrame grouped by keys of the same types: ``handleInitialState`` is
            called with each key's rows in the first micro-batch.
        eventTimeColumnName : str, optional
            A timestamp column of the output that carries the watermark on to the
            operators after this one.

        Returns
        -------
        DataFrame
            The yielded rows, with ``outputStructType``'s columns.

        Examples
        --------
        >>> class Count(StatefulProcessor):  # doctest: +SKIP
        ...     def init(self, handle):
        ...         self.n = handle.getValueState("n", "n long")
        ...     def handleInputRows(self, key, rows, timerValues):
        ...         n = (self.n.get() or (0,))[0] + sum(len(r) for r in rows)
        ...         self.n.update((n,))
        ...         yield pd.DataFrame({"id": [key[0]], "count": [n]})
        >>> df.groupBy("id").transformWithStateInPandas(Count(), "id long, count long", "Update", "None")
        ... # doctest: +SKIP
        """
        return self._df.sparkSession._streaming().transform_with_state_in_pandas(
            self._df, self._keys, statefulProcessor, outputStructType, outputMode, timeMode, initialState,
            eventTimeColumnName)

    def applyInPandasWithState(self, func: Any, outputStructType: Any, stateStructType: Any,  # noqa: N802, N803
                               outputMode: str, timeoutConf: str) -> DataFrame:  # noqa: N803 - PySpark's names
        """Call ``func(key, frames, state)`` for each group with its ``GroupState``; it returns pandas frames.

        PySpark's stateful function: ``frames`` is an iterator of ``pandas.DataFrame`` s of the
        group's rows in this batch (empty when the call is for a timeout), ``state`` the
        group's ``GroupState`` (its value a tuple of ``stateStructType``), and ``func``
        returns an iterator of ``pandas.DataFrame`` s of ``outputStructType``. State,
        timeouts and output modes behave as in :meth:`flatMapGroupsWithState`.

        Parameters
        ----------
        func : callable
            ``func(key: tuple, frames: Iterator[pandas.DataFrame], state: GroupState)
            -> Iterator[pandas.DataFrame]``.
        outputStructType, stateStructType : StructType or str
            The schema of the returned rows and of the state value (DDL strings accepted).
        outputMode : str
            ``"append"`` or ``"update"``.
        timeoutConf : str
            ``GroupStateTimeout.NoTimeout``, ``ProcessingTimeTimeout`` or ``EventTimeTimeout``.

        Returns
        -------
        DataFrame
            The returned rows, with ``outputStructType``'s columns.
        """
        return self._df.sparkSession._streaming().apply_in_pandas_with_state(
            self._df, self._keys, func, outputStructType, stateStructType, outputMode, timeoutConf)

    def mapGroupsWithState(self, func: Any, outputStructType: Any, stateStructType: Any,  # noqa: N802, N803
                           timeoutConf: str = "NoTimeout") -> DataFrame:  # noqa: N803 - Spark's names
        """Call ``func(key, rows, state)`` for each group with its ``GroupState``; it returns one row.

        dstreams' addition beside PySpark's ``applyInPandasWithState`` (Spark's Scala
        ``mapGroupsWithState``, with rows instead of pandas). A streaming query using it
        runs in update mode; on a batch DataFrame each group is called once with an empty
        state.

        Parameters
        ----------
        func : callable
            ``func(key: tuple, rows: Iterator[Row], state: GroupState) -> Row | tuple | dict``.
        outputStructType, stateStructType : StructType or str
            The schema of the returned rows and of the state value (DDL strings accepted).
        timeoutConf : str, default GroupStateTimeout.NoTimeout
            ``GroupStateTimeout.NoTimeout``, ``ProcessingTimeTimeout`` or ``EventTimeTimeout``.

        Returns
        -------
        DataFrame
            The returned rows, with ``outputStructType``'s columns.
        """
        return self._df.sparkSession._streaming().groups_with_state(
            self._df, self._keys, func, outputStructType, stateStructType, "update",
            timeoutConf, is_map=True)

    def flatMapGroupsWithState(self, func: Any, outputStructType: Any, stateStructType: Any,  # noqa: N802, N803
                               outputMode: str, timeoutConf: str = "NoTimeout") -> DataFrame:  # noqa: N803
        """Call ``func(key, rows, state)`` for each group with its ``GroupState``; it returns rows.

        As :meth:`mapGroupsWithState`, but ``func`` returns an iterable of rows (any
        number), and ``outputMode`` (``"append"`` or ``"update"``) declares how its rows
        relate to earlier ones; a streaming query must run in that mode (in append mode
        when an aggregation follows).

        Returns
        -------
        DataFrame
            The returned rows, with ``outputStructType``'s columns.
        """
        return self._df.sparkSession._streaming().groups_with_state(
            self._df, self._keys, func, outputStructType, stateStructType, outputMode,
            timeoutConf, is_map=False)

"""``DataFrame``: PySpark's distributed table, on Arrow record batches and the RDD engine.

What this module owns
---------------------
The public :class:`DataFrame` facade: PySpark's transformation and action methods,
under their PySpark names and parameters. Each transformation resolves its
expressions against this DataFrame's columns at once (an unknown column raises
``AnalysisException`` here, not at the action) and returns a new DataFrame over a
new logical plan node (:mod:`.plan.builders`); each action runs the plan through
:class:`~dstream.sql.query.QueryExecution`.

Invariants
----------
* A DataFrame is immutable: a session and a resolved logical plan.
* Column arguments accept what PySpark accepts: a name, a :class:`Column`, and for
  most methods a list of either.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from rdd import StorageLevel

from .arrow_convert import to_pandas
from .column import Column, expr_of, lit_expr
from .dataframe_batches import BatchMethods
from .dataframe_plan import PlanMethods
from .dataframe_reshape import ReshapeMethods
from .dataframe_rows import RowMethods
from .dataframe_stat import StatMethods
from .dataframe_streaming import StreamingMethods
from .errors import AnalysisException, PySparkTypeError, PySparkValueError
from .expressions.base import Alias, AttributeReference, Expression, UnresolvedAttribute, UnresolvedStar
from .expressions.coercion import find_common_type
from .expressions.predicates import And
from .plan.builders import (
    build_join,
    build_select,
    build_sort,
    build_union,
    resolver_for,
    sort_keys,
)
from .plan.logical import (
    Deduplicate,
    Filter,
    Limit,
    LogicalPlan,
    Project,
    Repartition,
    SubqueryAlias,
)
from .query import QueryExecution
from .row import Row
from .types import BooleanType, StructType

if TYPE_CHECKING:
    from rdd import RDD

    from .group import GroupedData
    from .readwriter import DataFrameWriter
    from .session import SparkSession

__all__ = ["DataFrame"]


def _flatten(cols: Sequence[Any]) -> list[Any]:
    if len(cols) == 1 and isinstance(cols[0], list | tuple):
        return list(cols[0])
    return list(cols)


def _name_expr(col: Any) -> Expression:
    """A column argument as an (unresolved) expression: names become column references."""
    if isinstance(col, str):
        return UnresolvedStar() if col == "*" else (
            UnresolvedStar(col[:-2]) if col.endswith(".*") else UnresolvedAttribute.quoted(col))
    if isinstance(col, Column):
        return expr_of(col)
    raise PySparkTypeError(
        f"Argument `col` should be a Column or str, got {type(col).__name__}.",
        "NOT_COLUMN_OR_STR", {"arg_name": "col", "arg_type": type(col).__name__})


class DataFrame(StreamingMethods, ReshapeMethods, StatMethods, RowMethods, BatchMethods, PlanMethods):
    """A distributed collection of rows with named columns (``pyspark.sql.DataFrame``)."""

    def __init__(self, plan: LogicalPlan, session: SparkSession) -> None:
        self._plan = plan
        self._session = session
        self._storage_level: StorageLevel | None = None
        self._cache_rdd: RDD[pa.RecordBatch] | None = None

    # -- plumbing ---------------------------------------------------------------------

    def _new(self, plan: LogicalPlan) -> DataFrame:
        return DataFrame(plan, self._session)

    @property
    def _case_sensitive(self) -> bool:
        return self._session.conf.case_sensitive()

    def _execution(self) -> QueryExecution:
        if self.isStreaming:
            raise AnalysisException("Queries with streaming sources must be executed with writeStream.start();",
                                    "_LEGACY_ERROR_TEMP_3102")
        return QueryExecution(self._session, self._plan)

    def _resolve(self, col: Any) -> Expression:
        return resolver_for(self._plan, self._case_sensitive).resolve(_name_expr(col))

    # -- schema -----------------------------------------------------------------------

    @property
    def sparkSession(self) -> SparkSession:  # noqa: N802 - PySpark's name
        """The session this DataFrame belongs to."""
        return self._session

    @property
    def schema(self) -> StructType:
        """The columns' names, types and nullability, as a StructType."""
        from .types import StructField

        return StructType([StructField(a.name, a.dtype, a.nullable, dict(a.metadata)) for a in self._plan.output()])

    @property
    def columns(self) -> list[str]:
        """The column names, in order."""
        return [a.name for a in self._plan.output()]

    @property
    def dtypes(self) -> list[tuple[str, str]]:
        """``(name, simpleString of type)`` of each column."""
        return [(a.name, a.dtype.simpleString()) for a in self._plan.output()]

    def printSchema(self, level: int | None = None) -> None:  # noqa: N802 - PySpark's name
        """Print the schema as a tree."""
        print(self.schema.treeString(level) if level is not None else self.schema.treeString())

    def __getitem__(self, item: Any) -> Any:
        if item == "*":  # every column of this DataFrame (after a join, only its side's)
            return Column(UnresolvedStar(columns=self._plan.output()))
        if isinstance(item, str):
            return Column(self._resolve(item))
        if isinstance(item, int):
            return Column(self._plan.output()[item])
        if isinstance(item, Column):
            return self.filter(item)
        if isinstance(item, list | tuple):
            return self.select(*item)
        raise PySparkTypeError(f"Unexpected item type: {type(item).__name__}.", "NOT_COLUMN_OR_INT_OR_LIST_OR_STR",
                               {"arg_name": "item", "arg_type": type(item).__name__})

    def __getattr__(self, name: str) -> Column:
        if name.startswith("_"):
            raise AttributeError(name)
        if name not in self.columns and not any(c.lower() == name.lower() for c in self.columns):
            raise AttributeError(f"'DataFrame' object has no attribute '{name}'")
        return Column(self._resolve(name))

    def __repr__(self) -> str:
        return "DataFrame[" + ", ".join(f"{n}: {t}" for n, t in self.dtypes) + "]"

    # -- projections ------------------------------------------------------------------

    def select(self, *cols: Any) -> DataFrame:
        """Compute a new set of columns (names, Columns, ``*``)."""
        exprs = [_name_expr(c) for c in _flatten(cols)]
        return self._new(build_select(self._plan, exprs, self._case_sensitive))

    def selectExpr(self, *expr: str) -> DataFrame:  # noqa: N802 - PySpark's name
        """``select`` of SQL expression strings (``"a + 1 AS b"``)."""
        from . import functions

        return self.select(*[functions.expr(e) for e in _flatten(expr)])

    def withColumn(self, colName: str, col: Column) -> DataFrame:  # noqa: N802,N803 - PySpark's names
        """Add a column, or replace the column of that name."""
        return self.withColumns({colName: col})

    def withColumns(self, *colsMap: dict[str, Column]) -> DataFrame:  # noqa: N802,N803 - PySpark's names
        """Add or replace several columns."""
        if len(colsMap) != 1 or not isinstance(colsMap[0], dict):
            raise PySparkTypeError("withColumns takes one dict of column name -> Column.", "NOT_DICT",
                                   {"arg_name": "colsMap", "arg_type": type(colsMap).__name__})
        mapping = colsMap[0]
        for value in mapping.values():
            if not isinstance(value, Column):
                raise PySparkTypeError(f"Argument `col` should be a Column, got {type(value).__name__}.",
                                       "NOT_COLUMN", {"arg_name": "col", "arg_type": type(value).__name__})
        same = (lambda a, b: a == b) if self._case_sensitive else (lambda a, b: a.lower() == b.lower())
        exprs: list[Any] = []
        used: set[str] = set()
        for attr in self._plan.output():
            match = next((n for n in mapping if same(n, attr.name)), None)
            if match is None:
                exprs.append(Column(attr))
            else:
                exprs.append(mapping[match].alias(match))
                used.add(match)
        exprs.extend(value.alias(name) for name, value in mapping.items() if name not in used)
        return self.select(*exprs)

    def withColumnRenamed(self, existing: str, new: str) -> DataFrame:  # noqa: N802 - PySpark's name
        """Rename a column (no-op if there is none of that name)."""
        return self.withColumnsRenamed({existing: new})

    def withColumnsRenamed(self, colsMap: dict[str, str]) -> DataFrame:  # noqa: N802,N803 - PySpark's names
        """Rename several columns."""
        same = (lambda a, b: a == b) if self._case_sensitive else (lambda a, b: a.lower() == b.lower())
        exprs: list[Expression] = []
        for attr in self._plan.output():
            match = next((n for n in colsMap if same(n, attr.name)), None)
            exprs.append(attr if match is None else Alias(attr, colsMap[match]))
        return self._new(Project(exprs, self._plan))

    def toDF(self, *cols: str) -> DataFrame:  # noqa: N802 - PySpark's name
        """The same rows with new column names (as many as there are columns)."""
        out = self._plan.output()
        if len(cols) != len(out):
            raise AnalysisException(
                f"The number of columns doesn't match. Old column names ({len(out)}): "
                f"{', '.join(a.name for a in out)}. New column names ({len(cols)}): {', '.join(cols)}.",
                "NUM_COLUMNS_MISMATCH", {})
        return self._new(Project([Alias(a, n) for a, n in zip(out, cols)], self._plan))

    def drop(self, *cols: Any) -> DataFrame:
        """The DataFrame without these columns (names that do not exist are ignored)."""
        drop_ids: set[int] = set()
        for col in cols:
            if isinstance(col, str):
                same = (lambda a, b: a == b) if self._case_sensitive else (lambda a, b: a.lower() == b.lower())
                drop_ids |= {a.expr_id for a in self._plan.output() if same(a.name, col)}
            else:
                try:
                    expr = self._resolve(col)
                except AnalysisException as exc:
                    if (exc.getCondition() or "").startswith("UNRESOLVED_COLUMN"):
                        continue  # as a name that does not exist: ignored, as Spark does
                    raise
                if isinstance(expr, AttributeReference):
                    drop_ids.add(expr.expr_id)
        return self._new(Project([a for a in self._plan.output() if a.expr_id not in drop_ids], self._plan))

    def alias(self, alias: str) -> DataFrame:
        """The same DataFrame, its columns also reachable as ``alias.col``."""
        return self._new(SubqueryAlias(alias, self._plan))

    def transform(self, func: Any, *args: Any, **kwargs: Any) -> DataFrame:
        """``func(self, *args, **kwargs)``, which must return a DataFrame: chains custom steps.

        Parameters
        ----------
        func : callable
            Takes this DataFrame (and ``args``, ``kwargs``) and returns a DataFrame.
        """
        result = func(self, *args, **kwargs)
        if not isinstance(result, DataFrame):
            raise PySparkTypeError(
                f"Func returned an instance of type [{type(result).__name__}], should have been DataFrame.",
                "NOT_DATAFRAME", {"arg_name": "func", "arg_type": type(result).__name__})
        return result

    # -- row selection ------------------------------------------------------------------

    def filter(self, condition: Any) -> DataFrame:
        """Rows for which ``condition`` (a boolean Column or an SQL string) is true."""
        if isinstance(condition, str):
            from . import functions

            condition = functions.expr(condition)
        expr = self._resolve(condition)
        if not isinstance(expr.data_type(), BooleanType):
            raise AnalysisException(
                f"Cannot resolve \"{expr.sql()}\" due to data type mismatch: the filter expression must be "
                f"BOOLEAN, got \"{expr.data_type().simpleString().upper()}\".",
                "DATATYPE_MISMATCH.FILTER_NOT_BOOLEAN",
                {"sqlExpr": expr.sql(), "filter": expr.sql(), "type": expr.data_type().simpleString().upper()})
        return self._new(Filter(expr, self._plan))

    where = filter

    def distinct(self) -> DataFrame:
        """The distinct rows."""
        return self._new(Deduplicate(self._plan.output(), self._plan))

    def dropDuplicates(self, subset: list[str] | None = None) -> DataFrame:  # noqa: N802 - PySpark's name
        """One row for each distinct value of ``subset`` (all columns if ``None``)."""
        if subset is None:
            return self._new(Deduplicate(self._plan.output(), self._plan))
        if isinstance(subset, str):
            subset = [subset]
        keys = []
        for name in subset:
            expr = self._resolve(name)
            assert isinstance(expr, AttributeReference)
            keys.append(expr)
        return self._new(Deduplicate(keys, self._plan))

    drop_duplicates = dropDuplicates

    def limit(self, num: int) -> DataFrame:
        """The first ``num`` rows."""
        return self._new(Limit(_limit_like("limit", num), self._plan))

    def offset(self, num: int) -> DataFrame:
        """The rows after the first ``num``."""
        return self._new(Limit(-1, self._plan, offset=_limit_like("offset", num)))

    def orderBy(self, *cols: Any, **kwargs: Any) -> DataFrame:  # noqa: N802 - PySpark's name
        """Sort by the given columns (``ascending=`` a bool or a list of bools)."""
        keys = sort_keys(_flatten(cols), kwargs.get("ascending"), self._plan.output(), _name_expr)
        return self._new(build_sort(self._plan, keys, True, self._case_sensitive))

    sort = orderBy

    def sortWithinPartitions(self, *cols: Any, **kwargs: Any) -> DataFrame:  # noqa: N802 - PySpark's name
        """Sort each partition by the given columns."""
        keys = sort_keys(_flatten(cols), kwargs.get("ascending"), self._plan.output(), _name_expr)
        return self._new(build_sort(self._plan, keys, False, self._case_sensitive))

    # -- combining ----------------------------------------------------------------------

    def join(self, other: DataFrame, on: Any = None, how: str | None = None) -> DataFrame:
        """Join with ``other`` on column names (``"k"``, ``["k1", "k2"]``) or a Column condition."""
        condition = None
        if isinstance(on, Column):
            condition = expr_of(on)
        elif isinstance(on, list | tuple) and on and all(isinstance(c, Column) for c in on):
            condition = expr_of(on[0])
            for c in on[1:]:
                condition = And(condition, expr_of(c))
        return self._new(build_join(self._plan, other._plan, on if condition is None else None, how,
                                    condition, self._case_sensitive))

    def crossJoin(self, other: DataFrame) -> DataFrame:  # noqa: N802 - PySpark's name
        """The Cartesian product with ``other``."""
        return self._new(build_join(self._plan, other._plan, None, "cross", None, self._case_sensitive))

    def union(self, other: DataFrame) -> DataFrame:
        """All rows of both (by column position; duplicates kept, as SQL's UNION ALL)."""
        return self._new(build_union([self._plan, other._plan], lambda a, b: find_common_type([a, b])))

    unionAll = union

    def unionByName(self, other: DataFrame, allowMissingColumns: bool = False) -> DataFrame:  # noqa: N802,N803
        """All rows of both, matching columns by name."""
        mine = self.columns
        theirs = {c.lower(): c for c in other.columns}
        exprs: list[Any] = []
        for name in mine:
            if name.lower() in theirs:
                exprs.append(other[theirs[name.lower()]])
            elif allowMissingColumns:
                exprs.append(Column(Alias(lit_expr(None), name)))
            else:
                raise AnalysisException(
                    f"Cannot resolve column name \"{name}\" among ({', '.join(other.columns)}).",
                    "UNRESOLVED_COLUMN.WITH_SUGGESTION", {"objectName": name})
        left = self
        extra = [c for c in other.columns if c.lower() not in {m.lower() for m in mine}]
        if extra:
            if not allowMissingColumns:
                raise AnalysisException(
                    f"Cannot resolve column name \"{extra[0]}\" among ({', '.join(mine)}).",
                    "UNRESOLVED_COLUMN.WITH_SUGGESTION", {"objectName": extra[0]})
            left = self.select("*", *[Column(Alias(lit_expr(None), c)) for c in extra])
            exprs.extend(other[c] for c in extra)
        return left.union(other.select(*exprs))

    # -- grouping -----------------------------------------------------------------------

    def groupBy(self, *cols: Any) -> GroupedData:  # noqa: N802 - PySpark's name
        """Group by the given columns (names, Columns, or 1-based positions as in PySpark 4);
        aggregate with ``.agg(...)``, ``.count()``..."""
        from .group import GroupedData

        resolver = resolver_for(self._plan, self._case_sensitive)
        keys = [resolver.resolve(_name_expr(self._ordinal(c))) for c in _flatten(cols)]
        return GroupedData(self, keys)

    groupby = groupBy

    def agg(self, *exprs: Any) -> DataFrame:
        """Aggregate over all rows (``df.groupBy().agg(...)``)."""
        return self.groupBy().agg(*exprs)

    # -- storage and partitioning -------------------------------------------------------

    def cache(self) -> DataFrame:
        """Keep the computed partitions in memory after the first action."""
        return self.persist(StorageLevel.MEMORY_AND_DISK)

    def persist(self, storageLevel: StorageLevel = StorageLevel.MEMORY_AND_DISK) -> DataFrame:  # noqa: N803
        """Keep the computed partitions at ``storageLevel`` after the first action."""
        from .plan.cached import CachedRelation

        if self._storage_level is None:
            self._storage_level = storageLevel
            self._plan = CachedRelation(self._plan, self._session, storageLevel)
            self._session._cached.append(self)
        return self

    def unpersist(self, blocking: bool = False) -> DataFrame:
        """Drop the cached partitions."""
        from .plan.cached import CachedRelation

        if isinstance(self._plan, CachedRelation):
            self._plan.release(blocking)
            self._plan = self._plan.child
            self._storage_level = None
            if self in self._session._cached:
                self._session._cached.remove(self)
        return self

    @property
    def storageLevel(self) -> StorageLevel:  # noqa: N802 - PySpark's name
        """The storage level of a cached DataFrame (``NONE`` if not cached)."""
        return self._storage_level or StorageLevel(False, False, False, False, 1)

    @property
    def is_cached(self) -> bool:
        """Whether ``cache()``/``persist()`` was called."""
        return self._storage_level is not None

    def repartition(self, numPartitions: Any, *cols: Any) -> DataFrame:  # noqa: N803 - PySpark's name
        """Shuffle into ``numPartitions`` partitions (by ``cols`` if given)."""
        if not isinstance(numPartitions, int):
            cols = (numPartitions, *cols)
            numPartitions = self._session.conf.shuffle_partitions()
        resolver = resolver_for(self._plan, self._case_sensitive)
        keys = [resolver.resolve(_name_expr(c)) for c in _flatten(cols)]
        return self._new(Repartition(numPartitions, True, keys, self._plan))

    def coalesce(self, numPartitions: int) -> DataFrame:  # noqa: N803 - PySpark's name
        """At most ``numPartitions`` partitions, without a shuffle."""
        return self._new(Repartition(numPartitions, False, [], self._plan))

    @property
    def rdd(self) -> RDD[Row]:
        """The rows as an RDD of :class:`Row` (converted from Arrow in the tasks)."""
        return self._execution().rows_rdd(self.columns)

    # -- actions ------------------------------------------------------------------------

    def collect(self) -> list[Row]:
        """Every row, on the driver."""
        return self._execution().collect()

    def toLocalIterator(self, prefetchPartitions: bool = False) -> Iterator[Row]:  # noqa: N802,N803
        """The rows, one partition at a time."""
        return self._execution().local_iterator()

    def take(self, num: int) -> list[Row]:
        """The first ``num`` rows."""
        return self.limit(num).collect()

    def head(self, n: int | None = None) -> Row | None | list[Row]:
        """The first row (``n=None``) or the first ``n`` rows."""
        if n is None:
            rows = self.take(1)
            return rows[0] if rows else None
        return self.take(n)

    def first(self) -> Row | None:
        """The first row, or ``None``."""
        rows = self.take(1)
        return rows[0] if rows else None

    def tail(self, num: int) -> list[Row]:
        """The last ``num`` rows."""
        rows = self.collect()
        return rows[-num:] if num else []

    def isEmpty(self) -> bool:  # noqa: N802 - PySpark's name
        """Whether there is no row."""
        return len(self.take(1)) == 0

    def count(self) -> int:
        """The number of rows."""
        from . import functions

        row = self.agg(functions.count("*")).collect()[0]
        return int(row[0])

    def toArrow(self) -> pa.Table:  # noqa: N802 - PySpark's name
        """Every row as a ``pyarrow.Table``."""
        return self._execution().to_arrow()

    def toPandas(self) -> Any:  # noqa: N802 - PySpark's name
        """Every row as a ``pandas.DataFrame`` (needs pandas).

        As PySpark: from the collected rows, or through Arrow when
        ``spark.sql.execution.arrow.pyspark.enabled`` is true (arrays then arrive as
        numpy arrays, structs as dicts).
        """
        try:
            import pandas  # noqa: F401 - only checks that it is installed
        except ImportError as exc:
            raise PySparkValueError("toPandas() needs pandas: pip install pandas.", "PACKAGE_NOT_INSTALLED",
                                    {"package_name": "pandas"}) from exc
        if self._session.conf.get_boolean("spark.sql.execution.arrow.pyspark.enabled", False):
            return to_pandas(self.toArrow(), self._session.conf.time_zone())
        from .pandas_rows import rows_to_pandas

        # PySpark shifts the collected datetimes to the session zone's wall times.
        return rows_to_pandas(self._execution().collect(self._session.conf.time_zone()), self.schema)

    def show(self, n: int = 20, truncate: bool | int = True, vertical: bool = False) -> None:
        """Print the first ``n`` rows as a table."""
        print(self._show_string(n, truncate, vertical))

    def _show_string(self, n: int = 20, truncate: bool | int = True, vertical: bool = False) -> str:
        from .show import show_string

        if not isinstance(n, int) or isinstance(n, bool):
            raise PySparkTypeError(f"Argument `n` should be an int, got {type(n).__name__}.", "NOT_INT",
                                   {"arg_name": "n", "arg_type": type(n).__name__})
        width = 20 if truncate is True else (0 if truncate is False else int(truncate))
        zone = self._session.conf.time_zone()
        rows = self.limit(max(n, 0) + 1)._execution().collect(zone, check=False)
        return show_string([tuple(r) for r in rows], self.schema, n, width, vertical, zone)

    def explain(self, extended: Any = None, mode: str | None = None) -> None:
        """Print the physical plan (PySpark's default, ``mode="simple"``).

        ``explain(True)`` or ``mode="extended"`` prints the parsed, analyzed and optimized
        logical plans before it.
        """
        if isinstance(extended, str):
            mode, extended = extended, None
        if mode is None:
            mode = "extended" if extended else "simple"
        # A streaming DataFrame's plan too, its sources as StreamingRelation leaves (as Spark).
        print(QueryExecution(self._session, self._plan).explain_text(mode))

    # -- views and output ---------------------------------------------------------------

    def createOrReplaceTempView(self, name: str) -> None:  # noqa: N802 - PySpark's name
        """Make this DataFrame queryable as ``name`` in ``spark.sql``."""
        self._session._register_view(name, self, replace=True)

    def createTempView(self, name: str) -> None:  # noqa: N802 - PySpark's name
        """Like ``createOrReplaceTempView``, but fail if the name is taken."""
        self._session._register_view(name, self, replace=False)

    def registerTempTable(self, name: str) -> None:  # noqa: N802 - PySpark's name
        """``createOrReplaceTempView`` under its Spark 1 name (deprecated there since 2.0, as here)."""
        import warnings  # noqa: PLC0415 - only this deprecated name warns

        warnings.warn("Deprecated in 2.0, use createOrReplaceTempView instead.", FutureWarning, stacklevel=2)
        self.createOrReplaceTempView(name)

    @property
    def write(self) -> DataFrameWriter:
        """Write the rows to files (``df.write.mode("overwrite").csv(path)``)."""
        from .readwriter import DataFrameWriter

        if self.isStreaming:
            raise AnalysisException(
                "The method `write` can not be called on streaming Dataset/DataFrame (write a stream with "
                "df.writeStream).", "CALL_ON_STREAMING_DATASET_UNSUPPORTED", {"methodName": "`write`"})
        return DataFrameWriter(self)


def _limit_like(name: str, num: int) -> int:
    value = int(num)
    if value < 0:  # -1 would read as "no limit" below
        raise AnalysisException(
            f'The {name} like expression "{value}" is invalid. The '
            f"{name} expression must be equal to or greater than 0, but got {value}.",
            "INVALID_LIMIT_LIKE_EXPRESSION.IS_NEGATIVE", {"name": name, "expr": f'"{value}"', "v": str(value)})
    return value

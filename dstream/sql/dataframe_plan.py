"""``DataFrame`` methods about its plan and columns: ``isLocal``, ``inputFiles``,
``sameSemantics``, ``semanticHash``, ``colRegex``, ``to``, ``writeTo``, ``transpose``, and the
subquery Columns ``scalar`` and ``exists``; the column positions of ``groupBy(1)``.

What this module owns
---------------------
:class:`PlanMethods`, mixed into ``DataFrame``.

* ``sameSemantics``/``semanticHash`` compare optimized plans with their expression ids
  numbered in order of appearance, so two DataFrames built alike from the same data
  compare equal although their columns' ids differ.
* ``to(schema)`` reconciles the columns to a schema: picked by name (in the schema's
  order, others dropped) and cast to its types; a missing column is an error.
* ``colRegex`` selects the columns whose whole name matches a backquoted regular
  expression (a name without backquotes is a column name).
* ``transpose(indexColumn)`` turns the other columns into rows: one row per column (its
  name in ``key``), one column per row, named by the index column's values (the first
  column by default) in their order; the values meet at their common type (Spark 4's).
* ``scalar()`` and ``exists()`` are uncorrelated subqueries (Spark 4's DataFrame API): they
  run when the Column is made, as SQL's ``(SELECT ...)`` runs when its query is built.
"""

from __future__ import annotations

import os
import re
import zlib
from typing import TYPE_CHECKING, Any

from .column import Column
from .errors import AnalysisException, PySparkIndexError, PySparkTypeError
from .expressions.base import UnresolvedStar
from .types import StructType

if TYPE_CHECKING:
    from .dataframe import DataFrame

__all__ = ["PlanMethods"]

_ID = re.compile(r"#\d+")


class PlanMethods:
    """The methods of the module doc, on ``DataFrame``."""

    def isLocal(self) -> bool:  # noqa: N802 - PySpark's name
        """Whether ``collect`` needs no job: the DataFrame is local data as it was given."""
        from .plan.logical import LocalRelation  # noqa: PLC0415 - the plan's node classes

        df: Any = self
        return isinstance(df._plan, LocalRelation)

    def lateralJoin(self, other: Any, on: Column | None = None, how: str | None = None) -> DataFrame:  # noqa: N802
        """Each row joined with the rows ``other`` makes of it (PySpark 4's ``lateralJoin``).

        Parameters
        ----------
        other : DataFrame or a table function call
            ``spark.tvf.explode(col("arr").outer())`` and the other table functions over
            ``outer()`` columns of this DataFrame, or a DataFrame (joined as is).
        on : Column, optional
            A condition on the joined rows.
        how : str, optional
            ``"inner"`` (default), ``"cross"`` or ``"left"``; a table function runs as given
            (``explode_outer`` keeps the rows ``explode`` makes nothing of), as in PySpark.
        """
        from .lateral_join import lateral_join  # noqa: PLC0415 - loads with its first use

        return lateral_join(self, other, on, how)  # type: ignore[arg-type]

    @property
    def executionInfo(self) -> Any:  # noqa: N802 - PySpark's name
        """Spark Connect only: raises ``CLASSIC_OPERATION_NOT_SUPPORTED_ON_DF``, as PySpark Classic does."""
        from .errors import PySparkValueError  # noqa: PLC0415 - the error path only

        raise PySparkValueError(
            "Calling property or member 'queryExecution' is not supported in PySpark Classic, please use Spark "
            "Connect instead.", "CLASSIC_OPERATION_NOT_SUPPORTED_ON_DF", {"member": "queryExecution"})

    def inputFiles(self) -> list[str]:  # noqa: N802 - PySpark's name
        """The files the DataFrame reads (``file:`` paths, each once, sorted)."""
        from .plan.logical import FileRelation  # noqa: PLC0415 - the plan's node classes

        df: Any = self
        files = {os.path.abspath(f) for node in df._plan.walk() if isinstance(node, FileRelation) for f in node.files}
        return sorted(f"file:{f}" for f in files)

    def _ordinal(self, col: Any) -> Any:
        """A 1-based column position (PySpark 4's ``groupBy(1)``) as that column; other arguments unchanged."""
        if not isinstance(col, int) or isinstance(col, bool):
            return col
        if col < 1:
            raise PySparkIndexError(
                f"Column position {col} is not positive: positions count from 1 (the first column); pass a name "
                "or a Column for anything else.", "INDEX_NOT_POSITIVE", {"index": str(col)})
        df: Any = self
        return df[col - 1]

    def _canonical(self) -> str:
        df: Any = self
        text = df._execution().optimized.tree_string()
        numbers: dict[str, str] = {}
        return _ID.sub(lambda m: numbers.setdefault(m.group(0), f"#{len(numbers)}"), text)

    def sameSemantics(self, other: DataFrame) -> bool:  # noqa: N802 - PySpark's name
        """Whether both DataFrames compute the same rows by the same plan (ids aside)."""
        if not isinstance(other, PlanMethods):
            raise PySparkTypeError(f"Argument `other` should be a DataFrame, got {type(other).__name__}.",
                                   "NOT_DATAFRAME", {"arg_name": "other", "arg_type": type(other).__name__})
        return self._canonical() == other._canonical()

    def semanticHash(self) -> int:  # noqa: N802 - PySpark's name
        """A hash equal for DataFrames of the same semantics (see :meth:`sameSemantics`)."""
        value = zlib.crc32(self._canonical().encode("utf-8"))
        return value - (1 << 32) if value >= 1 << 31 else value

    def colRegex(self, colName: str) -> Column:  # noqa: N802,N803 - PySpark's names
        """The columns whose whole name matches a regular expression in backquotes (`` "`(id|v.*)`" ``)."""
        if not isinstance(colName, str):
            raise PySparkTypeError(f"Argument `colName` should be a str, got {type(colName).__name__}.", "NOT_STR",
                                   {"arg_name": "colName", "arg_type": type(colName).__name__})
        if len(colName) > 1 and colName.startswith("`") and colName.endswith("`"):
            return Column(UnresolvedStar(pattern=colName[1:-1]))
        df: Any = self
        return df[colName]

    def metadataColumn(self, colName: str) -> Column:  # noqa: N802,N803 - PySpark's names
        """A hidden metadata column of the DataFrame's file scan by name (``"_metadata"``), as a Column.

        Unlike ``df["_metadata"]`` it is never a data column of the same name.
        """
        from .plan.builders import hidden_columns  # noqa: PLC0415 - the plan builders load with the first query

        df: Any = self
        found = [a for a in hidden_columns(df._plan) if a.name.lower() == str(colName).lower()]
        if not found:
            raise AnalysisException(
                f"A metadata column named `{colName}` does not exist here: file scans (spark.read.parquet(...) "
                "and the other file formats) have `_metadata`, reachable through filters, sorts and limits.",
                "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION", {"objectName": f"`{colName}`"})
        return Column(found[0])

    def to(self, schema: StructType) -> DataFrame:
        """The columns of ``schema``, picked by name in its order and cast to its types (others dropped)."""
        if not isinstance(schema, StructType):
            raise PySparkTypeError(f"Argument `schema` should be a StructType, got {type(schema).__name__}.",
                                   "NOT_STRUCT", {"arg_name": "schema", "arg_type": type(schema).__name__})
        df: Any = self
        names = {c.lower(): c for c in df.columns} if not df._case_sensitive else {c: c for c in df.columns}
        columns = []
        for field in schema.fields:
            found = names.get(field.name if df._case_sensitive else field.name.lower())
            if found is None:
                raise AnalysisException(
                    f"A column or function parameter with name `{field.name}` cannot be resolved. Did you mean one "
                    f"of the following? [{', '.join(f'`{c}`' for c in df.columns)}]. to(schema) picks columns by "
                    "name.", "UNRESOLVED_COLUMN.WITH_SUGGESTION", {"objectName": f"`{field.name}`"})
            columns.append(df[found].cast(field.dataType).alias(field.name))
        return df.select(*columns)

    def createOrReplaceGlobalTempView(self, name: str) -> None:  # noqa: N802 - PySpark's name
        """Make this DataFrame queryable as ``global_temp.<name>`` by every session of the application."""
        df: Any = self
        df._session._register_view(name, df, replace=True, global_view=True)

    def createGlobalTempView(self, name: str) -> None:  # noqa: N802 - PySpark's name
        """Like ``createOrReplaceGlobalTempView``, but fail if the name is taken."""
        df: Any = self
        df._session._register_view(name, df, replace=False, global_view=True)

    def writeTo(self, table: str) -> Any:  # noqa: N802 - PySpark's name
        """A ``DataFrameWriterV2`` writing these rows to the managed table ``table``."""
        from .writer_v2 import DataFrameWriterV2  # noqa: PLC0415 - loads with the first use

        df: Any = self
        return DataFrameWriterV2(df, table)

    def mergeInto(self, table: str, condition: Column) -> Any:  # noqa: N802 - PySpark's name
        """A ``MergeIntoWriter`` merging these rows into ``table`` on ``condition`` (PySpark 4).

        Spark runs a MERGE only on tables of catalogs with row-level changes (Delta Lake,
        Iceberg): on the session catalog's tables ``merge()`` is refused, here as there.
        """
        from .merge import MergeIntoWriter  # noqa: PLC0415 - loads with the first use

        df: Any = self
        return MergeIntoWriter(df, table, condition)

    def transpose(self, indexColumn: Column | str | None = None) -> DataFrame:  # noqa: N803 - PySpark's name
        """The columns as rows (see the module doc).

        Parameters
        ----------
        indexColumn : Column or str, optional
            The column whose values name the new columns (the first column by default).

        Examples
        --------
        >>> df = spark.createDataFrame([("x", 1, 2), ("y", 3, 4)], "k string, a int, b int")
        >>> df.transpose().collect()
        [Row(key='a', x=1, y=3), Row(key='b', x=2, y=4)]
        """
        from . import functions as F  # noqa: N812, PLC0415 - the functions import the DataFrame
        from .expressions.coercion import find_common_type  # noqa: PLC0415 - light import

        df: Any = self
        index = df.columns[0] if indexColumn is None else (
            indexColumn if isinstance(indexColumn, str) else df.select(indexColumn).columns[0])
        others = [f for f in df.schema.fields if f.name != index]
        if not others:
            raise AnalysisException("transpose needs a column besides the index column.",
                                    "TRANSPOSE_NO_LEAST_COMMON_TYPE", {"dt1": "", "dt2": ""})
        common = find_common_type([f.dataType for f in others])
        if common is None:
            raise AnalysisException(
                "transpose: the columns to turn into rows have no common type: "
                + ", ".join(f"{f.name} {f.dataType.simpleString()}" for f in others),
                "TRANSPOSE_NO_LEAST_COMMON_TYPE", {"dt1": others[0].dataType.simpleString(), "dt2": ""})
        rows = df.select(index, *[F.col(f"`{f.name}`").cast(common).alias(f.name) for f in others]) \
            .orderBy(F.col(f"`{index}`").asc_nulls_first()).collect()
        names = [str(r[0]) for r in rows]
        data = [(f.name, *[r[f.name] for r in rows]) for f in others]
        from .types import StringType, StructField, StructType  # noqa: PLC0415 - light import

        schema = StructType([StructField("key", StringType(), False)] + [StructField(n, common, True) for n in names])
        return df.sparkSession.createDataFrame(data, schema)

    def scalar(self) -> Column:
        """This one-column, at-most-one-row DataFrame as a scalar subquery Column (its value, or null).

        Examples
        --------
        >>> df = spark.range(5)
        >>> df.where(df.id > spark.range(5).selectExpr("avg(id)").scalar()).count()
        2
        """
        from . import functions  # noqa: PLC0415 - the functions import the DataFrame
        from .parser.subqueries import scalar_subquery  # noqa: PLC0415 - the parser loads when used

        result: Column = scalar_subquery(self, functions)
        return result

    def exists(self) -> Column:
        """Whether this DataFrame has a row, as a boolean Column (an EXISTS subquery)."""
        from . import functions as F  # noqa: N812, PLC0415 - the functions import the DataFrame

        df: Any = self
        return F.lit(bool(df.limit(1).collect())).alias("exists()")

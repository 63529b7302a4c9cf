"""``df.writeTo(table)``: PySpark's ``DataFrameWriterV2`` over the managed tables.

What this module owns
---------------------
:class:`DataFrameWriterV2`: ``using``, ``option(s)``, ``tableProperty``, ``partitionedBy``
(column names), and the actions ``create``, ``createOrReplace``, ``replace``, ``append``,
``overwrite(condition)`` and ``overwritePartitions``, each a managed table write
(:mod:`.tables`).

Invariants
----------
* ``create`` fails on an existing table (``TABLE_OR_VIEW_ALREADY_EXISTS``), ``replace`` on
  a missing one (``TABLE_OR_VIEW_NOT_FOUND``); ``append`` and the overwrites need the
  table and match columns by name, as Spark's v2 writes do.
* ``overwrite(condition)`` keeps the table's rows where ``condition`` is not true and adds
  the new rows; ``overwritePartitions`` replaces the partitions the new rows fall in
  (every row, for an unpartitioned table).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import AnalysisException, PySparkTypeError, UnsupportedOperationException

if TYPE_CHECKING:
    from .column import Column
    from .dataframe import DataFrame

__all__ = ["DataFrameWriterV2"]


class DataFrameWriterV2:
    """Writes a DataFrame to a managed table (``df.writeTo("t")``)."""

    def __init__(self, df: DataFrame, table: str) -> None:
        self._df = df
        self._table = table
        self._provider = "parquet"
        self._options: dict[str, str] = {}
        self._partitioned_by: list[str] = []
        self._bucket: tuple[int, str] | None = None  # partitionedBy(bucket(n, col))
        self._time_transform: str | None = None  # partitionedBy(years(col)...): refused at create
        self._properties: dict[str, str] = {}

    def using(self, provider: str) -> DataFrameWriterV2:
        """The table's file format (``parquet``, ``json``, ``csv``)."""
        self._provider = provider
        return self

    def option(self, key: str, value: Any) -> DataFrameWriterV2:
        """A writer option."""
        self._options[key] = str(value)
        return self

    def options(self, **options: Any) -> DataFrameWriterV2:
        """Writer options."""
        for key, value in options.items():
            self.option(key, value)
        return self

    def tableProperty(self, property: str, value: str) -> DataFrameWriterV2:  # noqa: N802, A002
        """A table property (kept; this catalog has no use for them)."""
        self._properties[property] = value
        return self

    def partitionedBy(self, col: Column | str, *cols: Column | str) -> DataFrameWriterV2:  # noqa: N802
        """Partition the table's files by these columns (names, or Columns naming them), or bucket
        it with ``partitioning.bucket(n, col)``. The time transforms (``partitioning.years``...)
        are refused by ``create`` as Spark refuses them for the session catalog's tables."""
        from .column import expr_of  # noqa: PLC0415 - the columns import this module's callers
        from .expressions.partition_transforms import PartitionTransform  # noqa: PLC0415

        names = []
        for c in (col, *cols):
            expr = expr_of(c)
            if isinstance(expr, PartitionTransform):
                target = expr.children[0]
                column = getattr(target, "name", None) or ".".join(getattr(target, "parts", ()))
                if expr.name == "bucket" and expr.num_buckets is not None and column:
                    self._bucket = (expr.num_buckets, column)
                else:
                    self._time_transform = expr.sql()
                continue
            name = getattr(expr, "name", None) or ".".join(getattr(expr, "parts", ()))
            if not name:
                raise PySparkTypeError(f"partitionedBy takes column names or partition transforms "
                                       f"(functions.partitioning), got {expr.sql()}.", "NOT_COLUMN_NAME",
                                       {"arg_name": "col"})
            names.append(name)
        self._partitioned_by = names
        return self

    def clusterBy(self, col: str, *cols: str) -> DataFrameWriterV2:  # noqa: N802 - PySpark's name
        """Cluster the table by these columns: recorded as its ``clusteringColumns`` property, as
        Spark records it; the rows are the same (clustering is a layout hint)."""
        names = [col, *cols]
        if not all(isinstance(n, str) for n in names):
            raise PySparkTypeError("clusterBy takes column names (str).", "NOT_STR", {"arg_name": "col"})
        self._properties["clusteringColumns"] = "[" + ",".join(f'["{n}"]' for n in names) + "]"
        return self

    def _exists(self) -> bool:
        return self._df.sparkSession.catalog.tableExists(self._table)

    def _save(self, mode: str, df: DataFrame | None = None) -> None:
        if self._time_transform is not None:
            raise UnsupportedOperationException(
                f"Unsupported partition transform: `{self._time_transform}`. The supported transforms are "
                "`identity`, `bucket`, and `clusterBy`. Ensure your transform expression uses one of these.",
                "UNSUPPORTED_PARTITION_TRANSFORM", {"transform": f"`{self._time_transform}`"})
        writer = (df or self._df).write.format(self._provider).mode(mode).options(**self._options)
        if self._partitioned_by:
            writer = writer.partitionBy(*self._partitioned_by)
        if self._bucket is not None:
            writer = writer.bucketBy(*self._bucket)
        writer.saveAsTable(self._table)

    def create(self) -> None:
        """Create the table from the rows; it must not exist."""
        self._save("error")

    def createOrReplace(self) -> None:  # noqa: N802 - PySpark's name
        """Create the table, or replace its rows and schema."""
        self._save("overwrite")

    def replace(self) -> None:
        """Replace the rows and schema of an existing table."""
        if not self._exists():
            raise _missing(self._table)
        self._save("overwrite")

    def append(self) -> None:
        """Add the rows to an existing table (columns by name)."""
        if not self._exists():
            raise _missing(self._table)
        self._save("append")

    def overwrite(self, condition: Column) -> None:
        """Replace the table's rows where ``condition`` holds by the new rows."""
        from . import functions as F  # noqa: N812, PLC0415 - the functions import the DataFrame

        if not self._exists():
            raise _missing(self._table)
        session = self._df.sparkSession
        current = session.table(self._table)
        kept = current.filter(~F.coalesce(condition, F.lit(False)))
        combined = kept.unionByName(self._df.select(*current.columns)).localCheckpoint()
        self._save("overwrite", combined)

    def overwritePartitions(self) -> None:  # noqa: N802 - PySpark's name
        """Replace the partitions the new rows fall in (all rows, for an unpartitioned table)."""
        from .tables import partition_columns  # noqa: PLC0415 - the tables load with the first one

        if not self._exists():
            raise _missing(self._table)
        session = self._df.sparkSession
        keys = partition_columns(session, self._table)
        if not keys:
            self._save("overwrite")
            return
        current = session.table(self._table)
        touched = self._df.select(*keys).distinct()
        kept = current.join(touched, on=keys, how="left_anti")
        combined = kept.unionByName(self._df.select(*current.columns)).localCheckpoint()
        self._partitioned_by = keys
        self._save("overwrite", combined)


def _missing(table: str) -> AnalysisException:
    return AnalysisException(f"The table or view `{table}` cannot be found: create it first (writeTo(...).create()).",
                             "TABLE_OR_VIEW_NOT_FOUND", {"relationName": f"`{table}`"})

"""``df.write.bucketBy(n, cols).sortBy(cols)``: bucketed managed tables, checked as Spark checks them.

What this module owns
---------------------
:class:`BucketSpec` (a writer's ``bucketBy``/``sortBy`` settings) and the checks and layout
of a bucketed ``saveAsTable``: the rows are hash-partitioned by the bucket columns into ``n``
partitions (``repartition(n, *cols)``, whose hash is not Spark's Murmur3: a row may sit in
another file than Spark's bucket) and sorted within each by the ``sortBy`` columns, then
written as the table's files.

Invariants
----------
* Only ``saveAsTable`` writes buckets: ``save`` (and ``parquet``, ``csv``...) and
  ``insertInto`` refuse them (``_LEGACY_ERROR_TEMP_1312``/``1313``), ``sortBy`` alone is
  ``SORT_BY_WITHOUT_BUCKETING``, a bucket count outside (0, 100000] ``_LEGACY_ERROR_TEMP_1083``,
  an unknown bucket column ``COLUMN_NOT_DEFINED_IN_TABLE``, a bucket column among the
  partition columns ``_LEGACY_ERROR_TEMP_1166``.
* The catalog does not record the buckets: reads of the table see its rows, not a bucketed
  layout (no bucketed joins).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import AnalysisException, PySparkTypeError

if TYPE_CHECKING:
    from .dataframe import DataFrame

__all__ = ["BucketSpec", "bucket_columns"]

_MAX_BUCKETS = 100000


def bucket_columns(first: Any, rest: tuple[Any, ...]) -> list[str]:
    """``bucketBy``/``sortBy`` column arguments: names, or one list of them."""
    if isinstance(first, list | tuple):
        if rest:
            raise PySparkTypeError("Pass the columns as names or as one list, not both.", "NOT_STR",
                                   {"arg_name": "cols", "arg_type": "list"})
        return [str(c) for c in first]
    return [str(c) for c in (first, *rest)]


@dataclass
class BucketSpec:
    """A writer's buckets: their number and columns (``None`` before ``bucketBy``) and sort columns."""

    num_buckets: int | None = None
    columns: tuple[str, ...] = ()
    sort_columns: tuple[str, ...] = ()

    def check_count(self, num_buckets: Any) -> int:
        """``numBuckets`` as PySpark takes it (an int, else ``NOT_INT``)."""
        if not isinstance(num_buckets, int) or isinstance(num_buckets, bool):
            raise PySparkTypeError(f"Argument `numBuckets` should be an int, got {type(num_buckets).__name__}.",
                                   "NOT_INT", {"arg_name": "numBuckets", "arg_type": type(num_buckets).__name__})
        return num_buckets

    def active(self) -> bool:
        """Whether ``bucketBy`` (or a lone ``sortBy``, an error) was given."""
        if self.sort_columns and self.num_buckets is None:
            raise AnalysisException("sortBy must be used together with bucketBy.", "SORT_BY_WITHOUT_BUCKETING", {})
        if self.num_buckets is not None and not 0 < self.num_buckets <= _MAX_BUCKETS:
            raise AnalysisException(
                f"Number of buckets should be greater than 0 but less than or equal to bucketing.maxBuckets "
                f"(`{_MAX_BUCKETS}`). Got `{self.num_buckets}`.", "_LEGACY_ERROR_TEMP_1083",
                {"numBuckets": str(self.num_buckets)})
        return self.num_buckets is not None

    def refuse(self, operation: str) -> None:
        """Spark's error for buckets given to ``save`` or ``insertInto`` (nothing if there are none)."""
        if not self.active():
            return
        if self.sort_columns:
            raise AnalysisException(f"'{operation}' does not support bucketBy and sortBy right now.",
                                    "_LEGACY_ERROR_TEMP_1313", {"operation": operation})
        raise AnalysisException(f"'{operation}' does not support bucketBy right now.", "_LEGACY_ERROR_TEMP_1312",
                                {"operation": operation})

    def layout(self, df: DataFrame, table: str, partition_by: list[str]) -> DataFrame:
        """``df`` as a bucketed ``saveAsTable`` of ``table`` writes it (``df`` itself without buckets)."""
        if not self.active():
            return df
        assert self.num_buckets is not None
        for name in (*self.columns, *self.sort_columns):
            if name not in df.columns:
                kind = "bucket" if name in self.columns else "sort"
                shown = ", ".join(f"`{c}`" for c in df.columns)
                raise AnalysisException(
                    f"{kind} column `{name}` is not defined in table `spark_catalog`.`default`.`{table}`, defined "
                    f"table columns are: {shown}.", "COLUMN_NOT_DEFINED_IN_TABLE",
                    {"colType": kind, "colName": f"`{name}`", "tableName": f"`spark_catalog`.`default`.`{table}`",
                     "tableCols": shown})
        overlap = [c for c in self.columns if c in partition_by]
        if overlap:
            raise AnalysisException(
                f"Bucketing column '{overlap[0]}' should not be part of partition columns "
                f"'{', '.join(partition_by)}'.", "_LEGACY_ERROR_TEMP_1166",
                {"bucketCol": overlap[0], "partitionCols": ", ".join(partition_by)})
        bucketed = df.repartition(self.num_buckets, *self.columns)
        return bucketed.sortWithinPartitions(*self.sort_columns) if self.sort_columns else bucketed

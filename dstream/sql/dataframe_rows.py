"""DataFrame methods over its rows: ``foreach``, ``foreachPartition``, ``toJSON``, the
missing-value shortcuts ``na``, ``fillna``, ``dropna`` and ``replace``, the set operations
``intersect`` and ``subtract`` and the multiset ones ``exceptAll`` and ``intersectAll``.

What this module owns
---------------------
:class:`RowMethods`, a base of :class:`~dstream.sql.dataframe.DataFrame`, built on the
public API: the row functions run over ``df.rdd`` in the tasks; ``toJSON`` is
``to_json(struct(*))`` per row; the set operations are a semi or anti join on all
columns (null-safe), then ``distinct``; the multiset operations count each distinct row
on both sides in one aggregation (nulls compare equal, as in SQL's set operations) and
repeat it as often as the operation says.

Invariants
----------
* All four match columns by position and need as many on both sides
  (``NUM_COLUMNS_MISMATCH``); a side derived from the other (``df.subtract(df.filter(...))``)
  is compared by value, its shared columns renumbered first.
* ``exceptAll`` keeps a row ``max(0, a - b)`` times and ``intersectAll`` ``min(a, b)``
  times, for ``a`` and ``b`` its counts on each side; the columns are matched by
  position and keep this DataFrame's names and types.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from .errors import AnalysisException
from .plan.builders import build_join, build_union, dedup_right, null_safe_match

if TYPE_CHECKING:
    from rdd import RDD

    from .dataframe import DataFrame
    from .na import DataFrameNaFunctions
    from .row import Row
    from .udtf import TableArg

__all__ = ["RowMethods"]

_SIDE = "__dstreams_side"
_LEFT = "__dstreams_left"
_RIGHT = "__dstreams_right"


def _json_of(row: Row) -> str:
    return row[0]


def _repeat(width: int, keep: Callable[[int, int], int], row: Row) -> Iterator[tuple[Any, ...]]:
    values = tuple(row[:width])
    for _ in range(keep(row[width], row[width + 1])):
        yield values


def _difference(a: int, b: int) -> int:
    return max(0, a - b)


def _common(a: int, b: int) -> int:
    return min(a, b)


class RowMethods:
    """Row-wise actions and multiset operations of a DataFrame (see the module doc)."""

    def foreach(self, f: Callable[[Row], Any]) -> None:
        """Call ``f`` on every row, in the tasks."""
        df: DataFrame = self  # type: ignore[assignment]
        with df._session._operation():
            df.rdd.foreach(f)

    def foreachPartition(self, f: Callable[[Iterator[Row]], Any]) -> None:  # noqa: N802 - PySpark's name
        """Call ``f`` on each partition's iterator of rows, in the tasks."""
        df: DataFrame = self  # type: ignore[assignment]
        with df._session._operation():
            df.rdd.foreachPartition(f)

    def toJSON(self, use_unicode: bool = True) -> RDD[str]:  # noqa: N802 - PySpark's name
        """An RDD of one JSON object per row (null fields left out)."""
        from . import functions as F  # noqa: N812, PLC0415 - functions imports the DataFrame

        df: DataFrame = self  # type: ignore[assignment]
        return df.select(F.to_json(F.struct(*[F.col(f"`{c}`") for c in df.columns]))).rdd.map(_json_of)

    @property
    def na(self) -> DataFrameNaFunctions:
        """Missing-value handling: ``df.na.fill(0)``, ``df.na.drop()``."""
        from .na import DataFrameNaFunctions  # noqa: PLC0415 - na imports the DataFrame

        df: DataFrame = self  # type: ignore[assignment]
        return DataFrameNaFunctions(df)

    def fillna(self, value: Any, subset: Any = None) -> DataFrame:
        """Replace nulls (see ``DataFrame.na.fill``)."""
        return self.na.fill(value, subset)

    def dropna(self, how: str = "any", thresh: int | None = None, subset: Any = None) -> DataFrame:
        """Drop rows with nulls (see ``DataFrame.na.drop``)."""
        return self.na.drop(how, thresh, subset)

    def replace(self, to_replace: Any, value: Any = None, subset: Any = None) -> DataFrame:
        """Replace values (``df.na.replace``): a value, a list of values, or a dict of old to new."""
        df: DataFrame = self  # type: ignore[assignment]
        return df.na.replace(to_replace, value, subset)

    def intersect(self, other: DataFrame) -> DataFrame:
        """Distinct rows present in both."""
        return self._set_operation(other, "INTERSECT", "left_semi")

    def subtract(self, other: DataFrame) -> DataFrame:
        """Distinct rows of this DataFrame not in ``other``."""
        return self._set_operation(other, "EXCEPT", "left_anti")

    def exceptAll(self, other: DataFrame) -> DataFrame:  # noqa: N802 - PySpark's name
        """The rows of this DataFrame not in ``other``, duplicates kept (``EXCEPT ALL``)."""
        return self._multiset(other, "exceptAll", _difference)

    def intersectAll(self, other: DataFrame) -> DataFrame:  # noqa: N802 - PySpark's name
        """The rows in both DataFrames, duplicates kept (``INTERSECT ALL``)."""
        return self._multiset(other, "intersectAll", _common)

    def asTable(self) -> TableArg:  # noqa: N802 - PySpark's name
        """This DataFrame as a table argument of a Python UDTF (``MyUDTF(df.asTable())``).

        ``partitionBy``, ``orderBy`` and ``withSinglePartition`` on the result say which
        rows one instance of the UDTF class sees, and in what order.
        """
        from .udtf import TableArg  # noqa: PLC0415 - loads with the first table argument

        return TableArg(self)  # type: ignore[arg-type]

    def _set_operation(self, other: DataFrame, name: str, how: str) -> DataFrame:
        df: DataFrame = self  # type: ignore[assignment]
        _same_width(df, other, name)
        _refuse_variants(df)
        df, other = _widened(df, other, name)
        # The other side renumbered first when it shares columns with this one: matched on
        # the shared ids, each row would equal itself.
        right = dedup_right(df._plan, other._plan)
        cond = null_safe_match(df._plan.output(), right.output())
        return df._new(build_join(df._plan, right, None, how, cond, df._case_sensitive)).distinct()

    def _multiset(self, other: DataFrame, name: str, keep: Callable[[int, int], int]) -> DataFrame:
        from . import functions as F  # noqa: N812, PLC0415

        df: DataFrame = self  # type: ignore[assignment]
        _same_width(df, other, name)
        _refuse_variants(df)
        df, other = _widened(df, other, name)
        keys = [f"c{i}" for i in range(len(df.columns))]
        left = df.toDF(*keys).withColumn(_SIDE, F.lit(1))
        right = other.toDF(*keys).withColumn(_SIDE, F.lit(-1))
        side = F.col(_SIDE)
        counts = left.union(right).groupBy(*keys).agg(
            F.count(F.when(side == 1, 1)).alias(_LEFT), F.count(F.when(side == -1, 1)).alias(_RIGHT))
        rows = counts.rdd.flatMap(functools.partial(_repeat, len(keys), keep))
        return df.sparkSession.createDataFrame(rows, df.schema)


def _same_width(df: DataFrame, other: DataFrame, name: str) -> None:
    if len(other.columns) != len(df.columns):
        raise AnalysisException(
            f"{name} can only be performed on inputs with the same number of columns, but the first input has "
            f"{len(df.columns)} columns and the second input has {len(other.columns)} columns.",
            "NUM_COLUMNS_MISMATCH", {"operator": name, "firstNumColumns": str(len(df.columns)),
                                     "invalidOrdinalNum": "second", "invalidNumColumns": str(len(other.columns))})


def _widened(df: DataFrame, other: DataFrame, name: str) -> tuple[DataFrame, DataFrame]:
    """Both sides cast to the types their columns meet at, as a union widens them (Spark's
    WidenSetOperationTypes: an int and a string column intersect as bigint)."""
    from .expressions.coercion import find_common_type  # noqa: PLC0415 - the DataFrame imports this module

    operator = {"exceptAll": "EXCEPT ALL", "intersectAll": "INTERSECT ALL"}.get(name, name)
    union = build_union([df._plan, other._plan], lambda a, b: find_common_type([a, b]), operator)
    left, right = union.children
    return (df if left is df._plan else df._new(left)), (other if right is other._plan else df._new(right))


def _refuse_variants(df: DataFrame) -> None:
    from .variant.casting import contains_variant, set_operation_error  # noqa: PLC0415 - the error path is rare

    for field in df.schema.fields:
        if contains_variant(field.dataType):
            raise set_operation_error(field.name, field.dataType)

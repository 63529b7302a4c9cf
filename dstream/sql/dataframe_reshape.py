"""DataFrame methods that reshape or summarize: ``unpivot`` / ``melt``, ``describe`` and
``withMetadata``.

What this module owns
---------------------
:class:`ReshapeMethods`, a base of :class:`~dstream.sql.dataframe.DataFrame`, built on
the public DataFrame and functions API only:

* ``unpivot(ids, values, variableColumnName, valueColumnName)`` (``melt``): one row per
  input row and value column, in the values' order, the values cast to their common type
  (Spark's ``Expand``), as an ``explode`` of an array of ``(name, value)`` structs;
* ``describe(*cols)``: Spark's ``count``, ``mean``, ``stddev``, ``min``, ``max`` rows, every
  value a string, computed by one aggregation; ``summary(*statistics)`` the same with any
  of Spark's statistics, percentiles (``"25%"``) included;
* ``withMetadata(columnName, metadata)``: the same rows, one column's ``StructField``
  metadata replaced.

Invariants
----------
* Column positions, not names, carry the ids through the reshaping, so ids may be any
  column expressions, with any names.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .errors import AnalysisException, PySparkValueError
from .expressions.coercion import find_common_type, is_numeric
from .types import DecimalType, StringType, StructField, StructType

if TYPE_CHECKING:
    from .dataframe import DataFrame
    from .group import GroupedData

__all__ = ["ReshapeMethods"]

_SUMMARY = ("count", "mean", "stddev", "min", "max")


def _names(cols: Any) -> list[Any]:
    if cols is None:
        return []
    return list(cols) if isinstance(cols, list | tuple) else [cols]


class ReshapeMethods:
    """``DataFrame``'s reshaping and summary methods (PySpark's names)."""

    def withMetadata(self, columnName: str, metadata: dict[str, Any]) -> DataFrame:  # noqa: N802,N803
        """The same rows with the metadata of column ``columnName`` replaced by ``metadata``.

        Parameters
        ----------
        columnName : str
            An existing column.
        metadata : dict
            Its new ``StructField.metadata`` (JSON-like values).

        Examples
        --------
        >>> df = spark.createDataFrame([(1,)], "a int").withMetadata("a", {"comment": "the key"})
        >>> df.schema["a"].metadata
        {'comment': 'the key'}
        """
        from .functions import col  # noqa: PLC0415 - functions imports the DataFrame

        df: Any = self
        if not isinstance(metadata, dict):
            raise PySparkValueError(f"withMetadata takes a dict of metadata, got {type(metadata).__name__}.",
                                    "NOT_DICT", {"arg_name": "metadata", "arg_type": type(metadata).__name__})
        if columnName not in df.columns and not any(c.lower() == columnName.lower() for c in df.columns):
            raise AnalysisException(
                f"A column or function parameter with name `{columnName}` cannot be resolved. Did you mean one of "
                f"the following? [{', '.join(df.columns)}].", "UNRESOLVED_COLUMN.WITH_SUGGESTION",
                {"objectName": columnName})
        name = next(c for c in df.columns if c == columnName or c.lower() == columnName.lower())
        return df.withColumn(name, col(f"`{name}`").alias(name, metadata=dict(metadata)))

    def unpivot(self, ids: Any, values: Any, variableColumnName: str,  # noqa: N803 - PySpark's names
                valueColumnName: str) -> DataFrame:  # noqa: N803
        """Turn value columns into rows: ``ids..., variableColumnName, valueColumnName``.

        Parameters
        ----------
        ids : str, Column, or a list of them
            The columns kept on every output row.
        values : str, Column, list of them, or None
            The columns turned into rows (all but the ids when ``None``); they must share a type.
        variableColumnName, valueColumnName : str
            The names of the column holding a value column's name and of the one holding its value.
        """
        from . import functions as F  # noqa: N812, PLC0415 - functions imports this module's users

        df: DataFrame = self  # type: ignore[assignment]
        id_cols = [df[c] if isinstance(c, str) else c for c in _names(ids)]
        value_cols = [df[c] if isinstance(c, str) else c for c in _names(values)]
        if values is None:
            id_names = set(df.select(*id_cols).columns) if id_cols else set()
            value_cols = [df[c] for c in df.columns if c not in id_names]
        if not value_cols:
            raise AnalysisException("At least one value column needs to be specified for UNPIVOT, all columns "
                                    "specified as ids.", "UNPIVOT_REQUIRES_VALUE_COLUMNS", {})
        named = df.select(*value_cols)
        common = find_common_type([f.dataType for f in named.schema.fields])
        if common is None:
            types = ", ".join(f"{f.name} {f.dataType.simpleString()}" for f in named.schema.fields)
            raise AnalysisException(f"Unpivot value columns must share a least common type, some types do not: "
                                    f"[{types}]. Cast them to one type first.",
                                    "UNPIVOT_VALUE_DATA_TYPE_MISMATCH", {"types": types})
        pairs = [F.struct(F.lit(name).alias("v"), col.cast(common).alias("x"))
                 for name, col in zip(named.columns, value_cols)]
        exploded = df.select(*id_cols, F.explode(F.array(*pairs)).alias("__unpivot"))
        kept = [exploded[i] for i in range(len(id_cols))]
        pair = exploded[len(id_cols)]
        return exploded.select(*kept, pair.getField("v").alias(variableColumnName),
                               pair.getField("x").alias(valueColumnName))

    def melt(self, ids: Any, values: Any, variableColumnName: str,  # noqa: N803 - PySpark's names
             valueColumnName: str) -> DataFrame:  # noqa: N803
        """:meth:`unpivot` under pandas' name."""
        return self.unpivot(ids, values, variableColumnName, valueColumnName)

    def describe(self, *cols: Any) -> DataFrame:
        """``count``, ``mean``, ``stddev``, ``min`` and ``max`` of columns, as strings.

        Parameters
        ----------
        *cols : str or list of str
            The columns; all numeric and string columns when none are given. A string
            column's mean and standard deviation read its numeric values (else null).
        """
        df: DataFrame = self  # type: ignore[assignment]
        names = _names(cols[0]) if len(cols) == 1 and isinstance(cols[0], list) else list(cols)
        return _summary(df, names, _SUMMARY)

    def summary(self, *statistics: str) -> DataFrame:
        """Statistics of every numeric and string column, as strings (Spark's ``summary``).

        Parameters
        ----------
        *statistics : str
            Any of ``count``, ``mean``, ``stddev``, ``min``, ``max``, ``count_distinct``,
            ``approx_count_distinct`` and percentiles such as ``"25%"``; by default
            ``count, mean, stddev, min, 25%, 50%, 75%, max``. Percentiles are values of the
            column (``percentile_approx``), null for strings.
        """
        df: DataFrame = self  # type: ignore[assignment]
        wanted = list(statistics) or ["count", "mean", "stddev", "min", "25%", "50%", "75%", "max"]
        for name in wanted:
            if name not in _STATISTICS and not _percent(name):
                raise PySparkValueError(f"{name} is not a recognised statistic: use count, mean, stddev, min, max, "
                                        "count_distinct, approx_count_distinct or a percentage such as 25%.",
                                        "INVALID_PARAMETER_VALUE", {"statistic": name})
        return _summary(df, [], wanted)

    def cube(self, *cols: Any) -> GroupedData:
        """Group by every subset of the columns at once (the aggregated-over ones null)."""
        from .group import GroupedData as Grouped  # noqa: PLC0415 - group builds on the DataFrame
        from .plan.grouping_sets import cube_sets  # noqa: PLC0415

        df: Any = self
        grouped = df.groupBy(*cols)
        return Grouped(df, grouped._keys, grouping_sets=cube_sets(len(grouped._keys)))

    def groupingSets(self, groupingSets: Sequence[Sequence[Any]], *cols: Any) -> GroupedData:  # noqa: N802, N803
        """Group by each of ``groupingSets`` at once (PySpark 4's), a grouping column outside a set null there.

        Parameters
        ----------
        groupingSets : sequence of sequences of Column or str
            The sets; each member must be one of ``cols``.
        cols : Column or str
            The grouping columns.
        """
        from .group import GroupedData as Grouped  # noqa: PLC0415 - group builds on the DataFrame

        df: Any = self
        grouped = df.groupBy(*cols)
        keys = [k.semantic_key() for k in grouped._keys]
        sets = []
        for members in groupingSets:
            chosen = []
            for member in df.groupBy(*members)._keys if members else []:
                if member.semantic_key() not in keys:
                    raise AnalysisException(
                        f"The grouping set member {member.sql()} is not one of the grouping columns "
                        f"({', '.join(k.sql() for k in grouped._keys)}); list it among the columns too.",
                        "GROUPING_SETS_MEMBER_NOT_GROUPED", {"expression": member.sql()})
                chosen.append(keys.index(member.semantic_key()))
            sets.append(chosen)
        return Grouped(df, grouped._keys, grouping_sets=sets)

    def rollup(self, *cols: Any) -> GroupedData:
        """Group by each prefix of the columns at once, down to the grand total."""
        from .group import GroupedData as Grouped  # noqa: PLC0415 - group builds on the DataFrame
        from .plan.grouping_sets import rollup_sets  # noqa: PLC0415

        df: Any = self
        grouped = df.groupBy(*cols)
        return Grouped(df, grouped._keys, grouping_sets=rollup_sets(len(grouped._keys)))

_STATISTICS = ("count", "mean", "stddev", "min", "max", "count_distinct", "approx_count_distinct")


def _percent(name: str) -> float | None:
    if not name.endswith("%"):
        return None
    try:
        value = float(name[:-1]) / 100
    except ValueError:
        return None
    return value if 0 <= value <= 1 else None


def _statistic(df: DataFrame, name: str, stat: str) -> Any:
    from . import functions as F  # noqa: N812, PLC0415 - functions imports this module's users

    col = df[name]
    dtype = df.select(col).schema.fields[0].dataType
    numeric = is_numeric(dtype)
    number = col if numeric else col.try_cast("double")
    fraction = _percent(stat)
    if fraction is not None:
        # Spark takes a decimal column's percentiles as doubles (1.5, not 1.50).
        source = col.cast("double") if isinstance(dtype, DecimalType) else col
        return F.percentile_approx(source, fraction) if numeric else F.lit(None)
    return {"count": F.count(col), "mean": F.avg(number), "stddev": F.stddev_samp(number), "min": F.min(col),
            "max": F.max(col), "count_distinct": F.count_distinct(col),
            "approx_count_distinct": F.approx_count_distinct(col)}[stat]


def _summary(df: DataFrame, names: list[str], stats: Sequence[str]) -> DataFrame:
    """One row per statistic, one string column per column (all numeric and string ones when none)."""
    if not names:
        names = [f.name for f in df.schema.fields if is_numeric(f.dataType) or isinstance(f.dataType, StringType)]
    columns = [_statistic(df, name, stat) for name in names for stat in stats]
    row = df.agg(*[c.cast("string").alias(f"s{i}") for i, c in enumerate(columns)]).first() if columns else None
    rows = [(label, *(row[i * len(stats) + k] for i in range(len(names)) if row is not None))
            for k, label in enumerate(stats)]
    schema = StructType([StructField("summary", StringType(), True)]
                        + [StructField(n, StringType(), True) for n in names])
    return df.sparkSession.createDataFrame(rows, schema)

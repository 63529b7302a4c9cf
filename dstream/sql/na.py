"""``df.na``: PySpark's ``DataFrameNaFunctions`` (``fill``, ``drop``, ``replace``).

What this module owns
---------------------
Null handling by column: ``fill(value, subset)`` replaces nulls (and NaN in float and
double columns, as Spark) in the columns whose type fits the value (numbers in numeric
columns, strings in string columns, booleans in boolean columns; a dict gives a value
per column), ``drop(how, thresh, subset)`` drops rows with too many nulls or NaNs,
``replace(to_replace, value, subset)`` swaps values. A column named in ``subset`` or a
dict that the DataFrame does not have is an error (``UNRESOLVED_COLUMN``), as in Spark.

Invariants
----------
* Column order and names are unchanged; only values (fill, replace) or rows (drop)
  differ.
* A value of a type no column takes changes nothing (as PySpark); a value of a
  type PySpark refuses raises ``PySparkTypeError``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .column import Column
from .errors import PySparkTypeError, PySparkValueError
from .types import BooleanType, DataType, DoubleType, FloatType, NumericType, StringType

if TYPE_CHECKING:
    from .dataframe import DataFrame

__all__ = ["DataFrameNaFunctions"]


def _fits(value: Any, dt: DataType) -> bool:
    if isinstance(value, bool):
        return isinstance(dt, BooleanType)
    if isinstance(value, int | float):
        return isinstance(dt, NumericType)
    if isinstance(value, str):
        return isinstance(dt, StringType)
    return False


def _missing(name: str, dt: DataType) -> Column:
    """Whether the column's value is missing: null, or NaN in a float or double column."""
    from . import functions as F  # noqa: N812, PLC0415 - functions imports the DataFrame

    col = F.col(f"`{name}`")
    return (col.isNull() | F.isnan(col)) if isinstance(dt, FloatType | DoubleType) else col.isNull()


def _filled(name: str, dt: DataType, value: Any) -> Column:
    from . import functions as F  # noqa: N812, PLC0415

    # Spark's form (coalesce, nanvl for NaN): the filled column is not nullable.
    col = F.col(f"`{name}`")
    if isinstance(dt, FloatType | DoubleType):
        col = F.nanvl(col, F.lit(None).cast(dt))
    return F.coalesce(col, F.lit(value).cast(dt)).alias(name)


def _check_names(df: DataFrame, names: Any) -> None:
    # Each name taken literally (backquoted), resolved as any column reference is: an
    # unknown one raises the analyzer's UNRESOLVED_COLUMN, with its suggestions.
    for name in names:
        df._resolve("`" + name.replace("`", "``") + "`")


class DataFrameNaFunctions:
    """Missing-value functions of a DataFrame (``df.na``)."""

    def __init__(self, df: DataFrame) -> None:
        self._df = df

    def _subset(self, subset: Any) -> list[str] | None:
        if subset is None:
            return None
        if isinstance(subset, str):
            return [subset]
        if isinstance(subset, list | tuple):
            return list(subset)
        raise PySparkTypeError(f"subset should be a list or tuple of column names, got {type(subset).__name__}.",
                               "NOT_LIST_OR_TUPLE", {"arg_name": "subset", "arg_type": type(subset).__name__})

    def fill(self, value: Any, subset: Any = None) -> DataFrame:
        """Replace nulls with ``value`` (or a ``{column: value}`` dict)."""
        from . import functions as F  # noqa: N812 - PySpark's idiom

        df = self._df
        if isinstance(value, dict):
            _check_names(df, value)
            mapping = {k.lower(): v for k, v in value.items()}
            cols = []
            for field in df.schema.fields:
                if field.name.lower() in mapping:
                    cols.append(_filled(field.name, field.dataType, mapping[field.name.lower()]))
                else:
                    cols.append(F.col(field.name))
            return df.select(*cols)
        if not isinstance(value, bool | int | float | str):
            raise PySparkTypeError(f"value should be a bool, float, int, str or dict, got {type(value).__name__}.",
                                   "NOT_BOOL_OR_DICT_OR_FLOAT_OR_INT_OR_STR",
                                   {"arg_name": "value", "arg_type": type(value).__name__})
        names = self._subset(subset)
        if names is not None:
            _check_names(df, names)
        wanted = None if names is None else {n.lower() for n in names}
        cols = []
        for field in df.schema.fields:
            chosen = wanted is None or field.name.lower() in wanted
            if chosen and _fits(value, field.dataType):
                cols.append(_filled(field.name, field.dataType, value))
            else:
                cols.append(F.col(field.name))
        return df.select(*cols)

    def drop(self, how: str = "any", thresh: int | None = None, subset: Any = None) -> DataFrame:
        """Drop rows with a null (``how="any"``), only all-null rows (``"all"``), or fewer than
        ``thresh`` non-null values."""
        from . import functions as F  # noqa: N812 - PySpark's idiom

        if how not in ("any", "all"):
            raise PySparkValueError(f"how ('{how}') should be 'any' or 'all'.", "VALUE_NOT_ANY_OR_ALL",
                                    {"arg_name": "how", "arg_value": how})
        df = self._df
        names = self._subset(subset) or df.columns
        _check_names(df, names)
        types = {f.name.lower(): f.dataType for f in df.schema.fields}
        if thresh is None:
            thresh = len(names) if how == "any" else 1
        counts: Column | None = None
        for name in names:
            term = F.when(_missing(name, types[name.lower()]), F.lit(0)).otherwise(F.lit(1))
            counts = term if counts is None else counts + term
        if counts is None:
            return df
        return df.filter(counts >= F.lit(thresh))

    def replace(self, to_replace: Any, value: Any = None, subset: Any = None) -> DataFrame:
        """Replace values: ``replace(1, 10)``, ``replace([1, 2], [10, 20])``, ``replace({1: 10})``."""
        from . import functions as F  # noqa: N812 - PySpark's idiom

        if isinstance(to_replace, dict):
            mapping = dict(to_replace)
        elif isinstance(to_replace, list | tuple):
            values = value if isinstance(value, list | tuple) else [value] * len(to_replace)
            if len(values) != len(to_replace):
                raise PySparkValueError("to_replace and value lists should be of the same length.",
                                        "LENGTH_SHOULD_BE_THE_SAME", {"arg1": "to_replace", "arg2": "value"})
            mapping = dict(zip(to_replace, values))
        else:
            mapping = {to_replace: value}
        df = self._df
        names = self._subset(subset)
        if names is not None:
            _check_names(df, names)
        wanted = None if names is None else {n.lower() for n in names}
        cols = []
        for field in df.schema.fields:
            keys = [k for k in mapping if _fits(k, field.dataType)]
            if (wanted is None or field.name.lower() in wanted) and keys:
                expr = None
                for key in keys:
                    cond = F.col(field.name) == F.lit(key)
                    target = F.lit(mapping[key]).cast(field.dataType)
                    expr = F.when(cond, target) if expr is None else expr.when(cond, target)
                assert expr is not None
                cols.append(expr.otherwise(F.col(field.name)).alias(field.name))
            else:
                cols.append(F.col(field.name))
        return df.select(*cols)

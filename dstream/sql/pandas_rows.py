"""``toPandas()`` as PySpark does it by default: from the collected rows, not through Arrow.

What this module owns
---------------------
:func:`rows_to_pandas`: PySpark's conversion when ``spark.sql.execution.arrow.pyspark.enabled``
is false (its default). The collected ``Row`` values go into ``pandas`` as they are
(lists for arrays, dicts for maps, ``Row`` for structs, ``bytearray`` for binary,
``datetime.date`` for dates, ``Decimal`` for decimals), then each column gets the dtype
PySpark corrects it to.

Invariants
----------
* Integral columns are ``int8``/``int16``/``int32``/``int64``; a nullable one holding a
  null is ``float64`` (NaN for the nulls). Booleans are ``bool``, ``object`` when a
  null is present. ``float`` is ``float32``, ``double`` ``float64``.
* Timestamps (with and without time zone) are naive ``datetime64[ns]`` wall times in
  the session zone (what ``collect()`` gives); day-time intervals ``timedelta64[ns]``.
* Strings and every other type are ``object`` columns, also when empty or all null.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .types import (
    BooleanType,
    ByteType,
    DataType,
    DayTimeIntervalType,
    DoubleType,
    FloatType,
    IntegerType,
    IntegralType,
    LongType,
    ShortType,
    StructType,
    TimestampNTZType,
    TimestampType,
)

__all__ = ["rows_to_pandas"]


def _corrected(dt: DataType) -> Any:
    """The dtype PySpark gives a column of ``dt`` (``None``: pandas' own, ``object``)."""
    import numpy as np

    table: list[tuple[type[DataType], Any]] = [
        (ByteType, np.int8), (ShortType, np.int16), (IntegerType, np.int32), (LongType, np.int64),
        (FloatType, np.float32), (DoubleType, np.float64), (BooleanType, bool),
        (TimestampType, np.dtype("datetime64[ns]")), (TimestampNTZType, np.dtype("datetime64[ns]")),
        (DayTimeIntervalType, np.dtype("timedelta64[ns]")),
    ]
    for kind, dtype in table:
        if type(dt) is kind:
            return dtype
    return None


def _converter(dt: DataType, nullable: bool) -> Callable[[Any], Any]:
    import numpy as np

    dtype = _corrected(dt)
    if dtype is None:
        return lambda series: series.astype(object)
    if isinstance(dt, IntegralType | BooleanType) and nullable:
        holder = np.float64 if isinstance(dt, IntegralType) else object

        def with_nulls(series: Any) -> Any:
            return series.astype(holder if series.isnull().any() else dtype)

        return with_nulls
    return lambda series: series.astype(dtype)


def rows_to_pandas(rows: Sequence[Any], schema: StructType) -> Any:
    """A ``pandas.DataFrame`` of collected ``rows`` (see the module doc)."""
    import pandas as pd

    names = [f.name for f in schema.fields]
    if rows:
        frame = pd.DataFrame.from_records(rows, index=range(len(rows)), columns=names)
    else:
        frame = pd.DataFrame(columns=names)
    if not names:
        return frame
    columns = [_converter(field.dataType, field.nullable)(series)
               for (_, series), field in zip(frame.items(), schema.fields)]
    return pd.concat(columns, axis="columns")

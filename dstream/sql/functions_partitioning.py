"""``functions.partitioning``: the partition transforms of ``DataFrameWriterV2.partitionedBy``.

What this module owns
---------------------
``years``, ``months``, ``days``, ``hours`` and ``bucket`` with PySpark 4's names and
parameters, reached as ``functions.partitioning`` (the same functions under
``functions`` itself are PySpark's deprecated spellings, with its ``FutureWarning``).
What they mean is stated in ``expressions.partition_transforms``.

Examples
--------
>>> df.writeTo("events").partitionedBy(partitioning.bucket(8, "user_id")).create()  # doctest: +SKIP
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

from .column import Column, expr_of
from .errors import PySparkTypeError
from .expressions.base import Literal
from .expressions.partition_transforms import PartitionTransform

__all__ = ["bucket", "days", "hours", "months", "years"]

ColumnOrName = Column | str


def years(col: ColumnOrName) -> Column:
    """Partition by the year of a date or timestamp column (``partitionedBy`` only)."""
    return Column(PartitionTransform("years", expr_of(col)))


def months(col: ColumnOrName) -> Column:
    """Partition by the month of a date or timestamp column (``partitionedBy`` only)."""
    return Column(PartitionTransform("months", expr_of(col)))


def days(col: ColumnOrName) -> Column:
    """Partition by the day of a date or timestamp column (``partitionedBy`` only)."""
    return Column(PartitionTransform("days", expr_of(col)))


def hours(col: ColumnOrName) -> Column:
    """Partition by the hour of a timestamp column (``partitionedBy`` only)."""
    return Column(PartitionTransform("hours", expr_of(col)))


def bucket(numBuckets: Column | int, col: ColumnOrName) -> Column:  # noqa: N803 - PySpark's name
    """Partition into ``numBuckets`` buckets by a hash of the column (``partitionedBy`` only)."""
    count: object = numBuckets
    if isinstance(numBuckets, Column):
        literal = expr_of(numBuckets)
        if not isinstance(literal, Literal) or not isinstance(literal.value, int):
            raise PySparkTypeError("Argument `numBuckets` should be a Column of an int literal or an int, got "
                                   f"{literal.sql()}.", "NOT_COLUMN_OR_INT",
                                   {"arg_name": "numBuckets", "arg_type": "Column"})
        count = literal.value
    if isinstance(count, bool) or not isinstance(count, int):
        raise PySparkTypeError(f"Argument `numBuckets` should be a Column or int, got {type(count).__name__}.",
                               "NOT_COLUMN_OR_INT", {"arg_name": "numBuckets", "arg_type": type(count).__name__})
    return Column(PartitionTransform("bucket", expr_of(col), count))


def deprecated(name: str) -> Callable[..., Column]:
    """``functions.<name>``: PySpark 4's deprecated spelling of ``partitioning.<name>``."""
    target = globals()[name]

    def call(*args: object) -> Column:
        warnings.warn(f"Deprecated in 4.0.0, use partitioning.{name} instead.", FutureWarning, stacklevel=2)
        return target(*args)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"Deprecated since Spark 4.0: use ``partitioning.{name}`` ({target.__doc__})"
    return call

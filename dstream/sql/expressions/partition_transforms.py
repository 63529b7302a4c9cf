"""Partition transforms: ``years``, ``months``, ``days``, ``hours`` and ``bucket`` of a column.

What this module owns
---------------------
:class:`PartitionTransform`, the column ``functions.partitioning`` builds for
``DataFrameWriterV2.partitionedBy``. It names how a table's files would be partitioned;
it has no value of its own, so using it anywhere else is Spark's
``PARTITION_TRANSFORM_EXPRESSION_NOT_IN_PARTITIONED_BY``.

Invariants
----------
* ``bucket(n, col)`` becomes the table's ``bucketBy(n, col)``; the time transforms are
  refused at ``create``/``replace`` with Spark's ``UNSUPPORTED_PARTITION_TRANSFORM``: the
  session catalog's tables (Spark's and these) partition by column values and buckets only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import AnalysisException
from ..types import DataType, IntegerType
from .base import Expression

__all__ = ["PartitionTransform", "TRANSFORMS"]

TRANSFORMS = ("years", "months", "days", "hours", "bucket")


class PartitionTransform(Expression):
    """``years(col)`` ... ``bucket(n, col)`` (see the module doc).

    Parameters
    ----------
    name : str
        One of :data:`TRANSFORMS`.
    child : Expression
        The column.
    num_buckets : int, optional
        ``bucket``'s number of buckets.
    """

    def __init__(self, name: str, child: Expression, num_buckets: int | None = None) -> None:
        if name not in TRANSFORMS:
            raise ValueError(f"unknown partition transform {name!r}; one of {TRANSFORMS}")
        self.name = name
        self.children = (child,)
        self.num_buckets = num_buckets

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return PartitionTransform(self.name, children[0], self.num_buckets)

    def _options(self) -> Any:
        return (self.name, self.num_buckets)

    def sql(self) -> str:
        if self.name == "bucket":
            return f"bucket({self.num_buckets}, {self.children[0].sql()})"
        return f"{self.name}({self.children[0].sql()})"

    def data_type(self) -> DataType:
        return IntegerType()

    def check_input_types(self) -> None:
        raise AnalysisException(f"The expression {self.sql()} must be inside 'partitionedBy'.",
                                "PARTITION_TRANSFORM_EXPRESSION_NOT_IN_PARTITIONED_BY", {"expression": self.sql()})

    def coerce(self) -> Expression:
        self.check_input_types()
        return self

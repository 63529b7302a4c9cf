"""Bringing a physical plan's rows to the driver.

What this module owns
---------------------
:func:`collect_batches` (every record batch, in partition order, columns named by
attribute id) and :func:`to_arrow_table` (one table with the user-facing column
names), the paths of ``collect``, ``toArrow``, ``toPandas`` and ``show``.

Invariants
----------
* Row order is partition order, then batch order within a partition: a globally
  sorted plan collects sorted.
* The table's schema is the Arrow form of the output attributes' Spark types even
  with no rows; duplicate names (``k`` from both sides of a join) are kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pyarrow as pa

from .arrays import concat_batches
from .context import QueryContext
from .physical import PhysicalPlan, arrow_schema, conform_batch
from .shuffle import from_ipc, to_ipc

__all__ = ["collect_batches", "fetch_ipc", "to_arrow_table"]


def collect_batches(plan: PhysicalPlan, qctx: QueryContext) -> list[pa.RecordBatch]:
    """Every batch the plan produces, in partition order (columns named ``#<id>``)."""
    schema = arrow_schema(plan.output)
    batches = [b for data in fetch_ipc(plan.execute(qctx)) for b in from_ipc(data)]
    if not len(schema):
        return [b for b in batches if b.num_rows]
    return [b if b.schema.equals(schema) else conform_batch(b, schema) for b in batches if b.num_rows]


def to_arrow_table(plan: PhysicalPlan, qctx: QueryContext) -> pa.Table:
    """The plan's rows as one table whose columns have the output attributes' names."""
    schema = arrow_schema(plan.output)
    table = concat_batches(collect_batches(plan, qctx), schema)
    assert table is not None
    names = [a.name for a in plan.output]
    return table.rename_columns(names) if names else table


def _partition_ipc(batches: Iterator[pa.RecordBatch]) -> Iterator[bytes]:
    items = [b for b in batches if b.num_rows]
    if items:
        yield to_ipc(items, items[0].schema)


def fetch_ipc(rdd: Any) -> list[bytes]:
    """Every partition of an RDD of batches as one IPC buffer, in partition order (cheaper than pickled batches)."""
    return list(rdd.mapPartitions(_partition_ipc).collect())

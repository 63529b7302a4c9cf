"""How the built-in sources hand an offset range's rows to the engine.

What this module owns
---------------------
The three shapes of a ``get_batch`` answer, built the same way by every source here:

* :func:`empty_rows`: no rows (an empty range), a ``LocalRelation`` over an empty table;
* :func:`local_rows`: rows the driver already holds (the socket source's lines);
* :func:`task_rows`: rows a lineage node computes in the tasks (rate, Kafka), as an
  :class:`~dstream.sql.streaming.relation.ArrowRDDRelation`.

Invariants
----------
* The returned plan's ``output()`` is the ``output`` given (same attributes, same
  order), and its batches have columns named ``column_key(attr.expr_id)`` in the Arrow
  types of the attributes' Spark types: what every scan of the engine yields.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from rdd.engine_api import LineageNode, rdd_of

from ...execution.physical import arrow_schema
from ...expressions.base import AttributeReference
from ...plan.logical import LocalRelation
from ..relation import ArrowRDDRelation

if TYPE_CHECKING:
    from ...session import SparkSession

__all__ = ["batch_schema", "empty_rows", "local_rows", "task_rows"]


def batch_schema(output: Sequence[AttributeReference]) -> pa.Schema:
    """The Arrow schema of the batches of ``output``: columns named by expression id."""
    return arrow_schema(output)


def empty_rows(output: Sequence[AttributeReference]) -> LocalRelation:
    """A plan of no rows with exactly ``output`` as its columns."""
    return LocalRelation(list(output), batch_schema(output).empty_table())


def local_rows(output: Sequence[AttributeReference], columns: Sequence[pa.Array]) -> LocalRelation:
    """A plan over driver-held ``columns`` (one Arrow array per attribute of ``output``, in order)."""
    schema = batch_schema(output)
    arrays = [col.cast(field.type) if col.type != field.type else col for col, field in zip(columns, schema)]
    return LocalRelation(list(output), pa.Table.from_arrays(arrays, schema=schema))


def task_rows(session: SparkSession, node: LineageNode, output: Sequence[AttributeReference],
              name: str) -> ArrowRDDRelation:
    """A plan whose rows ``node`` computes in the tasks, one record batch stream per partition.

    ``node`` must yield record batches with :func:`batch_schema`'s columns.
    """
    rdd: Any = rdd_of(session.sparkContext, node)
    return ArrowRDDRelation(list(output), rdd, name)

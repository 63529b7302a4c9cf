"""Sorting: Spark's ordering of rows, as Arrow sort keys, and the sort operators.

What this module owns
---------------------
:func:`sort_key_table` (the columns and Arrow sort keys that order rows as Spark's
``SortOrder`` s do), :func:`sort_table`, and the operators :class:`SortExec` (sort
each partition; after a range exchange that is a global sort) and
:class:`TakeOrderedExec` (``orderBy(...).limit(n)``: the first ``n`` rows of each
partition, then of all).

Invariants
----------
* Null placement is per key (``NULLS FIRST``/``LAST``): each key is preceded by an
  ``is_null`` key, so Arrow's global null placement never decides.
* NaN is greater than every other number (first when descending), ``-0.0`` equals
  ``0.0``; strings compare by code point (UTF-8 byte order).
* Sorting is stable: rows with equal keys keep their input order.
* Arrays and structs sort element by element, field by field (:mod:`.ordered_bytes`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..expressions.aggregate_base import SortOrder
from ..expressions.base import EvalContext, Expression
from .arrays import arange, concat_batches, table_as_batch
from .context import QueryContext
from .ordered_bytes import ordered_bytes, sortable
from .partitioning import normalize_floats
from .physical import PhysicalPlan, as_array, expr_text
from .shuffle import gather

__all__ = ["SortExec", "TakeOrderedExec", "sort_key_table", "sort_table"]

SortKeys = list[tuple[str, str]]


def _order_parts(order: Expression) -> tuple[Expression, bool, bool]:
    if isinstance(order, SortOrder):
        return order.child, order.ascending, order.nulls_first
    return order, True, True


def sort_key_table(data: pa.Table | pa.RecordBatch, orders: Sequence[Expression],
                   ctx: EvalContext) -> tuple[pa.Table, SortKeys]:
    """The key columns of ``data`` under ``orders`` and the Arrow sort keys over them."""
    batch = data if isinstance(data, pa.RecordBatch) else table_as_batch(data)
    columns: dict[str, pa.Array] = {}
    keys: SortKeys = []
    for i, order in enumerate(orders):
        child, ascending, nulls_first = _order_parts(order)
        values = as_array(child.eval(batch, ctx), batch.num_rows)
        direction = "ascending" if ascending else "descending"
        columns[f"n{i}"] = values.is_null()
        keys.append((f"n{i}", "descending" if nulls_first else "ascending"))
        if pa.types.is_floating(values.type):
            values = normalize_floats(values)
            columns[f"f{i}"] = pc.fill_null(pc.is_nan(values), False)
            keys.append((f"f{i}", direction))
        if pa.types.is_null(values.type):
            continue
        if pa.types.is_dictionary(values.type):
            values = values.cast(values.type.value_type)
        if pa.types.is_nested(values.type):
            # Arrow sorts no nested values: bytes that sort as Spark orders them.
            if not sortable(values.type):
                from ..errors import AnalysisException  # noqa: PLC0415 - rare path

                raise AnalysisException(
                    f"Sorting by {child.sql()} ({values.type}) is not supported here yet: its elements have no "
                    "order-preserving encoding (maps, decimals). Sort by a value derived from it (for example "
                    "F.size(col) or col[0]); grouping, distinct and joins on it work.",
                    "UNSUPPORTED_FEATURE.SORT_BY_ARRAY", {"expr": child.sql()})
            values = ordered_bytes(values)
        columns[f"v{i}"] = values
        keys.append((f"v{i}", direction))
    if not columns:
        return pa.table({"_": pa.nulls(batch.num_rows, pa.int8())}), []
    return pa.table(columns), keys


def sort_indices(keys: pa.Table, sort_keys: SortKeys) -> pa.Array:
    """A stable permutation ordering the rows of ``keys``."""
    if not sort_keys:
        return arange(keys.num_rows)
    return pc.sort_indices(keys, sort_keys=sort_keys)


def sort_table(table: pa.Table, orders: Sequence[Expression], ctx: EvalContext) -> pa.Table:
    """``table`` sorted by ``orders``."""
    if table.num_rows <= 1:
        return table
    keys, sort_keys = sort_key_table(table, orders, ctx)
    return table.take(sort_indices(keys, sort_keys))


def _sorted_partition(batches: Iterator[pa.RecordBatch], orders: Sequence[Expression], ctx: EvalContext,
                      limit: int | None) -> Iterator[pa.RecordBatch]:
    table = concat_batches(batches)
    if table is None or table.num_rows == 0:
        return
    out = sort_table(table, orders, ctx)
    if limit is not None:
        out = out.slice(0, limit)
    yield from (b for b in out.combine_chunks().to_batches() if b.num_rows)


class SortExec(PhysicalPlan):
    """``Sort [orders], global``: each partition sorted (after a range exchange, all rows)."""

    def __init__(self, orders: Sequence[Expression], is_global: bool, child: PhysicalPlan) -> None:
        self.orders = list(orders)
        self.is_global = is_global
        self.children = (child,)
        self.output = child.output

    def execute(self, qctx: QueryContext) -> Any:
        orders, ctx = self.orders, qctx.eval_ctx
        sort_partition = functools.partial(_sorted_partition, orders=orders, ctx=ctx, limit=None)
        return self.child.execute(qctx).mapPartitions(sort_partition)

    def describe(self) -> str:
        return f"Sort [{', '.join(expr_text(o) for o in self.orders)}], {str(self.is_global).lower()}, 0"


class TakeOrderedExec(PhysicalPlan):
    """``TakeOrderedAndProject``: the first ``n`` rows by ``orders`` (after ``offset``), in one partition."""

    def __init__(self, n: int, orders: Sequence[Expression], child: PhysicalPlan, offset: int = 0) -> None:
        self.n = n
        self.offset = offset
        self.orders = list(orders)
        self.children = (child,)
        self.output = child.output

    def execute(self, qctx: QueryContext) -> Any:
        orders, ctx, offset = self.orders, qctx.eval_ctx, self.offset
        keep = None if self.n < 0 else self.n + offset  # n < 0: an offset alone, every row after it
        sort_partition = functools.partial(_sorted_partition, orders=orders, ctx=ctx, limit=keep)
        local = self.child.execute(qctx).mapPartitions(sort_partition)
        gathered = gather(local)

        def final(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            table = concat_batches(batches)
            if table is None or table.num_rows == 0:
                return
            ordered = sort_table(table, orders, ctx)
            out = ordered.slice(offset) if keep is None else ordered.slice(offset, keep - offset)
            yield from (b for b in out.combine_chunks().to_batches() if b.num_rows)
        return gathered.mapPartitions(final)

    def estimated_size(self) -> int:
        return min(self.child.estimated_size(), max(1, self.n) * 8 * max(1, len(self.output)))

    def describe(self) -> str:
        return (f"TakeOrderedAndProject(limit={self.n}, orderBy=[{', '.join(expr_text(o) for o in self.orders)}], "
                f"output=[{', '.join(repr(a) for a in self.output)}])")


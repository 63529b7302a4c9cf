"""Evaluating expressions on hand-built record batches: the columns, the resolver, the aggregate driver.

Tests build a batch whose columns are named by attribute ids (as a running query's
are), resolve a Column against those attributes with the analyzer's real resolver
(names bound, ``coerce()`` and type checks bottom-up), and evaluate it.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from dstream.sql.arrow_convert import to_arrow_type
from dstream.sql.column import Column
from dstream.sql.execution.aggregate import AggregateSpec, collect_aggregates
from dstream.sql.expressions.base import AttributeReference, EvalContext, Expression, column_key
from dstream.sql.expressions.extractors import extract_field
from dstream.sql.plan.analysis import Resolver
from dstream.sql.types import DataType

CTX = EvalContext(ansi=True, time_zone="UTC", now_us=1_700_000_000_000_000)
LEGACY = EvalContext(ansi=False, time_zone="UTC", now_us=1_700_000_000_000_000)


class Frame:
    """Columns of given Spark types and values, as attributes and one record batch."""

    def __init__(self, **columns: tuple[DataType, list[Any]]) -> None:
        self.attrs = [AttributeReference(name, dt, True) for name, (dt, _) in columns.items()]
        arrays = {column_key(a.expr_id): pa.array(values, to_arrow_type(dt))
                  for a, (dt, values) in zip(self.attrs, columns.values())}
        self.batch = pa.RecordBatch.from_pydict(arrays) if arrays else pa.record_batch(
            {"_": pa.nulls(1)}).select([])

    def resolve(self, col: Column | Expression) -> Expression:
        """The column's expression bound to this frame's attributes, coerced and checked."""
        expr = col.expr if isinstance(col, Column) else col
        return Resolver(self.attrs, False, extract_field).resolve(expr)

    def eval(self, col: Column | Expression, ctx: EvalContext = CTX) -> list[Any]:
        """The column's values as Python values."""
        result = self.resolve(col).eval(self.batch, ctx)
        if isinstance(result, pa.ChunkedArray):
            result = result.combine_chunks()
        assert len(result) == self.batch.num_rows
        return result.to_pylist()

    def aggregate(self, col: Column, keys: list[Column] | None = None, parts: int = 2,
                  ctx: EvalContext = CTX) -> list[Any]:
        """An aggregate column computed as the hash aggregate does: partial per slice, merge, finish."""
        expr = self.resolve(col)
        grouping = [self.resolve(k) for k in keys or []]
        functions = collect_aggregates([expr])
        assert len(functions) == 1
        spec = AggregateSpec(grouping, functions, self.batch.schema)
        table = pa.Table.from_batches([self.batch])
        n = table.num_rows
        step = max(1, -(-n // parts))
        partials = [spec.partial(table.slice(i, step), ctx) for i in range(0, max(n, 1), step)]
        final = spec.final(pa.concat_tables(partials), ctx)
        assert final is not None
        values = final.column(column_key(spec.agg_attrs[0].expr_id)).to_pylist()
        if grouping:
            key_values = [final.column(column_key(a.expr_id)).to_pylist() for a in spec.key_attrs]
            return sorted(zip(*key_values, values), key=repr)
        return values

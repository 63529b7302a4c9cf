"""Small Arrow building blocks the operators share: index ranges, constants, table shaping.

What this module owns
---------------------
Vectorized constructors (:func:`arange`, :func:`constant`), the conversion between
the operators' record batches and tables (:func:`concat_batches`).

Invariants
----------
* Nothing here loops over rows in Python: ranges are built from ``array.array``
  buffers, constants with Arrow's null-fill.
* :func:`concat_batches` keeps the row count of zero-column batches (``select()`` of
  nothing still has rows, and ``count()`` depends on them).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..variant.arrow import has_variant, storage_type, storage_value

__all__ = ["arange", "concat_batches", "constant", "row_count_table", "table_as_batch", "table_to_batches"]


#: Up to this many values, arrays are built directly: a compute kernel's call costs more.
_SMALL = 256


def arange(start: int, stop: int | None = None, step: int = 1) -> pa.Array:
    """``range(start, stop, step)`` as an int64 Arrow array (past a few values, computed in Arrow
    without a Python object per value)."""
    if stop is None:
        start, stop = 0, start
    values = range(start, stop, step)
    count = len(values)
    if count <= _SMALL:
        # Four kernel calls cost more than boxing a few values (a micro-batch of a few rows).
        return pa.array(values, pa.int64())
    # A running sum of ones is 1..n, computed in Arrow (a Python range would box every value).
    ones = pa.nulls(count, pa.int64()).fill_null(1)
    positions = pc.subtract(pc.cumulative_sum(ones), 1)
    if step != 1:
        positions = pc.multiply(positions, step)
    return pc.add(positions, start) if start else positions


def constant(length: int, value: Any, arrow_type: pa.DataType) -> pa.Array:
    """``length`` copies of ``value`` (``None`` gives nulls).

    Filling an all-null array is one C loop; ``pa.repeat`` builds the values one by one,
    which costs less than the kernel's call for a few values.
    """
    if value is None:
        return pa.nulls(length, arrow_type)
    if has_variant(arrow_type):  # Arrow makes no scalar of an extension type from Python values
        return constant(length, storage_value(value), storage_type(arrow_type)).view(arrow_type)
    scalar = pa.scalar(value, arrow_type)
    if 0 < length <= _SMALL:  # (Arrow cannot repeat some nested scalars zero times)
        return pa.repeat(scalar, length)
    return pa.nulls(length, arrow_type).fill_null(scalar)


def concat_batches(batches: Iterable[pa.RecordBatch], schema: pa.Schema | None = None) -> pa.Table | None:
    """One contiguous table of ``batches`` (``None`` if there are none and no ``schema``).

    Batches whose schema differs from the first one's (a null-typed column beside an
    int column...) are cast to it.
    """
    items = list(batches)
    if not items:
        return None if schema is None else schema.empty_table()
    target = schema or items[0].schema
    if not len(target):
        return row_count_table(sum(b.num_rows for b in items))
    fixed = [b if b.schema.equals(target) else _cast_batch(b, target) for b in items]
    table = pa.Table.from_batches(fixed, target)
    return table.combine_chunks() if len(fixed) > 1 else table


def _cast_batch(batch: pa.RecordBatch, schema: pa.Schema) -> pa.RecordBatch:
    arrays = [col if col.type == f.type else col.cast(f.type) for col, f in zip(batch.columns, schema)]
    return pa.RecordBatch.from_arrays(arrays, schema=schema) if arrays else batch.select([])


def table_to_batches(table: pa.Table) -> list[pa.RecordBatch]:
    """The table as record batches (one per chunk; a zero-column table keeps its rows)."""
    return [b for b in table.to_batches() if b.num_rows]


def table_as_batch(table: pa.Table) -> pa.RecordBatch:
    """The table as one record batch (copying only if it has several chunks)."""
    if not table.num_columns:
        return pa.record_batch({"_": pa.nulls(table.num_rows)}).select([])
    batches = table.combine_chunks().to_batches()
    if len(batches) == 1:
        return batches[0]
    if not batches:
        return pa.RecordBatch.from_pylist([], schema=table.schema)
    return pa.RecordBatch.from_arrays([c.combine_chunks() for c in table.columns], schema=table.schema)


def row_count_table(rows: int) -> pa.Table:
    """A table without columns but with ``rows`` rows."""
    return pa.table({"_": pa.nulls(rows)}).select([])

"""Nested values (structs, arrays, maps) as bytes Arrow's hash aggregations can carry.

What this module owns
---------------------
:func:`as_binary` and :func:`from_binary`: Arrow's grouped aggregations (``hash_list``,
``hash_distinct``, ``hash_first_last``, ``hash_min_max``) take no nested input, so
``collect_list(struct(...))``, ``first`` of an array or ``max`` of a struct aggregate
these bytes instead and turn the results back into values.

Invariants
----------
* Equal values give equal bytes, so ``distinct`` sees Spark's equality.
* For values :func:`~dstream.sql.execution.ordered_bytes.sortable` can order, the bytes
  begin with that order-preserving encoding, so ``min``/``max`` of the bytes are the
  bytes of Spark's minimum and maximum; the value itself follows, then its length.
* Nulls stay nulls; ``from_binary`` of lists of bytes gives lists of values.
"""

from __future__ import annotations

import pickle
from typing import Any

import pyarrow as pa

__all__ = ["as_binary", "from_binary", "is_nested"]


def is_nested(t: pa.DataType) -> bool:
    """Whether Arrow's hash aggregations refuse values of ``t``."""
    return pa.types.is_struct(t) or pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_map(t)


def as_binary(values: pa.Array) -> pa.Array:
    """``values`` as bytes (see the module doc)."""
    from ..execution.ordered_bytes import ordered_bytes, sortable  # noqa: PLC0415 - execution imports us

    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    ordered = ordered_bytes(values).to_pylist() if sortable(values.type) else [b""] * len(values)
    out: list[bytes | None] = []
    for key, value in zip(ordered, values.to_pylist()):
        if value is None:
            out.append(None)
            continue
        payload = pickle.dumps(value, protocol=5)
        out.append((key or b"") + payload + len(payload).to_bytes(4, "big"))
    return pa.array(out, pa.binary())


def _value(data: bytes) -> Any:
    size = int.from_bytes(data[-4:], "big")
    return pickle.loads(data[-4 - size:-4])


def from_binary(values: pa.Array, value_type: pa.DataType) -> pa.Array:
    """Bytes of :func:`as_binary` (or lists of them) back as values of ``value_type`` (or lists of them)."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if pa.types.is_list(values.type) or pa.types.is_large_list(values.type):
        rows = [None if row is None else [None if b is None else _value(b) for b in row] for row in values.to_pylist()]
        return pa.array(rows, pa.list_(value_type))
    return pa.array([None if b is None else _value(b) for b in values.to_pylist()], value_type)

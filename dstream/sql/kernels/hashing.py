"""Stable partition ids of key columns (the hash shuffle of ``dstream.sql``).

What this module owns
---------------------
``partition_ids(columns, num_partitions) -> pa.Array`` (int32 in ``[0, num_partitions)``)
and ``hash_columns(columns) -> pa.Array`` (uint64): a hash that is the same in every
process and run (never Python's salted ``hash()``), under which rows with equal keys
collide: NULL equals NULL, every NaN equals every NaN, ``-0.0`` equals ``0.0``.

Invariants
----------
* Integral, boolean, date and timestamp keys are hashed by Arrow integer arithmetic
  (splitmix64's finaliser); floating keys by their normalised bit patterns.
* Other keys (strings, binary, decimals, nested) are hashed once per *distinct* value with
  BLAKE2b in Python, then mapped back to the rows with ``pc.index_in`` (the only per-value
  Python, proportional to the number of distinct keys).
* The ids are not Spark's Murmur3 ids; only their stability and equality rules matter.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from dstream.sql.kernels.arith import as_array

__all__ = ["partition_ids", "hash_columns"]

_U64 = pa.uint64()
_NULL_HASH = 0x9E3779B97F4A7C15


def _mix(z: pa.Array) -> pa.Array:
    """splitmix64's finaliser over uint64 (Arrow's unchecked uint64 arithmetic wraps, as the algorithm needs)."""
    z = pc.bit_wise_xor(z, pc.shift_right(z, pa.scalar(30, _U64)))
    z = pc.multiply(z, pa.scalar(0xBF58476D1CE4E5B9, _U64))
    z = pc.bit_wise_xor(z, pc.shift_right(z, pa.scalar(27, _U64)))
    z = pc.multiply(z, pa.scalar(0x94D049BB133111EB, _U64))
    return pc.bit_wise_xor(z, pc.shift_right(z, pa.scalar(31, _U64)))


def _bits64(x: pa.Array) -> pa.Array:
    """uint64 holding the value's integer or float bit pattern (NULL stays NULL)."""
    t = x.type
    if pa.types.is_floating(t):
        d = pc.add(pc.cast(x, pa.float64()), 0.0)  # -0.0 + 0.0 is 0.0
        d = pc.if_else(pc.is_nan(d), float("nan"), d)
        d = pa.concat_arrays([d]) if d.offset else d
        return d.view(pa.int64()).cast(_U64, safe=False)
    if pa.types.is_boolean(t):
        x = pc.cast(x, pa.int8())
    elif pa.types.is_date(t) or pa.types.is_timestamp(t):
        x = pc.cast(pc.cast(x, pa.int64() if not pa.types.is_date32(t) else pa.int32()), pa.int64())
    return pc.cast(pc.cast(x, pa.int64()), _U64, safe=False)


def _stable_value_hash(value: Any) -> int:
    data = value if isinstance(value, bytes) else repr(value).encode("utf-8")
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


def _column_hash(x: pa.Array) -> pa.Array:
    t = x.type
    if t == pa.null():
        return pa.repeat(pa.scalar(_NULL_HASH, _U64), len(x))
    if (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t) or pa.types.is_date(t)
            or pa.types.is_timestamp(t)):
        h = _mix(_bits64(x))
    else:
        if pa.types.is_string(t) or pa.types.is_large_string(t):
            x = pc.cast(x, pa.binary())
        uniques = pc.unique(x)
        hashes = pa.array([_stable_value_hash(v) for v in uniques.to_pylist()], _U64)
        h = pc.take(hashes, pc.index_in(x, value_set=uniques))
    return pc.fill_null(h, pa.scalar(_NULL_HASH, _U64))


def hash_columns(columns: Sequence[Any]) -> pa.Array:
    """A stable uint64 hash per row of the key ``columns`` (equal keys, equal hashes).

    Parameters
    ----------
    columns : sequence of pa.Array
        Equal-length key columns.

    Returns
    -------
    pa.Array
        uint64.
    """
    cols = [as_array(c) for c in columns]
    if not cols:
        raise ValueError("hash_columns needs at least one column")
    h = pa.repeat(pa.scalar(17, _U64), len(cols[0]))
    for c in cols:
        h = _mix(pc.add(pc.multiply(h, pa.scalar(31, _U64)), _column_hash(c)))
    return h


def partition_ids(columns: Sequence[Any], num_partitions: int) -> pa.Array:
    """The partition of each row: ``hash_columns(columns) mod num_partitions``.

    Parameters
    ----------
    columns : sequence of pa.Array
        Equal-length key columns.
    num_partitions : int
        At least 1.

    Returns
    -------
    pa.Array
        int32 in ``[0, num_partitions)``.
    """
    if num_partitions < 1:
        raise ValueError(f"num_partitions must be at least 1, not {num_partitions}")
    h = hash_columns(columns)
    n = pa.scalar(num_partitions, _U64)
    return pc.cast(pc.subtract(h, pc.multiply(pc.divide(h, n), n)), pa.int32())

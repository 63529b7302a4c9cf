"""Stable, vectorized hashing of key columns into shuffle partitions.

What this module owns
---------------------
:func:`hash_columns` (a 64-bit hash per row of some key columns) and
:func:`partition_ids` (that hash modulo a partition count), used by every hash
exchange (aggregation, join, deduplication, ``repartition(n, cols)``).

Invariants
----------
* The hash is the same in every process and every run: it never uses Python's
  salted ``hash()``; strings and binaries are hashed with CRC-32 of their bytes, numbers
  through their 64-bit patterns.
* Rows whose keys are equal under Spark's grouping semantics get the same hash:
  null equals null, every NaN equals every NaN, ``-0.0`` equals ``0.0``, and an
  integer has the same hash whatever its width (``int`` and ``bigint`` keys of a join
  meet in the same partition).
* Work is per column, in Arrow kernels; Python runs once per *distinct* string value,
  never once per row.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import pyarrow as pa
import pyarrow.compute as pc

from .arrays import constant

__all__ = ["hash_columns", "normalize_floats", "partition_ids"]

_U64 = pa.uint64()
_NULL_HASH = 0x5BD1E9955BD1E995
_MIX1 = pa.scalar(0xBF58476D1CE4E5B9, _U64)
_MIX2 = pa.scalar(0x94D049BB133111EB, _U64)
_COMBINE = pa.scalar(0x9E3779B97F4A7C15, _U64)


def normalize_floats(arr: pa.Array) -> pa.Array:
    """``arr`` with ``-0.0`` as ``0.0`` and every NaN the same NaN (other types unchanged).

    Arrow's hash grouping and joins compare floats bit for bit; Spark treats the
    two zeros, and all NaNs, as one key.
    """
    if not pa.types.is_floating(arr.type):
        return arr
    plus_zero = pc.add(arr, pa.scalar(0.0, arr.type))  # -0.0 + 0.0 is +0.0
    return pc.if_else(pc.is_nan(plus_zero), pa.scalar(float("nan"), arr.type), plus_zero)


def _mix(h: pa.Array) -> pa.Array:
    """Scramble the bits of a uint64 array (a splitmix64 finalizer; wrapping arithmetic)."""
    h = pc.bit_wise_xor(h, pc.shift_right(h, pa.scalar(30, _U64)))
    h = pc.multiply(h, _MIX1)
    h = pc.bit_wise_xor(h, pc.shift_right(h, pa.scalar(27, _U64)))
    h = pc.multiply(h, _MIX2)
    return pc.bit_wise_xor(h, pc.shift_right(h, pa.scalar(31, _U64)))


def _bytes_hash(value: bytes) -> int:
    return (zlib.crc32(value) << 32) | zlib.crc32(value, 0x2F6B3C1D)


def _hash_by_dictionary(arr: pa.Array) -> pa.Array:
    """Hash each distinct value once in Python, then spread the hashes with ``take``."""
    encoded = arr.dictionary_encode()
    values = encoded.dictionary
    if pa.types.is_string(values.type) or pa.types.is_large_string(values.type):
        hashes = [_bytes_hash(v.encode("utf-8")) for v in values.to_pylist()]
    elif pa.types.is_binary(values.type) or pa.types.is_large_binary(values.type):
        hashes = [_bytes_hash(v) for v in values.to_pylist()]
    else:
        hashes = [_bytes_hash(repr(v).encode("utf-8")) for v in values.to_pylist()]
    return pc.take(pa.array(hashes, _U64), encoded.indices)


def _column_hash(arr: pa.Array) -> pa.Array:
    """A uint64 hash per value of one column; nulls get a fixed hash."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    t = arr.type
    if pa.types.is_dictionary(t):
        arr = arr.cast(t.value_type)
        t = arr.type
    if pa.types.is_null(t):
        return constant(len(arr), _NULL_HASH, _U64)
    if pa.types.is_boolean(t) or pa.types.is_integer(t) or pa.types.is_date(t) or pa.types.is_timestamp(t) \
            or pa.types.is_time(t) or pa.types.is_duration(t):
        as_int = arr.cast(pa.int64()) if not pa.types.is_timestamp(t) and not pa.types.is_duration(t) \
            else arr.view(pa.int64())
        h = _mix(as_int.view(_U64))
    elif pa.types.is_floating(t):
        bits = normalize_floats(arr.cast(pa.float64())).fill_null(0.0).view(pa.int64())
        h = _mix(pc.add(bits.view(_U64), _COMBINE))
    elif pa.types.is_struct(t):
        fields = [arr.field(i) for i in range(t.num_fields)]
        h = _combine([_column_hash(f) for f in fields]) if fields else constant(len(arr), 0, _U64)
    elif pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t) \
            or pa.types.is_large_binary(t):
        h = _hash_by_dictionary(arr)
    else:  # decimals, lists, maps: rare as keys, hashed by their exact text
        h = _hash_by_dictionary(arr.cast(pa.string()) if pa.types.is_decimal(t) else pa.array(
            [None if v is None else repr(v) for v in arr.to_pylist()], pa.string()))
    if arr.null_count:
        h = pc.if_else(arr.is_valid(), h, pa.scalar(_NULL_HASH, _U64))
    return h


def _combine(hashes: Sequence[pa.Array]) -> pa.Array:
    h = hashes[0]
    for nxt in hashes[1:]:
        h = _mix(pc.add(pc.multiply(h, _COMBINE), nxt))
    return h


def hash_columns(columns: Sequence[pa.Array], length: int) -> pa.Array:
    """A stable uint64 hash per row of the key ``columns`` (all ``length`` long)."""
    if not columns:
        return constant(length, 0, _U64)
    return _combine([_column_hash(c) for c in columns])


def partition_ids(columns: Sequence[pa.Array], num_partitions: int) -> pa.Array:
    """The partition (``0 <= id < num_partitions``) of every row of the key ``columns``, as int32.

    Equal keys (null, NaN and ``-0.0`` included) get equal ids in every process.
    """
    length = len(columns[0]) if columns else 0
    if num_partitions == 1 or not columns:
        return constant(length, 0, pa.int32()) if num_partitions == 1 else pa.array([], pa.int32())
    h = pc.shift_right(hash_columns(columns, length), pa.scalar(33, _U64)).cast(pa.int64())
    n = pa.scalar(num_partitions, pa.int64())
    return pc.subtract(h, pc.multiply(pc.divide(h, n), n)).cast(pa.int32())

"""Stable, vectorized hashing of key columns into shuffle partitions.

What this module owns
---------------------
:func:`partition_ids`: a 64-bit hash per row of some key columns, modulo a partition
count, used by every hash exchange (aggregation, join, deduplication,
``repartition(n, cols)``).

Invariants
----------
* The hash is the same in every process and every run: it never uses Python's
  salted ``hash()``; strings and binaries are hashed with CRC-32 of their bytes, numbers
  through their 64-bit patterns.
* Rows whose keys are equal under Spark's grouping semantics get the same hash:
  null equals null, every NaN equals every NaN, ``-0.0`` equals ``0.0``, and an
  integer has the same hash whatever its width (``int`` and ``bigint`` keys of a join
  meet in the same partition).
* Work is per column, in Arrow kernels and numpy; strings are hashed once per
  *distinct* value, by a CRC-32 computed for all of them at once (one numpy pass per
  byte position, over the values still that long), bit for bit what ``zlib.crc32`` gives
  (so partitions, and the state placed by them, do not depend on which path ran).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .arrays import constant

__all__ = ["normalize_floats", "partition_ids", "same_as_previous"]

# The hash arithmetic is numpy's (uint64, wrapping): a partial aggregation's exchange
# hashes a few dozen rows, where each Arrow kernel call costs more than the work.
_NULL_HASH = np.uint64(0x5BD1E9955BD1E995)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_COMBINE = np.uint64(0x9E3779B97F4A7C15)
_SHIFT27, _SHIFT30, _SHIFT31, _SHIFT33 = np.uint64(27), np.uint64(30), np.uint64(31), np.uint64(33)


def same_as_previous(values: pa.Array) -> pa.Array:
    """For rows 1..n-1: whether the row's value equals the previous row's as grouping compares
    them (null == null, NaN == NaN; ``-0.0 == 0.0`` as floats compare). Structs must be
    encoded first (``aggregate.encode_key``)."""
    here, before = values.slice(1), values.slice(0, len(values) - 1)
    equal = pc.equal(here, before)
    if pa.types.is_floating(values.type):
        equal = pc.or_(equal, pc.and_(pc.is_nan(here), pc.is_nan(before)))
    return pc.or_(pc.fill_null(equal, False), pc.and_(here.is_null(), before.is_null()))


def normalize_floats(arr: pa.Array) -> pa.Array:
    """``arr`` with ``-0.0`` as ``0.0`` and every NaN the same NaN (other types unchanged).

    Arrow's hash grouping and joins compare floats bit for bit; Spark treats the
    two zeros, and all NaNs, as one key.
    """
    if not pa.types.is_floating(arr.type):
        return arr
    plus_zero = pc.add(arr, pa.scalar(0.0, arr.type))  # -0.0 + 0.0 is +0.0
    return pc.if_else(pc.is_nan(plus_zero), pa.scalar(float("nan"), arr.type), plus_zero)


def _mix(h: np.ndarray) -> np.ndarray:
    """Scramble the bits of a uint64 array in place (a splitmix64 finalizer; numpy's uint64
    arithmetic wraps) and return it."""
    h ^= h >> _SHIFT30
    h *= _MIX1
    h ^= h >> _SHIFT27
    h *= _MIX2
    h ^= h >> _SHIFT31
    return h


def _bytes_hash(value: bytes) -> int:
    return (zlib.crc32(value) << 32) | zlib.crc32(value, _SECOND_SEED)


_SECOND_SEED = 0x2F6B3C1D
#: Below this many distinct values a Python loop over zlib is quicker than numpy's set-up.
_VECTOR_MIN_VALUES = 64
#: Values longer than this go to zlib one by one: the vectorized CRC loops once per byte position.
_VECTOR_MAX_BYTES = 128


def _crc_table() -> np.ndarray:
    table = np.zeros(256, np.uint32)
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0xEDB88320 if c & 1 else c >> 1
        table[i] = c
    return table


_CRC_TABLE = _crc_table()
# crc32(data, seed) == crc32(data, 0) ^ crc32(zeros, seed) ^ crc32(zeros, 0) for zeros of
# data's length (CRC is affine in its start value): the second CRC of a value costs a lookup.
_SEED_DELTA = np.array([zlib.crc32(b"\0" * n, _SECOND_SEED) ^ zlib.crc32(b"\0" * n)
                        for n in range(_VECTOR_MAX_BYTES + 1)], np.uint32)


def _bytes_hashes(values: pa.Array) -> np.ndarray:
    """``_bytes_hash`` of every value of a string or binary array without nulls, vectorized."""
    buffers = values.buffers()
    wide = pa.types.is_large_string(values.type) or pa.types.is_large_binary(values.type)
    offsets = np.frombuffer(buffers[1], np.int64 if wide else np.int32)[
        values.offset:values.offset + len(values) + 1].astype(np.int64)
    data = np.frombuffer(buffers[2], np.uint8) if buffers[2] is not None else np.zeros(0, np.uint8)
    lengths = offsets[1:] - offsets[:-1]
    order = np.argsort(lengths, kind="stable")  # shortest first: the values still running are a suffix
    by_length = lengths[order]
    short = int(np.searchsorted(by_length, _VECTOR_MAX_BYTES, side="right"))
    crc = np.full(short, 0xFFFFFFFF, np.uint32)
    position = offsets[:-1][order[:short]]
    longest = int(by_length[short - 1]) if short else 0
    firsts = np.searchsorted(by_length[:short], np.arange(longest), side="right")
    for first in firsts:
        running = crc[first:]
        byte = data[position[first:]]
        position[first:] += 1
        running_index = (running ^ byte) & 0xFF
        running >>= 8
        running ^= _CRC_TABLE[running_index]
    crc ^= 0xFFFFFFFF
    first_crc = np.empty(len(values), np.uint32)
    first_crc[order[:short]] = crc
    second_crc = np.empty(len(values), np.uint32)
    second_crc[order[:short]] = crc ^ _SEED_DELTA[by_length[:short]]
    for index in order[short:].tolist():
        value = data[offsets[index]:offsets[index + 1]].tobytes()
        first_crc[index], second_crc[index] = zlib.crc32(value), zlib.crc32(value, _SECOND_SEED)
    return (first_crc.astype(np.uint64) << np.uint64(32)) | second_crc.astype(np.uint64)


def _hash_by_dictionary(arr: pa.Array) -> np.ndarray:
    """Hash each distinct value once, then spread the hashes by the dictionary's indices
    (a null's entry is left for the caller to replace)."""
    encoded = arr.dictionary_encode()
    values = encoded.dictionary
    textual = pa.types.is_string(values.type) or pa.types.is_large_string(values.type)
    if (textual or pa.types.is_binary(values.type) or pa.types.is_large_binary(values.type)) \
            and len(values) >= _VECTOR_MIN_VALUES and not values.null_count:
        hashes = _bytes_hashes(values)
    elif textual:
        hashes = np.array([_bytes_hash(v.encode("utf-8")) for v in values.to_pylist()], np.uint64)
    elif pa.types.is_binary(values.type) or pa.types.is_large_binary(values.type):
        hashes = np.array([_bytes_hash(v) for v in values.to_pylist()], np.uint64)
    else:
        hashes = np.array([_bytes_hash(repr(v).encode("utf-8")) for v in values.to_pylist()], np.uint64)
    if not len(hashes):
        return np.zeros(len(arr), np.uint64)
    return hashes[_numbers(encoded.indices.cast(pa.int64()))]


def _as_int64(arr: pa.Array) -> pa.Array:
    """Booleans, integers, dates, times, timestamps and durations as int64 (their stored numbers)."""
    t = arr.type
    if pa.types.is_boolean(t) or pa.types.is_integer(t):
        return arr.cast(pa.int64())
    # Temporal values by view: pyarrow 26 casts no date32 to int64.
    return arr.view(pa.int32() if t.bit_width == 32 else pa.int64()).cast(pa.int64())


def _numbers(arr: pa.Array) -> np.ndarray:
    """A 64-bit Arrow array's values as a new uint64 numpy array (a null's value is 0)."""
    if arr.null_count:
        arr = arr.fill_null(0)
    return arr.to_numpy(zero_copy_only=False).view(np.uint64).copy()


def _column_hash(arr: pa.Array) -> np.ndarray:
    """A uint64 hash per value of one column; nulls get a fixed hash."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    t = arr.type
    if pa.types.is_dictionary(t):
        arr = arr.cast(t.value_type)
        t = arr.type
    if pa.types.is_null(t):
        return np.full(len(arr), _NULL_HASH, np.uint64)
    if pa.types.is_boolean(t) or pa.types.is_integer(t) or pa.types.is_date(t) or pa.types.is_timestamp(t) \
            or pa.types.is_time(t) or pa.types.is_duration(t):
        h = _mix(_numbers(_as_int64(arr)))
    elif pa.types.is_floating(t):
        bits = _numbers(normalize_floats(arr.cast(pa.float64())).fill_null(0.0).view(pa.int64()))
        bits += _COMBINE
        h = _mix(bits)
    elif pa.types.is_struct(t):
        fields = [arr.field(i) for i in range(t.num_fields)]
        h = _combine([_column_hash(f) for f in fields]) if fields else np.zeros(len(arr), np.uint64)
    elif pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t) \
            or pa.types.is_large_binary(t):
        h = _hash_by_dictionary(arr)
    else:  # decimals, lists, maps: rare as keys, hashed by their exact text
        h = _hash_by_dictionary(arr.cast(pa.string()) if pa.types.is_decimal(t) else pa.array(
            [None if v is None else repr(v) for v in arr.to_pylist()], pa.string()))
    if arr.null_count:
        h[arr.is_null().to_numpy(zero_copy_only=False)] = _NULL_HASH
    return h


def _combine(hashes: Sequence[np.ndarray]) -> np.ndarray:
    h = hashes[0]
    for nxt in hashes[1:]:
        h = h * _COMBINE
        h += nxt
        h = _mix(h)
    return h


def _hashes(columns: Sequence[pa.Array], length: int) -> np.ndarray:
    if not columns:
        return np.zeros(length, np.uint64)
    return _combine([_column_hash(c) for c in columns])


def partition_ids(columns: Sequence[pa.Array], num_partitions: int) -> pa.Array:
    """The partition (``0 <= id < num_partitions``) of every row of the key ``columns``, as int32.

    Equal keys (null, NaN and ``-0.0`` included) get equal ids in every process.
    """
    length = len(columns[0]) if columns else 0
    if num_partitions == 1 or not columns:
        return constant(length, 0, pa.int32()) if num_partitions == 1 else pa.array([], pa.int32())
    ids = (_hashes(columns, length) >> _SHIFT33) % np.uint64(num_partitions)
    return pa.array(ids.astype(np.int32), pa.int32())

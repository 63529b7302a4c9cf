"""``hash(*cols)`` and ``xxhash64(*cols)``: Spark's 32-bit Murmur3 and 64-bit xxHash of the
arguments (seed 42), bit for bit.

What this module owns
---------------------
Murmur3 x86_32 as Spark's ``Murmur3_x86_32`` computes it, XXH64 as Spark's ``XXH64``
computes it (the reference algorithm: 4-byte ints and 8-byte longs hashed as their
little-endian bytes), the hashing of each Spark type (the same rules for both) and the
registry entries of ``hash`` and ``xxhash64``.

Invariants
----------
* The arguments are hashed in order, each with the previous one's hash as its seed (the
  first with 42); a null leaves the hash unchanged, so the result is never null.
* Integers up to ``int``, booleans (1/0) and dates (days) hash as a 4-byte int; longs and
  timestamps (microseconds) as 8 bytes; floats and doubles by their IEEE bits (Java's
  canonical NaN, -0.0 as 0); strings by their UTF-8 bytes and binaries by their bytes,
  with Spark's own tail (each of the last ``len % 4`` bytes mixed as a signed int, not
  the reference algorithm's); decimals of precision <= 18 by their unscaled long, larger
  ones by the unscaled value's two's complement bytes; arrays element by element and
  structs field by field, each with the running hash as seed.
* Maps are refused, as Spark 3+ does.
* ``hash`` is a signed 32-bit int, ``xxhash64`` a signed 64-bit long; neither is null.
"""

from __future__ import annotations

import decimal
import struct
from typing import Any

from ..types import (
    ArrayType,
    BinaryType,
    BooleanType,
    ByteType,
    DataType,
    DateType,
    DayTimeIntervalType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    MapType,
    NullType,
    ShortType,
    StringType,
    StructType,
    TimestampNTZType,
    TimestampType,
    YearMonthIntervalType,
)
from ..variant.casting import contains_variant
from .base import EvalContext
from .datetime_functions import epoch_value
from .function_registry import FunctionSpec, register

__all__ = ["contains_map", "murmur3_bytes", "murmur3_hash", "xxhash64"]

SEED = 42
_M = 0xFFFFFFFF


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _M


def _mix_k1(k1: int) -> int:
    return (_rotl((k1 * 0xCC9E2D51) & _M, 15) * 0x1B873593) & _M


def _mix_h1(h1: int, k1: int) -> int:
    return (_rotl(h1 ^ k1, 13) * 5 + 0xE6546B64) & _M


def _fmix(h1: int, length: int) -> int:
    h1 ^= length
    h1 ^= h1 >> 16
    h1 = (h1 * 0x85EBCA6B) & _M
    h1 ^= h1 >> 13
    h1 = (h1 * 0xC2B2AE35) & _M
    return h1 ^ (h1 >> 16)


def _hash_int(value: int, seed: int) -> int:
    return _fmix(_mix_h1(seed, _mix_k1(value & _M)), 4)


def _hash_long(value: int, seed: int) -> int:
    value &= (1 << 64) - 1
    return _fmix(_mix_h1(_mix_h1(seed, _mix_k1(value & _M)), _mix_k1(value >> 32)), 8)


def _hash_bytes(data: bytes, seed: int) -> int:
    aligned = len(data) - len(data) % 4
    h1 = seed
    for i in range(0, aligned, 4):
        h1 = _mix_h1(h1, _mix_k1(int.from_bytes(data[i:i + 4], "little")))
    for byte in data[aligned:]:  # Spark's tail: one signed byte at a time
        h1 = _mix_h1(h1, _mix_k1((byte - 256 if byte > 127 else byte) & _M))
    return _fmix(h1, len(data))


def murmur3_bytes(data: bytes, seed: int) -> int:
    """Spark's ``Murmur3_x86_32.hashUnsafeBytes(data, seed)`` as an unsigned 32-bit int (its
    tail bytes one at a time, as Spark hashes them; ``seed`` a Java ``int``)."""
    return _hash_bytes(data, seed & _M)


class _Murmur3:
    """Spark's ``Murmur3_x86_32``: the three primitives the type rules hash with."""

    int_ = staticmethod(_hash_int)
    long_ = staticmethod(_hash_long)
    bytes_ = staticmethod(_hash_bytes)


_M64 = (1 << 64) - 1
_P1, _P2, _P3 = 0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9
_P4, _P5 = 0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5


def _rotl64(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & _M64


def _xx_round(acc: int, lane: int) -> int:
    return (_rotl64((acc + lane * _P2) & _M64, 31) * _P1) & _M64


def _xx_avalanche(h: int) -> int:
    h ^= h >> 33
    h = (h * _P2) & _M64
    h ^= h >> 29
    h = (h * _P3) & _M64
    return h ^ (h >> 32)


def _xx_bytes(data: bytes, seed: int) -> int:
    """XXH64 of ``data`` (the reference algorithm, which Spark's ``hashUnsafeBytes`` is)."""
    n, i = len(data), 0
    if n >= 32:
        v1, v2, v3, v4 = (seed + _P1 + _P2) & _M64, (seed + _P2) & _M64, seed, (seed - _P1) & _M64
        while i <= n - 32:
            lanes = struct.unpack_from("<4Q", data, i)
            v1, v2 = _xx_round(v1, lanes[0]), _xx_round(v2, lanes[1])
            v3, v4 = _xx_round(v3, lanes[2]), _xx_round(v4, lanes[3])
            i += 32
        h = (_rotl64(v1, 1) + _rotl64(v2, 7) + _rotl64(v3, 12) + _rotl64(v4, 18)) & _M64
        for v in (v1, v2, v3, v4):
            h = ((h ^ _xx_round(0, v)) * _P1 + _P4) & _M64
    else:
        h = (seed + _P5) & _M64
    h = (h + n) & _M64
    while i <= n - 8:
        h ^= _xx_round(0, struct.unpack_from("<Q", data, i)[0])
        h = (_rotl64(h, 27) * _P1 + _P4) & _M64
        i += 8
    if i <= n - 4:
        h ^= (struct.unpack_from("<I", data, i)[0] * _P1) & _M64
        h = (_rotl64(h, 23) * _P2 + _P3) & _M64
        i += 4
    while i < n:
        h ^= (data[i] * _P5) & _M64
        h = (_rotl64(h, 11) * _P1) & _M64
        i += 1
    return _xx_avalanche(h)


class _XxHash64:
    """Spark's ``XXH64``: ``hashInt``/``hashLong`` are XXH64 of the value's 4/8 little-endian bytes."""

    @staticmethod
    def int_(value: int, seed: int) -> int:
        return _xx_bytes((value & _M).to_bytes(4, "little"), seed)

    @staticmethod
    def long_(value: int, seed: int) -> int:
        return _xx_bytes((value & _M64).to_bytes(8, "little"), seed)

    bytes_ = staticmethod(_xx_bytes)


def _hash_value(value: Any, dt: DataType, seed: int, algo: Any = _Murmur3) -> int:
    if value is None or isinstance(dt, NullType):
        return seed
    if isinstance(dt, BooleanType):
        return algo.int_(1 if value else 0, seed)
    if isinstance(dt, (ByteType, ShortType, IntegerType, YearMonthIntervalType)):
        return algo.int_(value, seed)  # a year-month interval hashes as its int of months
    if isinstance(dt, DayTimeIntervalType):
        return algo.long_(dt.toInternal(value) if not isinstance(value, int) else value, seed)
    if isinstance(dt, DateType):
        return algo.int_(epoch_value(value), seed)
    if isinstance(dt, LongType):
        return algo.long_(value, seed)
    if isinstance(dt, (TimestampType, TimestampNTZType)):
        return algo.long_(epoch_value(value), seed)
    if isinstance(dt, FloatType):
        if value == 0.0:
            return algo.int_(0, seed)  # -0.0 hashes as 0.0
        return algo.int_(0x7FC00000 if value != value else struct.unpack("<i", struct.pack("<f", value))[0], seed)
    if isinstance(dt, DoubleType):
        if value == 0.0:
            return algo.long_(0, seed)
        bits = 0x7FF8000000000000 if value != value else struct.unpack("<q", struct.pack("<d", value))[0]
        return algo.long_(bits, seed)
    if isinstance(dt, StringType):
        return algo.bytes_(value.encode("utf-8"), seed)
    if isinstance(dt, BinaryType):
        return algo.bytes_(bytes(value), seed)
    if isinstance(dt, DecimalType):
        unscaled = int(decimal.Decimal(value).scaleb(dt.scale))
        if dt.precision <= 18:
            return algo.long_(unscaled, seed)
        return algo.bytes_(unscaled.to_bytes(unscaled.bit_length() // 8 + 1, "big", signed=True), seed)
    if isinstance(dt, ArrayType):
        for element in value:
            seed = _hash_value(element, dt.elementType, seed, algo)
        return seed
    if isinstance(dt, StructType):
        for field in dt.fields:
            item = value.get(field.name) if isinstance(value, dict) else getattr(value, field.name, None)
            seed = _hash_value(item, field.dataType, seed, algo)
        return seed
    raise TypeError(f"{algo.__name__.strip('_').lower()} cannot hash a value of type {dt.simpleString()}")


def murmur3_hash(values: list[Any], types: list[DataType]) -> int:
    """Spark's ``hash(values...)`` of one row: a signed 32-bit int."""
    h1 = SEED
    for value, dt in zip(values, types):
        h1 = _hash_value(value, dt, h1)
    return h1 - (1 << 32) if h1 & 0x80000000 else h1


def xxhash64(values: list[Any], types: list[DataType]) -> int:
    """Spark's ``xxhash64(values...)`` of one row: a signed 64-bit long."""
    h = SEED
    for value, dt in zip(values, types):
        h = _hash_value(value, dt, h, _XxHash64)
    return h - (1 << 64) if h >> 63 else h


def contains_map(dt: DataType) -> bool:
    """Whether ``dt`` is or holds a map at any depth (Spark neither hashes nor sorts those)."""
    if isinstance(dt, MapType):
        return True
    if isinstance(dt, ArrayType):
        return contains_map(dt.elementType)
    if isinstance(dt, StructType):
        return any(contains_map(f.dataType) for f in dt.fields)
    return False


def _hash_types(name: str) -> Any:
    def check(types: list[DataType]) -> list[DataType | None]:
        for dt in types:
            if contains_variant(dt):
                raise TypeError(f'Input to the function `{name}` cannot contain elements of the "VARIANT" type yet')
            if contains_map(dt):
                raise TypeError(f'input to the function `{name}` cannot contain elements of the "MAP" type: '
                                f'{dt.simpleString()}. In Spark, same maps may have different hashcode, thus '
                                'hash expressions are prohibited on "MAP" elements')
        return [None] * len(types)
    return check


def _run_hash(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> Any:
    import pyarrow as pa  # noqa: PLC0415 - kernels load at run time

    columns = [a.to_pylist() for a in args]
    return pa.array([murmur3_hash(list(row), types) for row in zip(*columns)], pa.int32())


def _run_xxhash64(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> Any:
    import pyarrow as pa  # noqa: PLC0415 - kernels load at run time

    columns = [a.to_pylist() for a in args]
    return pa.array([xxhash64(list(row), types) for row in zip(*columns)], pa.int64())


register(FunctionSpec("hash", 1, -1, _hash_types("hash"), lambda ts: IntegerType(), _run_hash,
                      null_intolerant=False))
register(FunctionSpec("xxhash64", 1, -1, _hash_types("xxhash64"), lambda ts: LongType(), _run_xxhash64,
                      null_intolerant=False))

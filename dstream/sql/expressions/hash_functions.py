"""``hash(*cols)``: Spark's 32-bit Murmur3 hash of the arguments (seed 42), bit for bit.

What this module owns
---------------------
Murmur3 x86_32 as Spark's ``Murmur3_x86_32`` computes it, the hashing of each Spark type
and the registry entry of ``hash``.

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
)
from .base import EvalContext
from .datetime_functions import epoch_value
from .function_registry import FunctionSpec, register

__all__ = ["murmur3_hash"]

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


def _hash_value(value: Any, dt: DataType, seed: int) -> int:
    if value is None or isinstance(dt, NullType):
        return seed
    if isinstance(dt, BooleanType):
        return _hash_int(1 if value else 0, seed)
    if isinstance(dt, (ByteType, ShortType, IntegerType)):
        return _hash_int(value, seed)
    if isinstance(dt, DateType):
        return _hash_int(epoch_value(value), seed)
    if isinstance(dt, LongType):
        return _hash_long(value, seed)
    if isinstance(dt, (TimestampType, TimestampNTZType)):
        return _hash_long(epoch_value(value), seed)
    if isinstance(dt, FloatType):
        if value == 0.0:
            return _hash_int(0, seed)  # -0.0 hashes as 0.0
        return _hash_int(0x7FC00000 if value != value else struct.unpack("<i", struct.pack("<f", value))[0], seed)
    if isinstance(dt, DoubleType):
        if value == 0.0:
            return _hash_long(0, seed)
        bits = 0x7FF8000000000000 if value != value else struct.unpack("<q", struct.pack("<d", value))[0]
        return _hash_long(bits, seed)
    if isinstance(dt, StringType):
        return _hash_bytes(value.encode("utf-8"), seed)
    if isinstance(dt, BinaryType):
        return _hash_bytes(bytes(value), seed)
    if isinstance(dt, DecimalType):
        unscaled = int(decimal.Decimal(value).scaleb(dt.scale))
        if dt.precision <= 18:
            return _hash_long(unscaled, seed)
        return _hash_bytes(unscaled.to_bytes(unscaled.bit_length() // 8 + 1, "big", signed=True), seed)
    if isinstance(dt, ArrayType):
        for element in value:
            seed = _hash_value(element, dt.elementType, seed)
        return seed
    if isinstance(dt, StructType):
        for field in dt.fields:
            item = value.get(field.name) if isinstance(value, dict) else getattr(value, field.name, None)
            seed = _hash_value(item, field.dataType, seed)
        return seed
    raise TypeError(f"hash cannot hash a value of type {dt.simpleString()}")


def murmur3_hash(values: list[Any], types: list[DataType]) -> int:
    """Spark's ``hash(values...)`` of one row: a signed 32-bit int."""
    h1 = SEED
    for value, dt in zip(values, types):
        h1 = _hash_value(value, dt, h1)
    return h1 - (1 << 32) if h1 & 0x80000000 else h1


def _contains_map(dt: DataType) -> bool:
    if isinstance(dt, MapType):
        return True
    if isinstance(dt, ArrayType):
        return _contains_map(dt.elementType)
    if isinstance(dt, StructType):
        return any(_contains_map(f.dataType) for f in dt.fields)
    return False


def _hash_types(types: list[DataType]) -> list[DataType | None]:
    for dt in types:
        if _contains_map(dt):
            raise TypeError(f'input to the function `hash` cannot contain elements of the "MAP" type: '
                            f'{dt.simpleString()}. In Spark, same maps may have different hashcode, thus hash '
                            'expressions are prohibited on "MAP" elements')
    return [None] * len(types)


def _run_hash(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> Any:
    import pyarrow as pa  # noqa: PLC0415 - kernels load at run time

    columns = [a.to_pylist() for a in args]
    return pa.array([murmur3_hash(list(row), types) for row in zip(*columns)], pa.int32())


register(FunctionSpec("hash", 1, -1, _hash_types, lambda ts: IntegerType(), _run_hash, null_intolerant=False))

"""Order-preserving bytes for array and struct values, so Arrow can sort by them.

What this module owns
---------------------
:func:`ordered_bytes`: each value of an array (or struct) column as bytes whose
byte-wise order is Spark's order of the values. Arrow's sort kernels take no nested
types; a binary column of these bytes sorts (ascending or descending) as Spark sorts the
arrays themselves.

Invariants
----------
* Arrays compare element by element, a null element before any value, and a shorter
  array that is a prefix of a longer one first (Spark's ``ArrayType`` ordering); structs
  compare field by field, nulls first.
* Every encoding is prefix-free: an element's bytes never begin another element's, so
  concatenating them keeps the order. Integers, dates and timestamps are 8 big-endian
  bytes offset by 2**63; doubles are their IEEE bits with the sign flipped (all bits for
  negatives), ``-0.0`` as ``0.0`` and NaN above every number; strings and binary are
  their bytes with ``00`` escaped as ``00 FF`` and ended by ``00 00`` (UTF-8 byte order).
* A value of another type (decimals, maps) raises ``UNSUPPORTED_FEATURE.SORT_BY_ARRAY``.
"""

from __future__ import annotations

import datetime
import struct
from collections.abc import Callable
from typing import Any

import pyarrow as pa

__all__ = ["ordered_bytes", "sortable"]

_NULL, _VALUE, _END = b"\x01", b"\x02", b"\x00"
_EPOCH = datetime.datetime(1970, 1, 1)


def sortable(t: pa.DataType) -> bool:
    """Whether :func:`ordered_bytes` can encode values of ``t``."""
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return sortable(t.value_type)
    if pa.types.is_struct(t):
        return all(sortable(t.field(i).type) for i in range(t.num_fields))
    return (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t) or pa.types.is_string(t)
            or pa.types.is_large_string(t) or pa.types.is_binary(t) or pa.types.is_large_binary(t)
            or pa.types.is_date(t) or pa.types.is_timestamp(t) or pa.types.is_null(t))


def _integer(v: int) -> bytes:
    return (v + (1 << 63)).to_bytes(8, "big")


def _double(v: float) -> bytes:
    if v != v:
        v = float("nan")
    bits = int.from_bytes(struct.pack(">d", v + 0.0), "big")
    bits = bits ^ 0xFFFFFFFFFFFFFFFF if bits >> 63 else bits | (1 << 63)
    return bits.to_bytes(8, "big")


def _text(v: bytes) -> bytes:
    return v.replace(b"\x00", b"\x00\xff") + b"\x00\x00"


def _encoder(t: pa.DataType) -> Callable[[Any], bytes]:
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        element = _encoder(t.value_type)
        return lambda v: b"".join(_NULL if e is None else _VALUE + element(e) for e in v) + _END
    if pa.types.is_struct(t):
        names = [t.field(i).name for i in range(t.num_fields)]
        fields = [_encoder(t.field(i).type) for i in range(t.num_fields)]
        return lambda v: b"".join(_NULL if v[n] is None else _VALUE + f(v[n]) for n, f in zip(names, fields))
    if pa.types.is_boolean(t):
        return lambda v: b"\x01" if v else b"\x00"
    if pa.types.is_integer(t):
        return _integer
    if pa.types.is_floating(t):
        return _double
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return lambda v: _text(v.encode("utf-8"))
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return lambda v: _text(bytes(v))
    if pa.types.is_date(t):
        return lambda v: _integer(v.toordinal())
    if pa.types.is_timestamp(t):
        return lambda v: _integer(_micros(v))
    if pa.types.is_null(t):
        return lambda v: b""
    raise TypeError(f"no order-preserving encoding for {t}")


def _micros(v: datetime.datetime) -> int:
    if v.tzinfo is not None:
        v = v.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    delta = v - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def ordered_bytes(values: pa.Array) -> pa.Array:
    """``values`` (an array or struct column) as binary that sorts as Spark sorts them; nulls stay null."""
    encode = _encoder(values.type)
    return pa.array([None if v is None else encode(v) for v in values.to_pylist()], pa.binary())

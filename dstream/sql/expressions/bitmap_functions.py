"""Spark's bitmap functions for exact distinct counts: ``bitmap_bucket_number``,
``bitmap_bit_position``, ``bitmap_count``, ``bitmap_construct_agg`` and ``bitmap_or_agg``.

What this module owns
---------------------
The scalar specs and the two aggregates. A bitmap is a 4096-byte binary (32768 bits, bit
``i`` in byte ``i // 8`` at ``1 << (i % 8)``); a bigint ``v`` belongs to bucket
``bitmap_bucket_number(v)`` at bit ``bitmap_bit_position(v)``:

* ``v > 0``: bucket ``(v - 1) / 32768 + 1``, position ``(v - 1) % 32768``;
* ``v <= 0``: bucket ``v / 32768`` (truncated toward zero), position ``-v % 32768``.

Invariants
----------
* ``bitmap_construct_agg`` sets the bit of each non-null position of a group (a position
  outside [0, 32768) is ``INVALID_BITMAP_POSITION``); ``bitmap_or_agg`` ORs a group's
  non-null bitmaps (shorter ones from the first byte). Both give 4096 zero bytes over no
  value, never null.
* ``bitmap_count`` counts the set bits of a binary (null for null).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import ArrayIndexOutOfBoundsException
from ..types import BinaryType, DataType, LongType
from .aggregates import _ListBased
from .base import EvalContext
from .checks import mismatch, quoted_type
from .coercion import is_integral
from .function_registry import FunctionSpec, register

__all__ = ["BitmapConstructAgg", "BitmapOrAgg"]

_BITS = 32768
_BYTES = _BITS // 8


def _run_bucket(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    v = args[0]
    positive = pc.add(pc.divide(pc.subtract(v, 1), _BITS), 1)  # integer division of positives: floor = trunc
    non_positive = pc.negate(pc.divide(pc.negate(v), _BITS))  # truncated toward zero, as Java's
    return pc.if_else(pc.greater(v, 0), positive, non_positive)


def _run_position(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    v = args[0]
    positive = pc.subtract(pc.subtract(v, 1), pc.multiply(pc.divide(pc.subtract(v, 1), _BITS), _BITS))
    magnitude = pc.negate(v)
    non_positive = pc.subtract(magnitude, pc.multiply(pc.divide(magnitude, _BITS), _BITS))
    return pc.if_else(pc.greater(v, 0), positive, non_positive)


def _binary_only(types: list[DataType]) -> list[DataType | None]:
    if not isinstance(types[0], BinaryType):
        raise TypeError(f'The first parameter requires the "BINARY" type, however it has the type '
                        f"{quoted_type(types[0])}")
    return [None]


def _run_count(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    out = [None if b is None else int(np.unpackbits(np.frombuffer(b, np.uint8)).sum()) for b in args[0].to_pylist()]
    return pa.array(out, pa.int64())


register(FunctionSpec("bitmap_bucket_number", 1, 1, lambda ts: [LongType()], lambda ts: LongType(), _run_bucket))
register(FunctionSpec("bitmap_bit_position", 1, 1, lambda ts: [LongType()], lambda ts: LongType(), _run_position))
register(FunctionSpec("bitmap_count", 1, 1, _binary_only, lambda ts: LongType(), _run_count))


class _BitmapAggregate(_ListBased):
    """A group's values kept as a list, folded into one 4096-byte bitmap by :meth:`fold`."""

    partial_fn = "list"

    def data_type(self) -> DataType:
        return BinaryType()

    @property
    def nullable(self) -> bool:
        return False

    def fold(self, bitmap: np.ndarray, value: Any) -> None:
        raise NotImplementedError

    def finish(self, buffers: list[pa.Array], ctx: EvalContext) -> pa.Array:
        groups, values, n_groups = self.groups_and_values(buffers)
        bitmaps = [np.zeros(_BYTES, np.uint8) for _ in range(n_groups)]
        for group, value in zip(groups.to_pylist(), values.to_pylist()):
            self.fold(bitmaps[group], value)
        return pa.array([b.tobytes() for b in bitmaps], pa.binary())


class BitmapConstructAgg(_BitmapAggregate):
    """``bitmap_construct_agg(position)``: the bitmap of a group's bit positions."""

    name = "bitmap_construct_agg"

    def check_input_types(self) -> None:
        dt = self.children[0].data_type()
        if not is_integral(dt):
            raise mismatch(self, "UNEXPECTED_INPUT_TYPE",
                           f'The first parameter requires the "BIGINT" type, however "{self.children[0].sql()}" '
                           f"has the type {quoted_type(dt)}")

    def fold(self, bitmap: np.ndarray, value: Any) -> None:
        if not 0 <= value < _BITS:
            raise ArrayIndexOutOfBoundsException(
                f"The 0-indexed bitmap position {value} is out of bounds. The bitmap has {_BITS} bits "
                f"({_BYTES} bytes). Use bitmap_bit_position to map a value to a position in [0, {_BITS}).",
                "INVALID_BITMAP_POSITION", {"bitPosition": str(value), "bitmapNumBytes": str(_BYTES),
                                            "bitmapNumBits": str(_BITS)})
        bitmap[value // 8] |= 1 << (value % 8)


class BitmapOrAgg(_BitmapAggregate):
    """``bitmap_or_agg(bitmap)``: the bitwise OR of a group's bitmaps."""

    name = "bitmap_or_agg"

    def check_input_types(self) -> None:
        dt = self.children[0].data_type()
        if not isinstance(dt, BinaryType):
            raise mismatch(self, "UNEXPECTED_INPUT_TYPE",
                           f'The first parameter requires the "BINARY" type, however "{self.children[0].sql()}" '
                           f"has the type {quoted_type(dt)}")

    def fold(self, bitmap: np.ndarray, value: Any) -> None:
        data = np.frombuffer(bytes(value)[:_BYTES], np.uint8)
        bitmap[: len(data)] |= data

"""Bitwise operators on integers: ``(a & b)``, ``(a | b)``, ``(a ^ b)``.

What this module owns
---------------------
The nodes of ``Column.bitwiseAND``/``bitwiseOR``/``bitwiseXOR``. Both sides meet at
the wider integral type (strings and floats are refused, as Spark does).

Invariants
----------
* Null in gives null out; no overflow is possible.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from ..types import DataType, NullType
from .base import EvalContext, Expression
from .cast import cast_to
from .checks import mismatch, quoted_type
from .coercion import is_integral, wider_numeric
from .operators import BinaryArithmetic

__all__ = ["BitwiseAnd", "BitwiseOr", "BitwiseXor"]


class _Bitwise(BinaryArithmetic):
    arrow_fn = ""

    def coerce(self) -> Expression:
        left, right = self.left, self.right
        lt, rt = left.data_type(), right.data_type()
        if isinstance(lt, NullType):
            left = cast_to(left, rt)
        elif isinstance(rt, NullType):
            right = cast_to(right, lt)
        lt, rt = left.data_type(), right.data_type()
        for dt in (lt, rt):
            if not is_integral(dt):
                raise mismatch(self, "BINARY_OP_WRONG_TYPE",
                               f'the binary operator requires the input type "INTEGRAL", not {quoted_type(dt)}')
        wide = wider_numeric(lt, rt)
        left, right = cast_to(left, wide), cast_to(right, wide)
        return self if (left is self.left and right is self.right) else type(self)(left, right)

    def data_type(self) -> DataType:
        return wider_numeric(self.left.data_type(), self.right.data_type())

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        return getattr(pc, self.arrow_fn)(self.left.eval(batch, ctx), self.right.eval(batch, ctx))


class BitwiseAnd(_Bitwise):
    """``(a & b)``."""

    symbol = "&"
    arrow_fn = "bit_wise_and"


class BitwiseOr(_Bitwise):
    """``(a | b)``."""

    symbol = "|"
    arrow_fn = "bit_wise_or"


class BitwiseXor(_Bitwise):
    """``(a ^ b)``."""

    symbol = "^"
    arrow_fn = "bit_wise_xor"

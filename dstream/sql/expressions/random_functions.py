"""Spark 4's ``uniform(min, max[, seed])`` and ``randstr(length[, seed])`` before analysis.

What this module owns
---------------------
:class:`Uniform` and :class:`RandomString`, which check their constant arguments once
their types are known and become the draws of :mod:`.partition_functions` (Spark's
``XORShiftRandom`` of ``seed + partition``, so the values are Spark's):

* ``uniform``: ``min + (max - min) * rand(seed)`` cast to the arguments' common type (an
  integral result truncates, a decimal one rounds half up); a null bound gives null.
* ``randstr``: ``length`` characters of ``0-9a-zA-Z`` per row; a negative length is
  ``INVALID_PARAMETER_VALUE.LENGTH`` when rows are drawn.

Invariants
----------
* Every argument must be a constant (``DATATYPE_MISMATCH.NON_FOLDABLE_INPUT``); bounds are
  numbers, the length an integer (``UNEXPECTED_INPUT_TYPE``).
* The name shows the seed only when the caller gave it (``uniform(1, 2)``, ``uniform(1, 2, 0)``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..types import DataType, DecimalType, DoubleType, NullType, StringType
from .base import Expression, Literal
from .cast import Cast
from .checks import mismatch, quoted_type
from .coercion import find_common_type, is_integral, is_numeric
from .partition_functions import RandStr, UniformDraw
from .predicates import fold
from .sql_named import SqlNamed

__all__ = ["RandomString", "Uniform"]


class _SeededCall(Expression):
    """A call whose last argument is a seed the caller may have left out (then ``seed`` is drawn)."""

    name = ""

    def __init__(self, children: Sequence[Expression], seed: int, seed_shown: bool) -> None:
        self.children = tuple(children)
        self.seed = seed
        self.seed_shown = seed_shown

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return type(self)(children, self.seed, self.seed_shown)

    def sql(self) -> str:
        shown = [c.sql() for c in self.children] + ([str(self.seed)] if self.seed_shown else [])
        return f"{self.name}({', '.join(shown)})"

    def _constant(self, child: Expression, argument: str, kind: str) -> Any:
        if not child.foldable:
            raise mismatch(self, "NON_FOLDABLE_INPUT", f"the input `{argument}` should be a foldable {kind} "
                                                       f'expression; however, got "{child.sql()}"')
        return fold(child)

    def _options(self) -> Any:
        return (self.seed, self.seed_shown)


class Uniform(_SeededCall):
    """``uniform(min, max[, seed])``: a uniform number between the bounds, of their type."""

    name = "uniform"

    def data_type(self) -> DataType:
        types = [c.data_type() for c in self.children]
        if any(isinstance(t, NullType) for t in types):
            return DoubleType()
        common = find_common_type(types)
        return common if common is not None else DoubleType()

    def coerce(self) -> Expression:
        for position, (child, argument) in enumerate(zip(self.children, ("min", "max"))):
            dt = child.data_type()
            if not (is_numeric(dt) or isinstance(dt, (DecimalType, NullType))):
                which = "first" if position == 0 else "second"
                raise mismatch(self, "UNEXPECTED_INPUT_TYPE", f'The {which} parameter requires the "NUMERIC" type, '
                                                              f'however "{child.sql()}" has the type {quoted_type(dt)}')
            self._constant(child, argument, "integer or floating-point")
        low, high = (fold(c) for c in self.children)
        result = self.data_type()
        if low is None or high is None:
            return SqlNamed(Literal(None, result), self.sql())
        draw = UniformDraw(float(low), float(high), self.seed, self.sql())
        return draw if isinstance(result, DoubleType) else SqlNamed(Cast(draw, result, implicit=True), self.sql())


class RandomString(_SeededCall):
    """``randstr(length[, seed])``: random text of ``0-9a-zA-Z``."""

    name = "randstr"

    def data_type(self) -> DataType:
        return StringType()

    def coerce(self) -> Expression:
        (child,) = self.children
        dt = child.data_type()
        if not is_integral(dt):
            raise mismatch(self, "UNEXPECTED_INPUT_TYPE", f'The first parameter requires the "INT" type, however '
                                                          f'"{child.sql()}" has the type {quoted_type(dt)}')
        length = self._constant(child, "length", "integer")
        return RandStr(int(length) if length is not None else 0, self.seed, self.sql())

"""Predicates: comparisons, ``AND``/``OR``/``NOT``, ``IS NULL``, ``IN``, ``LIKE`` and string tests.

What this module owns
---------------------
The boolean-valued nodes, named as Spark names them: ``(a = b)``, ``(a <=> b)``,
``(NOT (a = b))`` (so ``!=`` is a negated equality), ``(a < b)``, ``((a > 1) AND
(b < 2))``, ``(a IS NULL)``, ``(a IN (1, 2))``, ``a LIKE x%``, ``a RLIKE ^x``,
``ilike(a, x%)``, ``startswith(a, x)``, ``endswith(a, x)``, ``contains(a, x)``,
``isnan(a)``.

Coercion
--------
Both sides of a comparison meet at :func:`coercion.comparison_type`: numbers widen; a
string compared with a number, date, timestamp or boolean is cast to that type
(Spark 4 ANSI: ``'x' = 1`` raises ``CAST_INVALID_INPUT``, use ``try_cast`` to
tolerate). ``AND``/``OR``/``NOT`` take booleans (strings are cast to boolean).

Invariants
----------
* Three-valued logic: ``AND``/``OR`` are Kleene's (``false AND null`` is false) and
  lazy like Spark's: the right side runs only on rows the left side leaves undecided.
* Comparisons follow Spark's ordering (``NaN = NaN``, NaN above every number,
  ``-0.0 = 0.0``) through ``kernels.compare``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..types import BooleanType, CalendarIntervalType, DataType, DoubleType, FloatType, MapType, NullType, StringType
from ..variant.casting import contains_variant
from .base import EvalContext, Expression, fold
from .cast import cast_to
from .char_varchar import padded_for_char
from .checks import eval_where, mismatch, quoted_type
from .coercion import comparison_type, find_common_type

__all__ = [
    "And",
    "BinaryComparison",
    "Contains",
    "EndsWith",
    "EqualNullSafe",
    "EqualTo",
    "GreaterThan",
    "GreaterThanOrEqual",
    "ILike",
    "In",
    "IsNaN",
    "IsNotNull",
    "IsNull",
    "LessThan",
    "LessThanOrEqual",
    "Like",
    "Not",
    "Or",
    "RLike",
    "SqlBetween",
    "StartsWith",
    "fold",
]


class _Binary(Expression):
    def __init__(self, left: Expression, right: Expression) -> None:
        self.children = (left, right)

    @property
    def left(self) -> Expression:
        return self.children[0]

    @property
    def right(self) -> Expression:
        return self.children[1]

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return type(self)(children[0], children[1])

    def data_type(self) -> DataType:
        return BooleanType()


class BinaryComparison(_Binary):
    """``(a op b)`` for ``= < <= > >=``; subclasses set :attr:`symbol`."""

    symbol = "="
    #: Whether the operator needs an ordering (maps have none).
    ordering = True

    def sql(self) -> str:
        return f"({self.left.sql()} {self.symbol} {self.right.sql()})"

    def coerce(self) -> Expression:
        # A CHAR(n) column against a shorter constant: the constant is padded (Spark's ApplyCharTypePadding).
        left, right = padded_for_char(self.right, self.left), padded_for_char(self.left, self.right)
        if left is not self.left or right is not self.right:
            return type(self)(left, right).coerce()
        lt, rt = self.left.data_type(), self.right.data_type()
        common = comparison_type(lt, rt)
        if common is None:
            raise mismatch(self, "BINARY_OP_DIFF_TYPES",
                           "the left and right operands of the binary operator have incompatible types "
                           f"({quoted_type(lt)} and {quoted_type(rt)})")
        if isinstance(common, MapType) or contains_variant(common) or isinstance(common, CalendarIntervalType):
            raise mismatch(self, "INVALID_ORDERING_TYPE",
                           f"The `{self.symbol}` does not support ordering on type {quoted_type(common)}")
        left, right = cast_to(self.left, common), cast_to(self.right, common)
        if left is self.left and right is self.right:
            return self
        return type(self)(left, right)

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        from ..kernels import compare  # noqa: PLC0415 - kernels load at run time

        return compare.compare(self.symbol, self.left.eval(batch, ctx), self.right.eval(batch, ctx))


class EqualTo(BinaryComparison):
    """``(a = b)``."""

    symbol = "="


class LessThan(BinaryComparison):
    """``(a < b)``."""

    symbol = "<"


class LessThanOrEqual(BinaryComparison):
    """``(a <= b)``."""

    symbol = "<="


class GreaterThan(BinaryComparison):
    """``(a > b)``."""

    symbol = ">"


class GreaterThanOrEqual(BinaryComparison):
    """``(a >= b)``."""

    symbol = ">="


class EqualNullSafe(BinaryComparison):
    """``(a <=> b)``: never null; two nulls are equal."""

    symbol = "<=>"

    @property
    def nullable(self) -> bool:
        return False

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        from ..kernels import compare  # noqa: PLC0415 - kernels load at run time

        return compare.eq_null_safe(self.left.eval(batch, ctx), self.right.eval(batch, ctx))


def _boolean(node: Expression, expr: Expression) -> Expression:
    dt = expr.data_type()
    if isinstance(dt, BooleanType):
        return expr
    if isinstance(dt, (NullType, StringType)):
        return cast_to(expr, BooleanType())
    raise mismatch(node, "UNEXPECTED_INPUT_TYPE",
                   f'the input "{expr.sql()}" requires the "BOOLEAN" type, however it has the type {quoted_type(dt)}')


class _Connective(_Binary):
    """``AND`` / ``OR``: Kleene logic, the right side evaluated only where the left leaves it open.

    ``And`` and ``Or`` are siblings, never one a subclass of the other: the optimizer splits
    a condition at ``And`` nodes, and an ``Or`` taken for one would push ``a OR b`` down as
    ``a AND b``.
    """

    keyword = ""

    def sql(self) -> str:
        return f"({self.left.sql()} {self.keyword} {self.right.sql()})"

    def coerce(self) -> Expression:
        left, right = _boolean(self, self.left), _boolean(self, self.right)
        return self if (left is self.left and right is self.right) else type(self)(left, right)

    def _undecided(self, left: pa.Array) -> pa.Array:
        raise NotImplementedError

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        left = self.left.eval(batch, ctx)
        right = eval_where(self.right, batch, ctx, self._undecided(left))
        return self._combine(left, right)

    def _combine(self, left: pa.Array, right: pa.Array) -> pa.Array:
        raise NotImplementedError


class And(_Connective):
    """``(a AND b)`` (Kleene; the right side is evaluated only where the left is not false)."""

    keyword = "AND"

    def _undecided(self, left: pa.Array) -> pa.Array:
        return pc.fill_null(left, True)

    def _combine(self, left: pa.Array, right: pa.Array) -> pa.Array:
        return pc.and_kleene(left, right)


class SqlBetween(And):
    """SQL's ``v BETWEEN lo AND hi``: ``(v >= lo) AND (v <= hi)``, named ``between(v, lo, hi)`` as in Spark."""

    def sql(self) -> str:
        low, high = self.left, self.right
        if len(low.children) == 2 and len(high.children) == 2:
            return f"between({low.children[0].sql()}, {low.children[1].sql()}, {high.children[1].sql()})"
        return super().sql()


class Or(_Connective):
    """``(a OR b)`` (Kleene; the right side is evaluated only where the left is not true)."""

    keyword = "OR"

    def _undecided(self, left: pa.Array) -> pa.Array:
        return pc.invert(pc.fill_null(left, False))

    def _combine(self, left: pa.Array, right: pa.Array) -> pa.Array:
        return pc.or_kleene(left, right)


class _Unary(Expression):
    def __init__(self, child: Expression) -> None:
        self.children = (child,)

    @property
    def child(self) -> Expression:
        return self.children[0]

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return type(self)(children[0])

    def data_type(self) -> DataType:
        return BooleanType()


class Not(_Unary):
    """``(NOT a)``."""

    def sql(self) -> str:
        return f"(NOT {self.child.sql()})"

    def coerce(self) -> Expression:
        child = _boolean(self, self.child)
        return self if child is self.child else Not(child)

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        return pc.invert(self.child.eval(batch, ctx))


class IsNull(_Unary):
    """``(a IS NULL)``."""

    @property
    def nullable(self) -> bool:
        return False

    def sql(self) -> str:
        return f"({self.child.sql()} IS NULL)"

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        return pc.is_null(self.child.eval(batch, ctx))


class IsNotNull(IsNull):
    """``(a IS NOT NULL)``."""

    def sql(self) -> str:
        return f"({self.child.sql()} IS NOT NULL)"

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        return pc.is_valid(self.child.eval(batch, ctx))


class IsNaN(IsNull):
    """``isnan(a)``: false for null."""

    def sql(self) -> str:
        return f"isnan({self.child.sql()})"

    def coerce(self) -> Expression:
        dt = self.child.data_type()
        if isinstance(dt, (FloatType, DoubleType)):
            return self
        return IsNaN(cast_to(self.child, DoubleType()))

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        return pc.fill_null(pc.is_nan(self.child.eval(batch, ctx)), False)


class In(Expression):
    """``(a IN (1, 2))``: true on a match; null if ``a`` is null or the list holds a null; else false."""

    def __init__(self, value: Expression, items: Sequence[Expression]) -> None:
        self.children = (value, *items)

    @property
    def value(self) -> Expression:
        return self.children[0]

    @property
    def items(self) -> tuple[Expression, ...]:
        return self.children[1:]

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return In(children[0], children[1:])

    def data_type(self) -> DataType:
        return BooleanType()

    def sql(self) -> str:
        return f"({self.value.sql()} IN ({', '.join(i.sql() for i in self.items)}))"

    def coerce(self) -> Expression:
        padded = [self.children[0], *[padded_for_char(self.children[0], c) for c in self.children[1:]]]
        if any(p is not c for p, c in zip(padded, self.children)):
            return self.with_children(padded).coerce()  # a CHAR(n) column among shorter constants
        types = [c.data_type() for c in self.children]
        common = find_common_type(types)
        if common is None:
            raise mismatch(self, "DATA_DIFF_TYPES",
                           "input to `in` should all be the same type, but it's ["
                           + ", ".join(quoted_type(t) for t in types) + "]")
        children = [cast_to(c, common) for c in self.children]
        if all(n is o for n, o in zip(children, self.children)):
            return self
        return In(children[0], children[1:])

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        from ..kernels import compare  # noqa: PLC0415 - kernels load at run time

        value = self.value.eval(batch, ctx)
        if not self.items:
            return pa.array([False] * batch.num_rows, pa.bool_())
        if all(i.foldable for i in self.items):
            return compare.isin(value, [fold(i, ctx) for i in self.items])
        result: pa.Array | None = None
        for item in self.items:
            eq = compare.compare("=", value, item.eval(batch, ctx))
            result = eq if result is None else pc.or_kleene(result, eq)
        assert result is not None
        return result


class _StringPredicate(_Binary):
    """A test of a string against a pattern or another string (``LIKE``, ``startswith``...)."""

    name = ""

    def sql(self) -> str:
        return f"{self.name}({self.left.sql()}, {self.right.sql()})"

    def coerce(self) -> Expression:
        left, right = cast_to(self.left, StringType()), cast_to(self.right, StringType())
        return self if (left is self.left and right is self.right) else type(self)(left, right)

    def _apply(self, values: pa.Array, pattern: str) -> pa.Array:
        raise NotImplementedError

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        values = self.left.eval(batch, ctx)
        if self.right.foldable:
            pattern = fold(self.right, ctx)
            if pattern is None:
                return pa.nulls(batch.num_rows, pa.bool_())
            return self._apply(values, pattern)
        patterns = self.right.eval(batch, ctx)
        out = []
        for i, p in enumerate(patterns.to_pylist()):
            out.append(None if p is None else self._apply(values.slice(i, 1), p)[0].as_py())
        return pa.array(out, pa.bool_())


class Like(_StringPredicate):
    """``a LIKE pattern`` (``_`` one character, ``%`` any run, ``\\`` escapes)."""

    def __init__(self, left: Expression, right: Expression, escape: str = "\\") -> None:
        super().__init__(left, right)
        self.escape = escape

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return type(self)(children[0], children[1], self.escape)

    def coerce(self) -> Expression:
        left, right = cast_to(self.left, StringType()), cast_to(self.right, StringType())
        if left is self.left and right is self.right:
            return self
        return type(self)(left, right, self.escape)

    def sql(self) -> str:
        escape = "" if self.escape == "\\" else f" ESCAPE '{self.escape}'"
        return f"{self.left.sql()} LIKE {self.right.sql()}{escape}"

    def _apply(self, values: pa.Array, pattern: str) -> pa.Array:
        from ..kernels import strings  # noqa: PLC0415 - kernels load at run time

        return strings.like(values, pattern, self.escape)

    def _options(self) -> Any:
        return (self.escape,)


class ILike(Like):
    """``ilike(a, pattern)``: ``LIKE`` ignoring case."""

    def sql(self) -> str:
        return f"ilike({self.left.sql()}, {self.right.sql()})"

    def _apply(self, values: pa.Array, pattern: str) -> pa.Array:
        from ..kernels import strings  # noqa: PLC0415 - kernels load at run time

        return strings.like(pc.utf8_lower(values), pattern.lower(), self.escape)


class RLike(_StringPredicate):
    """``a RLIKE regex``: the regex matches somewhere in the string.

    ``keyword`` is the name it was called by (``RLIKE``, ``REGEXP``, ``REGEXP_LIKE``),
    which Spark shows in the generated column name.
    """

    def __init__(self, left: Expression, right: Expression, keyword: str = "RLIKE") -> None:
        super().__init__(left, right)
        self.keyword = keyword

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return RLike(children[0], children[1], self.keyword)

    def coerce(self) -> Expression:
        left, right = cast_to(self.left, StringType()), cast_to(self.right, StringType())
        return self if (left is self.left and right is self.right) else RLike(left, right, self.keyword)

    def sql(self) -> str:
        return f"{self.keyword}({self.left.sql()}, {self.right.sql()})"  # Spark's RLIKE(s, a)

    def _options(self) -> Any:
        return (self.keyword,)

    def _apply(self, values: pa.Array, pattern: str) -> pa.Array:
        from ..kernels import strings  # noqa: PLC0415 - kernels load at run time

        # Spark names the function as it was called (rlike, regexp, regexp_like) in pattern errors.
        return strings.rlike(values, pattern, self.keyword.lower())


class StartsWith(_StringPredicate):
    """``startswith(a, b)``."""

    name = "startswith"

    def _apply(self, values: pa.Array, pattern: str) -> pa.Array:
        return pc.starts_with(values, pattern)


class EndsWith(_StringPredicate):
    """``endswith(a, b)``."""

    name = "endswith"

    def _apply(self, values: pa.Array, pattern: str) -> pa.Array:
        return pc.ends_with(values, pattern)


class Contains(_StringPredicate):
    """``contains(a, b)``."""

    name = "contains"

    def _apply(self, values: pa.Array, pattern: str) -> pa.Array:
        return pc.match_substring(values, pattern)

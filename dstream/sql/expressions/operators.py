"""Arithmetic: ``+ - * / % div``, unary minus, ``abs``, and the ``try_`` forms.

What this module owns
---------------------
The arithmetic nodes, their Spark 4 (ANSI) type coercion in :meth:`coerce` and their
generated names (``(a + 1)``, ``(- a)``, ``abs(a)``, ``(a div 2)``).

Coercion rules
--------------
* Strings are cast to ``double``; ``void`` takes the other side's type.
* Numbers meet at the wider type (``tinyint < smallint < int < bigint < decimal <
  float < double``); a decimal with a float or double becomes double.
* Decimals keep their own precision; the result type follows Spark's
  ``DecimalPrecision`` (``p1 + p2 + 1`` digits for a product...), capped at 38 digits.
* ``/`` is ``double`` unless an operand is a decimal (then a decimal); ``div`` is
  ``bigint``.
* ``+`` and ``-`` on timestamps, dates and day-time intervals follow
  :mod:`.interval_arith` (``t + INTERVAL 1 HOUR``, ``t1 - t2``).
* ``date + n``, ``n + date`` and ``date - n`` (``n`` an int, smallint or tinyint)
  become ``date_add``/``date_sub``, as Spark's analyzer rewrites them.

Invariants
----------
* Evaluation delegates to ``kernels.arith`` with the result type and ``ctx.ansi``:
  overflow and division by zero raise under ANSI, wrap or give null otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from ..errors import ArithmeticException
from ..types import (
    AnsiIntervalType,
    ByteType,
    CalendarIntervalType,
    DataType,
    DateType,
    DecimalType,
    DoubleType,
    IntegerType,
    LongType,
    NullType,
    ShortType,
    StringType,
)
from .base import EvalContext, Expression, Literal
from .calendar_interval import negate_calendar
from .cast import cast_to
from .checks import mismatch, quoted_type
from .coercion import adjust_precision_scale, decimal_of, is_integral, is_numeric, wider_numeric
from .interval_arith import coerce_temporal, eval_temporal, exact, is_temporal, temporal_type

__all__ = [
    "Abs",
    "Add",
    "BinaryArithmetic",
    "Divide",
    "IntegralDivide",
    "Multiply",
    "Pmod",
    "Remainder",
    "Subtract",
    "TryEval",
    "UnaryMinus",
]


def _string_operand(other: DataType) -> DataType:
    """What a string meeting a number in arithmetic is read as (Spark 4's ANSI coercion):
    a bigint beside an integral number ('1' + 2 is 3, '1.5' + 2 an invalid cast), else a double."""
    return LongType() if is_integral(other) else DoubleType()


def _numeric_or_double(expr: Expression) -> Expression:
    dt = expr.data_type()
    if isinstance(dt, (StringType, NullType)):
        return cast_to(expr, DoubleType())
    return expr


class BinaryArithmetic(Expression):
    """A binary arithmetic operator; subclasses set :attr:`symbol` and :attr:`kernel`.

    An instance's :attr:`shown` names it as a function instead (SQL's ``mod(a, b)``).
    """

    symbol = "?"
    kernel = ""
    shown: str | None = None

    def __init__(self, left: Expression, right: Expression) -> None:
        self.children = (left, right)

    @property
    def left(self) -> Expression:
        return self.children[0]

    @property
    def right(self) -> Expression:
        return self.children[1]

    def with_children(self, children: Sequence[Expression]) -> Expression:
        node = type(self)(children[0], children[1])
        if self.shown is not None:
            node.shown = self.shown
        return node

    def sql(self) -> str:
        if self.shown is not None:
            return f"{self.shown}({self.left.sql()}, {self.right.sql()})"
        return f"({self.left.sql()} {self.symbol} {self.right.sql()})"

    def check_input_types(self) -> None:
        if is_temporal(self.symbol, self.left.data_type(), self.right.data_type()):
            return  # coerce_temporal checked the pair
        for side in self.children:
            dt = side.data_type()
            if not is_numeric(dt):
                raise mismatch(self, "BINARY_OP_WRONG_TYPE",
                               f'the binary operator requires the input type "NUMERIC", not {quoted_type(dt)}')
        lt, rt = self.left.data_type(), self.right.data_type()
        if not self._mixed_ok() and lt != rt:
            raise mismatch(self, "BINARY_OP_DIFF_TYPES",
                           "the left and right operands of the binary operator have incompatible types "
                           f"({quoted_type(lt)} and {quoted_type(rt)})")

    def _mixed_ok(self) -> bool:
        return isinstance(self.left.data_type(), DecimalType) and isinstance(self.right.data_type(), DecimalType)

    def coerce(self) -> Expression:
        left, right = self.left, self.right
        lt, rt = left.data_type(), right.data_type()
        days = _date_plus_days(self)
        if days is not None:
            return days
        if is_temporal(self.symbol, lt, rt):
            return coerce_temporal(self)
        if isinstance(lt, NullType) and isinstance(rt, NullType):
            left, right = cast_to(left, DoubleType()), cast_to(right, DoubleType())
        elif isinstance(lt, NullType) and is_numeric(rt):
            left = cast_to(left, rt)
        elif isinstance(rt, NullType) and is_numeric(lt):
            right = cast_to(right, lt)
        elif isinstance(lt, StringType) and isinstance(rt, StringType):
            pass  # Spark 4 (ANSI) refuses two strings: BINARY_OP_WRONG_TYPE below
        elif isinstance(lt, StringType) and is_numeric(rt):
            left = cast_to(left, _string_operand(rt))
        elif isinstance(rt, StringType) and is_numeric(lt):
            right = cast_to(right, _string_operand(lt))
        else:
            left, right = _numeric_or_double(left), _numeric_or_double(right)
        node = self._coerce_numbers(left, right)
        node.check_input_types()
        return node

    def _coerce_numbers(self, left: Expression, right: Expression) -> BinaryArithmetic:
        lt, rt = left.data_type(), right.data_type()
        if is_numeric(lt) and is_numeric(rt):
            wide = wider_numeric(lt, rt)
            if isinstance(wide, DecimalType):
                left, right = cast_to(left, _decimal_operand(left, lt)), cast_to(right, _decimal_operand(right, rt))
            else:
                left, right = cast_to(left, wide), cast_to(right, wide)
        if left is self.left and right is self.right:
            return self
        return type(self)(left, right)

    def data_type(self) -> DataType:
        lt, rt = self.left.data_type(), self.right.data_type()
        if isinstance(lt, DecimalType) and isinstance(rt, DecimalType):
            return self._decimal_type(lt, rt)
        if is_temporal(self.symbol, lt, rt):
            return temporal_type(self.symbol, lt, rt) or lt
        return wider_numeric(lt, rt) if is_numeric(lt) and is_numeric(rt) else lt

    def _decimal_type(self, a: DecimalType, b: DecimalType) -> DataType:
        scale = max(a.scale, b.scale)
        return adjust_precision_scale(max(a.precision - a.scale, b.precision - b.scale) + scale + 1, scale)

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        from ..kernels import arith  # noqa: PLC0415 - kernels load at run time

        a, b = self.left.eval(batch, ctx), self.right.eval(batch, ctx)
        lt, rt = self.left.data_type(), self.right.data_type()
        if is_temporal(self.symbol, lt, rt):
            return eval_temporal(self.symbol, a, b, lt, rt, self.data_type(), ctx)
        return _fit(getattr(arith, self.kernel)(a, b, self.data_type(), ctx.ansi), self.data_type())


#: The day counts ``date_add``/``date_sub`` take (Spark refuses bigint, decimals and floats).
_DAY_COUNTS = (ByteType, ShortType, IntegerType, NullType)


def _date_plus_days(node: BinaryArithmetic) -> Expression | None:
    """``date + n``, ``n + date`` and ``date - n`` as Spark rewrites them: ``date_add``/``date_sub``, else None.

    Spark's analyzer turns these sums into the functions (so they are named
    ``date_add(d, 1)``) and lets ``date_add`` check the day count's type.
    """
    from .scalar_functions import ScalarFunction  # noqa: PLC0415 - it imports the function modules, then us

    lt, rt = node.left.data_type(), node.right.data_type()
    if node.symbol not in ("+", "-") or type(node) not in (Add, Subtract):
        return None
    if isinstance(lt, DateType) and is_numeric(rt) or isinstance(rt, NullType) and isinstance(lt, DateType):
        date, count = node.left, node.right
    elif node.symbol == "+" and isinstance(rt, DateType) and (is_numeric(lt) or isinstance(lt, NullType)):
        date, count = node.right, node.left
    else:
        return None
    call = ScalarFunction("date_add" if node.symbol == "+" else "date_sub", [date, count])
    if not isinstance(count.data_type(), _DAY_COUNTS):
        raise mismatch(call, "UNEXPECTED_INPUT_TYPE",
                       'The second parameter requires the ("INT" or "SMALLINT" or "TINYINT") type, however '
                       f'"{count.sql()}" has the type {quoted_type(count.data_type())}: cast the day count to int')
    return call.coerce()


def _fit(values: pa.Array, dt: DataType) -> pa.Array:
    """The kernel's result in exactly the Arrow type of ``dt`` (decimal precision may differ)."""
    from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - light import at run time only

    target = to_arrow_type(dt)
    return values if values.type == target else values.cast(target)


class Add(BinaryArithmetic):
    """``(a + b)``."""

    symbol = "+"
    kernel = "add"


class Subtract(BinaryArithmetic):
    """``(a - b)``."""

    symbol = "-"
    kernel = "subtract"


class Multiply(BinaryArithmetic):
    """``(a * b)``."""

    symbol = "*"
    kernel = "multiply"

    def _decimal_type(self, a: DecimalType, b: DecimalType) -> DataType:
        return adjust_precision_scale(a.precision + b.precision + 1, a.scale + b.scale)


class Divide(BinaryArithmetic):
    """``(a / b)``: double, or decimal when an operand is a decimal; by zero raises under ANSI."""

    symbol = "/"
    kernel = "divide"

    def _coerce_numbers(self, left: Expression, right: Expression) -> BinaryArithmetic:
        lt, rt = left.data_type(), right.data_type()
        if is_numeric(lt) and is_numeric(rt) and not isinstance(wider_numeric(lt, rt), DecimalType):
            node = type(self)(cast_to(left, DoubleType()), cast_to(right, DoubleType()))
            return node
        return super()._coerce_numbers(left, right)

    def _decimal_type(self, a: DecimalType, b: DecimalType) -> DataType:
        scale = max(6, a.scale + b.precision + 1)
        return adjust_precision_scale(a.precision - a.scale + b.scale + scale, scale)

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        from ..kernels import arith  # noqa: PLC0415 - kernels load at run time

        if is_temporal(self.symbol, self.left.data_type(), self.right.data_type()):
            return super().eval(batch, ctx)
        a, b = self.left.eval(batch, ctx), self.right.eval(batch, ctx)
        return _fit(arith.divide(a, b, ctx.ansi), self.data_type())


class Remainder(BinaryArithmetic):
    """``(a % b)``: the sign of the dividend."""

    symbol = "%"
    kernel = "remainder"

    def _decimal_type(self, a: DecimalType, b: DecimalType) -> DataType:
        scale = max(a.scale, b.scale)
        return adjust_precision_scale(min(a.precision - a.scale, b.precision - b.scale) + scale, scale)


class Pmod(Remainder):
    """``pmod(a, b)``: the non-negative remainder."""

    kernel = "pmod"

    def sql(self) -> str:
        return f"pmod({self.left.sql()}, {self.right.sql()})"


class IntegralDivide(BinaryArithmetic):
    """``(a div b)``: the quotient truncated toward zero, as ``bigint``."""

    symbol = "div"
    kernel = "int_divide"

    def _coerce_numbers(self, left: Expression, right: Expression) -> BinaryArithmetic:
        lt, rt = left.data_type(), right.data_type()
        if is_integral(lt) and is_integral(rt):
            return type(self)(cast_to(left, LongType()), cast_to(right, LongType()))
        return super()._coerce_numbers(left, right)

    def data_type(self) -> DataType:
        return LongType()

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        from ..kernels import arith  # noqa: PLC0415 - kernels load at run time

        a, b = self.left.eval(batch, ctx), self.right.eval(batch, ctx)
        return _fit(arith.int_divide(a, b, ctx.ansi), LongType())


class UnaryMinus(Expression):
    """``(- a)``; negating the smallest integer overflows under ANSI."""

    def __init__(self, child: Expression) -> None:
        self.children = (child,)

    @property
    def child(self) -> Expression:
        return self.children[0]

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return type(self)(children[0])

    def data_type(self) -> DataType:
        return self.child.data_type()

    def sql(self) -> str:
        return f"(- {self.child.sql()})"

    def check_input_types(self) -> None:
        dt = self.child.data_type()
        if not is_numeric(dt) and not isinstance(dt, AnsiIntervalType | CalendarIntervalType):
            raise mismatch(self, "UNEXPECTED_INPUT_TYPE",
                           f'the first parameter requires the "NUMERIC" type, however "{self.child.sql()}" '
                           f"has the type {quoted_type(dt)}")

    def coerce(self) -> Expression:
        child = _numeric_or_double(self.child)
        node = self if child is self.child else type(self)(child)
        node.check_input_types()
        return node

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        from ..kernels import arith  # noqa: PLC0415 - kernels load at run time

        values = self.child.eval(batch, ctx)
        if isinstance(self.data_type(), CalendarIntervalType):
            return negate_calendar(values)
        if isinstance(self.data_type(), AnsiIntervalType):
            return _interval_unary("negate_checked", values)
        return arith.negate(values, self.data_type(), ctx.ansi)


def _interval_unary(fn: str, values: pa.Array) -> pa.Array:
    # A year-month interval is an int of months, a day-time one a long of microseconds.
    stored = values.cast(pa.int32() if pa.types.is_integer(values.type) else pa.int64())
    return exact(fn, "the interval's negation", stored).cast(values.type)


class Abs(UnaryMinus):
    """``abs(a)``."""

    def sql(self) -> str:
        return f"abs({self.child.sql()})"

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        from ..kernels import arith  # noqa: PLC0415 - kernels load at run time

        values = self.child.eval(batch, ctx)
        if isinstance(self.data_type(), AnsiIntervalType):
            return _interval_unary("abs_checked", values)
        return arith.abs_(values, self.data_type(), ctx.ansi)


class TryEval(Expression):
    """``try_add(a, b)``, ``try_divide(a, b)``...: the child, null on rows where it raises.

    The child runs under ANSI on the whole batch; only if that raises an
    ``ArithmeticException`` are the rows evaluated one by one, so the common case
    stays vectorized.
    """

    def __init__(self, child: Expression, name: str) -> None:
        self.children = (child,)
        self.name = name

    @property
    def child(self) -> Expression:
        return self.children[0]

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return TryEval(children[0], self.name)

    def data_type(self) -> DataType:
        return self.child.data_type()

    @property
    def nullable(self) -> bool:
        return True

    def sql(self) -> str:
        return f"{self.name}({', '.join(c.sql() for c in self.child.children)})"

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        strict = EvalContext(True, ctx.time_zone, ctx.now_us, ctx.extras)
        try:
            return self.child.eval(batch, strict)
        except ArithmeticException:
            pass
        from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - light import at run time only

        pieces = []
        for i in range(batch.num_rows):
            try:
                pieces.append(self.child.eval(batch.slice(i, 1), strict))
            except ArithmeticException:
                pieces.append(pa.nulls(1, to_arrow_type(self.data_type())))
        if not pieces:
            return pa.nulls(0, to_arrow_type(self.data_type()))
        return pa.concat_arrays(pieces)

    def _options(self) -> Any:
        return (self.name,)


def _decimal_operand(expr: Expression, dt: DataType) -> DataType:
    """The decimal an operand of decimal arithmetic becomes: an integer literal only as wide
    as its digits (Spark's ``DecimalType.fromLiteral``: ``10.0 / 3`` is ``decimal(8,6)``)."""
    from .cast import Cast  # noqa: PLC0415 - cast imports this module's neighbours

    if isinstance(expr, Cast) and is_integral(dt) and isinstance(expr.child, Literal):
        expr = expr.child  # a typed literal such as 2L: still a literal
    if isinstance(expr, Literal) and is_integral(dt) and isinstance(expr.value, int) \
            and not isinstance(expr.value, bool):
        return DecimalType(max(len(str(abs(expr.value))), 1), 0)
    return decimal_of(dt)

"""``*`` and ``/`` of an ANSI interval by a number (``INTERVAL 3 MONTHS * 1.5``, ``INTERVAL 1 HOUR / 4``).

What this module owns
---------------------
The typing, coercion and values of Spark's ``MultiplyYMInterval``, ``MultiplyDTInterval``,
``DivideYMInterval`` and ``DivideDTInterval``, for the ``Multiply`` and ``Divide`` nodes of
:mod:`.operators` (an interval times a number, a number times an interval, an interval
divided by a number):

* The result is the widest interval of the operand's kind: ``INTERVAL YEAR TO MONTH`` or
  ``INTERVAL DAY TO SECOND``, whatever fields the operand has.
* A string operand is cast to ``double``; ``NULL`` gives a null interval.
* The exact product or quotient is rounded HALF_UP to a whole month or microsecond
  (``INTERVAL 5 MONTHS / 2`` is 3 months, ``INTERVAL 3 MONTHS * -0.5`` is -2 months),
  a double's through its exact binary value, as Guava's ``DoubleMath`` rounds it.

Invariants
----------
* Division by zero raises ``INTERVAL_DIVIDED_BY_ZERO`` (``try_divide`` gives null); a result
  beyond an int of months or a long of microseconds raises ``ArithmeticException`` with
  Java's message ("integer overflow", "long overflow", "rounded value is out of range ...").
* Per row in Python, with ``Decimal``: exact, and the values are few (an interval column
  scaled row by row is rare; a literal is one value).
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal, localcontext
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from ..errors import ArithmeticException
from ..kernels.conditions import interval_divided_by_zero
from ..types import (
    AnsiIntervalType,
    CalendarIntervalType,
    DataType,
    DayTimeIntervalType,
    DoubleType,
    FloatType,
    NullType,
    StringType,
    YearMonthIntervalType,
)
from .calendar_interval import scale_calendar
from .cast import cast_to
from .checks import mismatch, quoted_type
from .coercion import is_numeric

if TYPE_CHECKING:
    from .operators import BinaryArithmetic

__all__ = ["is_scaled", "coerce_scaled", "scaled_type", "eval_scaled"]

_LIMITS: dict[type, tuple[int, int, str]] = {YearMonthIntervalType: (-(2**31), 2**31 - 1, "integer overflow"),
           DayTimeIntervalType: (-(2**63), 2**63 - 1, "long overflow")}


def _interval(dt: DataType) -> bool:
    return isinstance(dt, AnsiIntervalType | CalendarIntervalType)


def is_scaled(symbol: str, lt: DataType, rt: DataType) -> bool:
    """Whether ``lt symbol rt`` scales an interval (``*`` either way round, ``/`` by the right)."""
    return symbol in ("*", "/") and (_interval(lt) or _interval(rt))


def _factor_ok(dt: DataType) -> bool:
    return is_numeric(dt) or isinstance(dt, (StringType, NullType))


def coerce_scaled(node: BinaryArithmetic) -> BinaryArithmetic:
    """``node`` with a string factor cast to double (or Spark's error for a pair it does not scale)."""
    left, right = node.left, node.right
    lt, rt = left.data_type(), right.data_type()
    interval_left = _interval(lt)
    factor = rt if interval_left else lt
    if node.symbol == "/" and not interval_left or not _factor_ok(factor):
        position = "second" if interval_left or node.symbol == "/" else "first"
        raise mismatch(node, "UNEXPECTED_INPUT_TYPE",
                       f'The {position} parameter requires the "NUMERIC" type, however {quoted_type(factor)} '
                       f"is not a number: an interval is {'divided' if node.symbol == '/' else 'multiplied'} "
                       "by a number")
    if isinstance(factor, StringType):
        if interval_left:
            right = cast_to(right, DoubleType())
        else:
            left = cast_to(left, DoubleType())
    return node if left is node.left and right is node.right else type(node)(left, right)


def scaled_type(lt: DataType, rt: DataType) -> DataType:
    """The result type: the widest interval of the operand's kind."""
    kind = lt if _interval(lt) else rt
    if isinstance(kind, CalendarIntervalType):
        return kind
    return YearMonthIntervalType() if isinstance(kind, YearMonthIntervalType) else DayTimeIntervalType()


def _round(value: Decimal) -> int:
    return int(value.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def _row_function(symbol: str, kind: type, factor_type: DataType) -> Callable[[int, Any], int]:
    low, high, overflow = _LIMITS[kind]
    floating = isinstance(factor_type, (DoubleType, FloatType))

    def checked(value: int, message: str) -> int:
        if not low <= value <= high:
            raise ArithmeticException(message)
        return value

    def apply(stored: int, factor: Any) -> int:
        if symbol == "/" and factor == 0:
            raise interval_divided_by_zero()
        if not floating and symbol == "*" and not isinstance(factor, Decimal):
            return checked(stored * int(factor), overflow)
        if floating:
            # Java's double arithmetic, then HALF_UP of the exact binary value (Guava's DoubleMath).
            result = stored * float(factor) if symbol == "*" else stored / float(factor)
            if result != result or result in (float("inf"), float("-inf")):
                raise ArithmeticException(f"input is not finite: {result}")
            rounded = _round(Decimal(result))
            if not low <= rounded <= high:
                raise ArithmeticException(f"rounded value is out of range for input {result!r} and rounding mode "
                                          "HALF_UP")
            return rounded
        with localcontext() as ctx:
            ctx.prec = 80
            value = Decimal(stored) * Decimal(factor) if symbol == "*" else Decimal(stored) / Decimal(factor)
            return checked(_round(value), overflow)
    return apply


def eval_scaled(symbol: str, a: pa.Array, b: pa.Array, lt: DataType, rt: DataType, result: DataType) -> pa.Array:
    """The values of ``a symbol b`` (one side an interval, coerced by :func:`coerce_scaled`)."""
    from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - light import at run time only

    interval_left = _interval(lt)
    intervals, factors = (a, b) if interval_left else (b, a)
    factor_type = rt if interval_left else lt
    if isinstance(result, CalendarIntervalType):
        return scale_calendar(intervals, factors, symbol == "/")
    stored = intervals.cast(pa.int64()).to_pylist()
    values = factors.to_pylist()
    apply = _row_function(symbol, type(result), factor_type)
    out = [None if s is None or f is None else apply(s, f) for s, f in zip(stored, values)]
    return pa.array(out, pa.int64()).cast(to_arrow_type(result))

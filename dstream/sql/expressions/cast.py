"""``CAST(a AS INT)``, ``TRY_CAST(a AS INT)`` and the implicit casts type coercion inserts.

What this module owns
---------------------
:class:`Cast` (explicit ``col.cast(...)``, ANSI or legacy by the session setting, and
implicit casts added by ``coerce()``), :class:`TryCast` (null instead of an error),
and :func:`can_cast`, Spark 4's table of which casts exist; an impossible cast is an
``AnalysisException`` when the expression is defined (resolved), never at run time.

Invariants
----------
* An implicit cast does not change the generated name: ``(i + 1.5)`` stays ``(i + 1.5)``
  after ``i`` is cast to a decimal.
* Evaluation delegates to ``kernels.cast.cast(values, from_type, to_type, mode, time_zone)``
  with mode ``"ansi"``, ``"legacy"`` or ``"try"``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from ..types import (
    AnsiIntervalType,
    CalendarIntervalType,
    DataType,
    NullType,
    StringType,
    VariantType,
    _without_char_varchar,
)
from .base import EvalContext, Expression
from .castability import can_cast
from .checks import mismatch, quoted_type
from .coercion import type_sql
from .interval_cast import cast_interval, holds_interval, intervals_as_text

__all__ = ["Cast", "TryCast", "can_cast", "cast_to"]


class Cast(Expression):
    """``CAST(child AS to_type)``.

    Parameters
    ----------
    child : Expression
        The value to convert.
    to_type : DataType
        The target type.
    implicit : bool
        Inserted by type coercion: named as its child.
    """

    #: The cast's function name in ``sql()``.
    keyword = "CAST"

    def __init__(self, child: Expression, to_type: DataType, implicit: bool = False) -> None:
        self.children = (child,)
        self.to_type = _without_char_varchar(to_type)  # a cast to char(n)/varchar(n) gives a string, as in Spark
        self.implicit = implicit

    @property
    def child(self) -> Expression:
        return self.children[0]

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return type(self)(children[0], self.to_type, self.implicit)

    def data_type(self) -> DataType:
        return self.to_type

    @property
    def nullable(self) -> bool:
        if isinstance(self.to_type, StringType) or not self.child.resolved:
            return self.child.nullable
        return self.child.nullable or isinstance(self.child.data_type(), StringType) or self.keyword == "TRY_CAST"

    def sql(self) -> str:
        if self.implicit:
            return self.child.sql()
        return f"{self.keyword}({self.child.sql()} AS {type_sql(self.to_type)})"

    def check_input_types(self) -> None:
        src = self.child.data_type()
        if not can_cast(src, self.to_type):
            raise mismatch(self, "CAST_WITHOUT_SUGGESTION",
                           f"cannot cast {quoted_type(src)} to {quoted_type(self.to_type)}")

    def coerce(self) -> Expression:
        self.check_input_types()
        return self

    def mode(self, ctx: EvalContext) -> str:
        """The kernel's cast mode: ``"ansi"`` or ``"legacy"`` by the session, ``"try"`` for TRY_CAST."""
        return "ansi" if ctx.ansi else "legacy"

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        values = self.child.eval(batch, ctx)
        src = self.child.data_type()
        if src == self.to_type:
            return values
        from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - light import at run time only

        if isinstance(src, NullType):
            return pa.nulls(len(values), to_arrow_type(self.to_type))
        if isinstance(src, AnsiIntervalType | CalendarIntervalType) or isinstance(self.to_type, AnsiIntervalType):
            return cast_interval(values, src, self.to_type, self.mode(ctx))
        if isinstance(self.to_type, StringType) and holds_interval(src):
            values, src = intervals_as_text(values, src)  # Arrow's ints and durations carry no fields
        if isinstance(src, VariantType) or isinstance(self.to_type, VariantType):
            from ..variant.convert import cast_variant  # noqa: PLC0415 - the variant package loads when used

            return cast_variant(values, src, self.to_type, self.mode(ctx), ctx.time_zone)
        from ..kernels import cast as cast_kernels  # noqa: PLC0415 - kernels load at run time

        return cast_kernels.cast(values, src, self.to_type, self.mode(ctx), ctx.time_zone)

    def _options(self) -> Any:
        return (self.keyword, self.to_type.simpleString())


class TypedLiteral(Cast):
    """A typed literal of SQL text, ``DATE '2024-1-2'``: the cast of its text (so the session's
    rules and time zone apply), named as Spark names the literal (``DATE '2024-01-02'``).

    Parameters
    ----------
    child : Expression
        The literal's text, as a string literal.
    to_type : DataType
        ``date``, ``timestamp`` or ``timestamp_ntz``.
    implicit : bool
        Unused (a typed literal is never inserted by coercion); kept for ``Cast``'s signature.
    display : str
        The name: the type keyword and the normalised text.
    """

    def __init__(self, child: Expression, to_type: DataType, implicit: bool = False, display: str = "") -> None:
        super().__init__(child, to_type, implicit)
        self.display = display

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return TypedLiteral(children[0], self.to_type, self.implicit, self.display)

    def sql(self) -> str:
        return self.display


class TryCast(Cast):
    """``TRY_CAST(child AS to_type)``: null where the value does not convert."""

    keyword = "TRY_CAST"

    def mode(self, ctx: EvalContext) -> str:
        return "try"


def cast_to(expr: Expression, dt: DataType) -> Expression:
    """``expr`` implicitly cast to ``dt`` (unchanged when it already has that type)."""
    if expr.data_type() == dt:
        return expr
    return Cast(expr, dt, implicit=True)

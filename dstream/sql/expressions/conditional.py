"""Conditionals: ``CASE WHEN``, ``IF``, ``coalesce``, ``nullif``, ``nvl``.

What this module owns
---------------------
The nodes that pick between values row by row, named as Spark names them:
``CASE WHEN (a > 1) THEN x ELSE y END``, ``(IF((a > 1), x, y))``, ``coalesce(a, b)``,
``nullif(a, b)``, ``nvl(a, b)``. ``F.when(...).when(...).otherwise(...)`` builds one
:class:`CaseWhen`.

Invariants
----------
* All result branches are cast to their common type (:func:`coercion.find_common_type`);
  conditions must be boolean.
* Evaluation is lazy like Spark's: a branch runs only on the rows that reach it, so a
  branch that would raise under ANSI (``a / 0``) is harmless on rows it does not serve.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..types import BooleanType, DataType, NullType
from ..variant.arrow import as_storage, storage_type
from .base import EvalContext, Expression, with_new_children
from .cast import cast_to
from .checks import eval_where, mismatch, quoted_type
from .coercion import find_common_type

__all__ = ["CaseWhen", "Coalesce", "If", "NullIf", "Nvl"]


def _common(node: Expression, values: Sequence[Expression]) -> DataType:
    types = [v.data_type() for v in values]
    common = find_common_type(types)
    if common is None:
        raise mismatch(node, "DATA_DIFF_TYPES",
                       f"Input to `{type(node).__name__.lower()}` should all be the same type, but it's ["
                       + ", ".join(quoted_type(t) for t in types) + "]")
    return common


def _condition(node: Expression, cond: Expression) -> Expression:
    dt = cond.data_type()
    if isinstance(dt, BooleanType):
        return cond
    if isinstance(dt, NullType):
        return cast_to(cond, BooleanType())
    raise mismatch(node, "UNEXPECTED_INPUT_TYPE",
                   f'the condition "{cond.sql()}" requires the "BOOLEAN" type, however it has the type '
                   f"{quoted_type(dt)}")


class CaseWhen(Expression):
    """``CASE WHEN c1 THEN v1 [WHEN c2 THEN v2 ...] [ELSE e] END``.

    Children are ``c1, v1, c2, v2, ...`` and the ``ELSE`` value last when present.
    """

    def __init__(self, branches: Sequence[tuple[Expression, Expression]], else_value: Expression | None = None,
                 shown: str | None = None) -> None:
        flat: list[Expression] = [e for pair in branches for e in pair]
        if else_value is not None:
            flat.append(else_value)
        self.children = tuple(flat)
        self.has_else = else_value is not None
        #: The name of a function Spark rewrites into a CASE (SQL's ``decode(e, s1, r1, ...)``).
        self.shown = shown

    @property
    def branches(self) -> list[tuple[Expression, Expression]]:
        n = len(self.children) - (1 if self.has_else else 0)
        return [(self.children[i], self.children[i + 1]) for i in range(0, n, 2)]

    @property
    def else_value(self) -> Expression | None:
        return self.children[-1] if self.has_else else None

    def with_children(self, children: Sequence[Expression]) -> Expression:
        n = len(children) - (1 if self.has_else else 0)
        pairs = [(children[i], children[i + 1]) for i in range(0, n, 2)]
        return CaseWhen(pairs, children[-1] if self.has_else else None, self.shown)

    def with_branch(self, condition: Expression, value: Expression) -> CaseWhen:
        """This ``CASE`` with one more ``WHEN`` (before any ``ELSE``)."""
        return CaseWhen([*self.branches, (condition, value)], self.else_value, self.shown)

    def with_else(self, value: Expression) -> CaseWhen:
        """This ``CASE`` with an ``ELSE``."""
        return CaseWhen(self.branches, value, self.shown)

    def _values(self) -> list[Expression]:
        values = [v for _, v in self.branches]
        return values + ([self.else_value] if self.else_value is not None else [])

    def data_type(self) -> DataType:
        common = find_common_type([v.data_type() for v in self._values()])
        return common if common is not None else self._values()[0].data_type()

    @property
    def nullable(self) -> bool:
        return not self.has_else or any(v.nullable for v in self._values())

    def sql(self) -> str:
        if self.shown is not None:
            return self.shown
        parts = ["CASE"] + [f"WHEN {c.sql()} THEN {v.sql()}" for c, v in self.branches]
        if self.else_value is not None:
            parts.append(f"ELSE {self.else_value.sql()}")
        return " ".join(parts + ["END"])

    def coerce(self) -> Expression:
        common = _common(self, self._values())
        pairs = [(_condition(self, c), cast_to(v, common)) for c, v in self.branches]
        else_value = None if self.else_value is None else cast_to(self.else_value, common)
        node = CaseWhen(pairs, else_value, self.shown)
        if all(n is o for n, o in zip(node.children, self.children)):
            return self
        return node

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - light import at run time only

        declared = to_arrow_type(self.data_type())
        arrow_type = storage_type(declared)  # Arrow's if_else takes no variant (an extension type)
        result = pa.nulls(batch.num_rows, arrow_type)
        remaining = pa.array([True] * batch.num_rows, pa.bool_())
        for cond, value in self.branches:
            hit = pc.and_(remaining, pc.fill_null(eval_where(cond, batch, ctx, remaining), False))
            if pc.any(hit).as_py():
                result = pc.if_else(hit, as_storage(eval_where(value, batch, ctx, hit)).cast(arrow_type), result)
            remaining = pc.and_(remaining, pc.invert(hit))
        if self.else_value is not None and pc.any(remaining).as_py():
            result = pc.if_else(remaining, as_storage(eval_where(self.else_value, batch, ctx, remaining)).cast(
                arrow_type), result)
        return result if declared == arrow_type else result.view(declared)


class If(Expression):
    """``(IF(cond, a, b))``: ``a`` where ``cond`` is true, else ``b`` (null counts as false)."""

    def __init__(self, condition: Expression, true_value: Expression, false_value: Expression) -> None:
        self.children = (condition, true_value, false_value)

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return If(children[0], children[1], children[2])

    def data_type(self) -> DataType:
        common = find_common_type([self.children[1].data_type(), self.children[2].data_type()])
        return common if common is not None else self.children[1].data_type()

    @property
    def nullable(self) -> bool:
        return self.children[1].nullable or self.children[2].nullable

    def sql(self) -> str:
        return f"(IF({self.children[0].sql()}, {self.children[1].sql()}, {self.children[2].sql()}))"

    def coerce(self) -> Expression:
        common = _common(self, self.children[1:])
        node = If(_condition(self, self.children[0]), cast_to(self.children[1], common),
                  cast_to(self.children[2], common))
        return self if all(n is o for n, o in zip(node.children, self.children)) else node

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        return CaseWhen([(self.children[0], self.children[1])], self.children[2]).eval(batch, ctx)


class Coalesce(Expression):
    """``coalesce(a, b, ...)``: the first non-null value; later arguments run only where needed."""

    name = "coalesce"

    def __init__(self, children: Sequence[Expression]) -> None:
        self.children = tuple(children)

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return with_new_children(self, children)  # keeps an instance's name (SQL's ifnull)

    def data_type(self) -> DataType:
        common = find_common_type([c.data_type() for c in self.children])
        return common if common is not None else self.children[0].data_type()

    @property
    def nullable(self) -> bool:
        return all(c.nullable for c in self.children)

    def sql(self) -> str:
        return f"{self.name}({', '.join(c.sql() for c in self.children)})"

    def coerce(self) -> Expression:
        common = _common(self, self.children)
        children = [cast_to(c, common) for c in self.children]
        return self if all(n is o for n, o in zip(children, self.children)) else self.with_children(children)

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - light import at run time only

        declared = to_arrow_type(self.data_type())
        arrow_type = storage_type(declared)  # Arrow's coalesce takes no variant (an extension type)
        result = as_storage(self.children[0].eval(batch, ctx)).cast(arrow_type)
        for child in self.children[1:]:
            missing = pc.is_null(result)
            if not pc.any(missing).as_py():
                break
            result = pc.coalesce(result, as_storage(eval_where(child, batch, ctx, missing)).cast(arrow_type))
        return result if declared == arrow_type else result.view(declared)

    def _options(self) -> Any:
        return (self.name,)


class Nvl(Coalesce):
    """``nvl(a, b)``: ``coalesce`` of two."""

    name = "nvl"


class NullIf(Expression):
    """``nullif(a, b)``: null where ``a = b``, else ``a``."""

    def __init__(self, left: Expression, right: Expression) -> None:
        self.children = (left, right)

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return NullIf(children[0], children[1])

    def data_type(self) -> DataType:
        return self.children[0].data_type()

    @property
    def nullable(self) -> bool:
        return True

    def sql(self) -> str:
        return f"nullif({self.children[0].sql()}, {self.children[1].sql()})"

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        from .predicates import EqualTo  # noqa: PLC0415 - predicates does not import this module

        left = self.children[0]
        equal = EqualTo(left, self.children[1]).coerce().eval(batch, ctx)
        values = left.eval(batch, ctx)
        return pc.if_else(pc.fill_null(equal, False), pa.scalar(None, values.type), values)

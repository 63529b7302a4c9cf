"""Expressions that become another once their children's types are known.

What this module owns
---------------------
:class:`Deferred`: the base of a call whose meaning depends on an argument's type
(``col[key]`` on a struct, an array or a map; ``extract(YEAR FROM x)`` on a date or an
interval). Until analysis it answers for the expression it will be; ``coerce()``, which
analysis calls once the children are resolved, replaces it with that expression.

Invariants
----------
* :meth:`Deferred.resolve` is a pure function of the children and the node's options, so
  asking it again (for the type, for the value) gives the same expression.
"""

from __future__ import annotations

import pyarrow as pa

from ..types import DataType
from .base import EvalContext, Expression

__all__ = ["Deferred"]


class Deferred(Expression):
    """An expression standing for :meth:`resolve`'s until analysis replaces it (see the module doc)."""

    def resolve(self) -> Expression:
        """The expression this one is, for the children's types."""
        raise NotImplementedError

    def coerce(self) -> Expression:
        return self.resolve().coerce()

    def data_type(self) -> DataType:
        return self.resolve().data_type()

    @property
    def nullable(self) -> bool:
        return True

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        return self.resolve().eval(batch, ctx)

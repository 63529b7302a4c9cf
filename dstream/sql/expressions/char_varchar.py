"""A table's ``CHAR(n)`` and ``VARCHAR(n)`` columns: the check and padding of the values written to them.

What this module owns
---------------------
* :data:`CHAR_VARCHAR_KEY`: the column metadata under which a table keeps a string
  column's declared ``char(n)``/``varchar(n)`` (Spark's ``__CHAR_VARCHAR_TYPE_STRING``).
* :class:`CharVarcharWrite`: Spark's write-side check (``CharVarcharCodegenUtils``) of a
  value inserted into such a column: longer than ``n`` characters it loses up to that many
  trailing spaces, and if still longer raises ``EXCEED_LIMIT_LENGTH``; a ``CHAR(n)`` value
  shorter than ``n`` is padded with spaces.
* :func:`declared_length`: ``("char" | "varchar", n)`` of a column from its metadata.
* :func:`padded_for_char`: Spark's ``ApplyCharTypePadding`` for a comparison of a
  ``CHAR(n)`` column with a constant string shorter than ``n``: the constant is padded with
  spaces (the column's values are, having been padded when written), so ``b = 'x'`` finds
  ``'x   '``.

Invariants
----------
* Nulls pass unchanged; only values written into a table are checked (a DataFrame holds
  ``char(n)``/``varchar(n)`` as plain strings, as Spark does).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import SparkRuntimeException
from ..types import DataType, StringType
from .base import AttributeReference, EvalContext, Expression, Literal, fold

__all__ = ["CHAR_VARCHAR_KEY", "CharVarcharWrite", "declared_length", "padded_for_char"]

CHAR_VARCHAR_KEY = "__CHAR_VARCHAR_TYPE_STRING"
_DECLARED = re.compile(r"(char|varchar)\((\d+)\)")


def declared_length(metadata: Mapping[str, Any] | None) -> tuple[str, int] | None:
    """``(kind, n)`` of a column whose metadata declares ``char(n)``/``varchar(n)``, else ``None``."""
    m = _DECLARED.fullmatch(str((metadata or {}).get(CHAR_VARCHAR_KEY, "")))
    return None if m is None else (m.group(1), int(m.group(2)))


def _too_long(limit: int) -> SparkRuntimeException:
    return SparkRuntimeException(f"Exceeds char/varchar type length limitation: {limit}.", "EXCEED_LIMIT_LENGTH",
                                 {"limit": str(limit)})


def _checked(value: str, kind: str, limit: int) -> str:
    count = len(value)
    if count > limit:
        # At most the excess of trailing spaces goes; a value still too long is refused.
        kept = value.rstrip(" ")
        value = value[:max(len(kept), limit)]
        if len(value) > limit:
            raise _too_long(limit)
        return value
    return value.ljust(limit) if kind == "char" else value


class CharVarcharWrite(Expression):
    """The value ``child`` as written into a ``kind(limit)`` column (see the module doc)."""

    def __init__(self, child: Expression, kind: str, limit: int) -> None:
        self.children = (child,)
        self.kind = kind
        self.limit = limit

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return CharVarcharWrite(children[0], self.kind, self.limit)

    def data_type(self) -> DataType:
        return StringType()

    @property
    def nullable(self) -> bool:
        return self.children[0].nullable

    def sql(self) -> str:
        return self.children[0].sql()

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        values = self.children[0].eval(batch, ctx)
        lengths = pc.utf8_length(values)
        fits = pc.equal(lengths, self.limit) if self.kind == "char" else pc.less_equal(lengths, self.limit)
        if pc.all(pc.fill_null(fits, True)).as_py():
            return values
        return pa.array([None if v is None else _checked(v, self.kind, self.limit) for v in values.to_pylist()],
                        pa.string())

    def _options(self) -> Any:
        return (self.kind, self.limit)


def padded_for_char(column: Expression, other: Expression) -> Expression:
    """``other`` as compared with ``column``: padded to ``n`` when ``column`` is a ``CHAR(n)`` column and
    ``other`` a constant string shorter than ``n``; else ``other`` itself."""
    if not isinstance(column, AttributeReference) or not other.foldable \
            or not isinstance(other.data_type(), StringType):
        return other
    declared = declared_length(column.metadata)
    if declared is None or declared[0] != "char":
        return other
    value = fold(other)
    if not isinstance(value, str) or len(value) >= declared[1]:
        return other
    return _Padded(value.ljust(declared[1]), other.sql())


class _Padded(Literal):
    """A constant padded for a ``CHAR(n)`` comparison, named as written (``(b = x)``, as Spark names it)."""

    def __init__(self, value: str, shown: str) -> None:
        super().__init__(value, StringType())
        self.shown = shown

    def sql(self) -> str:
        return self.shown

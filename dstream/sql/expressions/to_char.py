"""``to_char(value, format)`` and ``to_varchar``: a value as text, the format read by the value's type.

What this module owns
---------------------
:class:`ToCharacter`, which becomes, once its argument types are known (as Spark's
builder picks the expression):

* a number (any numeric type, or a string cast to a decimal): the number format
  ``to_char`` of :mod:`.number_format` (``to_char(12454.8, '99,999.9')`` is ``'12,454.8'``);
* a date or timestamp: ``date_format(value, format)``, named so;
* binary: ``base64(value)``, ``hex(value)`` or ``decode(value, 'utf-8')`` for the format
  ``base64``, ``hex`` or ``utf-8`` (any case); named so by ``to_char``, and ``to_varchar(value)``
  (``to_varchar(value, utf-8)``) by ``to_varchar``.

Invariants
----------
* The format must be a constant; a bad one is an analysis error (``INVALID_FORMAT.*`` for
  numbers, ``INVALID_PARAMETER_VALUE.BINARY_FORMAT`` for binary).
* Other value types are ``DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import AnalysisException
from ..types import (
    BinaryType,
    DataType,
    DateType,
    DecimalType,
    NullType,
    StringType,
    TimestampNTZType,
    TimestampType,
)
from .base import Expression
from .checks import mismatch, quoted_type
from .coercion import is_numeric
from .predicates import fold
from .scalar_functions import ScalarFunction
from .sql_named import SqlNamed

__all__ = ["ToCharacter"]

_BINARY_FORMATS = ("base64", "hex", "utf-8")


class ToCharacter(Expression):
    """``to_char(value, format)`` (or ``to_varchar``, ``name``) before its argument types pick its meaning."""

    def __init__(self, children: Sequence[Expression], name: str = "to_char") -> None:
        self.children = tuple(children)
        self.name = name

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return ToCharacter(children, self.name)

    def data_type(self) -> DataType:
        return StringType()

    def sql(self) -> str:
        return f"{self.name}({', '.join(c.sql() for c in self.children)})"

    def coerce(self) -> Expression:
        value, fmt = self.children
        dt = value.data_type()
        if isinstance(dt, (DateType, TimestampType, TimestampNTZType)):
            return ScalarFunction("date_format", [value, fmt]).coerce()
        if isinstance(dt, BinaryType):
            return self._binary(value, fmt)
        if is_numeric(dt) or isinstance(dt, (DecimalType, StringType, NullType)):
            return ScalarFunction("to_char", [value, fmt]).coerce()
        raise mismatch(self, "UNEXPECTED_INPUT_TYPE", f'The first parameter requires the "DECIMAL" type, however '
                                                      f'"{value.sql()}" has the type {quoted_type(dt)}')

    def _binary(self, value: Expression, fmt: Expression) -> Expression:
        if not fmt.foldable:
            raise mismatch(self, "NON_FOLDABLE_INPUT", f'the input `format` should be a foldable "STRING" '
                                                       f'expression; however, got "{fmt.sql()}"')
        text = fold(fmt)
        kind = str(text).lower() if text is not None else None
        if kind not in _BINARY_FORMATS:
            raise AnalysisException(
                f"The value of parameter(s) `format` in `{self.name}` is invalid: expects one of binary formats "
                f"'base64', 'hex', 'utf-8', but got '{text}'.", "INVALID_PARAMETER_VALUE.BINARY_FORMAT",
                {"parameter": "`format`", "functionName": f"`{self.name}`", "invalidFormat": f"'{text}'"})
        if kind == "utf-8":
            result = ScalarFunction("decode", [value, fmt]).coerce()
        else:
            result = ScalarFunction(kind, [value]).coerce()
        if self.name == "to_varchar":
            # Spark names this case after the alias called, keeping the format only for utf-8.
            shown = [value.sql()] + ([fmt.sql()] if kind == "utf-8" else [])
            return SqlNamed(result, f"to_varchar({', '.join(shown)})")
        return result

    def _options(self) -> str:
        return self.name

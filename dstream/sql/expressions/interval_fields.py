"""``extract(field FROM source)`` and ``date_part``: a field of a date, a timestamp or an ANSI interval.

What this module owns
---------------------
:class:`FieldOf`, what ``extract``/``date_part``/``datepart`` build before the source's type
is known. When the query is analyzed it becomes, by the source's type:

* a date or timestamp: the datetime function of the field (``year(source)``...; the
  seconds with their fraction for ``SECOND``), named as called;
* an ANSI interval: :class:`IntervalField`, Spark's ``ExtractANSIInterval*``: ``YEAR``
  (int) and ``MONTH`` (tinyint) of a year-month interval, ``DAY`` (int), ``HOUR``,
  ``MINUTE`` (tinyint) and ``SECOND`` (``decimal(8,6)``) of a day-time one; each field
  is the part of the value at that unit, with the value's sign (``-14`` months: year
  ``-1``, month ``-2``), as Java's ``/`` and ``%`` give it.

Invariants
----------
* A field outside the interval's fields (``DAY`` of ``INTERVAL MONTH``, ``YEAR`` of
  ``INTERVAL MONTH``) raises ``INVALID_EXTRACT_FIELD``, as Spark.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import AnalysisException
from ..formatting import FIELD_MICROS
from ..types import (
    AnsiIntervalType,
    ByteType,
    DataType,
    DecimalType,
    IntegerType,
    StringType,
    YearMonthIntervalType,
)
from .base import EvalContext, Expression, Literal
from .deferred import Deferred
from .scalar_functions import ScalarFunction

__all__ = ["FieldOf", "IntervalField"]

#: The interval field of each datetime function a field name means (``extract``'s aliases decide
#: the function: ``MONS`` is ``month``); ``""`` is the seconds with their fraction.
_INTERVAL_FIELDS = {"year": "YEAR", "month": "MONTH", "dayofmonth": "DAY", "hour": "HOUR", "minute": "MINUTE",
                    "": "SECOND"}
_YM_FIELDS = ("YEAR", "MONTH")
_DT_FIELDS = ("DAY", "HOUR", "MINUTE", "SECOND")


class FieldOf(Deferred):
    """``extract(field FROM source)`` until the source's type chooses what it is (see the module doc).

    Parameters
    ----------
    field : str
        The field as written (``year``, ``MONS``...).
    function : str
        The datetime function of the field (``year``, ``dayofmonth``...), or ``""`` for the
        seconds with their fraction.
    caller : str
        ``extract``, ``date_part`` or ``datepart``: how the call is named.
    source : Expression
        The date, timestamp or interval.
    """

    def __init__(self, field: str, function: str, caller: str, source: Expression) -> None:
        self.field = field
        self.function = function
        self.caller = caller
        self.children = (source,)

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return FieldOf(self.field, self.function, self.caller, children[0])

    def _name(self) -> str:
        between = ", " if self.caller == "date_part" else " FROM "  # datepart is named as extract
        return f"{self.caller}({self.field}{between}{{0}})"

    def resolve(self) -> Expression:
        """The expression this call is, now that the source's type is known."""
        source = self.children[0]
        if isinstance(source.data_type(), AnsiIntervalType):
            return IntervalField(self.field, _INTERVAL_FIELDS.get(self.function), self._name(), source)
        if not self.function:  # the seconds with their fraction
            return ScalarFunction(self.caller, [Literal(self.field, StringType()), source])
        return ScalarFunction(self.function, [source], self._name())

    def sql(self) -> str:
        return self._name().format(self.children[0].sql())

    def _options(self) -> Any:
        return (self.field, self.function, self.caller)


class IntervalField(Expression):
    """One field of an ANSI interval (see the module doc)."""

    def __init__(self, field: str, unit: str | None, shown: str, source: Expression) -> None:
        self.field = field  # as written, for the error
        self.unit = unit  # YEAR, MONTH, DAY, HOUR, MINUTE, SECOND, or None (QUARTER, WEEK...: none of an interval)
        self.shown = shown
        self.children = (source,)

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return IntervalField(self.field, self.unit, self.shown, children[0])

    def _canonical(self) -> str:
        dt = self.children[0].data_type()
        assert isinstance(dt, AnsiIntervalType)
        names = _YM_FIELDS if isinstance(dt, YearMonthIntervalType) else _DT_FIELDS
        field = self.unit
        if field is None or field not in names or not dt.startField <= names.index(field) <= dt.endField:
            raise AnalysisException(
                f"Cannot extract `{self.field}` from \"{self.children[0].sql()}\": the fields of "
                f"{dt.simpleString().upper()} are {', '.join(names[dt.startField:dt.endField + 1])}.",
                "INVALID_EXTRACT_FIELD", {"field": f"`{self.field}`", "expr": f'"{self.children[0].sql()}"'})
        return field

    def check_input_types(self) -> None:
        self._canonical()

    def data_type(self) -> DataType:
        field = self._canonical()
        if field in ("YEAR", "DAY"):
            return IntegerType()
        return DecimalType(8, 6) if field == "SECOND" else ByteType()

    @property
    def nullable(self) -> bool:
        return self.children[0].nullable

    def sql(self) -> str:
        return self.shown.format(self.children[0].sql())

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - light import at run time only

        field = self._canonical()
        stored = self.children[0].eval(batch, ctx).cast(pa.int64())
        # (unit of the field, unit of the field above it): Java's / and % keep the value's sign.
        units = {"YEAR": (12, None), "MONTH": (1, 12), "DAY": (FIELD_MICROS[0], None),
                 "HOUR": (FIELD_MICROS[1], FIELD_MICROS[0]), "MINUTE": (FIELD_MICROS[2], FIELD_MICROS[1]),
                 "SECOND": (1, FIELD_MICROS[2])}
        unit, above = units[field]
        part = stored if above is None else _java_remainder(stored, above)
        if field == "SECOND":
            from decimal import Decimal  # noqa: PLC0415 - only the seconds are decimals

            return pa.array([None if v is None else Decimal(v).scaleb(-6) for v in part.to_pylist()],
                            pa.decimal128(8, 6))
        return pc.divide(part, unit).cast(to_arrow_type(self.data_type()))

    def _options(self) -> Any:
        return (self.field, self.unit, self.shown)


def _java_remainder(values: pa.Array, divisor: int) -> pa.Array:
    """``values % divisor`` with the dividend's sign (Arrow's integer ``divide`` truncates toward zero)."""
    return pc.subtract(values, pc.multiply(pc.divide(values, divisor), divisor))

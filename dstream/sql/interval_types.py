"""Spark's interval types: the ANSI ``DayTimeIntervalType`` and ``YearMonthIntervalType``, and ``CalendarIntervalType``.

What this module owns
---------------------
The two ANSI interval types (PySpark's classes, reprs and strings: ``interval day to
second``, ``interval year to month``...) and their common base, which holds the fields an
interval is written with (``startField`` to ``endField``). A day-time interval is a count
of microseconds (``datetime.timedelta`` in Python), a year-month one a count of months,
which PySpark does not hand to Python (its conversions raise ``NOT_IMPLEMENTED``).

Invariants
----------
* ``startField <= endField``, both fields of the type; two intervals are equal when their
  kind and fields are.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any, ClassVar

from dstream.sql.errors import PySparkNotImplementedError, PySparkValueError
from dstream.sql.type_base import DataType, ParameterizedAtomicType, _Singleton

__all__ = ["AnsiIntervalType", "CalendarIntervalType", "DayTimeIntervalType", "YearMonthIntervalType"]


class AnsiIntervalType(ParameterizedAtomicType):
    """Base of the ANSI interval types: an interval written with the units ``startField`` to ``endField``."""

    _fields: ClassVar[dict[int, str]] = {}

    def __init__(self, startField: int | None = None, endField: int | None = None) -> None:  # noqa: N803 - PySpark's names
        # Neither given: the widest span; one given: an interval of that unit alone.
        given = [f for f in (startField, endField) if f is not None]
        first, last = min(self._fields), max(self._fields)
        start, end = (given[0], given[-1]) if given else (first, last)
        if start not in self._fields or end not in self._fields or start > end:
            names = ", ".join(f"{name.upper()} ({i})" for i, name in self._fields.items())
            raise PySparkValueError(
                f"interval {start} to {end} is invalid: the fields are {names}, the start no later than the end.",
                "INVALID_INTERVAL_CASTING", {"start_field": str(start), "end_field": str(end)})
        self.startField = start
        self.endField = end

    def simpleString(self) -> str:  # noqa: N802 - PySpark's name
        """``interval day to second``, ``interval hour``, ``interval year to month``..."""
        start, end = self._fields[self.startField], self._fields[self.endField]
        return f"interval {start}" if start == end else f"interval {start} to {end}"

    def _parameters(self) -> tuple[Any, ...]:
        return (self.startField, self.endField)

    def needConversion(self) -> bool:  # noqa: N802 - PySpark's name
        """``True``: the internal form is a count of the smallest unit."""
        return True


class DayTimeIntervalType(AnsiIntervalType):
    """A span of days, hours, minutes and seconds in microseconds (``datetime.timedelta``).

    Spark's ANSI day-time interval: ``INTERVAL 1 HOUR`` and ``lit(timedelta(hours=1))`` are
    of this type, and adding one to a timestamp moves it by exactly that many microseconds.
    The fields say which units the interval is written with, from ``startField`` to
    ``endField`` (``DAY``, ``HOUR``, ``MINUTE``, ``SECOND``); the value is the same either way.

    Parameters
    ----------
    startField, endField : int, optional
        The first and last unit, ``DayTimeIntervalType.DAY`` (0) to ``SECOND`` (3); both
        default to the widest span, ``DAY`` to ``SECOND``.
    """

    DAY, HOUR, MINUTE, SECOND = 0, 1, 2, 3
    _fields: ClassVar[dict[int, str]] = {0: "day", 1: "hour", 2: "minute", 3: "second"}

    def toInternal(self, obj: Any) -> Any:  # noqa: N802 - PySpark's name
        """Microseconds of a ``timedelta``."""
        return None if obj is None else (obj.days * 86_400 + obj.seconds) * 1_000_000 + obj.microseconds

    def fromInternal(self, obj: Any) -> Any:  # noqa: N802 - PySpark's name
        """The ``timedelta`` of a number of microseconds."""
        return None if obj is None else _dt.timedelta(microseconds=obj)


class YearMonthIntervalType(AnsiIntervalType):
    """A span of years and months, held as a number of months (``INTERVAL '1-2' YEAR TO MONTH``).

    Spark's ANSI year-month interval: adding one to a date or a timestamp moves it by whole
    months, to the same day of the month or the month's last day. As in PySpark, its values
    are not collected to Python (``collect`` raises ``NOT_IMPLEMENTED``); ``show()``, casts to
    strings and numbers, and the arithmetic all work.

    Parameters
    ----------
    startField, endField : int, optional
        The first and last unit, ``YearMonthIntervalType.YEAR`` (0) or ``MONTH`` (1); both
        default to ``YEAR`` to ``MONTH``.
    """

    YEAR, MONTH = 0, 1
    _fields: ClassVar[dict[int, str]] = {0: "year", 1: "month"}

    def toInternal(self, obj: Any) -> Any:  # noqa: N802 - PySpark's name
        """Not available, as in PySpark: no Python value stands for a year-month interval."""
        raise _not_implemented("YearMonthIntervalType.toInternal")

    def fromInternal(self, obj: Any) -> Any:  # noqa: N802 - PySpark's name
        """Not available, as in PySpark: no Python value stands for a year-month interval."""
        raise _not_implemented("YearMonthIntervalType.fromInternal")


def _not_implemented(feature: str) -> PySparkNotImplementedError:
    return PySparkNotImplementedError(f"{feature} is not implemented.", "NOT_IMPLEMENTED", {"feature": feature})


class CalendarIntervalType(DataType, metaclass=_Singleton):
    """Spark's calendar interval (``make_interval``): months, days and microseconds, each kept apart.

    A month is no fixed number of days, nor a day of microseconds (daylight saving): adding
    one to a timestamp moves it by the months, then the days, on the session's calendar,
    then by the microseconds. As in PySpark, its values are not collected to Python.
    """

    @classmethod
    def typeName(cls) -> str:  # noqa: N802 - PySpark's name
        """``interval``."""
        return "interval"

    def needConversion(self) -> bool:  # noqa: N802 - PySpark's name
        """``True``: there is no Python form."""
        return True

    def toInternal(self, obj: Any) -> Any:  # noqa: N802 - PySpark's name
        """Not available, as in PySpark."""
        raise _not_implemented("CalendarIntervalType.toInternal")

    def fromInternal(self, obj: Any) -> Any:  # noqa: N802 - PySpark's name
        """Not available, as in PySpark."""
        raise _not_implemented("CalendarIntervalType.fromInternal")

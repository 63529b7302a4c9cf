"""Date and time functions of ``dstream.sql.functions``: ``to_timestamp``, ``date_format``, ``year``...

What this module owns
---------------------
The public builders of the registry's datetime functions, with PySpark's names and
parameters (format parameters are Python strings, which become literals).

Invariants
----------
* Every builder returns a ``Column`` over
  :class:`~dstream.sql.expressions.scalar_functions.ScalarFunction`; fields of
  timestamps are read in the session time zone when the column is evaluated.
"""

from __future__ import annotations

from typing import Any

from .column import Column, expr_of, lit_expr, to_expr
from .expressions.base import Expression
from .expressions.scalar_functions import ScalarFunction

__all__ = [
    "add_months",
    "current_date",
    "current_timestamp",
    "date_add",
    "date_format",
    "date_sub",
    "date_trunc",
    "datediff",
    "dayofmonth",
    "dayofweek",
    "dayofyear",
    "from_unixtime",
    "hour",
    "last_day",
    "make_date",
    "minute",
    "month",
    "months_between",
    "next_day",
    "quarter",
    "second",
    "to_date",
    "to_timestamp",
    "trunc",
    "unix_timestamp",
    "weekofyear",
    "year",
]

ColumnOrName = Column | str


def _call(name: str, *args: Expression) -> Column:
    return Column(ScalarFunction(name, list(args)))


def _col_or_lit(value: Any) -> Expression:
    return expr_of(value) if isinstance(value, str) else to_expr(value)


def _with_format(name: str, col: ColumnOrName, format: str | None) -> Column:
    if format is None:
        return _call(name, expr_of(col))
    return _call(name, expr_of(col), lit_expr(format))


def to_timestamp(col: ColumnOrName, format: str | None = None) -> Column:  # noqa: A002 - PySpark's name
    """The string parsed as a timestamp (Spark's datetime pattern, or its default forms).

    Parameters
    ----------
    col : Column or str
        The strings.
    format : str, optional
        The pattern (``"yyyy-MM-dd HH:mm:ss"``...).
    """
    return _with_format("to_timestamp", col, format)


def to_date(col: ColumnOrName, format: str | None = None) -> Column:  # noqa: A002 - PySpark's name
    """The string parsed as a date.

    Parameters
    ----------
    col : Column or str
        The strings.
    format : str, optional
        The pattern.
    """
    return _with_format("to_date", col, format)


def current_timestamp() -> Column:
    """The query's start time."""
    return _call("current_timestamp")


def current_date() -> Column:
    """The query's start date in the session time zone."""
    return _call("current_date")


def date_format(date: ColumnOrName, format: str) -> Column:  # noqa: A002 - PySpark's name
    """The timestamp as text in a Spark datetime pattern.

    Parameters
    ----------
    date : Column or str
        The timestamps or dates.
    format : str
        The pattern.
    """
    return _call("date_format", expr_of(date), lit_expr(format))


def unix_timestamp(timestamp: ColumnOrName | None = None,
                   format: str = "yyyy-MM-dd HH:mm:ss") -> Column:  # noqa: A002 - PySpark's name
    """Seconds since the epoch of a timestamp or of a string in ``format`` (now without argument).

    Parameters
    ----------
    timestamp : Column or str, optional
        The timestamps or strings.
    format : str
        The pattern of strings.
    """
    source = current_timestamp().expr if timestamp is None else expr_of(timestamp)
    return _call("unix_timestamp", source, lit_expr(format))


def from_unixtime(timestamp: ColumnOrName, format: str = "yyyy-MM-dd HH:mm:ss") -> Column:  # noqa: A002
    """Seconds since the epoch as text in ``format`` (session time zone).

    Parameters
    ----------
    timestamp : Column or str
        The seconds.
    format : str
        The pattern.
    """
    return _call("from_unixtime", expr_of(timestamp), lit_expr(format))


def _field(name: str, col: ColumnOrName) -> Column:
    return _call(name, expr_of(col))


def year(col: ColumnOrName) -> Column:
    """The year of a date or timestamp.

    Parameters
    ----------
    col : Column or str
        The dates or timestamps.
    """
    return _field("year", col)


def quarter(col: ColumnOrName) -> Column:
    """The quarter (1-4).

    Parameters
    ----------
    col : Column or str
        The dates or timestamps.
    """
    return _field("quarter", col)


def month(col: ColumnOrName) -> Column:
    """The month (1-12).

    Parameters
    ----------
    col : Column or str
        The dates or timestamps.
    """
    return _field("month", col)


def dayofmonth(col: ColumnOrName) -> Column:
    """The day of the month.

    Parameters
    ----------
    col : Column or str
        The dates or timestamps.
    """
    return _field("dayofmonth", col)


def dayofweek(col: ColumnOrName) -> Column:
    """The day of the week (1 = Sunday ... 7 = Saturday).

    Parameters
    ----------
    col : Column or str
        The dates or timestamps.
    """
    return _field("dayofweek", col)


def dayofyear(col: ColumnOrName) -> Column:
    """The day of the year.

    Parameters
    ----------
    col : Column or str
        The dates or timestamps.
    """
    return _field("dayofyear", col)


def weekofyear(col: ColumnOrName) -> Column:
    """The ISO week number.

    Parameters
    ----------
    col : Column or str
        The dates or timestamps.
    """
    return _field("weekofyear", col)


def hour(col: ColumnOrName) -> Column:
    """The hour in the session time zone.

    Parameters
    ----------
    col : Column or str
        The timestamps.
    """
    return _field("hour", col)


def minute(col: ColumnOrName) -> Column:
    """The minute.

    Parameters
    ----------
    col : Column or str
        The timestamps.
    """
    return _field("minute", col)


def second(col: ColumnOrName) -> Column:
    """The second.

    Parameters
    ----------
    col : Column or str
        The timestamps.
    """
    return _field("second", col)


def date_add(start: ColumnOrName, days: Any) -> Column:
    """The date ``days`` days after ``start``.

    Parameters
    ----------
    start : Column or str
        The dates.
    days : int or Column
        The number of days.
    """
    return _call("date_add", expr_of(start), _col_or_lit(days))


def date_sub(start: ColumnOrName, days: Any) -> Column:
    """The date ``days`` days before ``start``.

    Parameters
    ----------
    start : Column or str
        The dates.
    days : int or Column
        The number of days.
    """
    return _call("date_sub", expr_of(start), _col_or_lit(days))


def datediff(end: ColumnOrName, start: ColumnOrName) -> Column:
    """The number of days from ``start`` to ``end``.

    Parameters
    ----------
    end : Column or str
        The later dates.
    start : Column or str
        The earlier dates.
    """
    return _call("datediff", expr_of(end), expr_of(start))


def date_trunc(format: str, timestamp: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    """The timestamp truncated to the unit ``format`` in the session time zone (null for an unknown unit).

    Parameters
    ----------
    format : str
        ``year`` (``yyyy``, ``yy``), ``quarter``, ``month`` (``mon``, ``mm``), ``week`` (from
        Monday), ``day`` (``dd``), ``hour``, ``minute``, ``second``, ``millisecond`` or
        ``microsecond``.
    timestamp : Column or str
        The timestamps (strings and dates are cast to timestamps).
    """
    return _call("date_trunc", lit_expr(format), expr_of(timestamp))


def trunc(date: ColumnOrName, format: str) -> Column:  # noqa: A002 - PySpark's name
    """The date truncated to ``format``: ``year`` (``yyyy``, ``yy``), ``quarter``, ``month`` (``mon``,
    ``mm``) or ``week`` (from Monday); null for any other unit.

    Parameters
    ----------
    date : Column or str
        The dates (timestamps and strings are cast to dates).
    format : str
        The unit.
    """
    return _call("trunc", expr_of(date), lit_expr(format))



def add_months(start: ColumnOrName, months: Any) -> Column:
    """The date ``months`` months after ``start`` (the day clamped to the month's length).

    Parameters
    ----------
    start : Column or str
        The dates (timestamps and strings are read as dates).
    months : int or Column
        The number of months (negative: before).
    """
    return _call("add_months", expr_of(start), _col_or_lit(months))


def last_day(date: ColumnOrName) -> Column:
    """The last day of the month of each date.

    Parameters
    ----------
    date : Column or str
        The dates.
    """
    return _call("last_day", expr_of(date))


def next_day(date: ColumnOrName, dayOfWeek: str) -> Column:  # noqa: N803 - PySpark's name
    """The first date after ``date`` that falls on ``dayOfWeek``.

    Parameters
    ----------
    date : Column or str
        The dates.
    dayOfWeek : str
        ``"Mon"``, ``"Monday"`` or ``"MO"`` (any case), and so on for the other days.
    """
    return _call("next_day", expr_of(date), lit_expr(dayOfWeek))


def months_between(date1: ColumnOrName, date2: ColumnOrName, roundOff: bool = True) -> Column:  # noqa: N803
    """The months from ``date2`` to ``date1``, with Spark's fractional rule.

    Whole months when the days of month are equal or both are month ends; otherwise the
    fraction counts 31-day months, rounded to 8 digits when ``roundOff``.

    Parameters
    ----------
    date1, date2 : Column or str
        Dates or timestamps (timestamps in the session time zone).
    roundOff : bool
        Round the result to 8 digits.
    """
    return _call("months_between", expr_of(date1), expr_of(date2), lit_expr(bool(roundOff)))


def make_date(year: ColumnOrName, month: ColumnOrName, day: ColumnOrName) -> Column:
    """The date of ``year``, ``month`` and ``day`` (an impossible date raises under ANSI mode).

    Parameters
    ----------
    year, month, day : Column or str
        The fields.
    """
    return _call("make_date", expr_of(year), expr_of(month), expr_of(day))

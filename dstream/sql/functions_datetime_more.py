"""Date and time functions of ``dstream.sql.functions`` added in PySpark 3.5 and 4.0:
``extract``, ``date_part``, ``datepart``, ``dateadd``, ``date_diff``, ``monthname``,
``dayname``, ``make_timestamp``, ``make_timestamp_ltz``, ``make_timestamp_ntz``,
``try_make_timestamp``, ``timestamp_diff``, ``timestamp_add``, ``try_to_timestamp``,
``convert_timezone`` and ``localtimestamp``.

What this module owns
---------------------
The public builders, with PySpark's names and parameters. ``extract``/``date_part`` read a
field name (``YEAR``, ``MONTH``, ``DAY``, ``HOUR``, ``MINUTE``, ``SECOND``, ``QUARTER``,
``WEEK``, ``DAYOFWEEK``, ``DOY`` and their abbreviations, as SQL's ``EXTRACT``) and build
the field's function; ``dateadd`` and ``date_diff`` are ``date_add`` and ``datediff``; the
``make_timestamp`` family is ``expressions.make_timestamp``'s, ``timestamp_diff`` and
``timestamp_add`` are ``expressions.timestamp_units``'.
"""

from __future__ import annotations

from typing import Any

from .column import Column, expr_of, lit_expr, to_expr
from .errors import PySparkValueError
from .expressions.base import Literal
from .functions_scalar import _call

__all__ = [
    "convert_timezone", "date_diff", "date_part", "dateadd", "datepart", "dayname", "extract", "localtimestamp",
    "make_dt_interval", "make_interval", "make_timestamp", "make_timestamp_ltz", "make_timestamp_ntz",
    "make_ym_interval", "monthname", "timestamp_add", "timestamp_diff", "try_make_interval", "try_make_timestamp",
    "try_to_timestamp", "weekday",
]

ColumnOrName = Column | str

#: The fields ``extract`` knows, as SQL's ``EXTRACT`` names them, and the function of each.
FIELDS = {
    "YEAR": "year", "YEARS": "year", "Y": "year", "YR": "year", "YRS": "year",
    "QUARTER": "quarter", "QTR": "quarter",
    "MONTH": "month", "MONTHS": "month", "MON": "month", "MONS": "month",
    "WEEK": "weekofyear", "WEEKS": "weekofyear", "W": "weekofyear",
    "DAY": "dayofmonth", "DAYS": "dayofmonth", "D": "dayofmonth",
    "DAYOFWEEK": "dayofweek", "DOW": "dayofweek", "DOY": "dayofyear", "DAYOFYEAR": "dayofyear",
    "HOUR": "hour", "HOURS": "hour", "H": "hour", "HR": "hour", "HRS": "hour",
    "MINUTE": "minute", "MINUTES": "minute", "MIN": "minute", "MINS": "minute", "M": "minute",
    "SECOND": "second", "SECONDS": "second", "S": "second", "SEC": "second", "SECS": "second",
}


def _field_name(field: Any) -> str:
    if isinstance(field, Column):
        expr = expr_of(field)
        if isinstance(expr, Literal) and isinstance(expr.value, str):
            return expr.value
        raise PySparkValueError(f"extract: the field must be a literal such as lit('YEAR'), got {expr.sql()}.",
                                "NOT_LITERAL_FIELD", {"field": expr.sql()})
    if isinstance(field, str):
        return field
    raise PySparkValueError(f"extract: the field must be a str or lit(str), got {type(field).__name__}.",
                            "NOT_LITERAL_FIELD", {"field": repr(field)})


def extract(field: Column | str, source: ColumnOrName) -> Column:
    """A field of a date or timestamp: ``extract(lit("YEAR"), "ts")`` is ``year("ts")``.

    Parameters
    ----------
    field : Column or str
        The field's name (``YEAR``, ``MONTH``, ``DAY``, ``HOUR``, ``MINUTE``, ``SECOND``,
        ``QUARTER``, ``WEEK``, ``DAYOFWEEK``, ``DOY`` or an abbreviation), as a literal.
    source : Column or str
        The dates or timestamps.

    Examples
    --------
    >>> import datetime
    >>> df = spark.createDataFrame([(datetime.datetime(2015, 4, 8, 13, 8, 15),)], "ts timestamp")
    >>> df.select(extract(lit("YEAR"), "ts").alias("y"), extract(lit("hour"), "ts").alias("h")).first()
    Row(y=2015, h=13)
    """
    return _extract("extract", field, source)


def _extract(function_name: str, field: Column | str, source: ColumnOrName) -> Column:
    from .expressions.datetime_functions import SECOND_FIELDS  # noqa: PLC0415 - expressions load lazily
    from .expressions.interval_fields import FieldOf  # noqa: PLC0415 - expressions load lazily

    name = _field_name(field)
    function = FIELDS.get(name.upper())
    if function is None:
        raise PySparkValueError(f"extract: unknown field {name!r}; use one of {', '.join(sorted(set(FIELDS)))}.",
                                "INVALID_EXTRACT_FIELD", {"field": name})
    # The source's type (a date, a timestamp or an interval) decides at analysis what the call is;
    # the seconds keep their fraction (decimal(8,6)), unlike second(ts).
    return Column(FieldOf(name, "" if name.upper() in SECOND_FIELDS else function, function_name, expr_of(source)))


def date_part(field: Column | str, source: ColumnOrName) -> Column:
    """:func:`extract` by its other name."""
    return _extract("date_part", field, source)


def datepart(field: Column | str, source: ColumnOrName) -> Column:
    """:func:`extract` by its other name."""
    return _extract("datepart", field, source)


def dateadd(start: ColumnOrName, days: ColumnOrName | int) -> Column:
    """The date ``days`` days after ``start`` (``date_add``)."""
    from .functions_datetime import date_add  # noqa: PLC0415 - kept beside its sibling

    return date_add(start, days)


def date_diff(end: ColumnOrName, start: ColumnOrName) -> Column:
    """The days from ``start`` to ``end`` (``datediff``)."""
    from .functions_datetime import datediff  # noqa: PLC0415 - kept beside its sibling

    return datediff(end, start)


def monthname(col: ColumnOrName) -> Column:
    """The month's English three-letter name (``Jan``...).

    Parameters
    ----------
    col : Column or str
        The dates or timestamps.
    """
    return _call("monthname", expr_of(col))


def dayname(col: ColumnOrName) -> Column:
    """The weekday's English three-letter name (``Mon``...).

    Parameters
    ----------
    col : Column or str
        The dates or timestamps.
    """
    return _call("dayname", expr_of(col))


def _fields(years: ColumnOrName, months: ColumnOrName, days: ColumnOrName, hours: ColumnOrName,
            mins: ColumnOrName, secs: ColumnOrName, timezone: ColumnOrName | None) -> list[Any]:
    columns = [years, months, days, hours, mins, secs] + ([] if timezone is None else [timezone])
    return [expr_of(c) for c in columns]


def make_timestamp(years: ColumnOrName, months: ColumnOrName, days: ColumnOrName, hours: ColumnOrName,
                   mins: ColumnOrName, secs: ColumnOrName, timezone: ColumnOrName | None = None) -> Column:
    """The timestamp of a wall time in ``timezone`` (the session time zone without it).

    Parameters
    ----------
    years, months, days, hours, mins : Column or str
        The fields.
    secs : Column or str
        Seconds with their fraction (``decimal(16,6)``); 60 only without a fraction.
    timezone : Column or str, optional
        The zone of the wall time (a column of zone ids).

    Examples
    --------
    >>> df = spark.createDataFrame([(2014, 12, 28, 6, 30, 45.887)], "y int, m int, d int, h int, mi int, s double")
    >>> df.select(make_timestamp("y", "m", "d", "h", "mi", "s").alias("t")).first().t
    datetime.datetime(2014, 12, 28, 6, 30, 45, 887000)
    """
    return _call("make_timestamp", *_fields(years, months, days, hours, mins, secs, timezone))


def make_timestamp_ltz(years: ColumnOrName, months: ColumnOrName, days: ColumnOrName, hours: ColumnOrName,
                       mins: ColumnOrName, secs: ColumnOrName, timezone: ColumnOrName | None = None) -> Column:
    """:func:`make_timestamp` (a timestamp with the local time zone, Spark's ``timestamp``)."""
    return _call("make_timestamp_ltz", *_fields(years, months, days, hours, mins, secs, timezone))


def try_make_timestamp(years: ColumnOrName, months: ColumnOrName, days: ColumnOrName, hours: ColumnOrName,
                       mins: ColumnOrName, secs: ColumnOrName, timezone: ColumnOrName | None = None) -> Column:
    """:func:`make_timestamp`, null where a field is out of range (never an error)."""
    return _call("try_make_timestamp", *_fields(years, months, days, hours, mins, secs, timezone))


def make_timestamp_ntz(years: ColumnOrName, months: ColumnOrName, days: ColumnOrName, hours: ColumnOrName,
                       mins: ColumnOrName, secs: ColumnOrName) -> Column:
    """The wall time itself, a ``timestamp_ntz`` (no time zone).

    Parameters
    ----------
    years, months, days, hours, mins : Column or str
        The fields.
    secs : Column or str
        Seconds with their fraction; 60 only without a fraction.
    """
    return _call("make_timestamp_ntz", *_fields(years, months, days, hours, mins, secs, None))


def timestamp_diff(unit: str, start: ColumnOrName, end: ColumnOrName) -> Column:
    """The whole ``unit`` s from ``start`` to ``end`` (negative when ``end`` is earlier).

    Parameters
    ----------
    unit : str
        ``MICROSECOND``, ``MILLISECOND``, ``SECOND``, ``MINUTE``, ``HOUR`` (exact durations),
        ``DAY``, ``WEEK``, ``MONTH``, ``QUARTER`` or ``YEAR`` (calendar units of the wall
        times in the session time zone).
    start, end : Column or str
        The timestamps.

    Examples
    --------
    >>> import datetime
    >>> df = spark.createDataFrame([(datetime.datetime(2016, 3, 11, 9, 0, 7), datetime.datetime(2024, 4, 2, 9, 0, 7))],
    ...                            "a timestamp, b timestamp")
    >>> df.select(timestamp_diff("YEAR", "a", "b").alias("y"), timestamp_diff("MONTH", "a", "b").alias("m")).first()
    Row(y=8, m=96)
    """
    return _call("timestamp_diff", lit_expr(unit), expr_of(start), expr_of(end))


def timestamp_add(unit: str, quantity: ColumnOrName, ts: ColumnOrName) -> Column:
    """``ts`` moved by ``quantity`` ``unit`` s (see :func:`timestamp_diff` for the units).

    Parameters
    ----------
    unit : str
        The unit.
    quantity : Column or str
        How many (an int column).
    ts : Column or str
        The timestamps.
    """
    return _call("timestamp_add", lit_expr(unit), expr_of(quantity), expr_of(ts))


def try_to_timestamp(col: ColumnOrName, format: Column | str | None = None) -> Column:  # noqa: A002
    """:func:`to_timestamp`, null where the text does not parse (never an error).

    Parameters
    ----------
    col : Column or str
        The strings.
    format : Column or str, optional
        The pattern (Spark's datetime pattern letters); a Column must be a literal.
    """
    args = [expr_of(col)] + ([] if format is None else [to_expr(format)])
    return _call("try_to_timestamp", *args)


def convert_timezone(sourceTz: Column | None, targetTz: Column,  # noqa: N803 - PySpark's names
                     sourceTs: ColumnOrName | None = None) -> Column:  # noqa: N803
    """The wall time ``sourceTs`` (a ``timestamp_ntz``) in ``sourceTz`` (the session time zone
    when ``None``) as the wall time of the same instant in ``targetTz``.

    Parameters
    ----------
    sourceTz : Column or None
        The zone of ``sourceTs`` (``lit("Europe/Brussels")``).
    targetTz : Column
        The zone to convert to.
    sourceTs : Column or str
        The wall times. (Given two arguments, as SQL's ``convert_timezone(to, ts)``, they are
        ``targetTz`` and ``sourceTs``.)
    """
    if sourceTs is None:  # SQL's two-argument form: (targetTz, sourceTs)
        if sourceTz is None:
            raise PySparkValueError("convert_timezone needs the target zone and the timestamps.",
                                    "MISSING_ARGUMENT", {"arg_name": "targetTz"})
        return _call("convert_timezone", expr_of(sourceTz), expr_of(targetTz))
    zones = ([] if sourceTz is None else [expr_of(sourceTz)]) + [expr_of(targetTz)]
    return _call("convert_timezone", *zones, expr_of(sourceTs))


def localtimestamp() -> Column:
    """The query's start as a wall time in the session time zone (a ``timestamp_ntz``)."""
    return _call("localtimestamp")


def weekday(col: ColumnOrName) -> Column:
    """The day of the week, 0 (Monday) to 6 (Sunday).

    Parameters
    ----------
    col : Column or str
        The dates or timestamps.
    """
    return _call("weekday", expr_of(col))


def make_dt_interval(days: ColumnOrName | None = None, hours: ColumnOrName | None = None,
                     mins: ColumnOrName | None = None, secs: ColumnOrName | None = None) -> Column:
    """A day-time interval from days, hours, minutes and seconds (each 0 when omitted).

    Parameters
    ----------
    days, hours, mins : Column or str, optional
        Whole numbers (negative ones allowed).
    secs : Column or str, optional
        Seconds with their fraction.

    Examples
    --------
    >>> import datetime
    >>> spark.range(1).select(make_dt_interval(lit(1), lit(2), lit(3), lit(4.5)).alias("i")).first().i
    datetime.timedelta(days=1, seconds=7384, microseconds=500000)
    """
    given = [days, hours, mins, secs]
    while given and given[-1] is None:
        given.pop()
    return _call("make_dt_interval", *[lit_expr(0) if c is None else expr_of(c) for c in given])


def make_ym_interval(years: ColumnOrName | None = None, months: ColumnOrName | None = None) -> Column:
    """A year-month interval of ``years * 12 + months`` months (each 0 when omitted).

    Parameters
    ----------
    years, months : Column or str, optional
        Whole numbers (negative ones allowed; months may exceed 11).

    Examples
    --------
    >>> spark.range(1).select(make_ym_interval(lit(1), lit(2)).alias("i")).show()
    +----------------------------+
    |                           i|
    +----------------------------+
    |INTERVAL '1-2' YEAR TO MONTH|
    +----------------------------+
    <BLANKLINE>
    """
    return _call("make_ym_interval", *[lit_expr(0) if c is None else expr_of(c) for c in (years, months)])


def _interval_parts(name: str, parts: tuple[ColumnOrName | None, ...]) -> Column:
    return _call(name, *[lit_expr(0) if c is None else expr_of(c) for c in parts])


def make_interval(years: ColumnOrName | None = None, months: ColumnOrName | None = None,
                  weeks: ColumnOrName | None = None, days: ColumnOrName | None = None,
                  hours: ColumnOrName | None = None, mins: ColumnOrName | None = None,
                  secs: ColumnOrName | None = None) -> Column:
    """A calendar interval (``CalendarIntervalType``) from its parts, each 0 when omitted.

    Its months, days and microseconds stay apart: added to a timestamp it moves the
    months, then the days, on the session's calendar, then the time.

    Parameters
    ----------
    years, months, weeks, days, hours, mins : Column or str, optional
        Whole numbers.
    secs : Column or str, optional
        Seconds with their fraction (microseconds).

    Examples
    --------
    >>> spark.range(1).select(make_interval(lit(1), lit(2), lit(3)).cast("string").alias("i")).first().i
    '1 years 2 months 21 days'
    """
    return _interval_parts("make_interval", (years, months, weeks, days, hours, mins, secs))


def try_make_interval(years: ColumnOrName | None = None, months: ColumnOrName | None = None,
                      weeks: ColumnOrName | None = None, days: ColumnOrName | None = None,
                      hours: ColumnOrName | None = None, mins: ColumnOrName | None = None,
                      secs: ColumnOrName | None = None) -> Column:
    """:func:`make_interval`, but null where a part overflows."""
    return _interval_parts("try_make_interval", (years, months, weeks, days, hours, mins, secs))

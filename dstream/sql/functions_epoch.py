"""Epoch and time-zone functions of ``dstream.sql.functions``: ``timestamp_seconds``,
``timestamp_millis``, ``timestamp_micros``, ``unix_seconds``, ``unix_millis``,
``unix_micros``, ``unix_date``, ``date_from_unix_date``, ``from_utc_timestamp``,
``to_utc_timestamp``.

What this module owns
---------------------
The public builders, with PySpark's names and parameters; the semantics are stated in
``expressions.epoch_functions``.

Examples
--------
>>> spark.conf.set("spark.sql.session.timeZone", "UTC")
>>> df = spark.createDataFrame([(1230219000,)], "s long")
>>> df.select(timestamp_seconds("s").alias("t")).select("t", unix_millis("t").alias("ms")).collect()
[Row(t=datetime.datetime(2008, 12, 25, 15, 30), ms=1230219000000)]
"""

from __future__ import annotations

from .column import Column, expr_of, lit_expr
from .functions_scalar import _call

__all__ = ["date_from_unix_date", "from_utc_timestamp", "timestamp_micros", "timestamp_millis", "timestamp_seconds",
           "to_utc_timestamp", "unix_date", "unix_micros", "unix_millis", "unix_seconds"]

ColumnOrName = Column | str


def timestamp_seconds(col: ColumnOrName) -> Column:
    """The timestamp ``col`` seconds (integral or fractional) after the epoch."""
    return _call("timestamp_seconds", expr_of(col))


def timestamp_millis(col: ColumnOrName) -> Column:
    """The timestamp ``col`` milliseconds after the epoch."""
    return _call("timestamp_millis", expr_of(col))


def timestamp_micros(col: ColumnOrName) -> Column:
    """The timestamp ``col`` microseconds after the epoch."""
    return _call("timestamp_micros", expr_of(col))


def unix_seconds(col: ColumnOrName) -> Column:
    """Whole seconds from the epoch to the timestamp (rounded down)."""
    return _call("unix_seconds", expr_of(col))


def unix_millis(col: ColumnOrName) -> Column:
    """Whole milliseconds from the epoch to the timestamp (rounded down)."""
    return _call("unix_millis", expr_of(col))


def unix_micros(col: ColumnOrName) -> Column:
    """Microseconds from the epoch to the timestamp."""
    return _call("unix_micros", expr_of(col))


def unix_date(col: ColumnOrName) -> Column:
    """Days from 1970-01-01 to the date."""
    return _call("unix_date", expr_of(col))


def date_from_unix_date(days: ColumnOrName) -> Column:
    """The date ``days`` after 1970-01-01."""
    return _call("date_from_unix_date", expr_of(days))


def _zone(tz: ColumnOrName) -> object:
    # PySpark: a str here is the zone id itself, not a column name.
    return lit_expr(tz) if isinstance(tz, str) else expr_of(tz)


def from_utc_timestamp(timestamp: ColumnOrName, tz: ColumnOrName) -> Column:
    """The UTC wall time of ``timestamp`` read as a wall time in zone ``tz``.

    Parameters
    ----------
    timestamp : Column or str
        The timestamps.
    tz : Column or str
        A zone id (``"Asia/Seoul"``, ``"+08:00"``), or a Column of them.
    """
    return _call("from_utc_timestamp", expr_of(timestamp), _zone(tz))  # type: ignore[arg-type]


def to_utc_timestamp(timestamp: ColumnOrName, tz: ColumnOrName) -> Column:
    """The wall time of ``timestamp`` in zone ``tz`` read as UTC (the inverse of :func:`from_utc_timestamp`).

    Parameters
    ----------
    timestamp : Column or str
        The timestamps.
    tz : Column or str
        A zone id, or a Column of them.
    """
    return _call("to_utc_timestamp", expr_of(timestamp), _zone(tz))  # type: ignore[arg-type]

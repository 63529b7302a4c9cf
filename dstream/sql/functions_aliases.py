"""PySpark 4's other names and small additions in ``dstream.sql.functions``: ``substr``, ``replace``...

What this module owns
---------------------
Builders PySpark 4 offers under a second name (``day`` for ``dayofmonth``, ``std`` for
``stddev``...) or as a small function of its own, each with PySpark's parameters and the
column name Spark gives it. SQL finds them by name, as it finds every public function.
"""

from __future__ import annotations

from .column import Column, column_of, expr_of, lit_expr, to_expr
from .expressions.aggregates import StddevSamp
from .expressions.operators import Remainder, TryEval
from .functions_agg import approx_count_distinct, collect_list, sum_distinct
from .functions_scalar import _call

__all__ = [
    "approxCountDistinct",
    "array_agg",
    "asc_nulls_first",
    "asc_nulls_last",
    "bit_count",
    "bit_get",
    "curdate",
    "day",
    "desc_nulls_first",
    "desc_nulls_last",
    "getbit",
    "isnotnull",
    "json_array_length",
    "json_object_keys",
    "now",
    "replace",
    "shuffle",
    "std",
    "substr",
    "sumDistinct",
    "to_timestamp_ltz",
    "to_timestamp_ntz",
    "try_mod",
]

ColumnOrName = Column | str

#: The length SQL fills in when ``substr``/``substring`` get none: to the end of the string.
_TO_THE_END = 2**31 - 1


def substr(str: ColumnOrName, pos: ColumnOrName, len: ColumnOrName | None = None) -> Column:  # noqa: A002
    """``len`` characters from position ``pos`` (1-based; negative counts from the end), or the rest.

    Parameters
    ----------
    str : Column or str
        The strings.
    pos : Column or str
        The start (a ``str`` is a column name).
    len : Column or str, optional
        The length; to the end of the string when omitted (named ``2147483647``, as Spark does).

    Returns
    -------
    Column
        ``substr(str, pos, len)``.
    """
    length = lit_expr(_TO_THE_END) if len is None else expr_of(len)
    return _call("substr", expr_of(str), expr_of(pos), length)


def replace(src: ColumnOrName, search: ColumnOrName, replace: ColumnOrName | None = None) -> Column:
    """Every occurrence of ``search`` in ``src`` replaced by ``replace`` (removed when omitted).

    Parameters
    ----------
    src : Column or str
        The strings.
    search : Column or str
        The text to find (an empty one changes nothing).
    replace : Column or str, optional
        The text put in its place; ``""`` when omitted.

    Returns
    -------
    Column
        ``replace(src, search, replace)``.
    """
    return _call("replace", expr_of(src), expr_of(search), lit_expr("") if replace is None else expr_of(replace))


def day(col: ColumnOrName) -> Column:
    """The day of the month of a date or timestamp (``dayofmonth``, named ``day``).

    Parameters
    ----------
    col : Column or str
        The dates.

    Returns
    -------
    Column
        ``day(col)``, an int.
    """
    return _call("day", expr_of(col))


def now() -> Column:
    """The query's start time, named ``now()``.

    Returns
    -------
    Column
        A timestamp.
    """
    return _call("now")


def curdate() -> Column:
    """The query's start date in the session time zone (``current_date()``).

    Returns
    -------
    Column
        A date named ``current_date()``.
    """
    return _call("current_date")


def isnotnull(col: ColumnOrName) -> Column:
    """True where the value is not null.

    Parameters
    ----------
    col : Column or str
        The values.

    Returns
    -------
    Column
        ``(col IS NOT NULL)``.
    """
    return column_of(col).isNotNull()


def std(col: ColumnOrName) -> Column:
    """The sample standard deviation (``stddev_samp``), named ``std``.

    Parameters
    ----------
    col : Column or str
        The numbers.

    Returns
    -------
    Column
        ``std(col)``, a double.
    """
    return Column(StddevSamp(expr_of(col), name="std"))


def array_agg(col: ColumnOrName) -> Column:
    """The values of a group as a list, duplicates kept (``collect_list``).

    Parameters
    ----------
    col : Column or str
        The values.

    Returns
    -------
    Column
        ``collect_list(col)``, as Spark names it.
    """
    return collect_list(col)


def sumDistinct(col: ColumnOrName) -> Column:  # noqa: N802 - PySpark's name
    """The sum of the distinct non-null values (``sum_distinct``).

    Parameters
    ----------
    col : Column or str
        The numbers.

    Returns
    -------
    Column
        ``sum(DISTINCT col)``.
    """
    return sum_distinct(col)


def approxCountDistinct(col: ColumnOrName, rsd: float | None = None) -> Column:  # noqa: N802 - PySpark's name
    """The number of distinct values (``approx_count_distinct``).

    Parameters
    ----------
    col : Column or str
        The values.
    rsd : float, optional
        The relative error allowed (the count here is exact).

    Returns
    -------
    Column
        ``approx_count_distinct(col)``.
    """
    return approx_count_distinct(col, rsd)


def asc_nulls_first(col: ColumnOrName) -> Column:
    """Ascending order, nulls first.

    Parameters
    ----------
    col : Column or str
        The sort key.

    Returns
    -------
    Column
        ``col ASC NULLS FIRST``.
    """
    return column_of(col).asc_nulls_first()


def asc_nulls_last(col: ColumnOrName) -> Column:
    """Ascending order, nulls last.

    Parameters
    ----------
    col : Column or str
        The sort key.

    Returns
    -------
    Column
        ``col ASC NULLS LAST``.
    """
    return column_of(col).asc_nulls_last()


def desc_nulls_first(col: ColumnOrName) -> Column:
    """Descending order, nulls first.

    Parameters
    ----------
    col : Column or str
        The sort key.

    Returns
    -------
    Column
        ``col DESC NULLS FIRST``.
    """
    return column_of(col).desc_nulls_first()


def desc_nulls_last(col: ColumnOrName) -> Column:
    """Descending order, nulls last.

    Parameters
    ----------
    col : Column or str
        The sort key.

    Returns
    -------
    Column
        ``col DESC NULLS LAST``.
    """
    return column_of(col).desc_nulls_last()


def try_mod(left: ColumnOrName, right: ColumnOrName) -> Column:
    """``left % right``, null where ``right`` is 0 (where ``%`` raises under ANSI).

    Parameters
    ----------
    left, right : Column or str
        The dividend and the divisor.

    Returns
    -------
    Column
        ``try_mod(left, right)``.
    """
    return Column(TryEval(Remainder(expr_of(left), expr_of(right)), "try_mod"))


def bit_count(col: ColumnOrName) -> Column:
    """The number of bits set in an integral value (widened to 64 bits) or a boolean.

    Parameters
    ----------
    col : Column or str
        The values.

    Returns
    -------
    Column
        ``bit_count(col)``, an int.
    """
    return _call("bit_count", expr_of(col))


def bit_get(col: ColumnOrName, pos: ColumnOrName) -> Column:
    """The bit (0 or 1) at position ``pos``, counted from 0 at the lowest bit.

    Parameters
    ----------
    col : Column or str
        Integral values.
    pos : Column or str
        The positions, from 0 to the type's bits minus one.

    Returns
    -------
    Column
        ``bit_get(col, pos)``, a tinyint.
    """
    return _call("bit_get", expr_of(col), expr_of(pos))


def getbit(col: ColumnOrName, pos: ColumnOrName) -> Column:
    """:func:`bit_get`, named ``getbit``.

    Parameters
    ----------
    col : Column or str
        Integral values.
    pos : Column or str
        The positions.

    Returns
    -------
    Column
        ``getbit(col, pos)``, a tinyint.
    """
    return _call("getbit", expr_of(col), expr_of(pos))


def json_array_length(col: ColumnOrName) -> Column:
    """The number of elements of the outermost JSON array; null for other text.

    Parameters
    ----------
    col : Column or str
        JSON text.

    Returns
    -------
    Column
        ``json_array_length(col)``, an int.
    """
    return _call("json_array_length", expr_of(col))


def json_object_keys(col: ColumnOrName) -> Column:
    """The keys of the outermost JSON object; null for other text.

    Parameters
    ----------
    col : Column or str
        JSON text.

    Returns
    -------
    Column
        ``json_object_keys(col)``, an array of strings.
    """
    return _call("json_object_keys", expr_of(col))


def shuffle(col: ColumnOrName, seed: Column | int | None = None) -> Column:
    """The elements of each array in a random order.

    Parameters
    ----------
    col : Column or str
        The arrays.
    seed : Column or int, optional
        A seed that makes the order repeatable.

    Returns
    -------
    Column
        ``shuffle(col)``.
    """
    if seed is None:
        return _call("shuffle", expr_of(col))
    return _call("shuffle", expr_of(col), to_expr(seed))


def to_timestamp_ltz(timestamp: ColumnOrName, format: ColumnOrName | None = None) -> Column:  # noqa: A002
    """The text read as a timestamp with the session time zone (``to_timestamp``).

    Parameters
    ----------
    timestamp : Column or str
        The texts (or dates and timestamps).
    format : Column or str, optional
        A constant datetime pattern (a ``str`` is a column name, as in PySpark: use ``lit``).

    Returns
    -------
    Column
        ``to_timestamp_ltz(timestamp[, format])``, a timestamp.
    """
    if format is None:
        return _call("to_timestamp_ltz", expr_of(timestamp))
    return _call("to_timestamp_ltz", expr_of(timestamp), expr_of(format))


def to_timestamp_ntz(timestamp: ColumnOrName, format: ColumnOrName | None = None) -> Column:  # noqa: A002
    """The text read as a timestamp without a time zone (its wall time).

    Parameters
    ----------
    timestamp : Column or str
        The texts (or dates and timestamps).
    format : Column or str, optional
        A constant datetime pattern (a ``str`` is a column name, as in PySpark: use ``lit``).

    Returns
    -------
    Column
        ``to_timestamp_ntz(timestamp[, format])``, a timestamp_ntz.
    """
    if format is None:
        return _call("to_timestamp_ntz", expr_of(timestamp))
    return _call("to_timestamp_ntz", expr_of(timestamp), expr_of(format))

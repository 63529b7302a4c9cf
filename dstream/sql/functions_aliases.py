"""PySpark 4's other names and small additions in ``dstream.sql.functions``: ``substr``, ``replace``...

What this module owns
---------------------
Builders PySpark 4 offers under a second name (``day`` for ``dayofmonth``, ``std`` for
``stddev``...) or as a small function of its own, each with PySpark's parameters and the
column name Spark gives it. SQL finds them by name, as it finds every public function.
"""

from __future__ import annotations

from .column import Column, expr_of, lit_expr
from .functions_scalar import _call

__all__ = [
    "substr",
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

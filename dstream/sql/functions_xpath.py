"""XPath functions of ``dstream.sql.functions``: ``xpath``, ``xpath_string``, ``xpath_int``...

What this module owns
---------------------
The public builders, with PySpark's names and parameters (``xml`` and ``path`` are
columns; the path a constant, usually ``lit('a/b/text()')``). The semantics are stated in
``expressions.xpath_functions``.

Examples
--------
>>> df = spark.createDataFrame([("<a><b>1</b><b>2</b></a>",)], ["x"])
>>> df.select(xpath("x", lit("a/b/text()")).alias("v"), xpath_int("x", lit("sum(a/b)")).alias("n")).first()
Row(v=['1', '2'], n=3)
"""

from __future__ import annotations

from .column import Column, expr_of

__all__ = ["xpath", "xpath_boolean", "xpath_double", "xpath_float", "xpath_int", "xpath_long", "xpath_number",
           "xpath_short", "xpath_string"]

ColumnOrName = Column | str


def _xpath(kind: str, xml: ColumnOrName, path: ColumnOrName) -> Column:
    from .expressions.xpath_functions import XPath  # noqa: PLC0415 - the expressions load when used

    return Column(XPath(kind, expr_of(xml), expr_of(path)))


def xpath(xml: ColumnOrName, path: ColumnOrName) -> Column:
    """The values of the nodes ``path`` selects in each XML string (``null`` for an element node).

    Parameters
    ----------
    xml : Column or str
        The XML strings.
    path : Column or str
        The XPath expression, a constant (``lit("a/b/text()")``).
    """
    return _xpath("xpath", xml, path)


def xpath_string(xml: ColumnOrName, path: ColumnOrName) -> Column:
    """The string value of what ``path`` selects first (``""`` when nothing)."""
    return _xpath("xpath_string", xml, path)


def xpath_boolean(xml: ColumnOrName, path: ColumnOrName) -> Column:
    """Whether ``path`` is true, or selects a node."""
    return _xpath("xpath_boolean", xml, path)


def xpath_int(xml: ColumnOrName, path: ColumnOrName) -> Column:
    """``path``'s number as an int (0 when it is no number, saturated past the range)."""
    return _xpath("xpath_int", xml, path)


def xpath_long(xml: ColumnOrName, path: ColumnOrName) -> Column:
    """``path``'s number as a bigint (0 when it is no number)."""
    return _xpath("xpath_long", xml, path)


def xpath_short(xml: ColumnOrName, path: ColumnOrName) -> Column:
    """``path``'s number as a smallint (0 when it is no number)."""
    return _xpath("xpath_short", xml, path)


def xpath_float(xml: ColumnOrName, path: ColumnOrName) -> Column:
    """``path``'s number as a float (NaN when it is no number)."""
    return _xpath("xpath_float", xml, path)


def xpath_double(xml: ColumnOrName, path: ColumnOrName) -> Column:
    """``path``'s number as a double (NaN when it is no number)."""
    return _xpath("xpath_double", xml, path)


def xpath_number(xml: ColumnOrName, path: ColumnOrName) -> Column:
    """``path``'s number as a double (NaN when it is no number); as :func:`xpath_double`."""
    return _xpath("xpath_number", xml, path)

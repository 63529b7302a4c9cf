"""Bit functions of ``dstream.sql.functions`` and ``nvl2``: ``shiftleft``, ``shiftright``,
``shiftrightunsigned`` (and their deprecated camelCase names), ``bitwise_not`` (and
``bitwiseNOT``), ``nvl2``.

What this module owns
---------------------
The public builders, with PySpark's names and parameters; the functions are the
registry's (``expressions.bit_functions``, where Java's shift semantics are stated).
"""

from __future__ import annotations

from .column import Column, expr_of, to_expr
from .expressions.base import Literal
from .functions_scalar import _call
from .types import IntegerType

__all__ = ["bitwiseNOT", "bitwise_not", "nvl2", "shiftLeft", "shiftRight", "shiftRightUnsigned", "shiftleft",
           "shiftright", "shiftrightunsigned"]

ColumnOrName = Column | str


def _shift(name: str, col: ColumnOrName, numBits: int | Column) -> Column:  # noqa: N803 - PySpark's name
    # SQL's `shiftleft(a, b)` and `a << b` may shift by a column; PySpark's API by an int.
    count = to_expr(numBits) if isinstance(numBits, Column) else Literal(numBits, IntegerType())
    return _call(name, expr_of(col), count)


def shiftleft(col: ColumnOrName, numBits: int) -> Column:  # noqa: N803 - PySpark's name
    """``col << numBits``, as Java shifts an ``int`` or a ``bigint`` (the count modulo the width).

    Parameters
    ----------
    col : Column or str
        The integers.
    numBits : int
        The number of bits.

    Examples
    --------
    >>> spark.createDataFrame([(21,)], "a int").select(shiftleft("a", 1).alias("r")).collect()
    [Row(r=42)]
    """
    return _shift("shiftleft", col, numBits)


def shiftright(col: ColumnOrName, numBits: int) -> Column:  # noqa: N803 - PySpark's name
    """``col >> numBits``: a signed shift (the sign bit is copied in).

    Parameters
    ----------
    col : Column or str
        The integers.
    numBits : int
        The number of bits.

    Examples
    --------
    >>> spark.createDataFrame([(-42,)], "a int").select(shiftright("a", 1).alias("r")).collect()
    [Row(r=-21)]
    """
    return _shift("shiftright", col, numBits)


def shiftrightunsigned(col: ColumnOrName, numBits: int) -> Column:  # noqa: N803 - PySpark's name
    """``col >>> numBits``: an unsigned shift (zeros are shifted in).

    Parameters
    ----------
    col : Column or str
        The integers.
    numBits : int
        The number of bits.

    Examples
    --------
    >>> spark.createDataFrame([(-42,)], "a int").select(shiftrightunsigned("a", 1).alias("r")).collect()
    [Row(r=2147483627)]
    """
    return _shift("shiftrightunsigned", col, numBits)


def shiftLeft(col: ColumnOrName, numBits: int) -> Column:  # noqa: N802, N803 - PySpark's deprecated name
    """Deprecated name of :func:`shiftleft`."""
    return shiftleft(col, numBits)


def shiftRight(col: ColumnOrName, numBits: int) -> Column:  # noqa: N802, N803 - PySpark's deprecated name
    """Deprecated name of :func:`shiftright`."""
    return shiftright(col, numBits)


def shiftRightUnsigned(col: ColumnOrName, numBits: int) -> Column:  # noqa: N802, N803 - PySpark's deprecated name
    """Deprecated name of :func:`shiftrightunsigned`."""
    return shiftrightunsigned(col, numBits)


def bitwise_not(col: ColumnOrName) -> Column:
    """Every bit of the integer flipped (``~col``).

    Parameters
    ----------
    col : Column or str
        The integers.

    Examples
    --------
    >>> spark.createDataFrame([(0,), (5,)], "a int").select(bitwise_not("a")).collect()
    [Row(~a=-1), Row(~a=-6)]
    """
    return _call("bitwise_not", expr_of(col))


def bitwiseNOT(col: ColumnOrName) -> Column:  # noqa: N802 - PySpark's deprecated name
    """Deprecated name of :func:`bitwise_not`."""
    return bitwise_not(col)


def nvl2(col1: ColumnOrName, col2: ColumnOrName, col3: ColumnOrName) -> Column:
    """``col2`` where ``col1`` is not null, else ``col3``.

    Parameters
    ----------
    col1, col2, col3 : Column or str
        The tested column and the two values.

    Examples
    --------
    >>> df = spark.createDataFrame([(None, 8, 6), (1, 8, 6)], "a int, b int, c int")
    >>> df.select(nvl2("a", "b", "c")).collect()
    [Row(nvl2(a, b, c)=6), Row(nvl2(a, b, c)=8)]
    """
    return _call("nvl2", expr_of(col1), expr_of(col2), expr_of(col3))

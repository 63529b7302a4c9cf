"""Math functions of ``dstream.sql.functions`` beyond the basic ones: trigonometry, hyperbolic
functions, ``cbrt``, ``expm1``, ``log1p``, ``signum``, ``rint``, ``atan2``, ``hypot``, ``pmod``,
``nanvl``, ``negate``, ``factorial``, ``e`` and ``pi``.

What this module owns
---------------------
The public builders, with PySpark's names and parameters; the functions themselves are
the registry's (``expressions.elementary_functions``) and the ``Pmod`` and negation
expressions. A number where PySpark takes ``ColumnOrName | float`` becomes a literal.
"""

from __future__ import annotations

from typing import Any

from .column import Column, expr_of
from .expressions.operators import Pmod, UnaryMinus
from .expressions.scalar_functions import ScalarFunction
from .functions_scalar import _call, _col_or_lit

__all__ = [
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "cbrt",
    "cos",
    "cosh",
    "cot",
    "csc",
    "degrees",
    "e",
    "expm1",
    "factorial",
    "hypot",
    "log1p",
    "nanvl",
    "negate",
    "negative",
    "pi",
    "pmod",
    "radians",
    "rint",
    "sec",
    "sign",
    "signum",
    "sin",
    "sinh",
    "tan",
    "tanh",
    "toDegrees",
    "toRadians",
]

ColumnOrName = Column | str


class _Negative(UnaryMinus):
    """``negative(a)``: ``- a`` under the name PySpark's ``negate`` gives it."""

    def sql(self) -> str:
        return f"negative({self.child.sql()})"


def sin(col: ColumnOrName) -> Column:
    """The sine (radians).

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return _call("SIN", expr_of(col))


def cos(col: ColumnOrName) -> Column:
    """The cosine (radians).

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return _call("COS", expr_of(col))


def tan(col: ColumnOrName) -> Column:
    """The tangent (radians).

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return _call("TAN", expr_of(col))


def cot(col: ColumnOrName) -> Column:
    """The cotangent (radians; infinite at 0).

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return _call("COT", expr_of(col))


def sec(col: ColumnOrName) -> Column:
    """The secant (radians).

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return _call("SEC", expr_of(col))


def csc(col: ColumnOrName) -> Column:
    """The cosecant (radians).

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return _call("CSC", expr_of(col))


def asin(col: ColumnOrName) -> Column:
    """The arc sine in radians (NaN outside [-1, 1]).

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return _call("ASIN", expr_of(col))


def acos(col: ColumnOrName) -> Column:
    """The arc cosine in radians (NaN outside [-1, 1]).

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return _call("ACOS", expr_of(col))


def atan(col: ColumnOrName) -> Column:
    """The arc tangent in radians.

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return _call("ATAN", expr_of(col))


def sinh(col: ColumnOrName) -> Column:
    """The hyperbolic sine.

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return _call("SINH", expr_of(col))


def cosh(col: ColumnOrName) -> Column:
    """The hyperbolic cosine.

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return _call("COSH", expr_of(col))


def tanh(col: ColumnOrName) -> Column:
    """The hyperbolic tangent.

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return _call("TANH", expr_of(col))


def asinh(col: ColumnOrName) -> Column:
    """The inverse hyperbolic sine.

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return _call("ASINH", expr_of(col))


def acosh(col: ColumnOrName) -> Column:
    """The inverse hyperbolic cosine (NaN below 1).

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return _call("ACOSH", expr_of(col))


def atanh(col: ColumnOrName) -> Column:
    """The inverse hyperbolic tangent (NaN outside [-1, 1]).

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return _call("ATANH", expr_of(col))


def degrees(col: ColumnOrName) -> Column:
    """Radians converted to degrees.

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return _call("DEGREES", expr_of(col))


def radians(col: ColumnOrName) -> Column:
    """Degrees converted to radians.

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return _call("RADIANS", expr_of(col))


def cbrt(col: ColumnOrName) -> Column:
    """The cube root.

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return _call("CBRT", expr_of(col))


def expm1(col: ColumnOrName) -> Column:
    """``exp(x) - 1``, exact for small ``x``.

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return _call("EXPM1", expr_of(col))


def log1p(col: ColumnOrName) -> Column:
    """``ln(1 + x)``, exact for small ``x`` (null at and below -1).

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return _call("LOG1P", expr_of(col))


def signum(col: ColumnOrName) -> Column:
    """-1.0, 0.0 or 1.0 as the value is negative, zero or positive.

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return _call("SIGNUM", expr_of(col))


def rint(col: ColumnOrName) -> Column:
    """The closest mathematical integer as a double (halves to even).

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return _call("rint", expr_of(col))


def sign(col: ColumnOrName) -> Column:
    """:func:`signum` by its other name (the column is named ``sign(...)``, as in Spark).

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return Column(ScalarFunction("SIGNUM", [expr_of(col)], "sign"))
toDegrees = degrees  # noqa: N816 - PySpark's deprecated alias
toRadians = radians  # noqa: N816 - PySpark's deprecated alias


def atan2(col1: Any, col2: Any) -> Column:
    """The angle in radians of the point ``(col2, col1)``: ``atan2(y, x)``.

    Parameters
    ----------
    col1 : Column, str or float
        The y coordinate.
    col2 : Column, str or float
        The x coordinate.
    """
    return _call("ATAN2", _col_or_lit(col1), _col_or_lit(col2))


def hypot(col1: Any, col2: Any) -> Column:
    """``sqrt(col1**2 + col2**2)`` without intermediate overflow.

    Parameters
    ----------
    col1, col2 : Column, str or float
        The legs.
    """
    return _call("HYPOT", _col_or_lit(col1), _col_or_lit(col2))


def pmod(dividend: Any, divisor: Any) -> Column:
    """The remainder of ``dividend`` by ``divisor`` made non-negative (by zero: an error under ANSI).

    Parameters
    ----------
    dividend, divisor : Column, str or number
        The operands.
    """
    return Column(Pmod(_col_or_lit(dividend), _col_or_lit(divisor)))


def nanvl(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """``col1`` unless it is NaN, else ``col2`` (both double).

    Parameters
    ----------
    col1, col2 : Column or str
        The values.
    """
    return _call("nanvl", expr_of(col1), expr_of(col2))


def negate(col: ColumnOrName) -> Column:
    """The value negated (``negative(x)``).

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return Column(_Negative(expr_of(col)))


negative = negate


def factorial(col: ColumnOrName) -> Column:
    """``n!`` as a bigint, null outside 0..20.

    Parameters
    ----------
    col : Column or str
        The integers.
    """
    return _call("factorial", expr_of(col))


def e() -> Column:
    """Euler's number, ``E()``."""
    return _call("E")


def pi() -> Column:
    """Pi, ``PI()``."""
    return _call("PI")

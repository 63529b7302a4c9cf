"""String and math functions of ``dstream.sql.functions``.

What this module owns
---------------------
The public builders of the registry's string and math functions (``lower``,
``regexp_extract``, ``round``, ``sqrt``...), with PySpark's names and parameters.
Column parameters take a ``Column`` or a column name; pattern and position parameters
take Python values, which become literals.

Invariants
----------
* Every builder returns a ``Column`` over
  :class:`~dstream.sql.expressions.scalar_functions.ScalarFunction`; types are checked
  when a DataFrame uses the column.
"""

from __future__ import annotations

from typing import Any

from .column import Column, expr_of, lit_expr, to_expr
from .expressions.base import Expression
from .expressions.scalar_functions import ScalarFunction

__all__ = [
    "array_distinct",
    "array_max",
    "array_min",
    "bround",
    "ceil",
    "concat",
    "concat_ws",
    "exp",
    "floor",
    "greatest",
    "initcap",
    "instr",
    "least",
    "length",
    "ln",
    "log",
    "log10",
    "log2",
    "lower",
    "lpad",
    "ltrim",
    "md5",
    "pow",
    "regexp_extract",
    "regexp_replace",
    "repeat",
    "reverse",
    "round",
    "rpad",
    "rtrim",
    "sha1",
    "sha2",
    "sort_array",
    "split",
    "sqrt",
    "substring",
    "trim",
    "upper",
    "ceiling",
    "power",
]

ColumnOrName = Column | str


def _call(name: str, *args: Expression) -> Column:
    return Column(ScalarFunction(name, list(args)))


def _col_or_lit(value: Any) -> Expression:
    return expr_of(value) if isinstance(value, str) else to_expr(value)


def lower(col: ColumnOrName) -> Column:
    """The string in lower case.

    Parameters
    ----------
    col : Column or str
        The strings.
    """
    return _call("lower", expr_of(col))


def upper(col: ColumnOrName) -> Column:
    """The string in upper case.

    Parameters
    ----------
    col : Column or str
        The strings.
    """
    return _call("upper", expr_of(col))


def initcap(col: ColumnOrName) -> Column:
    """Each word with its first letter in upper case.

    Parameters
    ----------
    col : Column or str
        The strings.
    """
    return _call("initcap", expr_of(col))


def reverse(col: ColumnOrName) -> Column:
    """The string reversed.

    Parameters
    ----------
    col : Column or str
        The strings.
    """
    return _call("reverse", expr_of(col))


def _trim(name: str, col: ColumnOrName, trim: Any) -> Column:
    if trim is None:
        return _call(name, expr_of(col))
    return _call(name, expr_of(col), lit_expr(trim) if isinstance(trim, str) else to_expr(trim))


def trim(col: ColumnOrName, trim: Any = None) -> Column:
    """The string without leading and trailing spaces (or characters of ``trim``).

    Parameters
    ----------
    col : Column or str
        The strings.
    trim : str, optional
        The characters to remove.
    """
    return _trim("trim", col, trim)


def ltrim(col: ColumnOrName, trim: Any = None) -> Column:
    """The string without leading spaces.

    Parameters
    ----------
    col : Column or str
        The strings.
    trim : str, optional
        The characters to remove.
    """
    return _trim("ltrim", col, trim)


def rtrim(col: ColumnOrName, trim: Any = None) -> Column:
    """The string without trailing spaces.

    Parameters
    ----------
    col : Column or str
        The strings.
    trim : str, optional
        The characters to remove.
    """
    return _trim("rtrim", col, trim)


def length(col: ColumnOrName) -> Column:
    """The number of characters (bytes for binary).

    Parameters
    ----------
    col : Column or str
        The strings.
    """
    return _call("length", expr_of(col))


def concat(*cols: ColumnOrName) -> Column:
    """The strings (or arrays) joined; null if any is null.

    Parameters
    ----------
    *cols : Column or str
        The values.
    """
    return _call("concat", *[expr_of(c) for c in cols])


def concat_ws(sep: str, *cols: ColumnOrName) -> Column:
    """The strings joined by ``sep``, nulls skipped.

    Parameters
    ----------
    sep : str
        The separator.
    *cols : Column or str
        The values (strings or arrays of strings).
    """
    return _call("concat_ws", lit_expr(sep), *[expr_of(c) for c in cols])


def split(str: ColumnOrName, pattern: str, limit: int = -1) -> Column:  # noqa: A002 - PySpark's name
    """The string split around matches of a regular expression.

    Parameters
    ----------
    str : Column or str
        The strings.
    pattern : str
        A Java regular expression.
    limit : int
        At most this many parts when > 0.
    """
    return _call("split", expr_of(str), lit_expr(pattern), lit_expr(limit))


def regexp_extract(str: ColumnOrName, pattern: str, idx: int) -> Column:  # noqa: A002 - PySpark's name
    """Group ``idx`` of the first match of ``pattern`` ("" if none).

    Parameters
    ----------
    str : Column or str
        The strings.
    pattern : str
        A Java regular expression.
    idx : int
        The group (0: the whole match).
    """
    return _call("regexp_extract", expr_of(str), lit_expr(pattern), lit_expr(idx))


def regexp_replace(string: ColumnOrName, pattern: Any, replacement: Any) -> Column:
    """Every match of ``pattern`` replaced (``$1`` refers to a group).

    Parameters
    ----------
    string : Column or str
        The strings.
    pattern : str or Column
        A Java regular expression.
    replacement : str or Column
        The replacement text.
    """
    return _call("regexp_replace", expr_of(string), to_expr(pattern), to_expr(replacement))


def substring(str: ColumnOrName, pos: Any, len: Any) -> Column:  # noqa: A002 - PySpark's names
    """``len`` characters from position ``pos`` (1-based; negative counts from the end).

    Parameters
    ----------
    str : Column or str
        The strings.
    pos : int or Column
        The start.
    len : int or Column
        The length.
    """
    return _call("substring", expr_of(str), _col_or_lit(pos), _col_or_lit(len))


def lpad(col: ColumnOrName, len: int, pad: str) -> Column:  # noqa: A002 - PySpark's name
    """The string left-padded with ``pad`` to ``len`` characters.

    Parameters
    ----------
    col : Column or str
        The strings.
    len : int
        The length.
    pad : str
        The padding.
    """
    return _call("lpad", expr_of(col), lit_expr(len), lit_expr(pad))


def rpad(col: ColumnOrName, len: int, pad: str) -> Column:  # noqa: A002 - PySpark's name
    """The string right-padded with ``pad`` to ``len`` characters.

    Parameters
    ----------
    col : Column or str
        The strings.
    len : int
        The length.
    pad : str
        The padding.
    """
    return _call("rpad", expr_of(col), lit_expr(len), lit_expr(pad))


def repeat(col: ColumnOrName, n: int) -> Column:
    """The string repeated ``n`` times.

    Parameters
    ----------
    col : Column or str
        The strings.
    n : int
        The count.
    """
    return _call("repeat", expr_of(col), lit_expr(n))


def instr(str: ColumnOrName, substr: str) -> Column:  # noqa: A002 - PySpark's name
    """The 1-based position of ``substr`` (0 if absent).

    Parameters
    ----------
    str : Column or str
        The strings.
    substr : str
        The text to find.
    """
    return _call("instr", expr_of(str), lit_expr(substr))


def md5(col: ColumnOrName) -> Column:
    """The MD5 digest as 32 hex digits.

    Parameters
    ----------
    col : Column or str
        The strings or bytes.
    """
    return _call("md5", expr_of(col))


def sha1(col: ColumnOrName) -> Column:
    """The SHA-1 digest as hex digits.

    Parameters
    ----------
    col : Column or str
        The strings or bytes.
    """
    return _call("sha1", expr_of(col))


def sha2(col: ColumnOrName, numBits: int) -> Column:  # noqa: N803 - PySpark's name
    """The SHA-2 digest (224, 256, 384 or 512 bits; 0 means 256) as hex digits.

    Parameters
    ----------
    col : Column or str
        The strings or bytes.
    numBits : int
        The digest size.
    """
    return _call("sha2", expr_of(col), lit_expr(numBits))


def sqrt(col: ColumnOrName) -> Column:
    """The square root.

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return _call("SQRT", expr_of(col))


def exp(col: ColumnOrName) -> Column:
    """``e`` raised to the value.

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return _call("EXP", expr_of(col))


def log(arg1: Any, arg2: Any = None) -> Column:
    """The natural logarithm of ``arg1``, or with ``arg2`` the logarithm of ``arg2`` in base ``arg1``.

    Parameters
    ----------
    arg1 : Column, str or float
        The number, or the base when ``arg2`` is given.
    arg2 : Column or str, optional
        The number.
    """
    if arg2 is None:
        return _call("ln", expr_of(arg1))
    return _call("LOG", lit_expr(float(arg1)) if isinstance(arg1, (int, float)) else to_expr(arg1), expr_of(arg2))


def ln(col: ColumnOrName) -> Column:
    """The natural logarithm (null for values <= 0).

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return _call("ln", expr_of(col))


def log10(col: ColumnOrName) -> Column:
    """The base-10 logarithm.

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return _call("LOG10", expr_of(col))


def log2(col: ColumnOrName) -> Column:
    """The base-2 logarithm.

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return _call("LOG2", expr_of(col))


def pow(col1: Any, col2: Any) -> Column:  # noqa: A001 - PySpark's name
    """``col1`` raised to ``col2`` (double).

    Parameters
    ----------
    col1 : Column, str or float
        The base.
    col2 : Column, str or float
        The exponent.
    """
    return _call("POWER", _col_or_lit(col1), _col_or_lit(col2))


power = pow


def floor(col: ColumnOrName, scale: Column | int | None = None) -> Column:
    """The largest integer not above the value (bigint), or the largest decimal of ``scale`` digits.

    Parameters
    ----------
    col : Column or str
        The numbers.
    scale : Column or int, optional
        A constant number of decimals (negative: tens, hundreds...); the result is then a decimal.
    """
    if scale is None:
        return _call("FLOOR", expr_of(col))
    return _call("FLOOR", expr_of(col), to_expr(scale))


def ceil(col: ColumnOrName, scale: Column | int | None = None) -> Column:
    """The smallest integer not below the value (bigint), or the smallest decimal of ``scale`` digits.

    Parameters
    ----------
    col : Column or str
        The numbers.
    scale : Column or int, optional
        A constant number of decimals (negative: tens, hundreds...); the result is then a decimal.
    """
    if scale is None:
        return _call("CEIL", expr_of(col))
    return _call("CEIL", expr_of(col), to_expr(scale))


def ceiling(col: ColumnOrName, scale: Column | int | None = None) -> Column:
    """:func:`ceil` by its other name (the column is named ``ceiling(...)``, as in Spark).

    Parameters
    ----------
    col : Column or str
        The numbers.
    scale : Column or int, optional
        A constant number of decimals.
    """
    args = [expr_of(col)] + ([] if scale is None else [to_expr(scale)])
    return Column(ScalarFunction("CEIL", args, "ceiling"))


def round(col: ColumnOrName, scale: int = 0) -> Column:  # noqa: A001 - PySpark's name
    """The value rounded to ``scale`` decimals, half away from zero.

    Parameters
    ----------
    col : Column or str
        The numbers.
    scale : int
        The number of decimals (negative: tens, hundreds...).
    """
    return _call("round", expr_of(col), lit_expr(scale))


def bround(col: ColumnOrName, scale: int = 0) -> Column:
    """The value rounded to ``scale`` decimals, half to even.

    Parameters
    ----------
    col : Column or str
        The numbers.
    scale : int
        The number of decimals.
    """
    return _call("bround", expr_of(col), lit_expr(scale))


def greatest(*cols: ColumnOrName) -> Column:
    """The largest non-null value of the arguments.

    Parameters
    ----------
    *cols : Column or str
        At least two columns.
    """
    return _call("greatest", *[expr_of(c) for c in cols])


def least(*cols: ColumnOrName) -> Column:
    """The smallest non-null value of the arguments.

    Parameters
    ----------
    *cols : Column or str
        At least two columns.
    """
    return _call("least", *[expr_of(c) for c in cols])


def sort_array(col: ColumnOrName, asc: bool = True) -> Column:
    """The array sorted, nulls first when ascending and last when descending (NaN after every number).

    Parameters
    ----------
    col : Column or str
        Arrays of atomic values.
    asc : bool, optional
        Ascending (default) or descending.
    """
    return _call("sort_array", expr_of(col), lit_expr(asc))


def array_distinct(col: ColumnOrName) -> Column:
    """The array without repeated values, first occurrences in order (one null kept).

    Parameters
    ----------
    col : Column or str
        Arrays of atomic values.
    """
    return _call("array_distinct", expr_of(col))


def array_max(col: ColumnOrName) -> Column:
    """The largest non-null element (null for an empty array).

    Parameters
    ----------
    col : Column or str
        Arrays of atomic values.
    """
    return _call("array_max", expr_of(col))


def array_min(col: ColumnOrName) -> Column:
    """The smallest non-null element (null for an empty array).

    Parameters
    ----------
    col : Column or str
        Arrays of atomic values.
    """
    return _call("array_min", expr_of(col))

"""Pattern functions of ``dstream.sql.functions`` (PySpark 3.5's): ``rlike``, ``regexp``,
``regexp_like``, ``like``, ``ilike``, ``contains``, ``startswith``, ``endswith``,
``regexp_count``, ``regexp_extract_all``, ``regexp_substr`` and ``regexp_instr``.

What this module owns
---------------------
The public builders, with PySpark's names and parameters: where PySpark takes
``ColumnOrName`` a ``str`` is a column name, so a pattern is given as ``lit(...)``, as
in PySpark. The predicates are the Column methods' expressions; the others are the
registry's (``expressions.regex_functions``, where their semantics are stated).

Examples
--------
>>> df = spark.createDataFrame([("a1b22c333",)], "s string")
>>> df.select(regexp_count("s", lit(r"\\d+")).alias("n"), regexp_extract_all("s", lit(r"(\\d+)")).alias("all"),
...           regexp_like("s", lit("^a")).alias("a")).collect()
[Row(n=3, all=['1', '22', '333'], a=True)]
"""

from __future__ import annotations

from .column import Column, expr_of, to_expr
from .errors import PySparkTypeError
from .expressions.base import Literal
from .expressions.predicates import Contains, EndsWith, ILike, Like, RLike, StartsWith
from .functions_scalar import _call

__all__ = ["contains", "endswith", "ilike", "like", "regexp", "regexp_count", "regexp_extract_all", "regexp_instr",
           "regexp_like", "regexp_substr", "rlike", "startswith"]

ColumnOrName = Column | str


def rlike(str: ColumnOrName, regexp: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    """True where the regular expression ``regexp`` matches somewhere in ``str``."""
    return Column(RLike(expr_of(str), expr_of(regexp)))


def regexp(str: ColumnOrName, regexp: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    """:func:`rlike` under the name ``regexp``."""
    return Column(RLike(expr_of(str), expr_of(regexp), "REGEXP"))


def regexp_like(str: ColumnOrName, regexp: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    """:func:`rlike` under the name ``regexp_like``."""
    return Column(RLike(expr_of(str), expr_of(regexp), "REGEXP_LIKE"))


def _escape(escapeChar: Column | None) -> str:  # noqa: N803 - PySpark's name
    if escapeChar is None:
        return "\\"
    value = escapeChar.expr.value if isinstance(escapeChar.expr, Literal) else None
    if not isinstance(value, str) or len(value) != 1:
        raise PySparkTypeError(f"Argument `escapeChar` should be a one-character literal Column (lit('/')), got "
                               f"{escapeChar!r}.", "NOT_STR", {"arg_name": "escapeChar"})
    return value


def like(str: ColumnOrName, pattern: ColumnOrName, escapeChar: Column | None = None) -> Column:  # noqa: A002, N803
    """SQL ``LIKE``: ``_`` one character, ``%`` any run; ``escapeChar`` (default ``\\``) quotes the next one."""
    return Column(Like(expr_of(str), expr_of(pattern), _escape(escapeChar)))


def ilike(str: ColumnOrName, pattern: ColumnOrName, escapeChar: Column | None = None) -> Column:  # noqa: A002, N803
    """:func:`like` ignoring case."""
    return Column(ILike(expr_of(str), expr_of(pattern), _escape(escapeChar)))


def contains(left: ColumnOrName, right: ColumnOrName) -> Column:
    """True where ``left`` contains ``right``."""
    return Column(Contains(expr_of(left), expr_of(right)))


def startswith(str: ColumnOrName, prefix: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    """True where ``str`` starts with ``prefix``."""
    return Column(StartsWith(expr_of(str), expr_of(prefix)))


def endswith(str: ColumnOrName, suffix: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    """True where ``str`` ends with ``suffix``."""
    return Column(EndsWith(expr_of(str), expr_of(suffix)))


def regexp_count(str: ColumnOrName, regexp: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    """The number of matches of ``regexp`` in ``str``.

    Parameters
    ----------
    str : Column or str
        The strings.
    regexp : Column or str
        The pattern (a literal Column: ``lit(r"\\d+")``).
    """
    return _call("regexp_count", expr_of(str), expr_of(regexp))


def regexp_extract_all(str: ColumnOrName, regexp: ColumnOrName,  # noqa: A002 - PySpark's name
                       idx: int | Column | None = None) -> Column:
    """Group ``idx`` (default 1) of every match of ``regexp``, as an array of strings.

    Parameters
    ----------
    str : Column or str
        The strings.
    regexp : Column or str
        The pattern (a literal Column).
    idx : int or Column, optional
        The group (0: the whole match); at most the pattern's number of groups.
    """
    args = [expr_of(str), expr_of(regexp)]
    if idx is not None:
        args.append(to_expr(idx))
    return _call("regexp_extract_all", *args)


def regexp_substr(str: ColumnOrName, regexp: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    """The first substring that matches ``regexp`` (null when none does)."""
    return _call("regexp_substr", expr_of(str), expr_of(regexp))


def regexp_instr(str: ColumnOrName, regexp: ColumnOrName,  # noqa: A002 - PySpark's name
                 idx: int | Column | None = None) -> Column:
    """The 1-based position where group ``idx`` (default 0: the match) of the first match starts; 0 if none."""
    args = [expr_of(str), expr_of(regexp)]
    if idx is not None:
        args.append(to_expr(idx))
    return _call("regexp_instr", *args)

"""Functions of ``dstream.sql.functions`` added in PySpark 3.4 to 4.0 for strings, URLs, values
and the session: ``position``, ``char``, ``chr``, ``sha``, ``luhn_check``, ``mask``,
``url_encode``, ``url_decode``, ``try_url_decode``, ``parse_url``, ``typeof``, ``positive``,
``nullifzero``, ``zeroifnull``, ``current_database``, ``current_schema``, ``current_catalog``,
``current_user``, ``user``, ``session_user``, ``version``, ``input_file_name``,
``input_file_block_start``, ``input_file_block_length``, ``to_number``, ``try_to_number``, ``to_char``
and ``to_varchar``.

What this module owns
---------------------
The public builders, with PySpark's names and parameters; the functions are the
registry's (``expressions.text_extra_functions``, ``expressions.value_functions`` and
``expressions.string_functions`` for ``sha``, where their semantics are stated).
"""

from __future__ import annotations

from .column import Column, expr_of, lit_expr
from .expressions.scalar_functions import ScalarFunction
from .expressions.to_char import ToCharacter
from .functions_scalar import _call

__all__ = [
    "char", "chr", "current_catalog", "current_database", "current_schema", "current_user",
    "input_file_block_length", "input_file_block_start", "input_file_name", "luhn_check", "mask", "nullifzero",
    "parse_url", "position", "positive", "session_user", "sha", "to_char", "to_number", "to_varchar", "try_to_number",
    "try_url_decode",
    "typeof", "url_decode", "url_encode", "user", "version", "zeroifnull",
]

ColumnOrName = Column | str


def position(substr: ColumnOrName, str: ColumnOrName, start: ColumnOrName | None = None) -> Column:  # noqa: A002
    """The 1-based position of ``substr`` in ``str`` from ``start`` on (0 if absent).

    Parameters
    ----------
    substr, str : Column or str
        The text to find and the strings (column names, or Columns such as ``lit("b")``).
    start : Column or str, optional
        Where to start (1 by default).

    Examples
    --------
    >>> df = spark.createDataFrame([("bar", "foobarbar")], "s string, t string")
    >>> df.select(position("s", "t", lit(5)).alias("p")).first().p
    7
    """
    args = [expr_of(substr), expr_of(str)] + ([] if start is None else [expr_of(start)])
    return _call("position", *args)


def chr(col: ColumnOrName) -> Column:  # noqa: A001 - PySpark's name
    """The character of code ``col mod 256`` (``""`` for a negative code).

    Parameters
    ----------
    col : Column or str
        The codes.
    """
    return _call("chr", expr_of(col))


def char(col: ColumnOrName) -> Column:
    """:func:`chr` by its other name (the column is named ``char(...)``, as in Spark)."""
    return Column(ScalarFunction("chr", [expr_of(col)], "char"))


def sha(col: ColumnOrName) -> Column:
    """The SHA-1 digest of the value as 40 hex digits (``sha1``).

    Parameters
    ----------
    col : Column or str
        The strings or binaries.
    """
    return _call("sha", expr_of(col))


def luhn_check(str: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    """Whether the string of digits passes the Luhn checksum (card numbers).

    Parameters
    ----------
    str : Column or str
        The strings.
    """
    return _call("luhn_check", expr_of(str))


def mask(col: ColumnOrName, upperChar: str | None = "X", lowerChar: str | None = "x",  # noqa: N803
         digitChar: str | None = "n", otherChar: str | None = None) -> Column:  # noqa: N803 - PySpark's names
    """The string with upper-case letters, lower-case letters and digits replaced.

    Parameters
    ----------
    col : Column or str
        The strings.
    upperChar, lowerChar, digitChar : str or None
        The replacements (``X``, ``x``, ``n``); ``None`` keeps that kind of character.
    otherChar : str or None
        The replacement of every other character (kept by default).

    Examples
    --------
    >>> spark.createDataFrame([("AbCD123-@$#",)], "s string").select(mask("s").alias("m")).first().m
    'XxXXnnn-@$#'
    """
    return _call("mask", expr_of(col), lit_expr(upperChar), lit_expr(lowerChar), lit_expr(digitChar),
                 lit_expr(otherChar))


def url_encode(str: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    """The string in ``application/x-www-form-urlencoded`` form (UTF-8; a space is ``+``).

    Parameters
    ----------
    str : Column or str
        The strings.
    """
    return _call("url_encode", expr_of(str))


def url_decode(str: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    """The string decoded from ``application/x-www-form-urlencoded`` form; a malformed escape
    raises ``CANNOT_DECODE_URL``.

    Parameters
    ----------
    str : Column or str
        The strings.
    """
    return _call("url_decode", expr_of(str))


def try_url_decode(str: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    """:func:`url_decode`, null where the string does not decode.

    Parameters
    ----------
    str : Column or str
        The strings.
    """
    return _call("try_url_decode", expr_of(str))


def parse_url(url: ColumnOrName, partToExtract: ColumnOrName,  # noqa: N803 - PySpark's names
              key: ColumnOrName | None = None) -> Column:
    """A part of the URL: ``HOST``, ``PATH``, ``QUERY``, ``REF``, ``PROTOCOL``, ``FILE``, ``AUTHORITY``
    or ``USERINFO`` (``QUERY`` with ``key``: that parameter's value); null when absent.

    Parameters
    ----------
    url : Column or str
        The URLs.
    partToExtract : Column or str
        The part's name (a Column such as ``lit("HOST")``, or a column of names).
    key : Column or str, optional
        The query parameter.

    Examples
    --------
    >>> df = spark.createDataFrame([("http://spark.apache.org/path?query=1", "QUERY", "query")],
    ...                            "u string, p string, k string")
    >>> df.select(parse_url("u", "p", "k").alias("v")).first().v
    '1'
    """
    args = [expr_of(url), expr_of(partToExtract)] + ([] if key is None else [expr_of(key)])
    return _call("parse_url", *args)


def typeof(col: ColumnOrName) -> Column:
    """The simple string of the value's type (``int``, ``array<bigint>``...).

    Parameters
    ----------
    col : Column or str
        The values.
    """
    return _call("typeof", expr_of(col))


def positive(col: ColumnOrName) -> Column:
    """The number itself (unary plus).

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return _call("positive", expr_of(col))


def nullifzero(col: ColumnOrName) -> Column:
    """Null where the number is 0, else the number.

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return _call("nullifzero", expr_of(col))


def zeroifnull(col: ColumnOrName) -> Column:
    """0 where the number is null, else the number.

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return _call("zeroifnull", expr_of(col))


def current_database() -> Column:
    """The current database: ``default`` (named ``current_schema()``, as Spark names it)."""
    return Column(ScalarFunction("current_database", [], "current_schema"))


def current_schema() -> Column:
    """The current database (:func:`current_database`)."""
    return _call("current_schema")


def current_catalog() -> Column:
    """The current catalog: ``spark_catalog``."""
    return _call("current_catalog")


def current_user() -> Column:
    """The user running the application (``SPARK_USER``, else the login name)."""
    return _call("current_user")


def user() -> Column:
    """:func:`current_user` by its other name."""
    return _call("user")


def session_user() -> Column:
    """:func:`current_user` by its other name."""
    return _call("session_user")


def version() -> Column:
    """The engine's version and build, as one string."""
    return _call("version")


def input_file_name() -> Column:
    """The ``file://`` URI of the file the row was read from (``""`` when it came from no file
    or after a shuffle).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "x.txt")
    >>> with open(path, "w") as f:
    ...     _ = f.write("a\\n")
    >>> spark.read.text(path).select(input_file_name().alias("f")).first().f.endswith("/x.txt")
    True
    """
    return _call("input_file_name")


def input_file_block_start() -> Column:
    """The first byte of the file split the row was read from (-1 when it came from no file)."""
    return _call("input_file_block_start")


def input_file_block_length() -> Column:
    """The bytes of the file split the row was read from (-1 when it came from no file)."""
    return _call("input_file_block_length")


def to_number(col: ColumnOrName, format: Column | str) -> Column:  # noqa: A002 - PySpark's name
    """The text read as a decimal by a number format (``'999.99'``, ``'$99,999.00'``, ``'S999'``...);
    text the format does not match is an error.

    Parameters
    ----------
    col : Column or str
        The strings.
    format : Column or str
        The format, a literal (``lit('99.99')``).

    Examples
    --------
    >>> spark.createDataFrame([("$78.12",)], "e string").select(to_number("e", lit("$99.99")).alias("r")).first().r
    Decimal('78.12')
    """
    return _call("to_number", expr_of(col), lit_expr(format) if isinstance(format, str) else expr_of(format))


def try_to_number(col: ColumnOrName, format: Column | str) -> Column:  # noqa: A002 - PySpark's name
    """:func:`to_number`, null where the format does not match the text."""
    return _call("try_to_number", expr_of(col), lit_expr(format) if isinstance(format, str) else expr_of(format))


def to_char(col: ColumnOrName, format: Column | str) -> Column:  # noqa: A002 - PySpark's name
    """The value as text: a number by a number format (``'99,999.9'``, ``'$999.99'``, ``'S999'``,
    ``'999PR'``...), a date or timestamp by a datetime pattern (as :func:`date_format`), binary
    by ``'base64'``, ``'hex'`` or ``'utf-8'``.

    Parameters
    ----------
    col : Column or str
        The values.
    format : Column or str
        The format, a literal (``lit('99.99')``).

    Examples
    --------
    >>> spark.range(1).select(to_char(lit(12454.8), lit("99,999.9")).alias("r")).first().r
    '12,454.8'
    """
    fmt = lit_expr(format) if isinstance(format, str) else expr_of(format)
    return Column(ToCharacter([expr_of(col), fmt]))


def to_varchar(col: ColumnOrName, format: Column | str) -> Column:  # noqa: A002 - PySpark's name
    """:func:`to_char` under its other name."""
    fmt = lit_expr(format) if isinstance(format, str) else expr_of(format)
    return Column(ToCharacter([expr_of(col), fmt], "to_varchar"))

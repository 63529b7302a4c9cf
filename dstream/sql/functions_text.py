"""More string functions of ``dstream.sql.functions``: ``translate``, ``substring_index``,
``left``, ``right``, ``split_part``, ``locate``, ``btrim``, ``ascii``, ``octet_length``,
``bit_length``, ``base64``, ``unbase64``, ``hex``, ``unhex``, ``crc32``, ``levenshtein``,
``soundex``, ``format_number``, ``format_string``, ``printf``, ``lcase``, ``ucase``,
``char_length``, ``character_length``, ``hash``, ``xxhash64``.

What this module owns
---------------------
The public builders, with PySpark's names and parameters (where PySpark takes
``ColumnOrName`` a ``str`` is a column name; where it takes ``str``/``int`` the value
becomes a literal). The functions are the registry's (``expressions.text_functions``;
``format_string`` and ``printf``: ``expressions.java_format``).
"""

from __future__ import annotations

from typing import Any

from .column import Column, expr_of, lit_expr
from .functions_scalar import _call, _col_or_lit

__all__ = [
    "ascii",
    "base64",
    "bit_length",
    "btrim",
    "char_length",
    "character_length",
    "crc32",
    "format_number",
    "format_string",
    "hash",
    "xxhash64",
    "hex",
    "lcase",
    "left",
    "levenshtein",
    "locate",
    "octet_length",
    "printf",
    "right",
    "sentences",
    "soundex",
    "split_part",
    "substring_index",
    "translate",
    "ucase",
    "unbase64",
    "unhex",
]

ColumnOrName = Column | str


def _unary(name: str, col: ColumnOrName) -> Column:
    return _call(name, expr_of(col))


def translate(srcCol: ColumnOrName, matching: str, replace: str) -> Column:  # noqa: N803 - PySpark's names
    """Each character of ``matching`` replaced by the one at the same place in ``replace`` (dropped
    when ``replace`` is shorter).

    Parameters
    ----------
    srcCol : Column or str
        The strings.
    matching, replace : str
        The characters to replace, and their replacements.
    """
    return _call("translate", expr_of(srcCol), lit_expr(matching), lit_expr(replace))


def substring_index(str: ColumnOrName, delim: str, count: int) -> Column:  # noqa: A002 - PySpark's name
    """The text before the ``count``-th ``delim`` (after it, counting from the end, when negative).

    Parameters
    ----------
    str : Column or str
        The strings.
    delim : str
        The delimiter.
    count : int
        Which delimiter.
    """
    return _call("substring_index", expr_of(str), lit_expr(delim), lit_expr(count))


def left(str: ColumnOrName, len: Any) -> Column:  # noqa: A002 - PySpark's names
    """The first ``len`` characters.

    Parameters
    ----------
    str : Column or str
        The strings.
    len : int or Column
        How many characters (a constant).
    """
    return _call("left", expr_of(str), _col_or_lit(len))


def right(str: ColumnOrName, len: Any) -> Column:  # noqa: A002 - PySpark's names
    """The last ``len`` characters.

    Parameters
    ----------
    str : Column or str
        The strings.
    len : int or Column
        How many characters (a constant).
    """
    return _call("right", expr_of(str), _col_or_lit(len))


def split_part(src: ColumnOrName, delimiter: ColumnOrName, partNum: ColumnOrName) -> Column:  # noqa: N803
    """The ``partNum``-th piece of the string split at ``delimiter`` (1-based; negative from the end).

    Parameters
    ----------
    src : Column or str
        The strings.
    delimiter : Column or str
        The delimiter (a constant, e.g. ``lit(",")``).
    partNum : Column or str
        The piece (a constant, e.g. ``lit(2)``).
    """
    return _call("split_part", expr_of(src), expr_of(delimiter), expr_of(partNum))


def locate(substr: str, str: ColumnOrName, pos: int = 1) -> Column:  # noqa: A002 - PySpark's name
    """The 1-based position of ``substr`` from character ``pos`` on (0 if absent).

    Parameters
    ----------
    substr : str
        The text to find.
    str : Column or str
        The strings.
    pos : int
        Where to start.
    """
    return _call("locate", lit_expr(substr), expr_of(str), lit_expr(pos))


def btrim(str: ColumnOrName, trim: ColumnOrName | None = None) -> Column:  # noqa: A002 - PySpark's name
    """The string without leading and trailing spaces (or characters of ``trim``).

    Parameters
    ----------
    str : Column or str
        The strings.
    trim : Column or str, optional
        The characters to remove (a constant, e.g. ``lit("xy")``).
    """
    return _call("btrim", expr_of(str)) if trim is None else _call("btrim", expr_of(str), expr_of(trim))


def ascii(col: ColumnOrName) -> Column:  # noqa: A001 - PySpark's name
    """The code point of the first character (0 for an empty string).

    Parameters
    ----------
    col : Column or str
        The strings.
    """
    return _unary("ascii", col)


def octet_length(col: ColumnOrName) -> Column:
    """The length in bytes (UTF-8 for strings).

    Parameters
    ----------
    col : Column or str
        The strings or binaries.
    """
    return _unary("octet_length", col)


def bit_length(col: ColumnOrName) -> Column:
    """The length in bits (UTF-8 for strings).

    Parameters
    ----------
    col : Column or str
        The strings or binaries.
    """
    return _unary("bit_length", col)


def base64(col: ColumnOrName) -> Column:
    """The base64 text of the bytes (of a string, its UTF-8 bytes).

    Parameters
    ----------
    col : Column or str
        The binaries or strings.
    """
    return _unary("base64", col)


def unbase64(col: ColumnOrName) -> Column:
    """The bytes of base64 text (binary).

    Parameters
    ----------
    col : Column or str
        The base64 strings.
    """
    return _unary("unbase64", col)


def hex(col: ColumnOrName) -> Column:  # noqa: A001 - PySpark's name
    """Upper-case hex of an integer (its 64-bit two's complement) or of bytes.

    Parameters
    ----------
    col : Column or str
        The integers, strings or binaries.
    """
    return _unary("hex", col)


def unhex(col: ColumnOrName) -> Column:
    """The bytes of hex text (binary; null for anything but hex digits).

    Parameters
    ----------
    col : Column or str
        The hex strings.
    """
    return _unary("unhex", col)


def crc32(col: ColumnOrName) -> Column:
    """The CRC-32 of the bytes, as a bigint.

    Parameters
    ----------
    col : Column or str
        The binaries or strings.
    """
    return _unary("crc32", col)


def levenshtein(left: ColumnOrName, right: ColumnOrName, threshold: int | None = None) -> Column:
    """The Levenshtein distance of two strings (-1 past ``threshold``, if given).

    Parameters
    ----------
    left, right : Column or str
        The strings.
    threshold : int, optional
        The largest distance worth reporting.
    """
    args = [expr_of(left), expr_of(right)] + ([] if threshold is None else [lit_expr(threshold)])
    return _call("levenshtein", *args)


def sentences(string: ColumnOrName, language: Column | str | None = None,
              country: Column | str | None = None) -> Column:
    """The text split into sentences, each an array of its words (Java's ``BreakIterator`` rules, as Spark).

    Parameters
    ----------
    string : Column or str
        The texts.
    language, country : Column or str, optional
        The locale, accepted as in PySpark; the splitting rules are the same for every locale.

    Examples
    --------
    >>> spark.sql("SELECT 'Hi there! Good morning.' AS s").select(sentences("s")).first()[0]
    [['Hi', 'there'], ['Good', 'morning']]
    """
    return _call("sentences", expr_of(string), lit_expr("") if language is None else expr_of(language),
                 lit_expr("") if country is None else expr_of(country))


def soundex(col: ColumnOrName) -> Column:
    """The Soundex code of the string.

    Parameters
    ----------
    col : Column or str
        The strings.
    """
    return _unary("soundex", col)


def format_number(col: ColumnOrName, d: int) -> Column:
    """The number with ``d`` decimals (half to even) and thousands separated by ``,``.

    Parameters
    ----------
    col : Column or str
        The numbers.
    d : int
        The decimals (negative: null).
    """
    return _call("format_number", expr_of(col), lit_expr(d))


def format_string(format: str, *cols: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    """The columns formatted printf-style, as Java's ``String.format`` does.

    Parameters
    ----------
    format : str
        The format (``%s``, ``%d``, ``%5.2f``, ``%x``, ``%2$s``...).
    *cols : Column or str
        The values, in the order the format takes them.

    Examples
    --------
    >>> df = spark.createDataFrame([(5, "hello", 2.675)], "a int, b string, c double")
    >>> df.select(format_string("%d %s %.2f", df.a, df.b, df.c).alias("v")).collect()
    [Row(v='5 hello 2.68')]
    """
    return _call("format_string", lit_expr(format), *[expr_of(c) for c in cols])


def printf(format: ColumnOrName, *cols: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    """:func:`format_string` whose format is a column (or a column name).

    Parameters
    ----------
    format : Column or str
        The formats.
    *cols : Column or str
        The values.

    Examples
    --------
    >>> df = spark.createDataFrame([("%05d|%-4s|", 42, "ab")], "f string, n int, s string")
    >>> df.select(printf("f", "n", "s").alias("v")).collect()
    [Row(v='00042|ab  |')]
    """
    return _call("printf", expr_of(format), *[expr_of(c) for c in cols])


def lcase(str: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    """:func:`lower` under its SQL name (the column is named ``lcase(...)``).

    Examples
    --------
    >>> spark.range(1).select(lcase(lit("Spark"))).collect()
    [Row(lcase(Spark)='spark')]
    """
    return _call("lcase", expr_of(str))


def ucase(str: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    """:func:`upper` under its SQL name (the column is named ``ucase(...)``).

    Examples
    --------
    >>> spark.range(1).select(ucase(lit("Spark"))).collect()
    [Row(ucase(Spark)='SPARK')]
    """
    return _call("ucase", expr_of(str))


def char_length(str: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    """The number of characters (bytes for binary), named ``char_length(...)``.

    Examples
    --------
    >>> spark.range(1).select(char_length(lit("SparkSQL"))).collect()
    [Row(char_length(SparkSQL)=8)]
    """
    return _call("char_length", expr_of(str))


def character_length(str: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    """The number of characters (bytes for binary), named ``character_length(...)``.

    Examples
    --------
    >>> spark.range(1).select(character_length(lit("SparkSQL"))).collect()
    [Row(character_length(SparkSQL)=8)]
    """
    return _call("character_length", expr_of(str))


def hash(*cols: ColumnOrName) -> Column:  # noqa: A001 - PySpark's name
    """Spark's 32-bit Murmur3 hash of the columns (seed 42), the same int Spark computes.

    Parameters
    ----------
    *cols : Column or str
        One or more columns; nulls are skipped.

    Examples
    --------
    >>> df = spark.createDataFrame([('ABC', 'DEF')], ['c1', 'c2'])
    >>> df.select(hash('c1').alias('h1'), hash('c1', 'c2').alias('h2')).collect()
    [Row(h1=-757602832, h2=599895104)]
    """
    return _call("hash", *[expr_of(c) for c in cols])


def xxhash64(*cols: ColumnOrName) -> Column:
    """Spark's 64-bit xxHash of the columns (seed 42), the same long Spark computes.

    Parameters
    ----------
    *cols : Column or str
        One or more columns; nulls are skipped.

    Examples
    --------
    >>> df = spark.createDataFrame([('ABC', 'DEF')], ['c1', 'c2'])
    >>> df.select(xxhash64('c1').alias('h1'), xxhash64('c1', 'c2').alias('h2')).collect()
    [Row(h1=4105715581806190027, h2=3233247871021311208)]
    """
    return _call("xxhash64", *[expr_of(c) for c in cols])

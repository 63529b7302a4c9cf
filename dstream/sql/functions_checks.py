"""Functions of ``dstream.sql.functions`` that fail on purpose, tolerate bad input or call by
name: ``raise_error``, ``assert_true``, ``to_binary``, ``try_to_binary``, ``try_parse_url``, the AES
functions ``aes_encrypt``, ``aes_decrypt`` and ``try_aes_decrypt``,
``try_make_timestamp_ltz``, ``try_make_timestamp_ntz``, ``call_udf`` and the UTF-8 checks
``is_valid_utf8``, ``make_valid_utf8``, ``validate_utf8`` and ``try_validate_utf8``.

What this module owns
---------------------
The public builders, with PySpark 4.0's names and parameters; the functions are the
registry's (``expressions.checked_functions``, ``expressions.make_timestamp``,
``expressions.aes_functions`` and
``expressions.text_extra_functions``, where their semantics are stated).
"""

from __future__ import annotations

from .column import Column, expr_of, lit_expr
from .expressions.base import Expression, Literal
from .expressions.checked_functions import default_assert_message
from .functions_scalar import _call

__all__ = ["aes_decrypt", "aes_encrypt", "assert_true", "call_udf", "is_valid_utf8", "make_valid_utf8", "raise_error",
           "to_binary", "try_aes_decrypt", "try_make_timestamp_ltz", "try_make_timestamp_ntz", "try_parse_url",
           "try_to_binary", "try_validate_utf8", "validate_utf8"]

ColumnOrName = Column | str


def _text(value: Column | str) -> Expression:
    """A message or format argument: a ``str`` is the text itself, as PySpark takes it."""
    return lit_expr(value) if isinstance(value, str) else expr_of(value)


def raise_error(errMsg: Column | str) -> Column:  # noqa: N803 - PySpark's name
    """Fail the query with ``errMsg`` (``USER_RAISED_EXCEPTION``) for any row this is evaluated on.

    Parameters
    ----------
    errMsg : Column or str
        The message (a ``str`` is the message itself).

    Examples
    --------
    >>> from dstream.sql.functions import col, when
    >>> spark.range(3).select(when(col("id") > 5, raise_error("too big")).otherwise(col("id")).alias("v")).count()
    3
    """
    return _call("raise_error", _text(errMsg))


def assert_true(col: ColumnOrName, errMsg: Column | str | None = None) -> Column:  # noqa: N803 - PySpark's name
    """Null where ``col`` is true; elsewhere (false or null) fail as :func:`raise_error`.

    Parameters
    ----------
    col : Column or str
        The condition.
    errMsg : Column or str, optional
        The message; ``'<condition>' is not true!`` by default.
    """
    condition = expr_of(col)
    if errMsg is None:
        shown = None if isinstance(condition, Literal) and condition.value is None else condition.sql()
        message = lit_expr(default_assert_message(shown))
    else:
        message = _text(errMsg)
    return _call("assert_true", condition, message)


def to_binary(col: ColumnOrName, format: Column | str | None = None) -> Column:  # noqa: A002 - PySpark's name
    """The string as bytes by ``format``: ``'hex'`` (the default), ``'utf-8'`` or ``'base64'``;
    malformed input is an error (``CONVERSION_INVALID_INPUT``).

    Parameters
    ----------
    col : Column or str
        The strings.
    format : Column or str, optional
        The format, a literal (``lit('utf-8')``).
    """
    return _call("to_binary", expr_of(col), *([] if format is None else [_text(format)]))


def try_to_binary(col: ColumnOrName, format: Column | str | None = None) -> Column:  # noqa: A002
    """:func:`to_binary`, null for malformed input or an unknown format."""
    return _call("try_to_binary", expr_of(col), *([] if format is None else [_text(format)]))


def try_parse_url(url: ColumnOrName, partToExtract: ColumnOrName,  # noqa: N803 - PySpark's names
                  key: ColumnOrName | None = None) -> Column:
    """:func:`parse_url`, null for a URL that does not parse."""
    return _call("try_parse_url", expr_of(url), expr_of(partToExtract), *([] if key is None else [expr_of(key)]))


def try_make_timestamp_ltz(years: ColumnOrName, months: ColumnOrName, days: ColumnOrName,  # noqa: PLR0913
                           hours: ColumnOrName, mins: ColumnOrName, secs: ColumnOrName,
                           timezone: ColumnOrName | None = None) -> Column:
    """:func:`make_timestamp_ltz`, null where a field is out of range (never an error)."""
    fields = [years, months, days, hours, mins, secs] + ([] if timezone is None else [timezone])
    return _call("try_make_timestamp_ltz", *[expr_of(c) for c in fields])


def try_make_timestamp_ntz(years: ColumnOrName, months: ColumnOrName, days: ColumnOrName,  # noqa: PLR0913
                           hours: ColumnOrName, mins: ColumnOrName, secs: ColumnOrName) -> Column:
    """:func:`make_timestamp_ntz`, null where a field is out of range (never an error)."""
    return _call("try_make_timestamp_ntz", *[expr_of(c) for c in (years, months, days, hours, mins, secs)])


def call_udf(udfName: str, *cols: ColumnOrName) -> Column:  # noqa: N803 - PySpark's name
    """Call the function registered as ``udfName`` (``spark.udf.register``) on ``cols``.

    Parameters
    ----------
    udfName : str
        The registered name (any case).
    cols : Column or str
        The arguments (a ``str`` is a column name).
    """
    from .parser.columns import unresolved_routine  # noqa: PLC0415 - the parser imports the functions
    from .udf_registration import active_registered_udf  # noqa: PLC0415 - with the first call

    registered = active_registered_udf(udfName)
    if registered is None:
        raise unresolved_routine(udfName)
    return registered(*[c if isinstance(c, Column) else Column(expr_of(c)) for c in cols])


def is_valid_utf8(str: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    """Whether the value (binary: its bytes) is valid UTF-8."""
    return _call("is_valid_utf8", expr_of(str))


def make_valid_utf8(str: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    """The value as a string, each invalid UTF-8 sequence of its bytes replaced by U+FFFD."""
    return _call("make_valid_utf8", expr_of(str))


def validate_utf8(str: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    """The value as a string; invalid UTF-8 bytes are an error (``INVALID_UTF8_STRING``)."""
    return _call("validate_utf8", expr_of(str))


def try_validate_utf8(str: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    """:func:`validate_utf8`, null for invalid UTF-8 bytes."""
    return _call("try_validate_utf8", expr_of(str))


def _optional(defaults: tuple[str, ...], *values: ColumnOrName | None) -> list[Expression]:
    """The optional arguments up to the last one given; a ``None`` before it takes its ``defaults`` entry."""
    given = list(values)
    while given and given[-1] is None:
        given.pop()
    return [lit_expr(defaults[i]) if v is None else (lit_expr(v) if isinstance(v, str) else expr_of(v))
            for i, v in enumerate(given)]


def aes_encrypt(input: ColumnOrName, key: ColumnOrName, mode: ColumnOrName | None = None,  # noqa: A002
                padding: ColumnOrName | None = None, iv: ColumnOrName | None = None,
                aad: ColumnOrName | None = None) -> Column:
    """AES-encrypt ``input`` with ``key`` (16, 24 or 32 bytes) as Spark does: ``mode`` GCM (default),
    CBC or ECB; a random IV unless ``iv`` is given; ``aad`` authenticated in GCM."""
    return _call("aes_encrypt", expr_of(input), expr_of(key),
                 *_optional(("GCM", "DEFAULT", "", ""), mode, padding, iv, aad))


def aes_decrypt(input: ColumnOrName, key: ColumnOrName, mode: ColumnOrName | None = None,  # noqa: A002
                padding: ColumnOrName | None = None, aad: ColumnOrName | None = None) -> Column:
    """Decrypt what :func:`aes_encrypt` gave (same key, mode and AAD); an error when it cannot."""
    return _call("aes_decrypt", expr_of(input), expr_of(key), *_optional(("GCM", "DEFAULT", ""), mode, padding, aad))


def try_aes_decrypt(input: ColumnOrName, key: ColumnOrName, mode: ColumnOrName | None = None,  # noqa: A002
                    padding: ColumnOrName | None = None, aad: ColumnOrName | None = None) -> Column:
    """:func:`aes_decrypt`, null where the input cannot be decrypted."""
    return _call("try_aes_decrypt", expr_of(input), expr_of(key),
                 *_optional(("GCM", "DEFAULT", ""), mode, padding, aad))

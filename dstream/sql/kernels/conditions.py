"""Spark 4's runtime error conditions raised by the kernels, with their exact message texts.

What this module owns
---------------------
One constructor per condition (``DIVIDE_BY_ZERO``, ``ARITHMETIC_OVERFLOW``,
``BINARY_ARITHMETIC_OVERFLOW``, ``CAST_INVALID_INPUT``, ``CAST_OVERFLOW``,
``NUMERIC_VALUE_OUT_OF_RANGE``) and :func:`sql_literal`, Spark's SQL text of a value
(``127S``, ``5L``, ``1.0E10D``, ``'abc'``) which those messages quote.

Invariants
----------
* The ``[CONDITION]`` prefix and ``SQLSTATE`` suffix are added by ``dstream.sql.errors``.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

import pyarrow as pa

from dstream.sql.errors import ArithmeticException, DateTimeException, NumberFormatException
from dstream.sql.kernels.javafmt import java_double_str, java_float_str
from dstream.sql.kernels.sparktypes import sql_name

__all__ = ["divide_by_zero", "arithmetic_overflow", "binary_arithmetic_overflow", "cast_invalid_input",
           "cast_overflow", "interval_divided_by_zero", "interval_overflow", "numeric_out_of_range", "sql_literal"]

_ANSI = '"spark.sql.ansi.enabled"'


def sql_literal(value: Any, t: pa.DataType) -> str:
    """Spark's SQL literal text of ``value`` of Arrow type ``t`` (``toSQLValue``)."""
    if value is None:
        return "NULL"
    suffix = {pa.int8(): "Y", pa.int16(): "S", pa.int64(): "L"}
    if t in suffix:
        return f"{value}{suffix[t]}"
    if pa.types.is_floating(t):
        name = "FLOAT" if pa.types.is_float32(t) else "DOUBLE"
        if math.isnan(value) or math.isinf(value):
            return f"CAST('{java_double_str(value)}' AS {name})"
        return (java_float_str(value) + "F") if name == "FLOAT" else (java_double_str(value) + "D")
    if pa.types.is_decimal(t):
        return f"{value}BD"
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"
    return str(value)


def divide_by_zero() -> ArithmeticException:
    """``DIVIDE_BY_ZERO`` (``/``, ``%``, ``div``, ``pmod`` by zero under ANSI)."""
    msg = ("Division by zero. Use `try_divide` to tolerate divisor being 0 and return NULL instead. "
           f"If necessary set {_ANSI} to \"false\" to bypass this error.")
    return ArithmeticException(msg, "DIVIDE_BY_ZERO", {"config": _ANSI})


def interval_divided_by_zero() -> ArithmeticException:
    """``INTERVAL_DIVIDED_BY_ZERO``: an interval divided by zero (whatever the ANSI setting)."""
    return ArithmeticException(
        "Division by zero. Use `try_divide` to tolerate divisor being 0 and return NULL instead.",
        "INTERVAL_DIVIDED_BY_ZERO", {})


def interval_overflow(function: str = "") -> ArithmeticException:
    """``INTERVAL_ARITHMETIC_OVERFLOW``: with the ``try_`` ``function`` that tolerates it, or without one."""
    if function:
        return ArithmeticException(
            f"Integer overflow while operating with intervals. Use `{function}` to tolerate overflow and return "
            "NULL instead.", "INTERVAL_ARITHMETIC_OVERFLOW.WITH_SUGGESTION", {"functionName": f"`{function}`"})
    return ArithmeticException(
        "Integer overflow while operating with intervals. Try devising appropriate values for the interval "
        "parameters.", "INTERVAL_ARITHMETIC_OVERFLOW.WITHOUT_SUGGESTION", {})


def arithmetic_overflow(message: str, hint: str = "") -> ArithmeticException:
    """``ARITHMETIC_OVERFLOW``: ``message`` is ``"integer overflow"``/``"long overflow"``, hint ``"try_add"``..."""
    alternative = f" Use '{hint}' to tolerate overflow and return NULL instead." if hint else ""
    text = f"{message}.{alternative} If necessary set {_ANSI} to \"false\" to bypass this error."
    return ArithmeticException(text, "ARITHMETIC_OVERFLOW",
                               {"message": message, "alternative": alternative, "config": _ANSI})


def binary_arithmetic_overflow(v1: int, symbol: str, v2: int, function: str) -> ArithmeticException:
    """``BINARY_ARITHMETIC_OVERFLOW``: tinyint/smallint arithmetic (values printed as smallint literals)."""
    s1, s2 = sql_literal(v1, pa.int16()), sql_literal(v2, pa.int16())
    text = f"{s1} {symbol} {s2} caused overflow. Use `{function}` to ignore overflow problem and return NULL."
    return ArithmeticException(text, "BINARY_ARITHMETIC_OVERFLOW",
                               {"value1": s1, "symbol": symbol, "value2": s2, "functionName": f"`{function}`"})


def cast_invalid_input(value: Any, from_t: pa.DataType, to_t: pa.DataType) -> NumberFormatException:
    """``CAST_INVALID_INPUT``: a value (usually a string) malformed for the target type."""
    lit = sql_literal(value, from_t)
    src, dst = f'"{sql_name(from_t)}"', f'"{sql_name(to_t)}"'
    text = (f"The value {lit} of the type {src} cannot be cast to {dst} because it is malformed. "
            "Correct the value as per the syntax, or change its target type. "
            "Use `try_cast` to tolerate malformed input and return NULL instead.")
    params = {"expression": lit, "sourceType": src, "targetType": dst, "ansiConfig": _ANSI}
    if pa.types.is_date(to_t) or pa.types.is_timestamp(to_t):
        return _datetime_invalid(text, params)
    return NumberFormatException(text, "CAST_INVALID_INPUT", params)


def _datetime_invalid(text: str, params: dict[str, str]) -> NumberFormatException:
    # Spark raises SparkDateTimeException for dates; callers catch either class, so it must be both.
    exc = _DateTimeCastError(text, "CAST_INVALID_INPUT", params)
    return exc


class _DateTimeCastError(NumberFormatException, DateTimeException):
    """A malformed date or timestamp string under ANSI (``SparkDateTimeException`` in Spark)."""


def cast_overflow(value: Any, from_t: pa.DataType, to_t: pa.DataType) -> ArithmeticException:
    """``CAST_OVERFLOW``: a numeric value out of the target integral type's range."""
    lit = sql_literal(value, from_t)
    src, dst = f'"{sql_name(from_t)}"', f'"{sql_name(to_t)}"'
    text = (f"The value {lit} of the type {src} cannot be cast to {dst} due to an overflow. "
            "Use `try_cast` to tolerate overflow and return NULL instead.")
    return ArithmeticException(text, "CAST_OVERFLOW",
                               {"value": lit, "sourceType": src, "targetType": dst, "ansiConfig": _ANSI})


def numeric_out_of_range(value: Decimal | Any, precision: int, scale: int) -> ArithmeticException:
    """``NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION``: a decimal too wide for ``decimal(precision, scale)``."""
    text = (f"{value} cannot be represented as Decimal({precision}, {scale}). "
            f"If necessary set {_ANSI} to \"false\" to bypass this error, and return NULL instead.")
    return ArithmeticException(text, "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION",
                               {"value": str(value), "precision": str(precision), "scale": str(scale),
                                "config": _ANSI})

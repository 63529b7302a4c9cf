"""``format_string(format, *cols)`` and ``printf``: Java's ``String.format`` (``Locale.US``).

What this module owns
---------------------
:func:`java_format`, the subset of ``java.util.Formatter`` Spark's ``format_string``
reaches, and the registry entries of ``format_string`` and ``printf``.

Invariants
----------
* A specifier is ``%[index$][flags][width][.precision]conversion``. Conversions:
  ``s S b B c C d o x X e E f g G % n``; flags ``- # + space 0 , (``. Anything else
  (``%h``, ``%a``, ``%t``..., a flag a conversion does not take, a missing argument)
  raises the error Java would, by its Java name.
* Arguments are what Spark hands the formatter, its internal values: integers stay
  ``Integer``/``Long``/``Short``/``Byte`` (``%x`` of a negative one is its two's
  complement at that width), doubles ``Double`` (``%s`` prints ``Double.toString``:
  ``1.0E20``), strings ``UTF8String``, dates their day number and timestamps their
  microseconds since the epoch, decimals Spark's ``Decimal``, which no numeric
  conversion accepts (``f != org.apache.spark.sql.types.Decimal``), as in Spark.
* A null argument prints ``null`` (``false`` for ``%b``); a null format gives null.
* Floating-point conversions round half up the shortest decimal that reads back as the
  double (Java's ``FormattedFloatingDecimal``): ``%.2f`` of 2.675 is ``2.68``.
"""

from __future__ import annotations

import decimal
import math
import re
from typing import Any

from ..errors import SparkRuntimeException
from ..formatting import format_value
from ..types import (
    BooleanType,
    ByteType,
    DataType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    ShortType,
    StringType,
    TimestampNTZType,
    TimestampType,
)
from .base import EvalContext
from .datetime_functions import epoch_value
from .function_registry import FunctionSpec, register

__all__ = ["java_format"]

_SPEC = re.compile(r"%(?:(\d+)\$)?([-#+ 0,(]*)(\d+)?(?:\.(\d+))?([a-zA-Z%])")
_JAVA_CLASS: dict[type[DataType], str] = {
    ByteType: "java.lang.Byte", ShortType: "java.lang.Short", IntegerType: "java.lang.Integer",
    LongType: "java.lang.Long", FloatType: "java.lang.Float", DoubleType: "java.lang.Double",
    BooleanType: "java.lang.Boolean", StringType: "org.apache.spark.unsafe.types.UTF8String",
    DecimalType: "org.apache.spark.sql.types.Decimal", DateType: "java.lang.Integer",
    TimestampType: "java.lang.Long", TimestampNTZType: "java.lang.Long"}
_BITS: dict[type[DataType], int] = {ByteType: 8, ShortType: 16, IntegerType: 32, LongType: 64, DateType: 32,
                                    TimestampType: 64, TimestampNTZType: 64}
_ALLOWED_FLAGS = {"s": "-", "b": "-", "c": "-", "d": "-+ 0,(", "o": "-#0(", "x": "-#0(", "e": "-#+ 0(",
                  "f": "-#+ 0,(", "g": "-+ 0,(", "%": "-", "n": ""}


def _error(kind: str, detail: str) -> SparkRuntimeException:
    # Spark raises the formatter's Java exception as it is, without an error class.
    return SparkRuntimeException(f"java.util.{kind}: {detail}")


def _java_class(dt: DataType) -> str:
    return _JAVA_CLASS.get(type(dt), "java.lang.Object")


def _pad(text: str, flags: str, width: int | None, numeric_zero: bool = False) -> str:
    if width is None or len(text) >= width:
        return text
    if "-" in flags:
        return text.ljust(width)
    if numeric_zero and "0" in flags:
        sign = text[0] if text[:1] in "+- (" else ""
        prefix = sign + ("0x" if text[len(sign):len(sign) + 2].lower() == "0x" else "")
        return prefix + text[len(prefix):].rjust(width - len(prefix), "0")
    return text.rjust(width)


def _signed(magnitude: str, negative: bool, flags: str) -> str:
    if negative:
        return f"({magnitude})" if "(" in flags else "-" + magnitude
    return ("+" if "+" in flags else " " if " " in flags else "") + magnitude


def _group(digits: str) -> str:
    whole, dot, frac = digits.partition(".")
    return f"{int(whole):,}" + dot + frac


def _fixed(value: float | decimal.Decimal, precision: int, flags: str) -> str:
    exact = decimal.Decimal(repr(value)) if isinstance(value, float) else value
    with decimal.localcontext() as context:
        context.rounding = decimal.ROUND_HALF_UP
        text = format(abs(exact), f".{precision}f")
    if "#" in flags and precision == 0:
        text += "."
    return _group(text) if "," in flags else text


def _scientific(value: float, precision: int, flags: str) -> str:
    with decimal.localcontext() as context:
        context.rounding = decimal.ROUND_HALF_UP
        text = format(abs(decimal.Decimal(repr(value))), f".{precision}e")
    mantissa, _, exponent = text.partition("e")
    if "#" in flags and precision == 0:
        mantissa += "."
    return f"{mantissa}e{exponent[0]}{abs(int(exponent)):02d}"


def _general(value: float, precision: int, flags: str) -> str:
    precision = max(precision, 1)
    if value == 0:
        return _fixed(value, precision - 1, flags)
    exact = abs(decimal.Decimal(repr(value)))
    with decimal.localcontext() as context:
        context.rounding = decimal.ROUND_HALF_UP
        rounded = exact.quantize(decimal.Decimal(1).scaleb(exact.adjusted() - precision + 1))
    if decimal.Decimal("0.0001") <= rounded < decimal.Decimal(10) ** precision:
        return _fixed(float(rounded), precision - rounded.adjusted() - 1, flags)
    return _scientific(value, precision - 1, flags)


def _convert(conv: str, flags: str, width: int | None, precision: int | None, value: Any, dt: DataType) -> str:
    lower = conv.lower()
    allowed = _ALLOWED_FLAGS.get(lower)
    if allowed is None:
        raise _error("UnknownFormatConversionException", f"Conversion = '{conv}'")
    for flag in flags:
        if flag not in allowed:
            raise _error("FormatFlagsConversionMismatchException", f"Conversion = {conv}, Flags = {flag}")
    if ("-" in flags or "0" in flags) and width is None:
        raise _error("MissingFormatWidthException", f"%{flags}{conv}")
    if lower == "%":
        return _pad("%", flags, width)
    if lower == "n":
        return "\n"
    if lower == "b":
        text = "false" if value is None else (("true" if value else "false") if isinstance(dt, BooleanType) else "true")
    elif value is None:
        text = "null"
    elif lower == "s":
        if isinstance(dt, StringType):
            text = value
        elif isinstance(dt, (DateType, TimestampType, TimestampNTZType)):
            text = str(epoch_value(value))  # what Spark's formatter gets: days, microseconds
        else:
            text = format_value(value, dt, "UTC")
    elif lower == "c":
        if not isinstance(dt, (ByteType, ShortType, IntegerType)):
            raise _error("IllegalFormatConversionException", f"{conv} != {_java_class(dt)}")
        text = chr(value & 0xFF if isinstance(dt, ByteType) else value)
    else:
        text = _pad(_numeric(lower, flags, precision, epoch_value(value), dt), flags, width, numeric_zero=True)
        return text.upper() if conv.isupper() else text
    if precision is not None and lower in "sb":
        text = text[:precision]
    text = _pad(text, flags, width)
    return text.upper() if conv.isupper() else text


def _numeric(conv: str, flags: str, precision: int | None, value: Any, dt: DataType) -> str:
    integral = isinstance(dt, (ByteType, ShortType, IntegerType, LongType, DateType, TimestampType,
                               TimestampNTZType))
    floating = isinstance(dt, (FloatType, DoubleType))
    if conv in "dox":
        if not integral:
            raise _error("IllegalFormatConversionException", f"{conv} != {_java_class(dt)}")
        if precision is not None:
            raise _error("IllegalFormatPrecisionException", str(precision))
        if conv == "d":
            return _signed(f"{abs(value):,}" if "," in flags else str(abs(value)), value < 0, flags)
        if value < 0 and "(" not in flags:
            value += 1 << _BITS[type(dt)]  # Java prints the two's complement of a negative
        text = format(abs(value), "o" if conv == "o" else "x")
        prefix = ("0" if conv == "o" else "0x") if "#" in flags else ""
        return _signed(prefix + text, value < 0, flags)
    if not floating:
        raise _error("IllegalFormatConversionException", f"{conv} != {_java_class(dt)}")
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return _signed("Infinity", value < 0, flags)
    digits = 6 if precision is None else precision
    if conv == "f":
        body = _fixed(value, digits, flags)
    elif conv == "e":
        body = _scientific(value, digits, flags)
    else:
        body = _general(value, digits, flags)
    return _signed(body, math.copysign(1.0, value) < 0, flags)


def java_format(pattern: str, values: list[Any], types: list[DataType]) -> str:
    """``String.format(Locale.US, pattern, values...)`` for Spark's internal values of ``types``."""
    out: list[str] = []
    position = 0
    ordinary = 0
    for match in _SPEC.finditer(pattern):
        out.append(pattern[position:match.start()])
        position = match.end()
        index, flags, width, precision, conv = match.groups()
        if conv.lower() in "%n":
            out.append(_convert(conv, flags, int(width) if width else None, None, None, StringType()))
            continue
        if index is not None:
            slot = int(index) - 1
        else:
            slot = ordinary
            ordinary += 1
        if not 0 <= slot < len(values):
            raise _error("MissingFormatArgumentException", f"Format specifier '{match.group(0)}'")
        out.append(_convert(conv, flags, int(width) if width else None, int(precision) if precision else None,
                            values[slot], types[slot]))
    rest = pattern[position:]
    if "%" in rest:
        bad = rest[rest.index("%"):][:2]
        raise _error("UnknownFormatConversionException", f"Conversion = '{bad[1:] or '%'}'")
    out.append(rest)
    return "".join(out)


def _format_types(types: list[DataType]) -> list[DataType | None]:
    return [StringType(), *[None] * (len(types) - 1)]


def _run_format(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> Any:
    import pyarrow as pa  # noqa: PLC0415 - kernels load at run time

    columns = [a.to_pylist() for a in args]
    arg_types = types[1:]
    out = [None if pattern is None else java_format(pattern, list(row), arg_types)
           for pattern, *row in zip(*columns)]
    return pa.array(out, pa.string())


register(FunctionSpec("format_string", 1, -1, _format_types, lambda ts: StringType(), _run_format,
                      null_intolerant=False))
register(FunctionSpec("printf", 1, -1, _format_types, lambda ts: StringType(), _run_format, null_intolerant=False))

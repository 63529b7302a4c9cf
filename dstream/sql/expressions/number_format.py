"""``to_number``/``try_to_number`` (text read by a number format) and ``to_char`` of a number
(a number written by one), as Spark reads and writes them.

What this module owns
---------------------
:class:`NumberFormat` (a format string's parts, checked as Spark checks them) and the
specs of ``to_number``/``try_to_number``, whose result is ``decimal(p, s)``: ``p`` the
format's digits, ``s`` those after its decimal point; and of ``to_char`` on a decimal
(numbers are cast to one first), whose text is as wide as the format: unused digit
places are spaces (zeros from the format's first ``0`` on), a sign or bracket stands next
to the digits, and a value with more digits than the format shows ``#`` for each digit.

Format characters (any case): ``0``/``9`` a digit (a run starting with ``0`` before the
point takes exactly that many digits, other runs up to that many); ``.``/``D`` the decimal
point, once; ``,``/``G`` a grouping separator, between digits; ``$`` a currency sign, once,
before the digits;
``S``/``MI`` a sign at the start or the end, once (``S`` takes ``+`` or ``-``, ``MI`` only
``-``); ``PR`` at the end: a negative number in angle brackets (``<12>``).

Invariants
----------
* A bad format is an analysis error (``INVALID_FORMAT.<rule>``: ``EMPTY``, ``UNEXPECTED_TOKEN``,
  ``WRONG_NUM_TOKEN``, ``WRONG_NUM_DIGIT``, ``CUR_MUST_BEFORE_DIGIT``, ``CONT_THOUSANDS_SEPS``,
  ``THOUSANDS_SEPS_MUST_BEFORE_DEC``).
* The input's grouping separators must be where the format's grouping puts them for a
  number of that size; text the format does not match is ``INVALID_FORMAT.MISMATCH_INPUT``
  from ``to_number`` and null from ``try_to_number``; a null gives null.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pyarrow as pa

from ..errors import AnalysisException, NumberFormatException
from ..types import (
    ByteType,
    DataType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    NullType,
    ShortType,
    StringType,
)
from .base import EvalContext
from .coercion import decimal_of
from .function_registry import FunctionSpec, register

__all__ = ["NumberFormat"]

#: The sign characters each sign mark of a format takes.
_SIGNS = {"S": "+-", "MI": "-"}


_STRUCTURE = "`[MI|S]` `[$]` `[0|9|G|,]*` `[.|D]` `[0|9]*` `[$]` `[PR|MI|S]`"

#: Each format token as one symbol (tokens of one meaning alike), for the structure checks.
_SYMBOLS = {"MI": "-", "S": "±", "$": "$", "0": "0", "9": "9", ".": ".", "D": ".", ",": ",", "G": ",", "PR": "<"}
_SHAPE = re.compile(r"[-±]?\$?[09,]*\.?[09]*[<\-±]?")


def _invalid(fmt: str, sub: str, rule: str) -> AnalysisException:
    # Spark names the format upper-cased, as it reads it.
    return AnalysisException(f"The format is invalid: '{fmt.upper()}'. {rule}", f"INVALID_FORMAT.{sub}",
                             {"format": f"'{fmt.upper()}'"})


def _symbols(fmt: str) -> str:
    """The format's tokens as :data:`_SYMBOLS`, or ``INVALID_FORMAT.UNEXPECTED_TOKEN`` naming a stray character."""
    text, out, i = fmt.upper(), [], 0
    while i < len(text):
        token = text[i:i + 2] if text[i:i + 2] in ("MI", "PR") else text[i]
        if token not in _SYMBOLS:
            raise _invalid(fmt, "UNEXPECTED_TOKEN",
                           f"Found the unexpected character '{token}'' in the format string; the structure of "
                           f"the format string must match: {_STRUCTURE}.")
        out.append(_SYMBOLS[token])
        i += len(token)
    return "".join(out)


@dataclass(frozen=True)
class NumberFormat:
    """A parsed number format (see the module doc)."""

    text: str
    groups: tuple[int, ...]     # digit runs before the point, left to right (split by grouping separators)
    exact_int: bool             # the integer part starts with 0: exactly that many digits
    fraction: int               # digits after the point
    point: bool
    dollar: str                 # "" or "start" (before the digits)
    sign: str                   # "", "S" or "MI"
    sign_at: str                # "start" or "end"
    brackets: bool              # PR
    whole: str = ""             # the integer part's format: 0, 9 and ',' (G read as ',')

    @classmethod
    def parse(cls, fmt: str) -> NumberFormat:
        """The format ``fmt`` (any case), or ``INVALID_FORMAT.<rule>`` naming the rule it breaks."""
        if not fmt:
            raise _invalid(fmt, "EMPTY", "The number format string cannot be empty.")
        symbols = _symbols(fmt)
        digits = [i for i, ch in enumerate(symbols) if ch in "09"]
        for symbol, what in ((".", ". or D"), ("$", "$"), ("-±", "S or MI"), ("<", "PR")):
            if sum(symbols.count(ch) for ch in symbol) > 1:
                raise _invalid(fmt, "WRONG_NUM_TOKEN", f"At most one {what} is allowed in the number format.")
        if not digits:
            raise _invalid(fmt, "WRONG_NUM_DIGIT", "The format string requires at least one number digit.")
        if "$" in symbols and digits[0] < symbols.index("$"):
            raise _invalid(fmt, "CUR_MUST_BEFORE_DIGIT",
                           "Currency characters must appear before digits in the number format.")
        for i, ch in enumerate(symbols):
            if ch == "," and not (i - 1 in digits and i + 1 in digits):
                raise _invalid(fmt, "CONT_THOUSANDS_SEPS", "Thousands separators (, or G) must have digits in "
                                                           "between them in the number format.")
        if "." in symbols and "," in symbols[symbols.index("."):]:
            raise _invalid(fmt, "THOUSANDS_SEPS_MUST_BEFORE_DEC", "Thousands separators (, or G) may not appear "
                                                                   "after the decimal point in the number format.")
        if not _SHAPE.fullmatch(symbols):
            raise _invalid(fmt, "UNEXPECTED_TOKEN", "Found the unexpected digit sequence in the format string; the "
                                                    f"structure of the format string must match: {_STRUCTURE}.")
        sign = next(({"-": "MI", "±": "S"}[ch] for ch in symbols if ch in "-±"), "")
        sign_at = "start" if symbols[0] in "-±" else "end"
        whole, _, frac = "".join(ch for ch in symbols if ch in "09,.").partition(".")
        runs = whole.split(",") if whole else []
        return cls(fmt, tuple(len(r) for r in runs), whole.startswith("0"), len(frac), "." in symbols,
                   "start" if "$" in symbols else "", sign, sign_at, "<" in symbols, whole)

    def result_type(self) -> DecimalType:
        digits = max(sum(self.groups) + self.fraction, 1)
        return DecimalType(min(digits, 38), self.fraction)

    def read(self, text: str) -> Decimal | None:
        """The number ``text`` holds, or ``None`` when the format does not match it."""
        s, negative = text, False
        if self.brackets and s.startswith("<") and s.endswith(">"):
            s, negative = s[1:-1], True
        if self.sign:
            allowed = _SIGNS[self.sign]
            if self.sign_at == "start" and s[:1] in allowed and s[:1]:
                negative, s = s[0] == "-", s[1:]
            elif self.sign_at == "end" and s[-1:] in allowed and s[-1:]:
                negative, s = s[-1] == "-", s[:-1]
        if self.dollar:
            if not s.startswith("$"):
                return None
            s = s[1:]
        whole, point, frac = s.partition(".")
        if (point and not self.point) or len(frac) > self.fraction or not (frac.isdigit() or frac == ""):
            return None
        digits = whole.replace(",", "")
        if (digits and not digits.isdigit()) or not (digits or frac):
            return None
        total = sum(self.groups)
        if len(digits) > total or (self.exact_int and len(digits) != total):
            return None
        if "," in whole and whole != self._grouped(digits):
            return None
        if "," not in whole and len(self.groups) > 1 and whole != self._grouped(digits):
            return None
        value = Decimal(f"{digits or '0'}.{frac or '0'}")
        return -value if negative else value

    def format(self, value: Decimal) -> str:
        """``value`` as ``to_char`` writes it: as wide as the format, ``#`` for every digit when
        the value has more digits than the format on either side of the point."""
        negative = value < 0
        whole, _, frac = f"{abs(value):f}".partition(".")
        whole, frac = whole.lstrip("0"), frac.rstrip("0")
        width = sum(self.groups)
        overflow = len(whole) > width or len(frac) > self.fraction
        out: list[str] = []

        def pad(ch: str) -> None:
            # A leading pad goes left of a sign or bracket already written: "  -5", not "-  5".
            if out and out[-1] in "+-<":
                out.insert(len(out) - 1, ch)
            else:
                out.append(ch)

        def closing(ch: str) -> None:
            # A mark after the number goes left of trailing pads: "  5+ ", "+   " for zero.
            at = len(out)
            while at and out[at - 1] == " ":
                at -= 1
            out.insert(at, ch)

        if self.brackets and negative:
            out.append("<")
        if self.sign and self.sign_at == "start":
            out.append("-" if negative else " " if self.sign == "MI" else "+")
        if self.dollar:
            out.append("$")
        digits = "#" * width if overflow else " " * (width - len(whole)) + whole
        position, zeros = 0, False
        for ch in self.whole:
            if ch == ",":
                # A separator shows between digits only; among the pads it is one more pad.
                if out and out[-1].isdigit():
                    out.append(",")
                else:
                    pad(" ")
                continue
            zeros = zeros or ch == "0"  # from the first 0 of the format on, pads are zeros
            digit = digits[position]
            position += 1
            if digit != " ":
                out.append(digit)
            elif zeros:
                out.append("0")
            else:
                pad(" ")
        if self.point:
            if out and out[-1] == " ":
                out[-1] = "0"  # no integer digit: one zero before the point
            out.append("." if self.fraction else " ")  # a point with no digits after it shows as a space
        out.extend("#" * self.fraction if overflow else frac.ljust(self.fraction, "0"))
        if self.sign and self.sign_at == "end":
            if negative or self.sign != "MI":
                closing("-" if negative else "+")
            else:
                out.append(" ")
        if self.brackets:
            if negative:
                closing(">")
            else:
                out.extend("  ")
        return "".join(out)

    def _grouped(self, digits: str) -> str:
        """``digits`` with the format's separators, placed from the right for a number of this size."""
        parts, rest = [], digits
        for size in reversed(self.groups):
            if not rest:
                break
            parts.append(rest[-size:])
            rest = rest[:-size]
        if rest:
            parts.append(rest)
        return ",".join(reversed(parts))


def _types(types: list[DataType]) -> list[DataType | None]:
    return [StringType(), StringType()]


def _result(types: list[DataType], values: list[Any]) -> DataType:
    if not isinstance(values[1], str):
        raise AnalysisException("The format of to_number must be a string literal such as '999.99'.",
                                "INVALID_FORMAT", {"format": repr(values[1])})
    return NumberFormat.parse(values[1]).result_type()


def _runner(strict: bool) -> Any:
    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - light import at run time only

        fmt = NumberFormat.parse(str(args[1]))
        out = []
        for text in args[0].to_pylist():
            value = None if text is None else fmt.read(text)
            if value is None and text is not None and strict:
                raise NumberFormatException(
                    f"The input '{text}' does not match the format '{fmt.text}'.",
                    "INVALID_FORMAT.MISMATCH_INPUT", {"inputType": "STRING", "input": text, "format": fmt.text})
            out.append(value)
        return pa.array(out, to_arrow_type(rt))
    return run


def _decimal_input(types: list[DataType]) -> list[DataType | None]:
    """``to_char``'s value as a decimal (Spark's implicit cast of each type), its format a string."""
    first, wanted = types[0], None
    if isinstance(first, DecimalType):
        wanted = None
    elif isinstance(first, (ByteType, ShortType, IntegerType, LongType)):
        wanted = decimal_of(first)
    elif isinstance(first, FloatType):
        wanted = DecimalType(14, 7)
    elif isinstance(first, DoubleType):
        wanted = DecimalType(30, 15)
    elif isinstance(first, (StringType, NullType)):
        wanted = DecimalType(38, 18)
    else:
        raise TypeError(f'The first parameter requires the "DECIMAL" type, however it has the type '
                        f'"{first.simpleString().upper()}"')
    return [wanted, StringType()]


def _check_format(types: list[DataType], values: list[Any]) -> DataType:
    if values[1] is not None:
        NumberFormat.parse(str(values[1]))
    return StringType()


def _run_to_char(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    if args[1] is None:
        return pa.nulls(len(args[0]), pa.string())
    fmt = NumberFormat.parse(str(args[1]))
    return pa.array([None if v is None else fmt.format(v) for v in args[0].to_pylist()], pa.string())


# The number case of to_char/to_varchar (see expressions.to_char, which picks the case by type).
register(FunctionSpec("to_char", 2, 2, _decimal_input, lambda ts: StringType(), _run_to_char,
                      scalar_positions=(1,), result_from_values=_check_format))
register(FunctionSpec("to_number", 2, 2, _types, lambda ts: DecimalType(38, 0), _runner(True),
                      scalar_positions=(1,), result_from_values=_result))
register(FunctionSpec("try_to_number", 2, 2, _types, lambda ts: DecimalType(38, 0), _runner(False),
                      scalar_positions=(1,), result_from_values=_result))

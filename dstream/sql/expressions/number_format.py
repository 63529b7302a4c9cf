"""``to_number(s, fmt)`` and ``try_to_number(s, fmt)``: text read by a number format, as Spark reads it.

What this module owns
---------------------
:class:`NumberFormat` (a format string's parts, checked as Spark checks them) and the
specs of ``to_number``/``try_to_number``, whose result is ``decimal(p, s)``: ``p`` the
format's digits, ``s`` those after its decimal point.

Format characters (any case): ``0``/``9`` a digit (a run starting with ``0`` before the
point takes exactly that many digits, other runs up to that many); ``.``/``D`` the decimal
point, once; ``,``/``G`` a grouping separator, between digits; ``$`` a currency sign, once;
``S``/``MI`` a sign at the start or the end, once (``S`` takes ``+`` or ``-``, ``MI`` only
``-``); ``PR`` at the end: a negative number in angle brackets (``<12>``).

Invariants
----------
* A bad format is an analysis error (``INVALID_FORMAT``) naming the rule.
* The input's grouping separators must be where the format's grouping puts them for a
  number of that size; text the format does not match is ``INVALID_FORMAT.MISMATCH_INPUT``
  from ``to_number`` and null from ``try_to_number``; a null gives null.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pyarrow as pa

from ..errors import AnalysisException, NumberFormatException
from ..types import DataType, DecimalType, StringType
from .base import EvalContext
from .function_registry import FunctionSpec, register

__all__ = ["NumberFormat"]

#: The sign characters each sign mark of a format takes.
_SIGNS = {"S": "+-", "MI": "-"}


def _invalid(fmt: str, rule: str) -> AnalysisException:
    return AnalysisException(f"The format is invalid: '{fmt}'. {rule}", "INVALID_FORMAT", {"format": fmt})


@dataclass(frozen=True)
class NumberFormat:
    """A parsed number format (see the module doc)."""

    text: str
    groups: tuple[int, ...]     # digit runs before the point, left to right (split by grouping separators)
    exact_int: bool             # the integer part starts with 0: exactly that many digits
    fraction: int               # digits after the point
    point: bool
    dollar: str                 # "", "start" or "end" (of the number part)
    sign: str                   # "", "S" or "MI"
    sign_at: str                # "start" or "end"
    brackets: bool              # PR

    @classmethod
    def parse(cls, fmt: str) -> NumberFormat:
        text = fmt.upper()
        if not text:
            raise _invalid(fmt, "The format string cannot be empty.")
        brackets = text.endswith("PR")
        body = text[:-2] if brackets else text
        sign, sign_at = "", "start"
        for mark in ("MI", "S"):
            if body.startswith(mark):
                sign, sign_at, body = mark, "start", body[len(mark):]
                break
            if body.endswith(mark):
                sign, sign_at, body = mark, "end", body[: -len(mark)]
                break
        if sign and brackets:
            raise _invalid(fmt, "'PR' cannot be used with a sign ('S' or 'MI').")
        dollar = ""
        if body.startswith("$"):
            dollar, body = "start", body[1:]
        elif body.endswith("$"):
            dollar, body = "end", body[:-1]
        body = body.replace("D", ".").replace("G", ",")
        if any(c not in "09.," for c in body):
            raise _invalid(fmt, "Only 0, 9, '.', 'D', ',', 'G', '$', 'S', 'MI' and 'PR' are allowed, each once "
                                "where they may stand.")
        if body.count(".") > 1:
            raise _invalid(fmt, "The decimal point ('.' or 'D') may appear at most once.")
        whole, _, frac = body.partition(".")
        if "," in frac:
            raise _invalid(fmt, "A grouping separator may not follow the decimal point.")
        runs = whole.split(",") if whole else []
        if any(not r for r in runs) or not (whole or frac):
            raise _invalid(fmt, "Each grouping separator needs a digit (0 or 9) on both sides, and the format "
                                "needs a digit.")
        return cls(fmt, tuple(len(r) for r in runs), whole.startswith("0"), len(frac), "." in body, dollar, sign,
                   sign_at, brackets)

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
        if self.dollar == "start":
            if not s.startswith("$"):
                return None
            s = s[1:]
        elif self.dollar == "end":
            if not s.endswith("$"):
                return None
            s = s[:-1]
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


register(FunctionSpec("to_number", 2, 2, _types, lambda ts: DecimalType(38, 0), _runner(True),
                      scalar_positions=(1,), result_from_values=_result))
register(FunctionSpec("try_to_number", 2, 2, _types, lambda ts: DecimalType(38, 0), _runner(False),
                      scalar_positions=(1,), result_from_values=_result))

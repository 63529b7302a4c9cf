"""Spark's datetime patterns (``yyyy-MM-dd'T'HH:mm:ss.SSSXXX``) as tokens and as one parsing regex.

What this module owns
---------------------
:func:`tokenize` splits a Spark pattern into :class:`Token` s (a run of one pattern
letter, a literal, or the brackets of an optional section); :func:`parse_regex` turns the
tokens into one case-insensitive regular expression with a named group per field, in the
syntax RE2 (Arrow's ``extract_regex``) and Python's ``re`` share, so the same text is
matched by the vectorized path and by the per-row explanation of a failure
(:func:`failure_index`).

Parsing widths follow java.time as Spark configures it (strict resolver, case-insensitive,
the fraction ``S..S`` accepts 1 to n digits): ``MM``/``dd``/``HH``/``mm``/``ss`` exactly two
digits, one letter one or two digits, ``yyyy`` exactly four digits (no sign), ``yy`` two
digits based at 2000, ``y`` one or more digits.

Invariants
----------
* Group names are ``<letter><index>`` (``y0``, ``M2``); a pattern's regex is anchored at
  both ends.
* A letter Spark rejects, or that this module does not implement, raises
  ``IllegalArgumentException`` naming the letter.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from dstream.sql.errors import IllegalArgumentException, SparkUpgradeException

__all__ = ["Token", "tokenize", "parse_regex", "failure_index", "MONTHS", "WEEKDAYS", "zone_name_regex"]

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

#: Letters a pattern may use for formatting; parsing supports all but ``Q``, ``q``, ``O`` and ``zzzz``.
FORMAT_LETTERS = frozenset("GyMLdDQqEaHhkKmsSVzOXxZ")
#: Java letters Spark 3 refuses as week-based (``e``, ``c``) or unrecognized (``Y``, ``w``, ``W``, ``u``).
_WEEK_BASED, _UNRECOGNIZED = frozenset("ec"), frozenset("YwWu")
PARSE_LETTERS = frozenset("GyMLdDEaHhkKmsSVzXxZ")

#: Zone text (``z``, ``VV``): a region name, an abbreviation, or an offset after ``GMT``/``UTC``.
zone_name_regex = r"[A-Za-z][A-Za-z0-9_/+\-:]*"


@dataclass(frozen=True)
class Token:
    """One element of a pattern: ``kind`` is a pattern letter, ``"'"`` (literal), ``"["`` or ``"]"``."""

    kind: str
    count: int = 0
    text: str = ""


def _invalid(pattern: str, detail: str, sub: str = "") -> IllegalArgumentException:
    return IllegalArgumentException(
        f"Invalid datetime pattern '{pattern}': {detail}. Use the pattern letters of Spark's datetime patterns "
        "guide (yyyy MM dd HH mm ss SSS a E z X ...).", "INVALID_DATETIME_PATTERN" + (f".{sub}" if sub else ""),
        {"pattern": pattern, "detail": detail})


def _refused_letter(pattern: str, c: str, parsing: bool) -> Exception:
    """Spark's error for a pattern letter it does not take (its condition depends on the letter)."""
    upgrade = "You may get a different result due to the upgrading to Spark >= 3.0: "
    if c in _WEEK_BASED:
        return SparkUpgradeException(
            f"{upgrade}All week-based patterns are unsupported since Spark 3.0, detected week-based character: {c}. "
            "Please use the SQL function EXTRACT instead.",
            "INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_WEEK_BASED_PATTERN", {"c": c})
    if c in _UNRECOGNIZED:
        return SparkUpgradeException(
            f"{upgrade}Fail to recognize '{pattern}' pattern in the DateTimeFormatter: the letter '{c}' (a "
            "week-based or day-of-week field) is not taken since Spark 3.0; use yyyy, dd, E or EXTRACT instead.",
            "INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_PATTERN_RECOGNITION", {"pattern": pattern})
    return _invalid(pattern, f"the pattern letter '{c}' is not supported" + (
        " for parsing" if parsing and c in FORMAT_LETTERS else ""), "ILLEGAL_CHARACTER")


@functools.lru_cache(maxsize=256)
def tokenize(pattern: str, parsing: bool) -> tuple[Token, ...]:
    """The tokens of a Spark datetime ``pattern`` (``parsing`` checks the letters parsing supports).

    Raises
    ------
    IllegalArgumentException
        For an unknown or unsupported letter, an unclosed quote or unbalanced brackets.
    """
    tokens: list[Token] = []
    allowed = PARSE_LETTERS if parsing else FORMAT_LETTERS
    i, depth = 0, 0
    while i < len(pattern):
        c = pattern[i]
        if c == "'":
            end = i + 1
            text = []
            while True:
                if end >= len(pattern):
                    raise _invalid(pattern, "a quoted literal is not closed")
                if pattern[end] == "'":
                    if end + 1 < len(pattern) and pattern[end + 1] == "'":
                        text.append("'")
                        end += 2
                        continue
                    break
                text.append(pattern[end])
                end += 1
            tokens.append(Token("'", 0, "".join(text) if end > i + 1 else "'"))
            i = end + 1
        elif c.isascii() and c.isalpha():
            end = i
            while end < len(pattern) and pattern[end] == c:
                end += 1
            count = end - i
            if c not in allowed:
                raise _refused_letter(pattern, c, parsing)
            if (c == "S" and count > 9) or (c in "XxZ" and count > 5) or (c in "MLQq" and count > 4):
                raise _invalid(pattern, f"too many pattern letters: {c * count}", "LENGTH")
            if parsing and c == "z" and count > 3:
                raise _invalid(pattern, "full zone names (zzzz) are not supported for parsing")
            tokens.append(Token(c, count))
            i = end
        elif c in "[]":
            depth += 1 if c == "[" else -1
            if depth < 0:
                raise _invalid(pattern, "']' without '['")
            tokens.append(Token(c))
            i += 1
        else:
            tokens.append(Token("'", 0, c))
            i += 1
    if depth:
        raise _invalid(pattern, "'[' without ']'")
    return tuple(tokens)


def _escape(text: str) -> str:
    # Only ASCII punctuation is escaped: RE2 and re both read "\<punct>" as the character.
    return "".join("\\" + ch if ch.isascii() and not ch.isalnum() else ch for ch in text)


def _digits(count: int, exact: int | None = None) -> str:
    if exact is not None:
        return f"[0-9]{{{exact}}}"
    return f"[0-9]{{{count},9}}"


def _offset_regex(token: Token) -> str:
    c, n = token.kind, token.count
    if c == "Z":
        body = {4: r"GMT(?:[+-][0-9]{2}:[0-9]{2})?", 5: r"Z|[+-][0-9]{2}:[0-9]{2}(?::[0-9]{2})?"}.get(
            n, r"[+-][0-9]{4}")
        return body
    shapes = {1: r"[+-][0-9]{2}(?:[0-9]{2})?", 2: r"[+-][0-9]{4}", 3: r"[+-][0-9]{2}:[0-9]{2}",
              4: r"[+-][0-9]{4}(?:[0-9]{2})?", 5: r"[+-][0-9]{2}:[0-9]{2}(?::[0-9]{2})?"}
    return ("Z|" if c == "X" else "") + shapes[n]


def token_regex(token: Token) -> str:
    """The regex (without group) of one field token for parsing."""
    c, n = token.kind, token.count
    if c == "y":
        return _digits(0, 2) if n == 2 else (_digits(0, 4) if n == 4 else _digits(n if n != 1 else 1))
    if c in "ML":
        if n >= 3:
            names = MONTHS if n == 4 else tuple(m[:3] for m in MONTHS)
            return "|".join(names)
        return _digits(0, 2) if n == 2 else "[0-9]{1,2}"
    if c in "dHhkKms":
        return _digits(0, 2) if n == 2 else "[0-9]{1,2}"
    if c == "D":
        return "[0-9]{1,3}" if n == 1 else ("[0-9]{2,3}" if n == 2 else "[0-9]{3}")
    if c == "S":
        return f"[0-9]{{1,{n}}}"
    if c == "a":
        return "AM|PM"
    if c == "E":
        return "|".join(WEEKDAYS if n == 4 else tuple(d[:3] for d in WEEKDAYS))
    if c == "G":
        return "Anno Domini|Before Christ" if n == 4 else "AD|BC"
    if c in "zV":
        return zone_name_regex
    return _offset_regex(token)


def _element_regexes(tokens: tuple[Token, ...]) -> list[str]:
    """One regex per top-level element (a field, a literal, or a whole optional section)."""
    out: list[str] = []
    stack: list[list[str]] = []
    for index, token in enumerate(tokens):
        if token.kind == "[":
            stack.append([])
            continue
        if token.kind == "]":
            inner = "".join(stack.pop())
            piece = f"(?:{inner})?"
        elif token.kind == "'":
            piece = _escape(token.text)
        else:
            piece = f"(?P<{token.kind}{index}>{token_regex(token)})"
        (stack[-1] if stack else out).append(piece)
    return out


@functools.lru_cache(maxsize=256)
def parse_regex(pattern: str) -> str:
    """The anchored, case-insensitive regex that matches texts of ``pattern`` with a group per field."""
    return "(?i)^" + "".join(_element_regexes(tokenize(pattern, True))) + "$"


def failure_index(text: str, pattern: str) -> tuple[int, bool]:
    """Where java.time stops parsing ``text``: ``(index, trailing)``.

    ``trailing`` is true when the whole pattern matched a prefix and text remains at
    ``index`` (Java's "unparsed text found at index n").
    """
    elements = _element_regexes(tokenize(pattern, True))
    end = 0
    for k in range(1, len(elements) + 1):
        m = re.match("(?i)" + "".join(elements[:k]), text)
        if m is None:
            return end, False
        end = m.end()
    return end, True

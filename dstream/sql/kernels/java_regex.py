"""Java regular expressions (``java.util.regex``, what Spark runs) on RE2 and Python's ``re``.

What this module owns
---------------------
``translate(pattern, engine)``: a Java pattern rewritten in the syntax RE2 (``"re2"``) or
``re`` (``"python"``) reads the same way. ``compile_java(pattern, function)``: the Python form,
compiled and cached, or Spark's error for a pattern Java would reject.
``parse_replacement(replacement, compiled)``: a ``regexp_replace`` replacement read as
``Matcher.appendReplacement`` reads it, as literal text and group numbers.

Translated
----------
* POSIX classes ``\\p{Alpha}``, ``\\p{Digit}``, ``\\p{Alnum}``, ``\\p{Upper}``, ``\\p{Lower}``,
  ``\\p{Punct}``, ``\\p{Graph}``, ``\\p{Print}``, ``\\p{Blank}``, ``\\p{Cntrl}``, ``\\p{XDigit}``,
  ``\\p{Space}``, ``\\p{ASCII}``: ASCII only, as Java defines them by default.
* Unicode general categories (``\\p{L}``, ``\\pL``, ``\\p{IsLu}``, ``\\p{gc=Nd}``) and the
  properties ``\\p{IsAlphabetic}`` (letters and letter numbers: the ``Other_Alphabetic`` marks
  are not in Python's tables), ``\\p{IsLetter}``, ``\\p{IsDigit}``, ``\\p{IsUppercase}``,
  ``\\p{IsLowercase}``, ``\\p{IsPunctuation}``, ``\\p{IsControl}``, ``\\p{IsWhite_Space}``.
  Negation: ``\\P{...}``, ``\\p{^...}``. Every class becomes explicit code-point ranges, so
  it also works inside ``[...]`` and on both engines.
* Named groups ``(?<name>...)`` become ``(?P<name>...)`` (both engines read that form).
* ``\\Q...\\E`` quoting, ``\\x{h..h}`` and ``\\uhhhh``: literal characters.
* ``\\z`` is ``\\Z`` for Python (RE2 reads ``\\z``).

Python patterns are compiled with ``re.ASCII``: Java's ``\\d``, ``\\w``, ``\\s`` and ``(?i)`` are
ASCII-only unless the pattern asks otherwise, as RE2's are.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from functools import lru_cache
from typing import Literal

from dstream.sql.errors import IllegalArgumentException, SparkRuntimeException

__all__ = ["translate", "compile_java", "parse_replacement", "ReplacementError"]

Engine = Literal["re2", "python"]
Ranges = list[tuple[int, int]]

_MAX = sys.maxunicode
#: Surrogates cannot be written in a UTF-8 pattern (RE2's input), so no class holds them.
_SURROGATES = (0xD800, 0xDFFF)

#: Java's POSIX classes (``java.util.regex.Pattern``, without ``UNICODE_CHARACTER_CLASS``).
_POSIX: dict[str, Ranges] = {
    "Lower": [(0x61, 0x7A)],
    "Upper": [(0x41, 0x5A)],
    "ASCII": [(0x00, 0x7F)],
    "Alpha": [(0x41, 0x5A), (0x61, 0x7A)],
    "Digit": [(0x30, 0x39)],
    "Alnum": [(0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A)],
    "Punct": [(0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E)],
    "Graph": [(0x21, 0x7E)],
    "Print": [(0x20, 0x7E)],
    "Blank": [(0x09, 0x09), (0x20, 0x20)],
    "Cntrl": [(0x00, 0x1F), (0x7F, 0x7F)],
    "XDigit": [(0x30, 0x39), (0x41, 0x46), (0x61, 0x66)],
    "Space": [(0x09, 0x0D), (0x20, 0x20)],
}

#: Java's binary properties (``\p{IsAlphabetic}``...), by lower-case name without ``_``: the
#: general categories that make them up (the nearest Python's ``unicodedata`` can give).
_PROPERTIES: dict[str, tuple[str, ...]] = {
    "alphabetic": ("Lu", "Ll", "Lt", "Lm", "Lo", "Nl"),
    "letter": ("Lu", "Ll", "Lt", "Lm", "Lo"),
    "digit": ("Nd",),
    "uppercase": ("Lu",),
    "lowercase": ("Ll",),
    "punctuation": ("Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po"),
    "control": ("Cc",),
}
_WHITE_SPACE: Ranges = [(0x09, 0x0D), (0x20, 0x20), (0x85, 0x85), (0xA0, 0xA0), (0x1680, 0x1680),
                        (0x2000, 0x200A), (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F),
                        (0x3000, 0x3000)]


@lru_cache(maxsize=1)
def _categories() -> dict[str, Ranges]:
    """Code-point ranges of every two-letter general category, from one pass over Unicode."""
    out: dict[str, Ranges] = {}
    for cp in range(_MAX + 1):
        ranges = out.setdefault(unicodedata.category(chr(cp)), [])
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1] = (ranges[-1][0], cp)
        else:
            ranges.append((cp, cp))
    return out


def _union(parts: list[Ranges]) -> Ranges:
    merged: Ranges = []
    for lo, hi in sorted(r for part in parts for r in part):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
        else:
            merged.append((lo, hi))
    return merged


def _complement(ranges: Ranges) -> Ranges:
    out: Ranges = []
    start = 0
    for lo, hi in _union([ranges, [_SURROGATES]]):
        if lo > start:
            out.append((start, lo - 1))
        start = hi + 1
    if start <= _MAX:
        out.append((start, _MAX))
    return out


def _class_ranges(name: str) -> Ranges | None:
    """The ranges Java's ``\\p{name}`` matches, or None for a name this module does not know."""
    if name in _POSIX:
        return _POSIX[name]
    key = name.split("=", 1)[1] if name.lower().startswith(("gc=", "general_category=")) else name
    key = key[2:] if key.startswith("Is") else key
    cats = _categories()
    if len(key) == 1 and key.isupper():
        found = [r for cat, r in cats.items() if cat[0] == key]
        return _union(found) if found else None
    if len(key) == 2 and key in cats:
        return cats[key]
    if key == "LC":
        return _union([cats["Lu"], cats["Ll"], cats["Lt"]])
    prop = key.lower().replace("_", "")
    if prop == "whitespace":
        return _WHITE_SPACE
    if prop in _PROPERTIES:
        return _union([cats.get(c, []) for c in _PROPERTIES[prop]])
    return None


def _char(cp: int) -> str:
    """One code point as text both engines read as that literal character, in or out of a class."""
    if cp < 0x80 and not chr(cp).isalnum():
        return f"\\x{cp:02x}"
    return chr(cp)


def _ranges_text(ranges: Ranges) -> str:
    return "".join(_char(lo) if lo == hi else f"{_char(lo)}-{_char(hi)}" for lo, hi in ranges)


def _invalid(pattern: str, function: str, reason: str) -> Exception:
    fix = ("Fix the pattern (in a Python string a backslash may need doubling, or use a raw string r'...'; "
           "\\Q...\\E quotes literal text).")
    message = f"The value of parameter(s) `regexp` in `{function}` is invalid: '{pattern}'. {reason}. {fix}"
    if function in ("split", "str_to_map"):
        # Spark hands these patterns to String.split, whose PatternSyntaxException escapes as
        # a plain IllegalArgumentException without an error condition.
        return IllegalArgumentException(message)
    return SparkRuntimeException(message, "INVALID_PARAMETER_VALUE.PATTERN",
                                 {"parameter": "`regexp`", "functionName": f"`{function}`", "value": f"'{pattern}'"})


def _property(pattern: str, i: int) -> tuple[str, bool, int]:
    """The class name after ``\\p``/``\\P`` at ``i``, whether it is negated, and where it ends."""
    negated = pattern[i + 1].isupper()  # \P{...}
    if i + 2 < len(pattern) and pattern[i + 2] == "{":
        close = pattern.find("}", i + 3)
        if close < 0:
            raise ValueError(f"unclosed character family near index {i}")
        name = pattern[i + 3:close]
        if name.startswith("^"):
            negated, name = not negated, name[1:]
        return name, negated, close + 1
    if i + 2 >= len(pattern):
        raise ValueError(f"illegal character family near index {i}")
    return pattern[i + 2], negated, i + 3


def _translate(pattern: str, engine: Engine) -> str:
    out: list[str] = []
    i, in_class, n = 0, False, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            if nxt == "Q":
                end = pattern.find("\\E", i + 2)
                literal = pattern[i + 2:] if end < 0 else pattern[i + 2:end]
                out.extend(_char(ord(ch)) for ch in literal)
                i = n if end < 0 else end + 2
                continue
            if nxt in "pP":
                name, negated, i = _property(pattern, i)
                ranges = _class_ranges(name)
                if ranges is None:
                    raise ValueError(f"the character class \\p{{{name}}} is not one dstreams knows (POSIX "
                                     "classes such as \\p{Alpha}, Unicode categories such as \\p{L} or \\p{Lu}, "
                                     "and \\p{IsAlphabetic} are)")
                body = _ranges_text(_complement(ranges) if negated else ranges)
                out.append(body if in_class else f"[{body}]")
                continue
            if nxt == "x" and pattern.startswith("{", i + 2):
                close = pattern.find("}", i + 3)
                if close < 0:
                    raise ValueError(f"unclosed hexadecimal escape near index {i}")
                out.append(_char(int(pattern[i + 3:close], 16)))
                i = close + 1
                continue
            if nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", pattern[i + 2:i + 6]):
                out.append(_char(int(pattern[i + 2:i + 6], 16)))
                i += 6
                continue
            out.append("\\Z" if nxt == "z" and engine == "python" and not in_class else pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if pattern.startswith("[^", i):  # keeps "^" from being read as the class's first character
                out.append("[^")
                i += 2
                continue
        elif c == "(" and pattern.startswith("(?<", i) and i + 3 < n and pattern[i + 3] not in "=!":
            out.append("(?P<")
            i += 3
            continue
        out.append(c)
        i += 1
    return "".join(out)


@lru_cache(maxsize=256)
def _translated(pattern: str, engine: Engine) -> str | ValueError:
    try:
        return _translate(pattern, engine)
    except ValueError as exc:
        return exc


def translate(pattern: str, engine: Engine, function: str = "rlike") -> str:
    """The Java ``pattern`` in the syntax of ``engine`` (``"re2"`` or ``"python"``).

    Parameters
    ----------
    pattern : str
        A ``java.util.regex`` pattern.
    engine : {"re2", "python"}
        Who reads the result.
    function : str
        The SQL function, named in the error.

    Returns
    -------
    str

    Raises
    ------
    SparkRuntimeException
        ``INVALID_PARAMETER_VALUE.PATTERN`` for syntax Java rejects or this module cannot translate.
    """
    got = _translated(pattern, engine)
    if isinstance(got, ValueError):
        raise _invalid(pattern, function, str(got))
    return got


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str] | str:
    got = _translated(pattern, "python")
    if isinstance(got, ValueError):
        return str(got)
    try:
        return re.compile(got, re.ASCII)
    except (re.error, OverflowError, RecursionError) as exc:
        return str(exc)


def compile_java(pattern: str, function: str) -> re.Pattern[str]:
    """The Java ``pattern`` compiled with Python's ``re`` (cached).

    Parameters
    ----------
    pattern : str
        A ``java.util.regex`` pattern.
    function : str
        The SQL function it belongs to, named in the error as Spark names it.

    Returns
    -------
    re.Pattern

    Raises
    ------
    SparkRuntimeException
        ``INVALID_PARAMETER_VALUE.PATTERN`` when the pattern is not a valid regular expression
        (``IllegalArgumentException`` for ``split`` and ``str_to_map``, as in Spark).
    """
    got = _compiled(pattern)
    if isinstance(got, str):
        raise _invalid(pattern, function, got)
    return got


class ReplacementError(ValueError):
    """A replacement ``Matcher.appendReplacement`` rejects (Java's reason is the message)."""


def parse_replacement(replacement: str, compiled: re.Pattern[str]) -> list[str | int]:
    """A Java replacement string as literal text (``str``) and group numbers (``int``).

    ``$n`` takes as many digits as still name a group (``$12`` with one group is group 1 then
    ``"2"``), ``${name}`` a named group, ``\\x`` the character ``x``.

    Raises
    ------
    ReplacementError
        Where Java throws: a group that does not exist, ``$`` not followed by a group, a
        ``${...}`` name that is empty, unclosed or starts with a digit, a trailing backslash.
    """
    parts: list[str | int] = []
    text: list[str] = []
    i, n = 0, len(replacement)
    while i < n:
        c = replacement[i]
        if c == "\\":
            if i + 1 == n:
                raise ReplacementError("character to be escaped is missing")
            text.append(replacement[i + 1])
            i += 2
            continue
        if c != "$":
            text.append(c)
            i += 1
            continue
        if i + 1 == n:
            raise ReplacementError("Illegal group reference: group index is missing")
        if replacement[i + 1] == "{":
            m = re.match(r"[A-Za-z0-9]*", replacement[i + 2:])
            name = m.group(0) if m else ""
            i += 2 + len(name)
            if not name:
                raise ReplacementError("named capturing group has 0 length name")
            if i >= n or replacement[i] != "}":
                raise ReplacementError("named capturing group is missing trailing '}'")
            if name[0].isdigit():
                raise ReplacementError(f"capturing group name {{{name}}} starts with digit character")
            if name not in compiled.groupindex:
                raise ReplacementError(f"No group with name {{{name}}}")
            group = compiled.groupindex[name]
            i += 1
        else:
            if not replacement[i + 1].isdigit() or not replacement[i + 1].isascii():
                raise ReplacementError("Illegal group reference")
            group, i = int(replacement[i + 1]), i + 2
            while i < n and replacement[i].isascii() and replacement[i].isdigit() \
                    and group * 10 + int(replacement[i]) <= compiled.groups:
                group, i = group * 10 + int(replacement[i]), i + 1
            if group > compiled.groups:
                raise ReplacementError(f"No group {group}")
        if text:
            parts.append("".join(text))
            text = []
        parts.append(group)
    if text:
        parts.append("".join(text))
    return parts

"""Spark 4's regular-expression kernels over pyarrow arrays: ``rlike``, ``regexp_extract``,
``regexp_replace`` and ``split``.

What this module owns
---------------------
Signatures (``a`` a string ``pa.Array``, the pattern a Python string): ``rlike(a, pattern)``,
``regexp_extract(a, pattern, idx=1)``, ``regexp_replace(a, pattern, replacement)`` (pattern and
replacement may also be string arrays of per-row values), ``split(a, pattern, limit=-1)``.

Patterns are Java's (:mod:`.java_regex` translates them): they run on Arrow's RE2 when RE2
accepts the translation, per row on Python's ``re`` otherwise (look-around, back-references,
possessive quantifiers). Every pattern is first compiled with ``re``, so a pattern Java would
reject raises Spark's ``INVALID_PARAMETER_VALUE.PATTERN`` whichever engine runs it.

Spark's rules: NULL in, NULL out; ``regexp_extract`` gives ``""`` when nothing matches and
rejects a group index beyond the pattern's groups; ``regexp_replace`` reads its replacement as
``Matcher.appendReplacement`` does (``$n``, ``${name}``, ``\\$``) and raises
``INVALID_REGEXP_REPLACE`` for a bad one, but only when some row matches (Java reads the
replacement while it substitutes); ``split`` keeps empty strings, trailing ones included.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from dstream.sql.errors import IllegalArgumentException, SparkRuntimeException
from dstream.sql.kernels.arith import as_array
from dstream.sql.kernels.java_regex import ReplacementError, compile_java, parse_replacement, translate

__all__ = ["rlike", "regexp_extract", "regexp_replace", "split"]

_STR = pa.string()


def _s(a: Any) -> pa.Array:
    x = as_array(a)
    return pc.cast(x, _STR) if pa.types.is_large_string(x.type) or x.type == pa.null() else x


def _regex(arrow: Callable[[], pa.Array], python: Callable[[str], Any], x: pa.Array, t: pa.DataType) -> pa.Array:
    """Run on RE2; if RE2 rejects the (valid) pattern, per row with ``re``."""
    try:
        return arrow()
    except pa.ArrowInvalid as exc:
        if "regular expression" not in str(exc) and "regex" not in str(exc).lower():
            raise
    return pa.array([None if s is None else python(s) for s in x.to_pylist()], t)


def rlike(a: Any, pattern: str, function: str = "rlike") -> pa.Array:
    """``a RLIKE pattern``: the Java regex matches somewhere in ``a``; ``function`` is named in errors."""
    x = _s(a)
    compiled = compile_java(pattern, function)
    return _regex(lambda: pc.match_substring_regex(x, translate(pattern, "re2", function)),
                  lambda s: compiled.search(s) is not None, x, pa.bool_())


def _name_groups(pattern: str) -> str:
    """The (translated) pattern with every capturing group named ``g1``, ``g2``... (RE2's extract needs names)."""
    out, i, n, in_class = [], 0, 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "(" and (pattern.startswith("(?P<", i) or not pattern.startswith("(?", i)):
            n += 1
            out.append(f"(?P<g{n}>")
            i = pattern.index(">", i) + 1 if pattern.startswith("(?P<", i) else i + 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def regexp_extract(a: Any, pattern: str, idx: int = 1) -> pa.Array:
    """``regexp_extract(a, pattern, idx)``: group ``idx`` (0 = whole match) of the first match, ``""`` if none."""
    x = _s(a)
    compiled = compile_java(pattern, "regexp_extract")
    if idx > compiled.groups or idx < 0:
        raise IllegalArgumentException(
            f"Regex group count is {compiled.groups}, but the specified group index is {idx}.",
            "INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX", {"groupCount": str(compiled.groups), "groupIndex": str(idx)})

    def arrow() -> pa.Array:
        named = _name_groups(translate(pattern, "re2", "regexp_extract"))
        parts = pc.extract_regex(x, f"(?P<g0>{named})")
        got = pc.fill_null(parts.field(f"g{idx}"), "")
        return pc.if_else(pc.is_null(x), pa.scalar(None, _STR), got)

    def python(s: str) -> str:
        m = compiled.search(s)
        return "" if m is None else (m.group(idx) or "")

    return _regex(arrow, python, x, _STR)


def _re2_rewrite(template: list[str | int]) -> str | None:
    """The replacement in RE2's rewrite syntax, or None when it names a group past 9 (RE2 cannot)."""
    out = []
    for part in template:
        if isinstance(part, int):
            if part > 9:
                return None
            out.append(f"\\{part}")
        else:
            out.append(part.replace("\\", "\\\\"))
    return "".join(out)


def _replace_error(x: pa.Array, pattern: str, replacement: str, compiled: re.Pattern[str],
                   reason: ReplacementError) -> pa.Array:
    """Spark's ``INVALID_REGEXP_REPLACE`` for the first row that matches; the rows unchanged if none does."""
    source = next((s for s in x.to_pylist() if s is not None and compiled.search(s)), None)
    if source is None:
        return x  # Java reads the replacement only to substitute a match
    raise SparkRuntimeException(
        f'Could not perform regexp_replace for source = "{source}", pattern = "{pattern}", replacement = '
        f'"{replacement}" and position = 1: {reason}. Fix the replacement: $n or ${{name}} must name a group of '
        "the pattern (a name starts with a letter), \\$ is a literal dollar sign and \\\\ a literal backslash.",
        "INVALID_REGEXP_REPLACE",
        {"source": source, "pattern": pattern, "replacement": replacement, "position": "1"})


def regexp_replace(a: Any, pattern: Any, replacement: Any) -> pa.Array:
    """``regexp_replace(a, pattern, replacement)``: every match replaced; ``$n``/``${name}`` name a group.

    ``pattern`` and ``replacement`` are Python strings, or string arrays of per-row values.
    """
    x = _s(a)
    if isinstance(pattern, (pa.Array, pa.ChunkedArray)) or isinstance(replacement, (pa.Array, pa.ChunkedArray)):
        return _per_pair(x, as_array(pattern, _STR, len(x)), as_array(replacement, _STR, len(x)), regexp_replace)
    if pattern is None or replacement is None:
        return pa.nulls(len(x), _STR)
    compiled = compile_java(pattern, "regexp_replace")
    try:
        template = parse_replacement(replacement, compiled)
    except ReplacementError as exc:
        return _replace_error(x, pattern, replacement, compiled, exc)

    def substitute(m: re.Match[str]) -> str:
        return "".join(p if isinstance(p, str) else (m.group(p) or "") for p in template)

    def python(s: str) -> str:
        return compiled.sub(substitute, s)

    rewrite = _re2_rewrite(template)
    if rewrite is None:
        return pa.array([None if s is None else python(s) for s in x.to_pylist()], _STR)
    return _regex(lambda: pc.replace_substring_regex(x, translate(pattern, "re2", "regexp_replace"), rewrite),
                  python, x, _STR)


def _per_pair(x: pa.Array, first: pa.Array, second: pa.Array, kernel: Callable[..., pa.Array]) -> pa.Array:
    """``kernel(x, p, r)`` with per-row ``p`` and ``r``: one kernel call per distinct pair, on its rows."""
    out: list[Any] = [None] * len(x)
    groups: dict[tuple[Any, Any], list[int]] = {}
    for i, key in enumerate(zip(first.to_pylist(), second.to_pylist())):
        if None not in key:  # a NULL pattern or replacement gives NULL
            groups.setdefault(key, []).append(i)
    for (p, r), rows in groups.items():
        for i, v in zip(rows, kernel(x.take(pa.array(rows, pa.int64())), p, r).to_pylist()):
            out[i] = v
    return pa.array(out, _STR)


#: Characters with a meaning in a Java regular expression; a pattern without any is literal text.
_REGEX_SYNTAX = frozenset("\\^$.|?*+()[]{}")


def _java_split(s: str, regex: re.Pattern[str], limit: int) -> list[str]:
    """Java's ``Pattern.split(s, limit)`` (``limit <= 0``: no cap, trailing empty strings kept).

    Matches are found as ``Matcher.find`` does: after an empty match the next search starts one
    character later, and a zero-width match at the very start adds no leading empty string. Python's
    ``re.split`` differs on both and also returns the groups' text, hence this loop.
    """
    parts: list[str] = []
    index, search_from = 0, 0
    while search_from <= len(s):
        m = regex.search(s, search_from)
        if m is None:
            break
        start, end = m.span()
        search_from = end + 1 if start == end else end
        if limit > 0 and len(parts) == limit - 1:
            parts.append(s[index:])  # the last piece holds the rest of the string
            index = end
            break
        if index == 0 and start == end == 0:
            continue
        parts.append(s[index:start])
        index = end
    if index == 0:
        return [s]
    if limit <= 0 or len(parts) < limit:
        parts.append(s[index:])
    return parts


def _split_empty_pattern(s: str, limit: int) -> list[str]:
    """Spark's own case of an empty pattern (``UTF8String.split``): the first ``limit`` characters (all
    of them when ``limit <= 0``), one per piece; the rest is dropped, not kept in a last piece."""
    if not s:
        return [s]
    return list(s if limit <= 0 else s[:limit])


def _may_match_empty(compiled: re.Pattern[str]) -> bool:
    """Whether the regex can match zero characters somewhere (``x*``, ``(?=b)``, ``\\b``, ``a|``)."""
    try:
        from re import _parser  # type: ignore[attr-defined]  # noqa: PLC0415 - CPython's own regex parser

        return bool(_parser.parse(compiled.pattern, compiled.flags).getwidth()[0] == 0)
    except (re.error, ImportError, AttributeError, RecursionError):
        return True  # unknown: the per-row loop is right for every pattern, only slower


def split(a: Any, pattern: str, limit: int = -1, function: str = "split") -> pa.Array:
    """``split(a, pattern, limit)``: list<string> as Java's ``String.split`` gives it, with Spark's changes.

    Empty strings are kept, trailing ones included (Spark turns ``limit`` 0 into -1); ``limit > 0`` caps
    the pieces; an empty pattern splits into characters. ``function`` is named in errors.
    """
    x = _s(a)
    max_splits = None if limit <= 0 else limit - 1
    t = pa.list_(_STR)
    if pattern == "":
        return pa.array([None if s is None else _split_empty_pattern(s, limit) for s in x.to_pylist()], t)
    if not any(ch in _REGEX_SYNTAX for ch in pattern):
        # A pattern without regex syntax splits on the literal text: no regex engine needed.
        return pc.split_pattern(x, pattern, max_splits=max_splits)
    compiled = compile_java(pattern, function)

    def python(s: str) -> list[str]:
        return _java_split(s, compiled, limit)

    if _may_match_empty(compiled):
        # Arrow's split_pattern_regex never advances past an empty match (it loops forever).
        return pa.array([None if s is None else python(s) for s in x.to_pylist()], t)
    return _regex(lambda: pc.split_pattern_regex(x, translate(pattern, "re2", function), max_splits=max_splits),
                  python, x, t)

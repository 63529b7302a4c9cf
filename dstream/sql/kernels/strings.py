"""Spark 4 string functions over pyarrow arrays.

What this module owns
---------------------
Signatures (``a`` a string ``pa.Array``; other arguments Python scalars unless noted):
``lower(a)``, ``upper(a)``, ``trim(a, chars=None)``, ``ltrim``, ``rtrim`` (spaces only by
default), ``length(a)`` (characters; bytes for binary), ``substring(a, pos, length=None)``,
``concat(arrays)``, ``concat_ws(sep, arrays)`` (arrays may be string or list<string> arrays),
``split(a, pattern, limit=-1)``, ``regexp_extract(a, pattern, idx=1)``,
``regexp_replace(a, pattern, replacement)``, ``like(a, pattern, escape="\\\\")``,
``rlike(a, pattern)``, ``startswith(a, prefix)``, ``endswith(a, suffix)``, ``contains(a, sub)``,
``instr(a, sub)``, ``locate(sub, a, pos=1)``, ``lpad(a, n, pad=" ")``, ``rpad``,
``repeat(a, n)``, ``reverse(a)``, ``initcap(a)``, ``translate(a, matching, replace)``.

Spark's rules: NULL in, NULL out (``concat_ws`` skips NULLs); positions are 1-based and
count characters (code points); ``substring`` follows ``UTF8String.substringSQL`` (0 acts as
1, negative counts from the end, the window is clipped, not shifted); ``split`` keeps
empty strings, trailing ones included; ``regexp_extract`` gives ``""`` when nothing matches;
``instr``/``locate`` give 0 when absent; ``lpad``/``rpad`` truncate to ``n``; ``initcap``
lower-cases and capitalises words separated by spaces.

The regular-expression kernels (``split``, ``regexp_extract``, ``regexp_replace``, ``rlike``)
live in :mod:`.regexes` and are exported here too.

Per-row Python: ``translate``, ``lpad``/``rpad`` with a pad of several characters,
``concat_ws`` over array columns, ``substring`` with array positions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from dstream.sql.kernels.arith import as_array
from dstream.sql.kernels.regexes import regexp_extract, regexp_replace, rlike, split

__all__ = ["lower", "upper", "trim", "ltrim", "rtrim", "length", "substring", "concat", "concat_ws", "split",
           "regexp_extract", "regexp_replace", "like", "rlike", "startswith", "endswith", "contains", "instr",
           "locate", "lpad", "rpad", "repeat", "reverse", "initcap", "translate"]

_STR = pa.string()


def _s(a: Any) -> pa.Array:
    x = as_array(a)
    return pc.cast(x, _STR) if pa.types.is_large_string(x.type) or x.type == pa.null() else x


def lower(a: Any) -> pa.Array:
    """``lower(a)`` (Unicode lower case, Java's full mapping: ``İ`` is ``i`` and a combining dot)."""
    return _full_case(_s(a), pc.utf8_lower, str.lower)


def upper(a: Any) -> pa.Array:
    """``upper(a)`` (Unicode upper case, Java's full mapping: ``ß`` is ``SS``)."""
    return _full_case(_s(a), pc.utf8_upper, str.upper)


def _full_case(x: pa.Array, arrow_case: Any, python_case: Any) -> pa.Array:
    """Arrow's case mapping is one character to one (``ß`` to ``ẞ``); Java's and Python's
    follow Unicode's SpecialCasing (``ß`` to ``SS``). ASCII rows, the usual ones, stay in
    Arrow; the others are mapped by Python, which agrees with Java on these."""
    if _all_ascii(x):
        return arrow_case(x)
    fixed = [None if v is None else python_case(v) for v in x.to_pylist()]
    return pa.array(fixed, pa.string())


def _all_ascii(x: pa.Array) -> bool:
    """Whether every non-null row is ASCII text (Arrow's case kernels are then Java's)."""
    return bool(pc.all(pc.fill_null(pc.string_is_ascii(x), True)).as_py())


def trim(a: Any, chars: str | None = None) -> pa.Array:
    """``trim(a)``: spaces (or the characters of ``chars``) removed from both ends."""
    return pc.utf8_trim(_s(a), characters=" " if chars is None else chars)


def ltrim(a: Any, chars: str | None = None) -> pa.Array:
    """``ltrim(a)``: leading spaces (or ``chars``) removed."""
    return pc.utf8_ltrim(_s(a), characters=" " if chars is None else chars)


def rtrim(a: Any, chars: str | None = None) -> pa.Array:
    """``rtrim(a)``: trailing spaces (or ``chars``) removed."""
    return pc.utf8_rtrim(_s(a), characters=" " if chars is None else chars)


def length(a: Any) -> pa.Array:
    """``length(a)``: characters of a string, bytes of a binary value (int32)."""
    x = as_array(a)
    if pa.types.is_binary(x.type) or pa.types.is_large_binary(x.type):
        return pc.cast(pc.binary_length(x), pa.int32())
    return pc.cast(pc.utf8_length(_s(x)), pa.int32())


def _substring_one(s: str, pos: int, n: int) -> str:
    size = len(s)
    start = pos - 1 if pos > 0 else size + pos if pos < 0 else 0
    end = start + n
    start = max(start, 0)
    return "" if start >= end else s[start:end]


def substring(a: Any, pos: Any, length: Any = None) -> pa.Array:
    """Spark's ``substring(a, pos, length)`` (``UTF8String.substringSQL``).

    Parameters
    ----------
    a : pa.Array
        string.
    pos : int or pa.Array
        1-based start; 0 acts as 1; negative counts from the end.
    length : int or pa.Array, optional
        Number of characters (to the end when omitted); negative gives ``""``.

    Returns
    -------
    pa.Array
    """
    x = _s(a)
    if isinstance(pos, (pa.Array, pa.ChunkedArray)) or isinstance(length, (pa.Array, pa.ChunkedArray)):
        ps = as_array(pos, pa.int64(), len(x)).to_pylist()
        ns = as_array(2**31 - 1 if length is None else length, pa.int64(), len(x)).to_pylist()
        return pa.array([None if s is None or p is None or n is None else _substring_one(s, p, n)
                         for s, p, n in zip(x.to_pylist(), ps, ns)], _STR)
    if pos is None:
        return pa.nulls(len(x), _STR)
    n = 2**31 - 1 if length is None else int(length)
    if n <= 0:
        return pc.if_else(pc.is_null(x), pa.scalar(None, _STR), "")
    pos = int(pos)
    if pos >= 0:
        start = max(pos - 1, 0)
        return pc.utf8_slice_codeunits(x, start=start, stop=start + n)
    stop = pos + n
    # A negative start is relative to the end; so is the stop while it stays negative.
    return pc.utf8_slice_codeunits(x, start=pos, stop=stop if stop < 0 else None)


def concat(arrays: Sequence[Any]) -> pa.Array:
    """``concat(a, b, ...)``: NULL if any input is NULL."""
    cols = [_s(c) for c in arrays]
    if not cols:
        return pa.array([""], _STR)
    return pc.binary_join_element_wise(*cols, "", null_handling="emit_null")


def concat_ws(sep: str, arrays: Sequence[Any]) -> pa.Array:
    """``concat_ws(sep, a, b, ...)``: NULLs skipped; array<string> inputs contribute their non-NULL elements."""
    cols = [as_array(c) for c in arrays]
    if any(pa.types.is_list(c.type) or pa.types.is_large_list(c.type) for c in cols):
        rows = zip(*[c.to_pylist() for c in cols])
        out = []
        for row in rows:
            parts: list[str] = []
            for v in row:
                if isinstance(v, list):
                    parts.extend(e for e in v if e is not None)
                elif v is not None:
                    parts.append(v)
            out.append(sep.join(parts))
        return pa.array(out, _STR)
    strs = [_s(c) for c in cols]
    if not strs:
        return pa.array([""], _STR)
    n, k = len(strs[0]), len(strs)
    # Row-major interleaving of the columns, NULLs dropped, one list per row, joined by Arrow.
    # (binary_join_element_wise's "skip" mode loses rows whose inputs are all NULL.)
    i = pa.array(range(n * k), pa.int64())
    row = pc.divide(i, k)
    idx = pc.add(pc.multiply(pc.subtract(i, pc.multiply(row, k)), n), row)
    flat = pc.take(pa.concat_arrays(strs), idx)
    keep = pc.is_valid(flat)
    counts = pa.repeat(pa.scalar(0, pa.int64()), n)
    for c in strs:
        counts = pc.add(counts, pc.cast(pc.is_valid(c), pa.int64()))
    offsets = pa.concat_arrays([pa.array([0], pa.int64()), pc.cumulative_sum(counts)])
    lists = pa.LargeListArray.from_arrays(offsets, pc.filter(flat, keep))
    return pc.binary_join(lists, sep)


def like_to_regex(pattern: str, escape: str = "\\") -> str:
    """A SQL LIKE pattern as an anchored regular expression (``%`` any run, ``_`` one character)."""
    out, i = ["(?s)^"], 0
    while i < len(pattern):
        c = pattern[i]
        if c == escape and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if c == "%" else "." if c == "_" else re.escape(c))
        i += 1
    out.append("$")
    return "".join(out)


def like(a: Any, pattern: str, escape: str = "\\") -> pa.Array:
    """``a LIKE pattern`` (case-sensitive; ``escape`` quotes the next character)."""
    return pc.match_substring_regex(_s(a), like_to_regex(pattern, escape))


def startswith(a: Any, prefix: str) -> pa.Array:
    """``startswith(a, prefix)``."""
    return pc.starts_with(_s(a), prefix)


def endswith(a: Any, suffix: str) -> pa.Array:
    """``endswith(a, suffix)``."""
    return pc.ends_with(_s(a), suffix)


def contains(a: Any, sub: str) -> pa.Array:
    """``contains(a, sub)``."""
    return pc.match_substring(_s(a), sub)


def instr(a: Any, sub: str) -> pa.Array:
    """``instr(a, sub)``: 1-based character position of the first ``sub``, 0 if absent (int32)."""
    x = _s(a)
    if sub == "":
        return pc.if_else(pc.is_null(x), pa.scalar(None, pa.int32()), pa.scalar(1, pa.int32()))
    pieces = pc.split_pattern(x, sub, max_splits=1)
    found = pc.equal(pc.list_value_length(pieces), 2)
    before = pc.utf8_length(pc.list_element(pieces, 0))
    return pc.cast(pc.if_else(found, pc.add(before, 1), 0), pa.int32())


def locate(sub: str, a: Any, pos: int = 1) -> pa.Array:
    """``locate(sub, a, pos)``: like :func:`instr` from character ``pos`` on; ``pos < 1`` gives 0."""
    x = _s(a)
    if pos < 1:
        return pc.if_else(pc.is_null(x), pa.scalar(None, pa.int32()), pa.scalar(0, pa.int32()))
    found = instr(pc.utf8_slice_codeunits(x, start=pos - 1), sub)
    if sub == "":
        return found
    return pc.cast(pc.if_else(pc.greater(found, 0), pc.add(found, pos - 1), 0), pa.int32())


def _pad(a: Any, n: int, pad: str, left: bool) -> pa.Array:
    x = _s(a)
    if n <= 0:
        return pc.if_else(pc.is_null(x), pa.scalar(None, _STR), "")
    cut = pc.utf8_slice_codeunits(x, start=0, stop=n)
    if pad == "":
        return cut
    if len(pad) == 1:
        return pc.utf8_lpad(cut, width=n, padding=pad) if left else pc.utf8_rpad(cut, width=n, padding=pad)

    def one(s: str) -> str:
        fill = (pad * n)[: n - len(s)]
        return fill + s if left else s + fill

    return pa.array([None if s is None else one(s) for s in cut.to_pylist()], _STR)


def lpad(a: Any, n: int, pad: str = " ") -> pa.Array:
    """``lpad(a, n, pad)``: left-padded (repeating ``pad``) or truncated to ``n`` characters."""
    return _pad(a, n, pad, True)


def rpad(a: Any, n: int, pad: str = " ") -> pa.Array:
    """``rpad(a, n, pad)``: right-padded or truncated to ``n`` characters."""
    return _pad(a, n, pad, False)


def repeat(a: Any, n: Any) -> pa.Array:
    """``repeat(a, n)`` (``n <= 0`` gives ``""``); ``n`` a number or an array (null: null)."""
    if isinstance(n, pa.Array | pa.ChunkedArray):
        return pc.binary_repeat(_s(a), pc.max_element_wise(n.cast(pa.int64()), 0, skip_nulls=False))
    return pc.binary_repeat(_s(a), max(int(n), 0))


def reverse(a: Any) -> pa.Array:
    """``reverse(a)`` by characters."""
    return pc.utf8_reverse(_s(a))


def initcap(a: Any) -> pa.Array:
    """``initcap(a)``: every space-separated word lower-cased with its first character upper-cased."""
    x = _s(a)
    if not _all_ascii(x):
        # Java's title case of a first letter may be two letters (ß: Ss), as Python's is.
        return pa.array([None if v is None else " ".join(w[:1].title() + w[1:].lower() for w in v.split(" "))
                         for v in x.to_pylist()], pa.string())
    words = pc.split_pattern(x, " ")
    flat = pc.utf8_capitalize(pc.list_flatten(words))
    offsets = pc.subtract(words.offsets, words.offsets[0]) if len(words) else words.offsets
    rebuilt = pa.ListArray.from_arrays(offsets, flat, mask=pc.is_null(words))
    return pc.binary_join(rebuilt, " ")


def translate(a: Any, matching: str, replace: str) -> pa.Array:
    """``translate(a, matching, replace)``: each character of ``matching`` becomes the one at its position in
    ``replace``, or is removed when ``replace`` is shorter (the first occurrence in ``matching`` wins)."""
    table: dict[int, int | None] = {}
    for i, ch in enumerate(matching):
        if ord(ch) not in table:
            table[ord(ch)] = ord(replace[i]) if i < len(replace) else None
    x = _s(a)
    return pa.array([None if s is None else s.translate(table) for s in x.to_pylist()], _STR)

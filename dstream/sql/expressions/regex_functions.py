"""Regular-expression functions of the registry: ``regexp_count``, ``regexp_extract_all``,
``regexp_substr`` and ``regexp_instr``.

What this module owns
---------------------
The :class:`FunctionSpec` of each. The pattern is a constant (a literal, as Spark
requires of these functions in practice); it is compiled once per batch with Python's
``re``, whose syntax covers the Java patterns programs use (classes, groups,
quantifiers, anchors, look-arounds).

Invariants
----------
* A null string or pattern gives null.
* ``regexp_count``: the number of non-overlapping matches.
* ``regexp_extract_all(s, p, idx=1)``: group ``idx`` of every match, ``""`` for a group
  that took no part; an ``idx`` beyond the pattern's groups is an error
  (``INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX``), as for ``regexp_extract``.
* ``regexp_substr``: the first match, null when there is none.
* ``regexp_instr(s, p, idx=0)``: the 1-based position (in characters) where group
  ``idx`` of the first match starts, 0 when nothing matches.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pyarrow as pa

from ..errors import IllegalArgumentException
from ..types import ArrayType, DataType, IntegerType, StringType
from .base import EvalContext
from .function_registry import FunctionSpec, register

__all__: list[str] = []


def _types(types: list[DataType]) -> list[DataType | None]:
    wanted: list[DataType | None] = [StringType(), StringType(), IntegerType()]
    return wanted[: len(types)]


def _compile(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise IllegalArgumentException(
            f"The value '{pattern}' of the regexp parameter is not a valid regular expression: {exc}. Fix the "
            "pattern (a backslash in a Python string literal may need doubling, or use a raw string r'...').",
            "INVALID_PARAMETER_VALUE.PATTERN", {"parameter": "regexp", "value": pattern}) from exc


def _group(compiled: re.Pattern[str], idx: int) -> int:
    if idx < 0 or idx > compiled.groups:
        raise IllegalArgumentException(
            f"Regex group count is {compiled.groups}, but the specified group index is {idx}.",
            "INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX", {"groupCount": str(compiled.groups), "groupIndex": str(idx)})
    return idx


def _per_value(fn: Callable[[re.Pattern[str], int, str], Any], arrow_type: pa.DataType,
               default_idx: int) -> Callable[[list[Any], list[DataType], DataType, EvalContext], pa.Array]:
    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        values, pattern = args[0], args[1]
        idx = args[2] if len(args) > 2 else default_idx
        if pattern is None or idx is None:
            return pa.nulls(len(values), arrow_type)
        compiled = _compile(pattern)
        group = _group(compiled, idx)
        return pa.array([None if s is None else fn(compiled, group, s) for s in values.to_pylist()], arrow_type)
    return run


def _count(compiled: re.Pattern[str], group: int, s: str) -> int:
    return sum(1 for _ in compiled.finditer(s))


def _extract_all(compiled: re.Pattern[str], group: int, s: str) -> list[str]:
    return [m.group(group) or "" for m in compiled.finditer(s)]


def _substr(compiled: re.Pattern[str], group: int, s: str) -> str | None:
    m = compiled.search(s)
    return None if m is None else m.group(0)


def _instr(compiled: re.Pattern[str], group: int, s: str) -> int:
    m = compiled.search(s)
    return 0 if m is None or m.start(group) < 0 else m.start(group) + 1


register(FunctionSpec("regexp_count", 2, 2, _types, lambda ts: IntegerType(), _per_value(_count, pa.int32(), 0),
                      scalar_positions=(1,)))
register(FunctionSpec("regexp_extract_all", 2, 3, _types, lambda ts: ArrayType(StringType(), True),
                      _per_value(_extract_all, pa.list_(pa.string()), 1), scalar_positions=(1, 2)))
register(FunctionSpec("regexp_substr", 2, 2, _types, lambda ts: StringType(), _per_value(_substr, pa.string(), 0),
                      scalar_positions=(1,)))
register(FunctionSpec("regexp_instr", 2, 3, _types, lambda ts: IntegerType(), _per_value(_instr, pa.int32(), 0),
                      scalar_positions=(1, 2)))

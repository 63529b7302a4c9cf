"""Regular-expression functions of the registry: ``regexp_count``, ``regexp_extract_all``,
``regexp_substr`` and ``regexp_instr``.

What this module owns
---------------------
The :class:`FunctionSpec` of each. The pattern is a constant (a literal, as Spark
requires of these functions in practice); it is a Java pattern, translated and compiled
with Python's ``re`` by :func:`~dstream.sql.kernels.java_regex.compile_java` (which
raises Spark's ``INVALID_PARAMETER_VALUE.PATTERN`` for a bad one).

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


def _group(compiled: re.Pattern[str], idx: int) -> int:
    if idx < 0 or idx > compiled.groups:
        raise IllegalArgumentException(
            f"Regex group count is {compiled.groups}, but the specified group index is {idx}.",
            "INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX", {"groupCount": str(compiled.groups), "groupIndex": str(idx)})
    return idx


def _per_value(fn: Callable[[re.Pattern[str], int, str], Any], arrow_type: pa.DataType, default_idx: int,
               spark_name: str) -> Callable[[list[Any], list[DataType], DataType, EvalContext], pa.Array]:
    """The kernel of one function; ``spark_name`` is the function Spark names in a pattern error
    (it rewrites ``regexp_count`` into ``regexp_extract_all`` and ``regexp_substr`` into ``regexp_extract``)."""
    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        from ..kernels.java_regex import compile_java  # noqa: PLC0415 - kernels load at run time

        values, pattern = args[0], args[1]
        idx = args[2] if len(args) > 2 else default_idx
        if pattern is None or idx is None:
            return pa.nulls(len(values), arrow_type)
        compiled = compile_java(pattern, spark_name)
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


register(FunctionSpec("regexp_count", 2, 2, _types, lambda ts: IntegerType(),
                      _per_value(_count, pa.int32(), 0, "regexp_extract_all"), scalar_positions=(1,)))
register(FunctionSpec("regexp_extract_all", 2, 3, _types, lambda ts: ArrayType(StringType(), True),
                      _per_value(_extract_all, pa.list_(pa.string()), 1, "regexp_extract_all"),
                      scalar_positions=(1, 2)))
register(FunctionSpec("regexp_substr", 2, 2, _types, lambda ts: StringType(),
                      _per_value(_substr, pa.string(), 0, "regexp_extract"), scalar_positions=(1,)))
register(FunctionSpec("regexp_instr", 2, 3, _types, lambda ts: IntegerType(),
                      _per_value(_instr, pa.int32(), 0, "regexp_instr"), scalar_positions=(1, 2)))

"""Aggregator: the three functions of a combine-by-key, and the loops that apply them.

The loops are the hottest code of a shuffle, so they are written flat: one dict, bound
methods hoisted out of the loop, no per-record allocation beyond the user's own.
"""

from __future__ import annotations

import dis
import functools
import operator
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any


def _is_plain_add(fn: Callable) -> bool:
    """True when ``fn`` is ``operator.add`` or a lambda whose body is exactly ``a + b``.

    Such a merge can be inlined as ``+`` in the combine loop, saving a Python call per
    record; the result is identical because it is the same operation.
    """
    if fn is operator.add:
        return True
    code = getattr(fn, "__code__", None)
    if code is None or code.co_argcount != 2 or fn.__defaults__ or code.co_freevars:
        return False
    return code.co_code == _ADD_TEMPLATE.co_code and code.co_consts in ((None,), ()) and code.co_names == ()


_ADD_TEMPLATE = (lambda a, b: a + b).__code__


_MISSING = object()


def _identity(x: Any) -> Any:
    return x


_IDENTITY_TEMPLATE = (lambda x: x).__code__


def _is_identity(fn: Callable) -> bool:
    """True when ``fn`` is a one-argument function returning its argument unchanged."""
    if fn is _identity:
        return True
    code = getattr(fn, "__code__", None)
    if code is None or code.co_argcount != 1 or code.co_freevars:
        return False
    return code.co_code == _IDENTITY_TEMPLATE.co_code and code.co_names == ()


@dataclass(frozen=True)
class Aggregator:
    """``create_combiner(v)``, ``merge_value(c, v)``, ``merge_combiners(c1, c2)``."""

    create_combiner: Callable[[Any], Any]
    merge_value: Callable[[Any, Any], Any]
    merge_combiners: Callable[[Any, Any], Any]

    def combine_values_by_key(self, records: Iterable[tuple[Any, Any]]) -> dict:
        """Fold ``(k, v)`` records into one combiner per key."""
        combined: dict = {}
        get = combined.get
        create, merge = self.create_combiner, self.merge_value
        # One lookup to read and one to write per record; ``c + v`` (never ``+=``) so a
        # mutable first value that became the combiner is not changed in place.
        if _is_identity(create) and _is_plain_add(merge):
            for k, v in records:
                c = get(k, _MISSING)
                combined[k] = v if c is _MISSING else c + v
            return combined
        for k, v in records:
            c = get(k, _MISSING)
            combined[k] = create(v) if c is _MISSING else merge(c, v)
        return combined

    def merge_combiners_into(self, combined: dict, records: Iterable[tuple[Any, Any]]) -> dict:
        """Merge ``(k, combiner)`` records into ``combined`` (reduce side)."""
        get = combined.get
        merge = self.merge_combiners
        if _is_plain_add(merge):
            for k, c in records:
                old = get(k, _MISSING)
                combined[k] = c if old is _MISSING else old + c
            return combined
        for k, c in records:
            old = get(k, _MISSING)
            combined[k] = c if old is _MISSING else merge(old, c)
        return combined


def constant_pair_value(fn: Callable) -> int | None:
    """The integer ``c`` when ``fn`` is exactly ``lambda x: (x, c)``, else ``None``.

    Read from the bytecode, so only a function whose whole body is that tuple qualifies
    (no closures, defaults or side effects). Used to fuse ``map(lambda x: (x, c))``
    followed by a ``+``-reduction into one C-level count (see ``nodes.fusion``).
    """
    code = getattr(fn, "__code__", None)
    if code is None or getattr(fn, "__defaults__", None):
        return None
    return _constant_of_code(code)


@functools.lru_cache(maxsize=512)
def _constant_of_code(code: types.CodeType) -> int | None:
    """:func:`constant_pair_value` for a code object (immutable, so the answer is cached:
    a stream asks again for every batch, and disassembling costs ~50 us)."""
    if code.co_argcount != 1 or code.co_kwonlyargcount or code.co_freevars or code.co_flags & 0x0C:
        return None
    ops = [i for i in dis.get_instructions(code) if i.opname not in ("RESUME", "NOP", "CACHE")]
    shape = [i.opname for i in ops]
    if shape == ["LOAD_FAST", "LOAD_CONST", "BUILD_TUPLE", "RETURN_VALUE"]:
        if ops[0].arg == 0 and ops[2].arg == 2 and type(ops[1].argval) is int:
            return ops[1].argval
    return None


def is_sum_aggregator(agg: Aggregator | None) -> bool:
    """True for the aggregator of ``reduceByKey(add)``: identity create, ``+`` merges."""
    return (agg is not None and _is_identity(agg.create_combiner) and _is_plain_add(agg.merge_value)
            and _is_plain_add(agg.merge_combiners))


def singleton_list(value: Any) -> list[Any]:
    """Create-combiner of a grouping into lists (groupByKey, updateStateByKey's batch)."""
    return [value]


def append_to_list(values: list[Any], value: Any) -> list[Any]:
    """Merge-value of a grouping into lists."""
    values.append(value)
    return values


def extend_list(values: list[Any], more: list[Any]) -> list[Any]:
    """Merge-combiners of a grouping into lists."""
    values.extend(more)
    return values


def identity_combiner() -> Callable[[Any], Any]:
    """The create-combiner of reduce-like aggregations (recognised by the fast path)."""
    return _identity


"""The pickler of closures: cloudpickle, keeping the file name of every code object.

cloudpickle (3.1+) replaces ``co_filename`` of the functions it ships by value (those of
``__main__``, lambdas, nested functions) with ``"<dynamic-code>"``, so that its payloads
do not depend on where a function was defined. A traceback from a worker then reads
``File "<dynamic-code>", line 7, in f`` instead of naming the user's file. This module
owns the one place where closures are pickled with the file name kept: the line numbers
and names were always kept, only the file was lost.

Most of cloudpickle's time goes to deciding, for every class and function a closure
references, whether to pickle it by reference (importable) or by value; a micro-batch pays
for that in every batch. :class:`_Pickler` remembers the classes and functions cloudpickle
pickled by reference and lets the C pickler save them as globals directly next time; the
memory is forgotten whenever a module is imported or a module is registered with
``cloudpickle.register_pickle_by_value``, the two things that can change the decision.
It also remembers the types of the other objects cloudpickle was asked about (lineage
nodes, partitioners...): cloudpickle declines every instance that is neither a class nor
a function, a decision made by the type alone, so their instances skip the question.
The payload is the same bytes cloudpickle would write, and the closure is traversed once.

Invariant: payloads stay deterministic (the same function pickles to the same bytes),
since the file name of a function's code does not change while a program runs; the
workers' closure cache keys on those bytes.
"""

from __future__ import annotations

import copyreg
import io
import sys
import types
from collections import ChainMap
from collections.abc import Callable
from typing import Any

import cloudpickle

from . import function_memo

__all__ = ["dumps"]

_cloudpickle_code_reduce: Callable[[types.CodeType], tuple[Any, ...]] = (
    cloudpickle.Pickler.dispatch_table[types.CodeType]
)


def _code_with_filename(build: Callable[..., types.CodeType], args: tuple[Any, ...],
                        filename: str) -> types.CodeType:
    """Rebuild a code object the way cloudpickle does, then give it its file back."""
    code = build(*args)
    return code if code.co_filename == filename else code.replace(co_filename=filename)


def _reduce_code(code: types.CodeType) -> tuple[Any, ...]:
    build, args = _cloudpickle_code_reduce(code)[:2]
    return _code_with_filename, (build, args, code.co_filename)


#: Classes and functions cloudpickle pickled by reference, by id (the object itself is the
#: value, so an id is never reused while remembered).
_BY_REFERENCE: dict[int, object] = {}
_BY_REFERENCE_MAX = 20_000
#: Types whose instances are neither classes nor functions: cloudpickle's own reducer
#: declines them (it decides by the type alone), so they skip it (a stage's lineage nodes,
#: storage levels, partitioners, aggregators).
_PLAIN_INSTANCE_TYPES: set[type] = set()
_by_reference_stamp: tuple[int, frozenset[str]] = (-1, frozenset())
_dispatch_size = -1


class _Pickler(cloudpickle.Pickler):
    # A plain dict, rebuilt by dumps() when copyreg's table changes: the C pickler looks
    # every object's type up in it, and a ChainMap (cloudpickle's) answers in Python.
    dispatch_table: dict[Any, Any] = {}
    #: The function this pickler writes by value for function_memo (not through it).
    by_value_root: Any = None

    def reducer_override(self, obj: Any) -> Any:
        if _BY_REFERENCE.get(id(obj)) is obj:
            return NotImplemented  # the C pickler saves it as a global, as cloudpickle decided before
        kind = type(obj)
        if kind in _PLAIN_INSTANCE_TYPES:
            return NotImplemented  # cloudpickle only handles classes and functions itself
        memoize = kind is types.FunctionType and obj is not self.by_value_root
        if memoize:
            reduction = function_memo.memoized_reduce(obj, _BY_REFERENCE)
            if reduction:
                return reduction
            memoize = reduction is None  # () : remembered as too large to keep
        result = super().reducer_override(obj)
        if memoize and result is not NotImplemented:
            reduction = function_memo.remember(obj, lambda: _dumps_by_value(obj), _BY_REFERENCE)
            if reduction is not None:
                return reduction
        if result is NotImplemented:
            if isinstance(obj, type | types.FunctionType):
                if len(_BY_REFERENCE) >= _BY_REFERENCE_MAX:
                    _BY_REFERENCE.clear()
                _BY_REFERENCE[id(obj)] = obj
            elif not issubclass(kind, type | types.FunctionType) and len(_PLAIN_INSTANCE_TYPES) < _BY_REFERENCE_MAX:
                _PLAIN_INSTANCE_TYPES.add(kind)
        return result


def _dumps_by_value(function: types.FunctionType) -> bytes:
    with io.BytesIO() as buffer:
        pickler = _Pickler(buffer, protocol=5)
        pickler.by_value_root = function
        pickler.dump(function)
        return buffer.getvalue()


def dumps(obj: Any, protocol: int = 5) -> bytes:
    """cloudpickle ``obj`` (same result as ``cloudpickle.dumps``, file names kept)."""
    global _by_reference_stamp, _dispatch_size
    stamp = (len(sys.modules), frozenset(cloudpickle.list_registry_pickle_by_value()))
    if stamp != _by_reference_stamp:
        _BY_REFERENCE.clear()
        function_memo.forget_all()
        _by_reference_stamp = stamp
    if len(copyreg.dispatch_table) != _dispatch_size:
        table = dict(ChainMap({types.CodeType: _reduce_code}, cloudpickle.Pickler.dispatch_table))
        _Pickler.dispatch_table = table
        _dispatch_size = len(copyreg.dispatch_table)
    with io.BytesIO() as buffer:
        _Pickler(buffer, protocol=protocol).dump(obj)
        return buffer.getvalue()

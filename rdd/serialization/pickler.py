"""The pickler of closures: cloudpickle, keeping the file name of every code object.

cloudpickle (3.1+) replaces ``co_filename`` of the functions it ships by value (those of
``__main__``, lambdas, nested functions) with ``"<dynamic-code>"``, so that its payloads
do not depend on where a function was defined. A traceback from a worker then reads
``File "<dynamic-code>", line 7, in f`` instead of naming the user's file. This module
owns the one place where closures are pickled with the file name kept: the line numbers
and names were always kept, only the file was lost.

Most closures the engine ships (its own node, partition-function and plan classes, functions
of importable modules) need nothing cloudpickle adds: the C pickler, pickling them by
reference, is several times faster, and a micro-batch pays for one closure per batch.
:func:`dumps` therefore tries it first and keeps its bytes only when they reference no
module a worker could lack: not ``__main__``, not a module built at run time (no import
spec), not one registered with ``cloudpickle.register_pickle_by_value``. Anything else
(lambdas, nested functions, such a reference, any pickling error) goes to cloudpickle, so
what a worker receives is what cloudpickle would have sent or loads the same way.

Invariant: payloads stay deterministic (the same function pickles to the same bytes),
since the file name of a function's code does not change while a program runs; the
workers' closure cache keys on those bytes.
"""

from __future__ import annotations

import io
import pickle
import sys
import types
from collections import ChainMap
from collections.abc import Callable
from typing import Any

import cloudpickle

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


class _Pickler(cloudpickle.Pickler):
    dispatch_table = ChainMap({types.CodeType: _reduce_code}, cloudpickle.Pickler.dispatch_table)


_hazards: tuple[tuple[int, frozenset[str]], tuple[bytes, ...]] = ((-1, frozenset()), ())


def _hazard_names() -> tuple[bytes, ...]:
    """Names of the modules a worker may not import the same way (recomputed when they change)."""
    global _hazards
    key = (len(sys.modules), frozenset(cloudpickle.list_registry_pickle_by_value()))
    if key != _hazards[0]:
        found = {"__main__", *key[1]}
        found.update(name for name, module in list(sys.modules.items())
                     if getattr(module, "__spec__", None) is None and name != "builtins")
        _hazards = (key, tuple(name.encode() for name in found))
    return _hazards[1]


def dumps(obj: Any, protocol: int = 5) -> bytes:
    """Pickle ``obj`` for a worker: what ``cloudpickle.dumps`` gives, file names kept.

    The C pickler's bytes are returned instead when they reference only modules a worker
    imports as the driver does (see the module docstring); they load to the same objects.
    """
    try:
        payload = pickle.dumps(obj, protocol=protocol)
    except Exception:  # noqa: BLE001 - anything the C pickler refuses is cloudpickle's to ship or explain
        payload = None
    if payload is not None and not any(name in payload for name in _hazard_names()):
        return payload
    with io.BytesIO() as buffer:
        _Pickler(buffer, protocol=protocol).dump(obj)
        return buffer.getvalue()

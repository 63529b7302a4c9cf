"""The pickler of closures: cloudpickle, keeping the file name of every code object.

cloudpickle (3.1+) replaces ``co_filename`` of the functions it ships by value (those of
``__main__``, lambdas, nested functions) with ``"<dynamic-code>"``, so that its payloads
do not depend on where a function was defined. A traceback from a worker then reads
``File "<dynamic-code>", line 7, in f`` instead of naming the user's file. This module
owns the one place where closures are pickled with the file name kept: the line numbers
and names were always kept, only the file was lost.

Invariant: payloads stay deterministic (the same function pickles to the same bytes),
since the file name of a function's code does not change while a program runs; the
workers' closure cache keys on those bytes.
"""

from __future__ import annotations

import io
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


def dumps(obj: Any, protocol: int = 5) -> bytes:
    """cloudpickle ``obj`` (same result as ``cloudpickle.dumps``, file names kept)."""
    with io.BytesIO() as buffer:
        _Pickler(buffer, protocol=protocol).dump(obj)
        return buffer.getvalue()

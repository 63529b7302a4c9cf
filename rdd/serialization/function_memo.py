"""Functions shipped by value, pickled once in the driver and unpickled once per worker.

A DStream ships the same user functions with every batch: ``lambda line: line.split()``
is cloudpickled again for each batch's stage binary (its code object, name, defaults,
closure and the globals it reads), and every worker rebuilds it again from those bytes.
For a small batch that is a large part of the batch's cost. This module remembers, per
function object, the bytes cloudpickle wrote and what they were written from, and
ships those bytes wrapped in a call to :func:`load_function`, which a process answers
from its own table of functions already rebuilt, by digest.

What this module owns
---------------------
:func:`memoized_reduce` (the driver's side: the remembered reduction of a function, or
``None`` when it has to be pickled afresh), :func:`remember` (store one),
:func:`forget_all` and :func:`load_function` (the receiving side).

Invariants
----------
* A function is remembered only while everything its pickle was made of is unchanged,
  and only when that can be checked cheaply: its code, name and module, and the values
  of its closure cells, defaults and the globals its code reads, each an immutable
  value (``None``, bool, int, float, complex, str, bytes, a short tuple of those), a
  module, a builtin, a class or function pickled by reference, or another function that
  qualifies in turn. The check runs every time the function is pickled, so rebinding a
  global it reads, or rebinding the function's code, ships the new function, exactly as
  pickling it afresh would.
* A function that can change itself or what it reads across calls is never remembered:
  one with attributes in its ``__dict__``, mutable defaults, or code that assigns a
  global (``global x``) or a variable of an enclosing function (``nonlocal x``), in its
  body or in a function nested in it. So a rebuilt function shared by the tasks a
  worker runs behaves as a fresh copy per task would. (Tasks of one stage already share
  their stage's functions in a worker.)
* The bytes are the ones cloudpickle writes for the function alone, so they are the
  same for the same function: the stage digests the workers' closure cache keys on stay
  deterministic. ``load_function`` keys on their digest (``serializer.digest_of``).
* A function is remembered from the second time it is pickled with the same state: a
  stream also makes functions anew every batch (capturing the batch's time), and those
  are pickled as usual and never reach the tables. The driver holds functions weakly:
  a collected function leaves its table.
* Both tables are bounded (:data:`MAX_FUNCTIONS` functions, :data:`MAX_TOTAL_BYTES`
  bytes of pickles); a function whose pickle is larger than :data:`MAX_BYTES` is
  pickled afresh each time instead. The driver's table is emptied whenever the
  by-reference decisions of the pickler are (a module imported, a module registered
  for pickling by value).
"""

from __future__ import annotations

import pickle
import sys
import types
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import cloudpickle

__all__ = ["MAX_BYTES", "MAX_FUNCTIONS", "MAX_TOTAL_BYTES", "forget_all", "load_function", "memoized_reduce",
           "remember"]

#: Functions remembered by each table (driver: pickles; any process: rebuilt functions).
MAX_FUNCTIONS = 512
#: A function whose pickle is larger than this (it captured a long string, say) is not
#: remembered: such a function is rare in a hot loop, and the tables stay small.
MAX_BYTES = 64 * 1024
#: Pickled bytes each table holds at most; past it, it starts again empty.
MAX_TOTAL_BYTES = 8 * 1024 * 1024
#: Longest tuple captured by a remembered function (comparing it is part of every check).
_MAX_TUPLE = 64
#: How deep a chain of by-value functions referring to each other is followed; a cycle
#: (a recursive function reads itself as a global) ends here and is not remembered.
_MAX_DEPTH = 4

_SCALARS = frozenset({type(None), bool, int, str, bytes})
_WRITES = frozenset({"STORE_GLOBAL", "DELETE_GLOBAL", "STORE_DEREF", "DELETE_DEREF"})

#: The by-reference decisions of the pickler: id -> the class or function pickled by
#: reference (a remembered function may read those).
ByReference = dict[int, object]

# id(function) -> what is known of it (the function itself only weakly: collected, it leaves)
_driver: dict[int, _Entry] = {}
_driver_bytes = 0
# digest -> (rebuilt function, size of its pickle), least recently used first
_loaded: OrderedDict[str, tuple[Any, int]] = OrderedDict()
_loaded_bytes = 0
# code object -> the global names it (and the code nested in it) reads, or None if it writes
_code_globals: weakref.WeakKeyDictionary[types.CodeType, tuple[str, ...] | None] = weakref.WeakKeyDictionary()


def _names_read(code: types.CodeType) -> tuple[str, ...] | None:
    """The global names ``code`` and its nested code read; ``None`` if any of it writes
    a global or a variable of an enclosing scope."""
    try:
        return _code_globals[code]
    except KeyError:
        pass
    import dis  # driver-only, as digest_of below: workers only load functions

    names: dict[str, None] = {}
    result: tuple[str, ...] | None = None
    for instruction in dis.get_instructions(code):
        if instruction.opname in _WRITES:
            break
        if instruction.opname in ("LOAD_GLOBAL", "LOAD_NAME"):  # LOAD_NAME: a class body
            names[str(instruction.argval)] = None
    else:
        result = tuple(names)
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                nested = _names_read(const)
                if nested is None:
                    result = None
                    break
                result += tuple(n for n in nested if n not in names)
    _code_globals[code] = result
    return result


def _token(value: Any, depth: int, by_reference: ByReference) -> Any:
    """A comparable stand-in for ``value`` that changes whenever its pickle would, or
    ``None`` if there is none (the function is then not remembered)."""
    kind = type(value)
    if kind in _SCALARS:
        return (kind, value)
    if kind is float or kind is complex:
        return (kind, repr(value))  # -0.0 == 0.0 and nan != nan; their reprs tell
    if kind is tuple:
        if len(value) > _MAX_TUPLE:
            return None
        items = []
        for item in value:
            token = _token(item, depth, by_reference)
            if token is None:
                return None
            items.append(token)
        return (tuple, tuple(items))
    if kind is types.BuiltinFunctionType or (kind is types.ModuleType and _importable(value)):
        return (kind, id(value), value)
    if by_reference.get(id(value)) is value:
        return (type, id(value), value)
    if kind is types.FunctionType:
        state = _state(value, by_reference, depth + 1)
        return None if state is None else (kind, id(value), state)
    return None


def _importable(module: types.ModuleType) -> bool:
    """Whether cloudpickle pickles ``module`` by name (its contents then are not in the
    pickle): imported under its name, and neither it nor a package above it registered
    for pickling by value."""
    name = module.__name__
    if sys.modules.get(name) is not module:
        return False
    registered = cloudpickle.list_registry_pickle_by_value()
    return not registered or not any(name == r or name.startswith(r + ".") for r in registered)


def _state(function: types.FunctionType, by_reference: ByReference, depth: int = 0) -> tuple[Any, ...] | None:
    if depth > _MAX_DEPTH or function.__dict__:
        return None
    code = function.__code__
    names = _names_read(code)
    if names is None:
        return None
    parts: list[Any] = [code, function.__name__, function.__qualname__, function.__module__]
    namespace = function.__globals__
    for name in names:
        token = _token(namespace[name], depth, by_reference) if name in namespace else ()
        if token is None:
            return None
        parts.append(token)
    for cell in function.__closure__ or ():
        try:
            contents = cell.cell_contents
        except ValueError:  # a cell not bound yet
            return None
        token = _token(contents, depth, by_reference)
        if token is None:
            return None
        parts.append(token)
    defaults = _token(function.__defaults__ or (), depth, by_reference)
    if defaults is None:
        return None
    parts.append(defaults)
    if function.__kwdefaults__:
        keywords = _token(tuple(function.__kwdefaults__.items()), depth, by_reference)
        if keywords is None:
            return None
        parts.append(keywords)
    return tuple(parts)


class _Entry:
    """What the driver knows of one live function: its state when last pickled, and
    its remembered reduction (``None`` while seen once, ``()`` when too large)."""

    __slots__ = ("ref", "state", "reduction", "size")

    def __init__(self, ref: weakref.ref[types.FunctionType], state: tuple[Any, ...]) -> None:
        self.ref = ref
        self.state = state
        self.reduction: tuple[Any, ...] | None = None
        self.size = 0


def _entry(function: types.FunctionType) -> _Entry | None:
    entry = _driver.get(id(function))
    return entry if entry is not None and entry.ref() is function else None


def _forget(key: int, ref: weakref.ref[types.FunctionType]) -> None:
    """A remembered function was collected (its batch is over): drop what we kept."""
    global _driver_bytes
    entry = _driver.get(key)
    if entry is not None and entry.ref is ref:
        del _driver[key]
        _driver_bytes -= entry.size


def memoized_reduce(function: types.FunctionType, by_reference: ByReference) -> tuple[Any, ...] | None:
    """The remembered reduction of ``function`` if its state is unchanged, else ``None``.

    An empty tuple means: remembered as too large to keep (pickle it as usual, and do
    not :func:`remember` it again).
    """
    entry = _entry(function)
    if entry is None or entry.reduction is None or _state(function, by_reference) != entry.state:
        return None
    return entry.reduction


def remember(function: types.FunctionType, dump: Callable[[], bytes],
             by_reference: ByReference) -> tuple[Any, ...] | None:
    """Note that ``function`` was pickled; from the second time with the same state on,
    pickle it alone with ``dump`` and remember that. ``None``: pickle it as usual.

    A function seen once is not pickled apart: a stream makes some functions anew every
    batch (they capture the batch's time), and remembering those would only fill the
    tables with functions no later batch ships.
    """
    global _driver_bytes
    state = _state(function, by_reference)
    entry = _entry(function)
    if state is None:
        if entry is not None:
            _forget(id(function), entry.ref)
        return None
    if entry is None or entry.state != state:
        if entry is not None:
            _forget(id(function), entry.ref)
        if len(_driver) >= MAX_FUNCTIONS or _driver_bytes > MAX_TOTAL_BYTES:
            forget_all()
        key = id(function)
        _driver[key] = _Entry(weakref.ref(function, lambda ref: _forget(key, ref)), state)
        return None
    from .serializer import digest_of  # noqa: PLC0415 - serializer imports the pickler, which imports us

    blob = dump()
    entry.reduction = ()
    if len(blob) <= MAX_BYTES:
        entry.reduction = (load_function, (digest_of(blob), blob))
        entry.size = len(blob)
        _driver_bytes += len(blob)
    return entry.reduction or None


def forget_all() -> None:
    """Forget every remembered pickle (the pickler's by-reference decisions changed)."""
    global _driver_bytes
    _driver.clear()
    _driver_bytes = 0


def load_function(digest: str, blob: bytes) -> Any:
    """The function pickled as ``blob``, rebuilt once per process."""
    global _loaded_bytes
    entry = _loaded.get(digest)
    if entry is not None:
        _loaded.move_to_end(digest)
        return entry[0]
    function = pickle.loads(blob)
    _loaded[digest] = (function, len(blob))
    _loaded_bytes += len(blob)
    while len(_loaded) > MAX_FUNCTIONS or _loaded_bytes > MAX_TOTAL_BYTES:
        _loaded_bytes -= _loaded.popitem(last=False)[1][1]
    return function

"""Serialisation of what crosses into workers: stage closures, partitions, results.

Functions and lineage go through cloudpickle (closures, lambdas, locally defined
classes); record data through pickle protocol 5 in batches. When something cannot be
pickled, :func:`dumps_closure` finds *which* captured object it is and says so: a
message naming the function, the variable and the object's type, plus how to fix it.
"""

from __future__ import annotations

import gc
import marshal
import pickle
import types
from collections.abc import Iterable, Iterator
from typing import Any

import cloudpickle

from ..errors import DriverOnlyError, LineageTooDeepError, SerializationError
from . import pickler as closure_pickler


def dumps_closure(obj: Any, what: str) -> bytes:
    """cloudpickle ``obj``; on failure raise :class:`SerializationError` naming the culprit.

    ``what`` says what is being pickled ("the functions of stage 3"), for the message.
    """
    try:
        return closure_pickler.dumps(obj, protocol=5)
    except DriverOnlyError as exc:
        found = _find_unpicklable(obj, set(), 0, with_reason=False)  # exc says why already
        if found:
            raise DriverOnlyError(f"{exc} Found where {found}.") from None
        raise
    except RecursionError as exc:
        raise _too_deep(what) from exc
    except Exception as exc:
        if _caused_by_recursion(exc):  # cloudpickle re-raises RecursionError as PicklingError
            raise _too_deep(what) from exc
        found = _find_unpicklable(obj, set(), 0)
        culprit = f" because {found}" if found else ""
        raise SerializationError(
            f"could not pickle {what}{culprit}: {type(exc).__name__}: {exc}. Objects such as locks, sockets, "
            "open files and database connections cannot be sent to workers: create them inside the function "
            "(for example once per partition in mapPartitions or foreachPartition) instead of capturing them."
        ) from exc


def _caused_by_recursion(exc: BaseException) -> bool:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, RecursionError):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def _too_deep(what: str) -> LineageTooDeepError:
    # Searching the object for a culprit would recurse just as deep: nothing is unpicklable
    # here, there is only too much of it in one chain.
    return LineageTooDeepError(
        f"could not pickle {what}: its lineage is too deep to send to workers (a long chain "
        "of transformations that was never checkpointed, such as an RDD rebuilt from itself in "
        "a loop). Cut it every few dozen steps with rdd.checkpoint() (after "
        "sc.setCheckpointDir(dir)) or rdd.localCheckpoint(), followed by an action; for a "
        "DStream, pass a shorter interval to dstream.checkpoint(interval).")


def _describe(value: Any) -> str:
    text = repr(value)
    if len(text) > 80:
        text = text[:77] + "..."
    return f"{text} (type {type(value).__module__}.{type(value).__qualname__})"


def _try_pickle(value: Any) -> bool:
    try:
        cloudpickle.dumps(value, protocol=5)
        return True
    except Exception:
        return False


def _find_unpicklable(obj: Any, seen: set[int], depth: int, holder: str = "",
                      with_reason: bool = True) -> str | None:
    """Depth-first search for the innermost object that fails to pickle.

    Returns a phrase such as ``function <lambda> (job.py:12) captures 'lock' =
    <unlocked _thread.lock object> (type _thread.lock)``, followed, ``with_reason``, by
    what the object's own ``__reduce__`` said when it refused.
    """
    found = _search(obj, seen, depth, holder, with_reason)
    return None if found is None else found[0]


def _search(obj: Any, seen: set[int], depth: int, holder: str,
            with_reason: bool = True) -> tuple[str, bool] | None:
    """``(phrase, precise)``: precise when the object named fails by itself, not only
    because it leads back to an object already being searched (a reference cycle)."""
    if depth > 12:
        return None
    seen.add(id(obj))
    refusal = _refuses_pickling(obj)
    if refusal is not None:
        reason = f", which cannot be pickled: {refusal.rstrip('.')}" if with_reason else ""
        return (f"{holder or 'it'} = {_describe(obj)}{reason}", True)
    fallback: tuple[str, bool] | None = None
    for label, child in _children(obj):
        if _try_pickle(child):
            continue
        here = label if label else holder
        if id(child) in seen:
            fallback = fallback or (f"{here or 'it'} = {_describe(child)}", False)
            continue
        found = _search(child, seen, depth + 1, here, with_reason)
        if found is None:
            return (f"{here or 'it'} = {_describe(child)}", True)  # fails, yet none of its parts does
        if found[1]:
            return found
        fallback = fallback or found
    return fallback


def _refuses_pickling(obj: Any) -> str | None:
    """The message of an object whose own ``__getstate__``/``__reduce__`` refuses to pickle it."""
    if isinstance(obj, (types.FunctionType, type, types.ModuleType)) or type(obj).__module__ == "builtins":
        return None
    for name in ("__reduce__", "__getstate__"):
        method = getattr(type(obj), name, None)
        if method is None or method is getattr(object, name, None):
            continue
        try:
            getattr(obj, name)()
        except Exception as exc:  # noqa: BLE001 - the refusal is what we report
            return str(exc)
    return None


def _where(fn: types.FunctionType) -> str:
    code = fn.__code__
    return f"function {fn.__qualname__} ({code.co_filename}:{code.co_firstlineno})"


def _children(obj: Any) -> Iterator[tuple[str, Any]]:
    """(label, child) pairs; a label is given where it names a captured variable."""
    if isinstance(obj, types.FunctionType):
        code = obj.__code__
        for var, cell in zip(code.co_freevars, obj.__closure__ or ()):
            try:
                yield f"{_where(obj)} captures '{var}'", cell.cell_contents
            except ValueError:
                continue
        for global_name in code.co_names:
            if global_name in obj.__globals__:
                value = obj.__globals__[global_name]
                if not isinstance(value, types.ModuleType):
                    yield f"{_where(obj)} uses global '{global_name}'", value
        for default in obj.__defaults__ or ():
            yield f"{_where(obj)} has a default argument", default
    elif isinstance(obj, (list, tuple, set, frozenset)):
        for item in obj:
            yield "", item
    elif isinstance(obj, dict):
        for value in obj.values():
            yield "", value
    elif isinstance(obj, types.MethodType):
        yield f"method {obj.__qualname__} is bound to", obj.__self__
    elif hasattr(obj, "__dict__") and not isinstance(obj, type):
        state = vars(obj)
        getstate = getattr(type(obj), "__getstate__", None)
        if getstate is not None and getstate is not getattr(object, "__getstate__", None):
            try:
                custom = obj.__getstate__()
            except Exception:  # noqa: BLE001 - e.g. a __getstate__ that refuses, itself the culprit
                custom = None
            if isinstance(custom, dict):
                state = custom
        for key, value in state.items():
            inside = type(obj).__module__.startswith("rdd.")
            yield ("" if inside else f"attribute '{key}' of {type(obj).__name__}"), value


def digest_of(payload: bytes) -> str:
    import hashlib  # driver-only: a worker never computes a digest, and hashlib loads OpenSSL

    return hashlib.blake2b(payload, digest_size=16).hexdigest()


def dumps_data(obj: Any) -> bytes:
    """Pickle records or results (protocol 5; cloudpickle for lambdas inside data)."""
    try:
        return pickle.dumps(obj, protocol=5)
    except Exception:
        return dumps_closure(obj, "a task's data")


#: From this size, a buffer inside a message to a worker travels out of band
#: (``out_of_band``): below it, the extra frame costs more than the copy it saves.
OUT_OF_BAND_MIN_BYTES = 64 * 1024


def out_of_band(data: bytes | bytearray | memoryview) -> bytes | bytearray | memoryview | pickle.PickleBuffer:
    """``data`` marked to be sent beside a protocol-5 pickle rather than copied into it,
    when it is large (see ``rdd.executor.messages``); unpickled, it may come back as any
    bytes-like object (``bytes``, ``bytearray``, a read-only ``memoryview``)."""
    return pickle.PickleBuffer(data) if len(data) >= OUT_OF_BAND_MIN_BYTES else data


def dumps_with_buffers(obj: Any) -> tuple[bytes, tuple[pickle.PickleBuffer, ...]]:
    """:func:`dumps_data`, the buffers ``obj`` marked with :func:`out_of_band` kept apart:
    ``pickle.loads(data, buffers=buffers)`` reads it back."""
    buffers: list[pickle.PickleBuffer] = []
    try:
        return pickle.dumps(obj, protocol=5, buffer_callback=buffers.append), tuple(buffers)
    except Exception:
        return dumps_closure(obj, "a task's data"), ()


def loads(payload: bytes) -> Any:
    return pickle.loads(payload)


_MARSHAL = b"M"
_PICKLE = b"P"
_PAIRS = b"K"
#: marshal's format 4 keeps shared objects shared and cycles intact, as pickle does.
_MARSHAL_VERSION = 4


def dumps_records(records: list[Any]) -> bytes:
    """Serialize a list of records that stays inside this run (shuffle blocks, cached
    blocks, parallelized slices, task results); read back with :func:`loads_records`.

    Records made only of built-in types (str, bytes, int, float, complex, bool, None,
    and tuples, lists, dicts, sets, frozensets of them: what word counts, joins and
    windows move) are written with :mod:`marshal`, about twice as fast as pickle both
    ways for ``(str, int)`` pairs; its format depends on the Python version, which is
    why nothing durable (checkpoints, the write-ahead log) uses it: every process of a
    run is the same interpreter. Anything else is pickled, so every record comes back
    with its exact type: instances, subclasses such as namedtuples (marshal refuses
    them), and bytes-like objects that are not exactly ``bytes`` (``bytearray``,
    ``array``, subclasses of ``bytes``), which marshal would silently turn into ``bytes``.
    """
    kinds = set(map(type, records))
    if kinds <= _MARSHAL_LEAVES:
        # Lines of text, numbers: nothing to keep shared, so format 2, which skips format
        # 4's table of the objects written (each str of a list the caller still holds
        # would go into it).
        return _MARSHAL + marshal.dumps(records, 2)
    try:
        payload = marshal.dumps(records, _MARSHAL_VERSION)
    except ValueError:  # an object marshal does not handle, or nesting deeper than it allows
        return _PICKLE + dumps_data(records)
    if _marshals_exactly(records, len(payload), kinds):
        return _MARSHAL + payload
    return _PICKLE + dumps_data(records)


#: Types marshal reads back as themselves. It also takes any other object with the
#: buffer protocol and reads it back as ``bytes``: those are what is missing here.
_MARSHAL_LEAVES = frozenset({str, int, float, complex, bool, type(None), bytes, type(...),
                             types.CodeType})
_MARSHAL_CONTAINERS = frozenset({tuple, list, set, frozenset, dict})
_MARSHAL_EXACT = _MARSHAL_LEAVES | _MARSHAL_CONTAINERS


def _marshals_exactly(records: list[Any], budget: int, kinds: set[type]) -> bool:
    """True when every object inside ``records`` has a type in ``_MARSHAL_EXACT``.

    Walks the nesting one level at a time at C speed: ``set(map(type, level))``, then
    ``gc.get_referents`` for the next level (the items of tuples, lists and sets, the
    keys and values of dicts; a dict whose keys are all exact ``str`` reports only its
    values, and those keys are leaves marshal keeps). A per-object Python loop would
    cost more than marshal itself. Every reference visited took at least one byte of the
    marshal payload, so more than ``budget`` (its length) means a cycle: pickle it.
    ``kinds`` is the set of the types of ``records``' items (the first level).
    """
    level: Any = records
    while True:
        if kinds <= _MARSHAL_LEAVES or not kinds <= _MARSHAL_EXACT:
            return kinds <= _MARSHAL_LEAVES
        level = gc.get_referents(*level)
        budget -= len(level)
        if budget < 0:
            return False
        kinds = set(map(type, level))


def dumps_pairs(keys: list[Any], values: list[Any], kinds: set[type] | None = None) -> bytes:
    """Serialize the records ``zip(keys, values)``; read back with :func:`loads_records`
    (the records as a list of pairs) or :func:`loads_pairs` (an iterable of them).

    A map output's combined ``(key, combiner)`` records come from a dict, so its keys
    and values are at hand as two lists. When both hold only marshal's leaf types
    (``str`` keys and ``int`` counts, say) they are written as those two lists, without
    a tuple per record; marshal's format 2 then suffices (it drops only the sharing of
    objects, which cannot matter for immutable leaves) and skips format 4's table of
    objects already written. Other records go through :func:`dumps_records`. ``kinds``
    may give a set holding every type of the keys and values, when the caller has it.
    """
    if kinds is None:
        kinds = set(map(type, keys)) | set(map(type, values))
    if kinds <= _MARSHAL_LEAVES:
        return _PAIRS + marshal.dumps((keys, values), 2)
    return dumps_records(list(zip(keys, values)))


def loads_records(payload: bytes) -> list[Any]:
    """The records of a :func:`dumps_records` or :func:`dumps_pairs` payload."""
    body = memoryview(payload)[1:]
    kind = payload[:1]
    if kind == _MARSHAL:
        return marshal.loads(body)
    if kind == _PAIRS:
        return list(zip(*marshal.loads(body)))
    return pickle.loads(body)


def loads_pairs(payload: bytes) -> tuple[Iterable[Any], int]:
    """The records of a payload as an iterable, and how many there are: a
    :func:`dumps_pairs` payload's pairs are made while they are iterated, not all at once."""
    if payload[:1] == _PAIRS:
        keys, values = marshal.loads(memoryview(payload)[1:])
        return zip(keys, values), len(keys)
    records = loads_records(payload)
    return records, len(records)


class SerializedRecords:
    """A list of records inside a larger pickle (a task's result), written with
    :func:`dumps_records`; unpickling it gives back the list itself."""

    __slots__ = ("payload",)

    def __init__(self, records: list[Any]) -> None:
        self.payload = dumps_records(records)

    def __reduce__(self) -> tuple[Any, ...]:
        return (loads_records, (self.payload,))


#: PySpark's messages, verbatim, for an object that only exists on the driver; where the
#: object was captured is appended ("Found where function f (job.py:3) uses global 'sc'").
SPARK_CONTEXT_ON_WORKER = (
    "It appears that you are attempting to reference SparkContext from a broadcast variable, "
    "action, or transformation. SparkContext can only be used on the driver, not in code that it "
    "run on workers. For more information, see SPARK-5063."
)
RDD_ON_WORKER = (
    "It appears that you are attempting to broadcast an RDD or reference an RDD from an action or "
    "transformation. RDD transformations and actions can only be invoked by the driver, not inside "
    "of other transformations; for example, rdd1.map(lambda x: rdd2.values.count() * x) is invalid "
    "because the values transformation and count action cannot be performed inside of the rdd1.map "
    "transformation. For more information, see SPARK-5063."
)

"""The state of a ``transformWithStateInPandas`` task: named value, list and map variables and timers per key.

What this module owns
---------------------
:class:`KeyedStates`, the store-backed session a task of the operator hands to the
user's processor (through :mod:`..stateful_processor`'s handle and state variables):
the variables ``init`` declares, the grouping key being processed (Spark's "implicit
key"), reads and writes of that key's values with their time-to-live, its timers, the
scan for expired timers and TTL eviction, and the operator's row counts.

One store entry per grouping key holds everything of that key, as plain values::

    {"value": {name: [value, expires]},            # ValueState
     "list": {name: [[value, expires], ...]},      # ListState
     "map": {name: [[key, value, expires], ...]},  # MapState
     "timers": [ms, ...]}                          # timers, sorted

``value`` and ``key`` are a schema's ``RowCodec`` rows (lists); ``expires`` is the batch
timestamp after which a value is gone (``-1``: no TTL).

Invariants
----------
* A key's entry is copied before its first change (the store's values are never changed
  in place) and written back once, when the next key is set or the task finishes; an
  entry left with no value and no timer is removed from the store.
* A value with a TTL counts as absent from the first batch whose timestamp is at or
  past its expiry (Spark's ``batchTimestampMs >= expirationMs``) and is deleted by
  :meth:`KeyedStates.evict_expired` at the end of that batch.
* Timers and TTLs need a time mode: a timer in ``None`` mode, or a TTL in any mode but
  ``ProcessingTime``, raises Spark's error naming the operation and the mode.
* The row count (``numRowsTotal``) is Spark's: one row per set value, per non-empty list
  and per map entry; timers are not counted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyarrow as pa

from ...arrow_convert import arrow_to_rows, rows_to_arrow, to_arrow_type
from ...errors import PySparkException, PySparkRuntimeError, PySparkTypeError
from ...row import Row
from ...types import BinaryType, BooleanType, DoubleType, LongType, StringType, StructType
from .rows import RowCodec
from .store import StateStore

__all__ = ["KeyedStates", "ValueCodec", "TIME_MODES", "time_mode_name"]

#: timeMode argument (lower case) -> Spark's name of the mode.
TIME_MODES = {"none": "NoTime", "processingtime": "ProcessingTime", "eventtime": "EventTime"}

_I64 = 1 << 63
# Field types whose Python values are already what the store keeps, each with the check a value
# must pass to skip Arrow (exact types: type(True) is bool, never int). Narrower ints and floats
# always take Arrow's path, which checks their range and rounds a float to 32 bits, as Spark.
_PLAIN: dict[type, Callable[[Any], bool]] = {
    LongType: lambda x: type(x) is int and -_I64 <= x < _I64, BooleanType: lambda x: type(x) is bool,
    DoubleType: lambda x: type(x) is float, StringType: lambda x: type(x) is str,
    BinaryType: lambda x: type(x) is bytes}


def time_mode_name(mode: str) -> str:
    """Spark's name (``NoTime``, ``ProcessingTime``, ``EventTime``) of a checked ``timeMode``."""
    return TIME_MODES[mode]


class ValueCodec:
    """Tuples of one state schema <-> the plain rows the store keeps."""

    def __init__(self, schema: StructType, what: str, time_zone: str) -> None:
        self.schema = schema
        self.what = what
        self.time_zone = time_zone
        self.rows = RowCodec([to_arrow_type(f.dataType) for f in schema.fields])
        checks = [_PLAIN.get(type(f.dataType)) for f in schema.fields]
        self.plain_checks: list[Callable[[Any], bool]] | None = None if any(c is None for c in checks) else \
            [c for c in checks if c is not None]

    def to_plain(self, values: list[Any]) -> list[list[Any]]:
        """``values`` (tuples, lists or Rows of the schema) as stored rows; a clear error when one does not fit."""
        for value in values:
            if not isinstance(value, tuple | list):
                raise PySparkTypeError(
                    f"{self.what}: a state value is a tuple of the schema {self.schema.simpleString()}, got "
                    f"{type(value).__name__} {value!r}; wrap it: ({value!r},).", "INVALID_STATE_VALUE",
                    {"value": repr(value)})
        checks = self.plain_checks
        if checks is not None and all(len(v) == len(checks) and all(x is None or ok(x) for x, ok in zip(v, checks))
                                      for v in values):
            return [list(v) for v in values]
        try:
            table = rows_to_arrow([tuple(v) for v in values], self.schema, self.time_zone)
        except (PySparkException, pa.ArrowException, ValueError, TypeError) as exc:
            raise PySparkTypeError(f"{self.what}: a state value does not fit the schema "
                                   f"{self.schema.simpleString()}: {exc}", "INVALID_STATE_VALUE", {}) from exc
        return [list(r) for r in self.rows.to_rows(table.columns)]

    def from_plain(self, rows: list[list[Any]]) -> list[tuple[Any, ...]]:
        """Stored rows as the tuples ``get`` returns."""
        if not rows:
            return []
        if self.plain_checks is not None:
            return [tuple(r) for r in rows]
        table = pa.Table.from_arrays(self.rows.to_arrays(rows), names=self.schema.names)
        return [tuple(r) for r in arrow_to_rows(table, self.time_zone)]


class _Variable:
    def __init__(self, kind: str, name: str, codecs: tuple[ValueCodec, ...], ttl_ms: int | None) -> None:
        self.kind = kind
        self.name = name
        self.codecs = codecs
        self.ttl_ms = ttl_ms


def _copy(value: Any) -> Any:
    if type(value) is dict:
        return {k: _copy(v) for k, v in value.items()}
    if type(value) is list:
        return [_copy(v) for v in value]
    return value


def entry_rows(entry: dict[str, Any]) -> int:
    """Spark's row count of one key's entry (see the module doc)."""
    return (len(entry.get("value", ())) + sum(1 for items in entry.get("list", {}).values() if items)
            + sum(len(items) for items in entry.get("map", {}).values()))


class KeyedStates:
    """The state variables and timers of one task's keys (see the module doc).

    Parameters
    ----------
    store : StateStore or None
        The partition's store; ``None`` on a batch DataFrame (state lives for the task only).
    time_mode : str
        ``none``, ``processingtime`` or ``eventtime``.
    batch_timestamp_ms, watermark_ms : int
        The clocks ``TimerValues`` give (``-1`` when the mode has none).
    time_zone : str
        Where naive timestamps in values are wall times.
    """

    def __init__(self, store: StateStore | None, time_mode: str, batch_timestamp_ms: int, watermark_ms: int,
                 time_zone: str) -> None:
        self.store = store
        self.local: dict[tuple[Any, ...], Any] = {}  # a batch DataFrame's state (no store)
        self.time_mode = time_mode
        self.batch_timestamp_ms = batch_timestamp_ms
        self.watermark_ms = watermark_ms
        self.time_zone = time_zone
        self.variables: dict[str, _Variable] = {}
        self.declaring = True
        self.key: tuple[Any, ...] | None = None
        self.entry: dict[str, Any] = {}
        self.changed = False
        self.updated = 0
        self.removed = 0

    # -- declarations (init) ----------------------------------------------------------

    def declare(self, kind: str, name: Any, schemas: tuple[Any, ...], ttl_ms: Any) -> None:
        from ..groups_with_state import parse_struct  # noqa: PLC0415 - the streaming plan module loads lazily

        operation = {"value": "getValueState", "list": "getListState", "map": "getMapState"}[kind]
        if not isinstance(name, str) or not name:
            raise PySparkTypeError(f"{operation}: stateName must be a non-empty string, got {name!r}.",
                                   "NOT_STR", {"arg_name": "stateName", "arg_type": type(name).__name__})
        if not self.declaring:
            raise PySparkRuntimeError(
                f"{operation}('{name}'): state variables are declared in init(); the processor is already "
                "handling rows. Declare every variable in init() and keep it in an attribute.",
                "STATEFUL_PROCESSOR_CANNOT_PERFORM_OPERATION_WITH_INVALID_HANDLE_STATE",
                {"operationType": operation, "handleState": "INITIALIZED"})
        if ttl_ms is not None:
            if isinstance(ttl_ms, bool) or not isinstance(ttl_ms, int) or ttl_ms <= 0:
                raise PySparkRuntimeError(
                    f"{operation}('{name}'): ttlDurationMs must be a positive number of milliseconds, got "
                    f"{ttl_ms!r}.", "STATEFUL_PROCESSOR_TTL_DURATION_MUST_BE_POSITIVE",
                    {"operationType": operation, "stateName": name})
            if self.time_mode != "processingtime":
                mode = time_mode_name(self.time_mode)
                # PySpark's text: the state server's error inside the client's message, no class of its own.
                raise PySparkRuntimeError(
                    f"Error initializing {kind} state: "
                    f"[STATEFUL_PROCESSOR_INCORRECT_TIME_MODE_TO_ASSIGN_TTL] Cannot use TTL for state={name} in "
                    f"timeMode={mode}, use TimeMode.ProcessingTime() instead. SQLSTATE: 42802")
        what = f"state variable '{name}'"
        codecs = tuple(ValueCodec(parse_struct(s, "schema"), what, self.time_zone) for s in schemas)
        self.variables[name] = _Variable(kind, name, codecs, ttl_ms)

    def delete_if_exists(self, name: str) -> None:
        """Forget variable ``name`` and drop its values of every key (a schema change between runs)."""
        self.variables.pop(name, None)
        self._rewrite_all(lambda entry: any(name in entry.get(part, {}) for part in ("value", "list", "map")),
                          lambda entry: [entry.get(part, {}).pop(name, None) for part in ("value", "list", "map")])

    # -- the implicit key -------------------------------------------------------------

    def set_key(self, key: tuple[Any, ...]) -> None:
        """Make ``key`` the key the variables read and write (the previous key's changes are kept)."""
        self.finish_key()
        self.declaring = False
        self.key = key
        stored = self.store.get(key) if self.store is not None else self.local.get(key)
        self.entry = stored if stored is not None else {}
        self.changed = False

    def finish_key(self) -> None:
        """Write the current key's entry back (removed when nothing is left in it)."""
        key, entry = self.key, self.entry
        self.key = None
        if key is None or not self.changed:
            return
        self.changed = False
        empty = not (entry.get("value") or any(entry.get("list", {}).values()) or any(entry.get("map", {}).values())
                     or entry.get("timers"))
        if self.store is None:
            if empty:
                self.local.pop(key, None)
            else:
                self.local[key] = entry
        elif empty:
            if self.store.get(key) is not None:
                self.store.remove(key)
        else:
            self.store.put(key, entry)

    def _part(self, part: str, name: str, kind: str, operation: str) -> Any:
        """The current key's values of variable ``name`` (``part`` of the entry), as stored."""
        variable = self.variables.get(name)
        if variable is None or variable.kind != kind:
            raise PySparkRuntimeError(f"{operation}: no {kind}"
                                      f" state named '{name}' was declared in init().",
                                      "STATE_STORE_VARIABLE_NOT_FOUND", {"stateName": name})
        if self.key is None:
            raise PySparkRuntimeError(
                f"{operation} on state '{name}' outside handleInputRows/handleExpiredTimer/handleInitialState: "
                "state is read and written for the key being processed; there is none in init() or close().",
                "STATEFUL_PROCESSOR_CANNOT_PERFORM_OPERATION_WITH_INVALID_HANDLE_STATE",
                {"operationType": operation, "stateName": name})
        return self.entry.get(part, {}).get(name)

    def _touch(self) -> None:
        """Copy the current key's entry before its first change (the store's values are never changed)."""
        if not self.changed:
            self.entry = _copy(self.entry)
            self.changed = True

    def _writable(self, part: str) -> Any:
        self._touch()
        return self.entry.setdefault(part, [] if part == "timers" else {})

    def _live(self, expires: int) -> bool:
        return expires < 0 or expires > self.batch_timestamp_ms

    def _expiry(self, name: str) -> int:
        ttl = self.variables[name].ttl_ms
        return -1 if ttl is None else self.batch_timestamp_ms + ttl

    # -- ValueState -------------------------------------------------------------------

    def value_get(self, name: str) -> tuple[Any, ...] | None:
        stored = self._part("value", name, "value", "ValueState.get")
        if stored is None or not self._live(stored[1]):
            return None
        return self.variables[name].codecs[0].from_plain([stored[0]])[0]

    def value_update(self, name: str, value: Any) -> None:
        self._part("value", name, "value", "ValueState.update")
        if value is None:
            raise PySparkTypeError(f"ValueState.update('{name}', None): use clear() to remove the value.",
                                   "CANNOT_BE_NONE", {"arg_name": "newValue"})
        plain = self.variables[name].codecs[0].to_plain([value])[0]
        self._writable("value")[name] = [plain, self._expiry(name)]
        self.updated += 1

    def value_clear(self, name: str) -> None:
        if self._part("value", name, "value", "ValueState.clear") is not None:
            del self._writable("value")[name]
            self.removed += 1

    # -- ListState --------------------------------------------------------------------

    def list_get(self, name: str) -> list[tuple[Any, ...]]:
        stored = self._part("list", name, "list", "ListState.get") or []
        return self.variables[name].codecs[0].from_plain([v for v, expires in stored if self._live(expires)])

    def list_put(self, name: str, values: Any, append: bool, operation: str) -> None:
        self._part("list", name, "list", operation)
        if not isinstance(values, list | tuple) or (values and not isinstance(values[0], tuple | list | Row)):
            raise PySparkTypeError(f"{operation}('{name}', ...) takes a list of tuples of the schema, got "
                                   f"{values!r}.", "INVALID_STATE_VALUE", {"value": repr(values)})
        expires = self._expiry(name)
        plain = [[v, expires] for v in self.variables[name].codecs[0].to_plain(list(values))]
        lists = self._writable("list")
        lists[name] = (lists.get(name) or []) + plain if append else plain
        self.updated += 1

    def list_clear(self, name: str) -> None:
        if self._part("list", name, "list", "ListState.clear"):
            del self._writable("list")[name]
            self.removed += 1

    # -- MapState ---------------------------------------------------------------------

    def _map(self, name: str, operation: str) -> list[list[Any]]:
        return [e for e in (self._part("map", name, "map", operation) or []) if self._live(e[2])]

    def map_items(self, name: str) -> list[tuple[tuple[Any, ...], tuple[Any, ...]]]:
        entries = self._map(name, "MapState.iterator")
        key_codec, value_codec = self.variables[name].codecs
        return list(zip(key_codec.from_plain([e[0] for e in entries]), value_codec.from_plain([e[1] for e in entries])))

    def map_get(self, name: str, key: Any) -> tuple[Any, ...] | None:
        plain = self.variables[name].codecs[0].to_plain([key])[0] if name in self.variables else None
        for e in self._map(name, "MapState.getValue"):
            if e[0] == plain:
                return self.variables[name].codecs[1].from_plain([e[1]])[0]
        return None

    def map_update(self, name: str, key: Any, value: Any) -> None:
        self._part("map", name, "map", "MapState.updateValue")
        if value is None:
            raise PySparkTypeError(f"MapState.updateValue('{name}', {key!r}, None): use removeKey to remove it.",
                                   "CANNOT_BE_NONE", {"arg_name": "value"})
        key_codec, value_codec = self.variables[name].codecs
        plain_key, plain_value = key_codec.to_plain([key])[0], value_codec.to_plain([value])[0]
        maps = self._writable("map")
        kept = [e for e in maps.get(name) or [] if e[0] != plain_key]
        maps[name] = [*kept, [plain_key, plain_value, self._expiry(name)]]
        self.updated += 1

    def map_remove(self, name: str, key: Any) -> None:
        self._part("map", name, "map", "MapState.removeKey")
        plain_key = self.variables[name].codecs[0].to_plain([key])[0]
        current = self.entry.get("map", {}).get(name) or []
        if any(e[0] == plain_key for e in current):
            maps = self._writable("map")
            maps[name] = [e for e in maps[name] if e[0] != plain_key]
            self.removed += 1

    def map_clear(self, name: str) -> None:
        current = self._part("map", name, "map", "MapState.clear")
        if current:
            del self._writable("map")[name]
            self.removed += len(current)

    # -- timers -----------------------------------------------------------------------

    def _timer_check(self, operation: str) -> None:
        if self.time_mode == "none":
            verb = operation.split("_")[0]
            raise PySparkRuntimeError(
                f"Error {verb} timer: [STATEFUL_PROCESSOR_CANNOT_PERFORM_OPERATION_WITH_INVALID_TIME_MODE] Failed to "
                f"perform stateful processor operation={operation} with invalid timeMode=NoTime SQLSTATE: 42802 "
                "(timers need timeMode 'ProcessingTime' or 'EventTime')")
        if self.key is None:
            raise PySparkRuntimeError(
                f"{operation} outside handleInputRows/handleExpiredTimer/handleInitialState: timers belong to the "
                "key being processed; there is none in init() or close().",
                "STATEFUL_PROCESSOR_CANNOT_PERFORM_OPERATION_WITH_INVALID_HANDLE_STATE",
                {"operationType": operation})

    def register_timer(self, ms: Any) -> None:
        self._timer_check("register_timer")
        if isinstance(ms, bool) or not isinstance(ms, int):
            raise PySparkTypeError(f"registerTimer takes an expiry time in epoch milliseconds (int), got {ms!r}.",
                                   "NOT_INT", {"arg_name": "expiryTimestampMs", "arg_type": type(ms).__name__})
        if ms not in self.entry.get("timers", ()):
            timers = self._writable("timers")
            timers.append(ms)
            timers.sort()

    def delete_timer(self, ms: int) -> None:
        self._timer_check("delete_timer")
        if ms in self.entry.get("timers", ()):
            self._writable("timers").remove(ms)

    def list_timers(self) -> list[int]:
        self._timer_check("list_timers")
        return list(self.entry.get("timers") or [])

    # -- the whole partition ----------------------------------------------------------

    def _items(self) -> list[tuple[tuple[Any, ...], Any]]:
        return list(self.store.items()) if self.store is not None else list(self.local.items())

    def expired_timers(self, threshold_ms: int) -> list[tuple[int, tuple[Any, ...]]]:
        """``(expiry, key)`` of the timers at or before ``threshold_ms``, by expiry (keys as stored)."""
        self.finish_key()
        return [(ms, key) for key, entry in self._items() for ms in entry.get("timers") or () if ms <= threshold_ms]

    def evict_expired(self) -> None:
        """Delete the values whose TTL has passed (end of a batch, processing-time mode)."""
        if not any(v.ttl_ms is not None for v in self.variables.values()):
            return
        now = self.batch_timestamp_ms

        def stale(entry: dict[str, Any]) -> bool:
            return (any(0 <= v[1] <= now for v in entry.get("value", {}).values())
                    or any(0 <= x[1] <= now for items in entry.get("list", {}).values() for x in items)
                    or any(0 <= x[2] <= now for items in entry.get("map", {}).values() for x in items))

        def drop(entry: dict[str, Any]) -> None:
            values = entry.get("value", {})
            for name in [n for n, v in values.items() if 0 <= v[1] <= now]:
                del values[name]
                self.removed += 1
            for part, at in (("list", 1), ("map", 2)):
                for name, items in list(entry.get(part, {}).items()):
                    kept = [x for x in items if not 0 <= x[at] <= now]
                    # A map counts a row per entry; a list one row, gone when its last value is.
                    self.removed += len(items) - len(kept) if part == "map" else int(bool(items) and not kept)
                    if kept:
                        entry[part][name] = kept
                    else:
                        del entry[part][name]
        self._rewrite_all(stale, drop)

    def _rewrite_all(self, matches: Any, change: Any) -> None:
        self.finish_key()
        declaring = self.declaring  # deleteIfExists runs in init(): declarations may follow
        for key, entry in self._items():
            if matches(entry):
                self.set_key(key)
                self._touch()
                change(self.entry)
                self.finish_key()
        self.declaring = declaring

    def total_rows(self) -> int:
        """``numRowsTotal`` after this task's changes."""
        self.finish_key()
        return sum(entry_rows(entry) for _, entry in self._items())

"""The per-partition update functions of the state operators (run inside tasks).

``map_with_state_partition`` touches only the keys of the batch and the keys whose
timeout expires: it mutates the previous table in place (bumping its version) when
that table is the cached current one, so the cost of a batch does not depend on the
size of the state.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import Any

from .spec import State
from .table import MISSING, StateRecord, StateTable


class MapWithStateFunction:
    """Picklable closure for one batch of a mapWithState stream."""

    def __init__(self, function: Callable[..., Any], with_time: bool, timeout_ms: int | None, time_ms: int) -> None:
        self.function = function
        self.with_time = with_time
        self.timeout_ms = timeout_ms
        self.time_ms = time_ms

    def __call__(self, split: int, iterators: list[Iterator[Any]]) -> list[StateRecord]:
        previous, data = iterators
        record = next(iter(previous), None)
        table = record.table if record is not None else StateTable(self.timeout_ms is not None)
        table.version += 1  # any cached record of the previous batch is now stale
        mapped: list[Any] = []
        state: State[Any] = State()
        time_ms = self.time_ms
        fn = self.function
        when = datetime.fromtimestamp(time_ms / 1000) if self.with_time else None
        tracking = self.timeout_ms is not None
        if not tracking and when is None:
            mapped = _update_untimed(table.states, fn, state, data)
            return [StateRecord(table, mapped)]
        for key, value in data:
            current = table.get(key)
            exists = current is not MISSING
            state._reset(key, current if exists else None, exists, False)
            out = fn(when, key, value, state) if when is not None else fn(key, value, state)
            if state._removed:
                table.remove(key)
            elif state._updated:
                table.put(key, state._state_value, time_ms)
            elif tracking and exists:
                table.touch(key, time_ms)  # data refreshes the idle timer (SPARK-13195)
            if when is None or out is not None:
                mapped.append(out)
        if tracking:
            for key, value in table.pop_idle(time_ms - self.timeout_ms):  # type: ignore[operator]
                state._reset(key, value, True, True)
                out = fn(when, key, None, state) if when is not None else fn(key, None, state)
                if when is None or out is not None:
                    mapped.append(out)
        return [StateRecord(table, mapped)]


class InitialStateFunction:
    """Builds the first table of a partition from ``(key, state)`` pairs."""

    def __init__(self, track_time: bool, time_ms: int) -> None:
        self.track_time = track_time
        self.time_ms = time_ms

    def __call__(self, split: int, pairs: Iterable[tuple[Any, Any]]) -> list[StateRecord]:
        table = StateTable(self.track_time)
        for key, value in pairs:
            table.put(key, value, self.time_ms)
        return [StateRecord(table, [])]


def _update_untimed(states: dict[Any, Any], fn: Callable[..., Any], state: State,
                    data: Iterable[tuple[Any, Any]]) -> list[Any]:
    """The loop of :class:`MapWithStateFunction` without timeout or batch time (the common
    case): the same calls and results, with ``StateTable.get/put/remove`` and
    ``State._reset`` inlined, since with no idle timers they only touch ``states``."""
    mapped: list[Any] = []
    append = mapped.append
    get = states.get
    for key, value in data:
        current = get(key, MISSING)
        exists = current is not MISSING
        state._state_key = key
        state._state_value = current if exists else None
        state._exists = exists
        state._updated = state._removed = state._timing_out = False
        append(fn(key, value, state))
        if state._removed:
            states.pop(key, None)
        elif state._updated:
            states[key] = state._state_value
    return mapped


def mapped_values(records: Iterable[StateRecord]) -> Iterator[Any]:
    for record in records:
        yield from record.mapped


def snapshot_pairs(records: Iterable[StateRecord]) -> Iterator[tuple[Any, Any]]:
    for record in records:
        yield from record.table.items()


class UpdateStateFunction:
    """``updateStateByKey``: call ``update(new_values, old_state)`` for every key.

    Keys with state and keys with new values are all called, in that order (state keys
    first, in their existing order; then new keys in arrival order); ``None`` removes.

    The batch arrives grouped by key on the map side (``(key, values)``), so only one
    record per key and map task crosses the shuffle. With ``constant`` (the batch was
    ``map(lambda x: (x, c))``, counted exactly by the fused count) it arrives as
    ``(key, c * n)`` and the function gets the same ``n`` values ``[c] * n``.
    """

    def __init__(self, update: Callable[[list[Any], Any], Any], constant: int | None = None) -> None:
        self.update = update
        self.constant = constant

    def __call__(self, split: int, iterators: list[Iterator[Any]]) -> list[tuple[Any, Any]]:
        previous, data = iterators
        c = self.constant
        if c is not None:
            return self._update_counted(previous, dict(data), c)
        grouped: dict[Any, list[Any]] = dict(data)
        update = self.update
        out: list[tuple[Any, Any]] = []
        append = out.append
        pop = grouped.pop
        for key, old in previous:
            new = update(pop(key, []), old)
            if new is not None:
                append((key, new))
        for key, values in grouped.items():
            new = update(values, None)
            if new is not None:
                append((key, new))
        return out

    def _update_counted(self, previous: Iterator[Any], totals: dict[Any, int], c: int) -> list[tuple[Any, Any]]:
        # The batch as ``key -> c * n`` (one C-level dict); each key's list ``[c] * n`` is
        # built only when its update is called, so the batch is walked once in Python, not
        # twice. ``c * n // c`` is ``n`` exactly for ints, and an absent key gives ``[]``.
        update = self.update
        out: list[tuple[Any, Any]] = []
        append = out.append
        pop = totals.pop
        for key, old in previous:
            new = update([c] * (pop(key, 0) // c), old)
            if new is not None:
                append((key, new))
        for key, total in totals.items():
            new = update([c] * (total // c), None)
            if new is not None:
                append((key, new))
        return out

"""StateTable: the state of one partition of a mapWithState stream.

Invariants
----------
- ``states`` maps each live key to its state.
- With a timeout, ``times`` holds each key's last update time (batch ms) and
  ``by_time`` the reverse index ``time -> keys``; the two always agree, so expiring
  idle keys costs O(expired keys + distinct times), never O(state).
- ``version`` grows by one each batch that updates the table in place; a cached
  ``StateRecord`` whose version differs has been consumed by a later batch and must
  not be read (the engine recomputes it from the last checkpoint instead).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

MISSING = object()


class StateTable:
    __slots__ = ("states", "times", "by_time", "version")

    def __init__(self, track_time: bool) -> None:
        self.states: dict[Any, Any] = {}
        self.times: dict[Any, int] | None = {} if track_time else None
        self.by_time: dict[int, set] | None = {} if track_time else None
        self.version = 0

    def __len__(self) -> int:
        return len(self.states)

    def get(self, key: Any, default: Any = MISSING) -> Any:
        return self.states.get(key, default)

    def put(self, key: Any, state: Any, time_ms: int) -> None:
        self.states[key] = state
        if self.times is not None:
            self.touch(key, time_ms)

    def touch(self, key: Any, time_ms: int) -> None:
        """Record that ``key`` was active at ``time_ms`` (refreshes its idle timer)."""
        times, by_time = self.times, self.by_time
        if times is None or by_time is None:
            return
        old = times.get(key)
        if old == time_ms:
            return
        if old is not None:
            bucket = by_time[old]
            bucket.discard(key)
            if not bucket:
                del by_time[old]
        times[key] = time_ms
        by_time.setdefault(time_ms, set()).add(key)

    def remove(self, key: Any) -> None:
        self.states.pop(key, None)
        if self.times is not None and self.by_time is not None:
            old = self.times.pop(key, None)
            if old is not None:
                bucket = self.by_time[old]
                bucket.discard(key)
                if not bucket:
                    del self.by_time[old]

    def pop_idle(self, threshold_ms: int) -> list[tuple[Any, Any]]:
        """Remove and return ``(key, state)`` of keys last active before ``threshold_ms``."""
        if self.by_time is None or self.times is None:
            return []
        expired_times = sorted(t for t in self.by_time if t < threshold_ms)
        idle: list[tuple[Any, Any]] = []
        for t in expired_times:
            for key in sorted(self.by_time.pop(t), key=repr):  # deterministic call order
                del self.times[key]
                idle.append((key, self.states.pop(key)))
        return idle

    def items(self) -> Iterator[tuple[Any, Any]]:
        return iter(self.states.items())

    def last_update(self, key: Any) -> int | None:
        return None if self.times is None else self.times.get(key)

    # Pickled only when checkpointed: the reverse index is rebuilt on load.
    def __getstate__(self) -> Any:
        return (self.states, self.times, self.version)

    def __setstate__(self, state: Any) -> None:
        self.states, self.times, self.version = state
        if self.times is None:
            self.by_time = None
        else:
            self.by_time = {}
            for key, t in self.times.items():
                self.by_time.setdefault(t, set()).add(key)


class StateRecord:
    """The one record of a mapWithState partition: the table and this batch's output."""

    __slots__ = ("table", "mapped", "version")

    def __init__(self, table: StateTable, mapped: list[Any]) -> None:
        self.table = table
        self.mapped = mapped
        self.version = table.version

    @property
    def is_current(self) -> bool:
        return self.version == self.table.version

    def __getstate__(self) -> Any:
        return (self.table, self.mapped, self.version)

    def __setstate__(self, state: Any) -> None:
        self.table, self.mapped, self.version = state

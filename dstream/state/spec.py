"""StateSpec and State: the user-facing API of ``mapWithState`` (Spark's Scala API).

PySpark never had ``mapWithState``; the names and semantics here are Spark's
(``org.apache.spark.streaming.StateSpec``/``State``), spelled for Python: ``None``
stands for Scala's empty ``Option``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from rdd import Partitioner

S = TypeVar("S")


class State(Generic[S]):
    """The state of one key, handed to a ``mapWithState`` function.

    Examples
    --------
    >>> def running_count(key, value, state):
    ...     total = (state.getOption() or 0) + (value or 0)
    ...     if not state.isTimingOut():
    ...         state.update(total)
    ...     return (key, total)
    """

    __slots__ = ("_state_key", "_state_value", "_exists", "_updated", "_removed", "_timing_out")

    def __init__(self) -> None:
        self._reset(None, None, False, False)

    def _reset(self, key: Any, value: Any, exists: bool, timing_out: bool) -> None:
        self._state_key = key
        self._state_value = value
        self._exists = exists
        self._updated = False
        self._removed = False
        self._timing_out = timing_out

    def exists(self) -> bool:
        """Whether the key has a state."""
        return self._exists

    def get(self) -> S:
        """The state; raises ``KeyError`` when it does not exist (check ``exists()``)."""
        if not self._exists:
            raise KeyError(f"State is not set for key {self._state_key!r}: call state.exists() or "
                           "state.getOption() before state.get()")
        return self._state_value

    def getOption(self) -> S | None:
        """The state, or ``None`` when it does not exist."""
        return self._state_value if self._exists else None

    def update(self, newState: S) -> None:
        """Set the key's state (not allowed after ``remove()`` or while timing out)."""
        if self._removed:
            raise ValueError(f"Cannot update the state of key {self._state_key!r} after it has been removed")
        if self._timing_out:
            raise ValueError(f"Cannot update the state of key {self._state_key!r} that is timing out: its last "
                             "call may only read the state and return a value")
        self._state_value = newState
        self._exists = True
        self._updated = True

    def remove(self) -> None:
        """Remove the key's state (not allowed twice or while timing out)."""
        if self._timing_out:
            raise ValueError(f"Cannot remove the state of key {self._state_key!r} that is timing out: it is "
                             "removed automatically")
        if self._removed:
            raise ValueError(f"Cannot remove the state of key {self._state_key!r}: it has already been removed")
        self._exists = False
        self._updated = False
        self._removed = True

    def isTimingOut(self) -> bool:
        """Whether this call is the last one for a key idle longer than the timeout."""
        return self._timing_out

    def __repr__(self) -> str:
        return f"State({self._state_value!r})" if self._exists else "State(<none>)"


class StateSpec:
    """What ``mapWithState`` needs: the mapping function and optional settings.

    Build one with :meth:`StateSpec.function`, then chain the settings.

    Examples
    --------
    >>> spec = StateSpec.function(lambda key, value, state: (key, value)).numPartitions(4).timeout(30)
    """

    def __init__(self, mappingFunction: Callable[..., Any]) -> None:
        if not callable(mappingFunction):
            raise TypeError(f"StateSpec.function needs a callable, got {mappingFunction!r}")
        self._function = mappingFunction
        self._with_time = _takes_time(mappingFunction)
        self._initial: Any = None
        self._num_partitions: int | None = None
        self._partitioner: Partitioner | None = None
        self._timeout_ms: int | None = None

    @staticmethod
    def function(mappingFunction: Callable[..., Any]) -> StateSpec:
        """A spec for ``mappingFunction(key, value, state)`` (or ``(time, key, value, state)``).

        The three-argument form's return value is emitted for every call; the
        four-argument form (``time`` a naive local ``datetime``) emits its return value
        unless it is ``None``.
        """
        return StateSpec(mappingFunction)

    def initialState(self, rdd: Any) -> StateSpec:
        """Start from these ``(key, state)`` pairs (an RDD or any iterable of pairs)."""
        self._initial = rdd
        return self

    def numPartitions(self, numPartitions: int) -> StateSpec:
        """Hash-partition the state into ``numPartitions`` partitions."""
        if not isinstance(numPartitions, int) or numPartitions < 1:
            raise ValueError(f"numPartitions must be a positive integer, got {numPartitions!r}")
        self._num_partitions = numPartitions
        self._partitioner = None
        return self

    def partitioner(self, partitioner: Partitioner) -> StateSpec:
        """Partition the state with ``partitioner``."""
        if not isinstance(partitioner, Partitioner):
            raise TypeError(f"partitioner must be an rdd.Partitioner, got {type(partitioner).__name__}")
        self._partitioner = partitioner
        self._num_partitions = None
        return self

    def timeout(self, idleDuration: float) -> StateSpec:
        """Remove keys that receive no data for ``idleDuration`` seconds (after one last call)."""
        if not isinstance(idleDuration, (int, float)) or idleDuration <= 0:
            raise ValueError(f"timeout must be a positive number of seconds, got {idleDuration!r}")
        self._timeout_ms = int(round(idleDuration * 1000))
        return self

    def __repr__(self) -> str:
        return (f"StateSpec({getattr(self._function, '__name__', self._function)}, partitions="
                f"{self._partitioner or self._num_partitions}, timeout_ms={self._timeout_ms})")


def _takes_time(fn: Callable[..., Any]) -> bool:
    try:
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty]
    except (TypeError, ValueError):
        return False
    if len(params) not in (3, 4):
        raise TypeError(f"a mapWithState function takes (key, value, state) or (time, key, value, state); "
                        f"{getattr(fn, '__name__', fn)!r} takes {len(params)} arguments")
    return len(params) == 4


"""PySpark's arbitrary state API v2: the classes a ``transformWithStateInPandas`` processor uses.

What this module owns
---------------------
The surface of ``pyspark.sql.streaming.stateful_processor`` (Spark 4.0):
:class:`StatefulProcessor`, the class the user subclasses (``init``, ``handleInputRows``,
and optionally ``handleExpiredTimer``, ``handleInitialState``, ``close``);
:class:`StatefulProcessorHandle`, which ``init`` receives to declare state variables and
which sets timers; the state variables :class:`ValueState`, :class:`ListState` and
:class:`MapState`; and :class:`TimerValues` and :class:`ExpiredTimerInfo`.

The handle and the variables are views on the task's
:class:`~dstream.sql.streaming.state.processor_state.KeyedStates`: each call reads and
writes the state of the grouping key being handled.

Invariants
----------
* Values go in and come out as tuples of the variable's schema (a ``Row`` or list is
  accepted); an absent value is ``None`` (``ValueState.get``, ``MapState.getValue``).
* State variables are declared in ``init``; reading or writing one there (no key yet),
  or declaring one later, raises an error naming the variable and the rule.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .state.processor_state import KeyedStates

__all__ = ["ExpiredTimerInfo", "ListState", "MapState", "StatefulProcessor", "StatefulProcessorHandle",
           "TimerValues", "ValueState"]


class ValueState:
    """One value per grouping key (``handle.getValueState``)."""

    def __init__(self, states: KeyedStates, stateName: str) -> None:  # noqa: N803 - PySpark's name
        self._states = states
        self._name = stateName

    def exists(self) -> bool:
        """Whether the key has a value."""
        return self._states.value_get(self._name) is not None

    def get(self) -> tuple[Any, ...] | None:
        """The key's value, or ``None`` when it has none."""
        return self._states.value_get(self._name)

    def update(self, newValue: tuple[Any, ...]) -> None:  # noqa: N803 - PySpark's name
        """Set the key's value (a tuple of the schema); with a TTL, its clock restarts."""
        self._states.value_update(self._name, newValue)

    def clear(self) -> None:
        """Remove the key's value."""
        self._states.value_clear(self._name)


class ListState:
    """A list of values per grouping key (``handle.getListState``)."""

    def __init__(self, states: KeyedStates, stateName: str) -> None:  # noqa: N803 - PySpark's name
        self._states = states
        self._name = stateName

    def exists(self) -> bool:
        """Whether the key's list has a value."""
        return bool(self._states.list_get(self._name))

    def get(self) -> Iterator[tuple[Any, ...]]:
        """An iterator over the key's values, oldest first."""
        return iter(self._states.list_get(self._name))

    def put(self, newState: list[tuple[Any, ...]]) -> None:  # noqa: N803 - PySpark's name
        """Replace the key's list with ``newState``."""
        self._states.list_put(self._name, newState, False, "ListState.put")

    def appendValue(self, newState: tuple[Any, ...]) -> None:  # noqa: N802, N803 - PySpark's names
        """Append one value."""
        self._states.list_put(self._name, [newState], True, "ListState.appendValue")

    def appendList(self, newState: list[tuple[Any, ...]]) -> None:  # noqa: N802, N803 - PySpark's names
        """Append the values of ``newState``."""
        self._states.list_put(self._name, newState, True, "ListState.appendList")

    def clear(self) -> None:
        """Remove the key's list."""
        self._states.list_clear(self._name)


class MapState:
    """A map of user keys to values per grouping key (``handle.getMapState``)."""

    def __init__(self, states: KeyedStates, stateName: str) -> None:  # noqa: N803 - PySpark's name
        self._states = states
        self._name = stateName

    def exists(self) -> bool:
        """Whether the key's map has an entry."""
        return bool(self._states.map_items(self._name))

    def getValue(self, key: tuple[Any, ...]) -> tuple[Any, ...] | None:  # noqa: N802 - PySpark's name
        """The value of user key ``key``, or ``None``."""
        return self._states.map_get(self._name, key)

    def containsKey(self, key: tuple[Any, ...]) -> bool:  # noqa: N802 - PySpark's name
        """Whether the map holds user key ``key``."""
        return self._states.map_get(self._name, key) is not None

    def updateValue(self, key: tuple[Any, ...], value: tuple[Any, ...]) -> None:  # noqa: N802 - PySpark's name
        """Set the value of user key ``key``."""
        self._states.map_update(self._name, key, value)

    def iterator(self) -> Iterator[tuple[tuple[Any, ...], tuple[Any, ...]]]:
        """An iterator over ``(key, value)`` pairs."""
        return iter(self._states.map_items(self._name))

    def keys(self) -> Iterator[tuple[Any, ...]]:
        """An iterator over the user keys."""
        return iter([k for k, _ in self._states.map_items(self._name)])

    def values(self) -> Iterator[tuple[Any, ...]]:
        """An iterator over the values."""
        return iter([v for _, v in self._states.map_items(self._name)])

    def removeKey(self, key: tuple[Any, ...]) -> None:  # noqa: N802 - PySpark's name
        """Remove user key ``key`` (nothing happens when it is absent)."""
        self._states.map_remove(self._name, key)

    def clear(self) -> None:
        """Remove every entry of the key's map."""
        self._states.map_clear(self._name)


class TimerValues:
    """The clocks of the current batch: processing time and watermark (``-1`` when the time mode has none)."""

    def __init__(self, currentProcessingTimeInMs: int = -1, currentWatermarkInMs: int = -1) -> None:  # noqa: N803
        self._currentProcessingTimeInMs = currentProcessingTimeInMs
        self._currentWatermarkInMs = currentWatermarkInMs

    def getCurrentProcessingTimeInMs(self) -> int:  # noqa: N802 - PySpark's name
        """The batch's processing time (epoch milliseconds)."""
        return self._currentProcessingTimeInMs

    def getCurrentWatermarkInMs(self) -> int:  # noqa: N802 - PySpark's name
        """The batch's event-time watermark (epoch milliseconds)."""
        return self._currentWatermarkInMs


class ExpiredTimerInfo:
    """What ``handleExpiredTimer`` is told of the timer that fired."""

    def __init__(self, expiryTimeInMs: int = -1) -> None:  # noqa: N803 - PySpark's name
        self._expiryTimeInMs = expiryTimeInMs

    def getExpiryTimeInMs(self) -> int:  # noqa: N802 - PySpark's name
        """The timer's expiry time (epoch milliseconds)."""
        return self._expiryTimeInMs


class StatefulProcessorHandle:
    """What ``init`` receives: declares state variables; sets, deletes and lists the key's timers."""

    def __init__(self, states: KeyedStates) -> None:
        self._states = states

    def getValueState(self, stateName: str, schema: Any, ttlDurationMs: int | None = None) -> ValueState:  # noqa: N802, N803
        """Declare (in ``init``) a value per key of ``schema`` (a StructType or DDL string)."""
        self._states.declare("value", stateName, (schema,), ttlDurationMs)
        return ValueState(self._states, stateName)

    def getListState(self, stateName: str, schema: Any, ttlDurationMs: int | None = None) -> ListState:  # noqa: N802, N803
        """Declare (in ``init``) a list of values per key; with a TTL, each value expires on its own."""
        self._states.declare("list", stateName, (schema,), ttlDurationMs)
        return ListState(self._states, stateName)

    def getMapState(self, stateName: str, userKeySchema: Any, valueSchema: Any,  # noqa: N802, N803
                    ttlDurationMs: int | None = None) -> MapState:  # noqa: N803 - PySpark's names
        """Declare (in ``init``) a map per key from ``userKeySchema`` tuples to ``valueSchema`` tuples."""
        self._states.declare("map", stateName, (userKeySchema, valueSchema), ttlDurationMs)
        return MapState(self._states, stateName)

    def registerTimer(self, expiryTimestampMs: int) -> None:  # noqa: N802, N803 - PySpark's names
        """Call ``handleExpiredTimer`` for this key once the clock of the time mode reaches the time."""
        self._states.register_timer(expiryTimestampMs)

    def deleteTimer(self, expiryTimestampMs: int) -> None:  # noqa: N802, N803 - PySpark's names
        """Delete this key's timer at that time (nothing happens when there is none)."""
        self._states.delete_timer(expiryTimestampMs)

    def listTimers(self) -> Iterator[int]:  # noqa: N802 - PySpark's name
        """This key's timers (epoch milliseconds), earliest first."""
        return iter(self._states.list_timers())

    def deleteIfExists(self, stateName: str) -> None:  # noqa: N802, N803 - PySpark's names
        """Drop a state variable and its values for every key (for example one a new version no longer uses)."""
        self._states.delete_if_exists(stateName)


class StatefulProcessor(ABC):
    """The user's stateful logic for ``groupBy(...).transformWithStateInPandas``.

    Per task (one state partition in one micro-batch) the operator calls ``init(handle)``,
    then ``handleInitialState`` for the keys of the initial state (first batch only),
    ``handleInputRows`` for each key with rows, ``handleExpiredTimer`` for each timer the
    clock passed, and ``close()``.
    """

    @abstractmethod
    def init(self, handle: StatefulProcessorHandle) -> None:
        """Declare the state variables (keep them in attributes)."""

    @abstractmethod
    def handleInputRows(self, key: Any, rows: Iterator[Any], timerValues: TimerValues) -> Iterator[Any]:  # noqa: N802, N803
        """Handle the rows of ``key`` (an iterator of ``pandas.DataFrame``); yield output frames."""

    def handleExpiredTimer(self, key: Any, timerValues: TimerValues,  # noqa: N802, N803 - PySpark's names
                           expiredTimerInfo: ExpiredTimerInfo) -> Iterator[Any]:  # noqa: N803
        """A timer of ``key`` fired (it is deleted after this returns); yield output frames."""
        return iter([])

    def close(self) -> None:  # noqa: B027 - optional to override, as PySpark's
        """Called once the task's keys and timers are handled."""

    def handleInitialState(self, key: Any, initialState: Any,  # noqa: B027, N802, N803 - optional, PySpark's names
                           timerValues: TimerValues) -> None:  # noqa: N803
        """Set up ``key``'s state from its rows of the initial state (a ``pandas.DataFrame``), first batch only."""

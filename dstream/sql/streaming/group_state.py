"""``GroupState`` and ``GroupStateTimeout``: what a ``*GroupsWithState`` function sees of its key's state.

What this module owns
---------------------
* :class:`GroupStateTimeout`: the three timeout kinds, as PySpark's string constants
  (``NoTimeout``, ``ProcessingTimeTimeout``, ``EventTimeTimeout``), and
  :func:`timeout_kind`, which checks a ``timeoutConf`` argument.
* :class:`GroupState`: one key's state during one call of the user's function, with
  Spark's semantics: ``exists``, ``get`` (raises when there is no state), ``getOption``,
  ``update`` (``None`` refused), ``remove``, ``hasTimedOut``, the timeout setters and
  the clocks (batch timestamp, watermark).

Invariants
----------
* A state is fresh for every call: its timeout starts unset, so a timeout the call
  does not set again is cleared when the call ends (Spark's rule).
* ``setTimeoutDuration`` needs ``ProcessingTimeTimeout`` and a duration > 0; the
  timeout is the batch timestamp plus the duration. ``setTimeoutTimestamp`` needs
  ``EventTimeTimeout`` and a time >= the current watermark.
* The value is held as a ``Row`` of the state schema (a tuple, list, dict or Row is
  accepted by position or by name); its field types are checked when the operator
  stores it, after the call.
"""

from __future__ import annotations

import datetime
import time
from typing import Any

from ..errors import IllegalArgumentException, PySparkTypeError, PySparkValueError, SparkRuntimeException
from ..row import Row, _create_row
from ..row_verify import struct_values
from ..timezones import zone_of
from ..types import StructType
from .triggers import interval_ms

__all__ = ["NO_TIMESTAMP", "GroupState", "GroupStateTimeout", "batch_state", "timeout_kind"]

#: The timeout of a state that has none (Spark's ``NO_TIMESTAMP``).
NO_TIMESTAMP = -1


class GroupStateTimeout:
    """The timeouts a ``*GroupsWithState`` operation can use (``timeoutConf``).

    * ``NoTimeout``: state stays until the function removes it.
    * ``ProcessingTimeTimeout``: ``state.setTimeoutDuration(ms)`` times a key out when no
      data came for it for that long (measured in batch timestamps, so at the precision
      of the trigger interval). Every trigger then runs a batch, with or without data,
      as in Spark: give such a query a ``processingTime`` trigger.
    * ``EventTimeTimeout``: ``state.setTimeoutTimestamp(ms)`` times a key out when the
      watermark passes that event time (needs ``withWatermark``).
    """

    NoTimeout: str = "NoTimeout"
    ProcessingTimeTimeout: str = "ProcessingTimeTimeout"
    EventTimeTimeout: str = "EventTimeTimeout"


_KINDS = {k.lower(): k for k in (GroupStateTimeout.NoTimeout, GroupStateTimeout.ProcessingTimeTimeout,
                                 GroupStateTimeout.EventTimeTimeout)}


def timeout_kind(value: Any) -> str:
    """The canonical name of a ``timeoutConf`` argument (case-insensitive)."""
    if isinstance(value, str) and value.strip().lower() in _KINDS:
        return _KINDS[value.strip().lower()]
    raise PySparkValueError(
        f"timeoutConf must be GroupStateTimeout.NoTimeout, GroupStateTimeout.ProcessingTimeTimeout or "
        f"GroupStateTimeout.EventTimeTimeout (or their names as strings), got {value!r}.",
        "INVALID_TIMEOUT_CONF", {"timeoutConf": repr(value)})


def _duration_ms(duration: str) -> int:
    ms = interval_ms(duration, "duration")
    if ms < 0:
        raise IllegalArgumentException(f"Provided duration ({duration}) is negative: give a positive interval such "
                                       "as '10 seconds'.")
    return ms


class GroupState:
    """The state of one grouping key while the user's function runs for it.

    Made by the operator for each call; the function reads and changes it. After the
    call the operator stores the value (if updated), removes it (if removed and no
    timeout is set), and keeps the timeout set in this call (none if not set again).
    """

    def __init__(self, value: Row | None, *, timeout: str, state_schema: StructType, batch_timestamp_ms: int,
                 watermark_ms: int, watermark_present: bool, has_timed_out: bool, time_zone: str,
                 operation: str = "[map|flatMap]GroupsWithState") -> None:
        self._value = value
        self._timeout_conf = timeout
        self._schema = state_schema
        self._batch_timestamp_ms = batch_timestamp_ms
        self._watermark_ms = watermark_ms
        self._watermark_present = watermark_present
        self._has_timed_out = has_timed_out
        self._time_zone = time_zone
        self._operation = operation
        self._updated = False
        self._removed = False
        self._timeout_ms = NO_TIMESTAMP

    # -- the value --------------------------------------------------------------------

    @property
    def exists(self) -> bool:
        """Whether the key has a state value."""
        return self._value is not None

    @property
    def get(self) -> Row:
        """The state value (a ``Row`` of the state schema).

        Raises
        ------
        PySparkValueError
            The key has no state (check ``exists`` or use ``getOption``).
        """
        if self._value is None:
            raise PySparkValueError("State is either not defined or has already been removed. Check state.exists "
                                    "or read state.getOption (None when there is no state).", "STATE_NOT_EXISTS", {})
        return self._value

    @property
    def getOption(self) -> Row | None:  # noqa: N802 - PySpark's name
        """The state value, or ``None`` when there is none."""
        return self._value

    def update(self, newValue: Any) -> None:  # noqa: N803 - PySpark's name
        """Set the state value: a tuple or list (by position), a dict or Row of the state schema's fields.

        Raises
        ------
        IllegalArgumentException
            ``newValue`` is ``None`` (use ``remove()``).
        PySparkValueError, PySparkTypeError
            The value does not have the state schema's number of fields, or is not a row.
        """
        if newValue is None:
            raise IllegalArgumentException("'None' is not a valid state value: call state.remove() to remove the "
                                           "state, or update it with a row of the state schema.")
        names = self._schema.names
        value = newValue
        fields = getattr(value, "__fields__", None) if isinstance(value, Row) else None
        if fields is not None and list(fields) != names and set(names) <= set(fields):
            # A Row with the state's field names in another order is read by name.
            value = value.asDict()
        values = struct_values(value, names, None, self._schema)
        self._value = _create_row(list(names), tuple(values))
        self._updated = True
        self._removed = False

    def remove(self) -> None:
        """Remove the state value (a timeout set in this call is kept)."""
        self._value = None
        self._updated = False
        self._removed = True

    @property
    def hasTimedOut(self) -> bool:  # noqa: N802 - PySpark's name
        """Whether this call is for a key whose timeout expired (its rows iterator is empty)."""
        return self._has_timed_out

    # -- timeouts ---------------------------------------------------------------------

    def setTimeoutDuration(self, durationMs: int | str) -> None:  # noqa: N802, N803 - PySpark's names
        """Time the key out when no data came for it for ``durationMs`` (ms, or ``"10 seconds"``).

        Needs ``GroupStateTimeout.ProcessingTimeTimeout``. The timeout is the batch
        timestamp plus the duration; it holds until a later call sets another or none.

        Raises
        ------
        SparkRuntimeException
            Processing-time timeouts are not enabled.
        IllegalArgumentException
            The duration is not positive.
        """
        if self._timeout_conf != GroupStateTimeout.ProcessingTimeTimeout:
            raise SparkRuntimeException(
                f"Cannot set timeout duration without enabling processing time timeout in {self._operation}: pass "
                "GroupStateTimeout.ProcessingTimeTimeout as timeoutConf.")
        ms = _duration_ms(durationMs) if isinstance(durationMs, str) else self._whole_ms(durationMs, "durationMs")
        if ms <= 0:
            raise IllegalArgumentException(f"Timeout duration must be positive, got {durationMs!r}.")
        self._timeout_ms = self._batch_timestamp_ms + ms

    def setTimeoutTimestamp(self, timestampMs: int | datetime.datetime | datetime.date,  # noqa: N802, N803
                            additionalDuration: str | None = None) -> None:  # noqa: N803 - PySpark's names
        """Time the key out when the watermark passes ``timestampMs`` (+ ``additionalDuration``).

        ``timestampMs`` is epoch milliseconds, or a ``datetime`` (a naive one is a wall
        time in the session time zone, as collected timestamps are) or a ``date``.
        Needs ``GroupStateTimeout.EventTimeTimeout``.

        Raises
        ------
        SparkRuntimeException
            Event-time timeouts are not enabled.
        IllegalArgumentException
            The time is not positive, or is before the current watermark.
        """
        if self._timeout_conf != GroupStateTimeout.EventTimeTimeout:
            raise SparkRuntimeException(
                f"Cannot set timeout timestamp without enabling event time timeout in {self._operation}: pass "
                "GroupStateTimeout.EventTimeTimeout as timeoutConf (and add withWatermark to the query).")
        ms = self._epoch_ms(timestampMs)
        if additionalDuration is not None:
            if not isinstance(additionalDuration, str):
                raise PySparkTypeError(f"additionalDuration must be a str such as '10 seconds', got "
                                       f"{type(additionalDuration).__name__}.", "NOT_STR",
                                       {"arg_name": "additionalDuration",
                                        "arg_type": type(additionalDuration).__name__})
            ms += _duration_ms(additionalDuration)
        if ms <= 0:
            raise IllegalArgumentException(f"Timeout timestamp must be positive, got {ms}.")
        if self._watermark_ms != NO_TIMESTAMP and ms < self._watermark_ms:
            raise IllegalArgumentException(
                f"Timeout timestamp ({ms}) cannot be earlier than the current watermark ({self._watermark_ms}): set "
                "a time at or after state.getCurrentWatermarkMs().")
        self._timeout_ms = ms

    def getCurrentWatermarkMs(self) -> int:  # noqa: N802 - PySpark's name
        """The event-time watermark of this batch (epoch ms).

        Raises
        ------
        SparkRuntimeException
            The operation's input has no watermark (``withWatermark`` before ``groupBy``).
        """
        if not self._watermark_present:
            raise SparkRuntimeException(
                f"Cannot get event time watermark timestamp without setting watermark before {self._operation}: "
                "call withWatermark on the input before groupBy.")
        return self._watermark_ms

    def getCurrentProcessingTimeMs(self) -> int:  # noqa: N802 - PySpark's name
        """The batch's timestamp (epoch ms); the current time on a batch DataFrame."""
        return self._batch_timestamp_ms

    # -- what the operator reads after the call -----------------------------------------

    @property
    def updated(self) -> bool:
        """Whether ``update`` was the last change of the value."""
        return self._updated

    @property
    def removed(self) -> bool:
        """Whether ``remove`` was the last change of the value."""
        return self._removed

    @property
    def timeout_ms(self) -> int:
        """The timeout set in this call, or :data:`NO_TIMESTAMP`."""
        return self._timeout_ms

    def _whole_ms(self, value: Any, name: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise PySparkTypeError(f"{name} must be an int of milliseconds (or a str such as '10 seconds'), got "
                                   f"{type(value).__name__} {value!r}.", "NOT_INT",
                                   {"arg_name": name, "arg_type": type(value).__name__})
        return value

    def _epoch_ms(self, value: Any) -> int:
        if isinstance(value, datetime.datetime):
            aware = value if value.tzinfo is not None else value.replace(tzinfo=zone_of(self._time_zone))
            return int(aware.timestamp() * 1000)
        if isinstance(value, datetime.date):
            midnight = datetime.datetime(value.year, value.month, value.day, tzinfo=zone_of(self._time_zone))
            return int(midnight.timestamp() * 1000)
        return self._whole_ms(value, "timestampMs")

    def __str__(self) -> str:
        return f"GroupState({'<undefined>' if self._value is None else self._value})"

    __repr__ = __str__


def batch_state(timeout: str, state_schema: StructType, time_zone: str, operation: str) -> GroupState:
    """The empty state of one group of a batch DataFrame (never timed out, no watermark)."""
    return GroupState(None, timeout=timeout, state_schema=state_schema, batch_timestamp_ms=int(time.time() * 1000),
                      watermark_ms=NO_TIMESTAMP, watermark_present=False, has_timed_out=False, time_zone=time_zone,
                      operation=operation)

"""Clocks: the only source of "now" for the streaming engine.

What this module owns
---------------------
The :class:`Clock` protocol and its two implementations. The job generator's timer, the
batch bookkeeping (submission, start and end stamps in ``BatchInfo``) and the testing
helpers all read time through an injected clock, so a test that drives a
:class:`ManualClock` is fully deterministic and never sleeps.

* :class:`SystemClock` reads the wall clock (epoch milliseconds) and waits on a
  ``threading.Event`` with a timeout, so a waiting timer wakes at once when it is
  cancelled.
* :class:`ManualClock` starts at 0 (as Spark's does, so batches fall at ``B, 2B, ...``)
  and only moves when :meth:`ManualClock.advance` or :meth:`ManualClock.set_time` is
  called. Waiters block on a ``threading.Condition``; every change of time wakes them.
  There is no polling.

Cancellation protocol
---------------------
``wait_till_time(target, cancel)`` returns the time once it reaches ``target``, or
``None`` once ``cancel`` is set. Whoever sets ``cancel`` must then call
:meth:`Clock.interrupt` so a waiter blocked on a manual clock re-checks the event.

Configuration
-------------
:func:`clock_from_conf` maps the ``spark.streaming.clock`` setting to a clock: Spark's
class names (``org.apache.spark.util.ManualClock``, ``...SystemClock`` and the old
``org.apache.spark.streaming.util`` names), the short forms ``"manual"``/``"system"``,
or a dotted ``module.Class`` path of a class with a no-argument constructor.
"""

from __future__ import annotations

import importlib
import threading
import time
from typing import Protocol, runtime_checkable

__all__ = ["Clock", "ManualClock", "SystemClock", "clock_from_conf"]


@runtime_checkable
class Clock(Protocol):
    """What the streaming engine needs from a clock."""

    def now_ms(self) -> int:
        """Return the current time in epoch milliseconds."""
        ...

    def wait_till_time(self, target_ms: int, cancel: threading.Event | None = None) -> int | None:
        """Block until the time is at least ``target_ms``; return it, or ``None`` if cancelled."""
        ...

    def interrupt(self) -> None:
        """Wake every waiter so it re-checks its cancel event."""
        ...


class SystemClock:
    """The wall clock, in epoch milliseconds."""

    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000

    def wait_till_time(self, target_ms: int, cancel: threading.Event | None = None) -> int | None:
        # An Event never set plays the part of a plain sleep; waiting on the caller's
        # event instead makes cancellation immediate.
        event = cancel if cancel is not None else threading.Event()
        while True:
            now = self.now_ms()
            remaining = target_ms - now
            if remaining <= 0:
                return now
            if event.wait(remaining / 1000.0):
                return None

    def interrupt(self) -> None:
        # Waiters wait on their cancel event, which wakes them by itself.
        return None

    def __repr__(self) -> str:
        return "SystemClock()"


class ManualClock:
    """A clock that moves only when told to: the test clock.

    Parameters
    ----------
    start_ms
        The initial time in milliseconds (0, as in Spark's tests).

    Examples
    --------
    >>> clock = ManualClock()
    >>> clock.advance(1000)
    1000
    >>> clock.now_ms()
    1000
    """

    def __init__(self, start_ms: int = 0) -> None:
        self._time = _check_ms(start_ms, "start_ms")
        self._changed = threading.Condition()

    def now_ms(self) -> int:
        return self._time

    def set_time(self, time_ms: int) -> None:
        """Set the time to ``time_ms`` and wake every waiter.

        The clock may be set backwards (tests of recovery do); waiters whose target is
        not reached keep waiting.
        """
        time_ms = _check_ms(time_ms, "time_ms")
        with self._changed:
            self._time = time_ms
            self._changed.notify_all()

    def advance(self, duration_ms: int) -> int:
        """Move the time forward by ``duration_ms``, wake every waiter, return the new time."""
        duration_ms = _check_ms(duration_ms, "duration_ms")
        if duration_ms < 0:
            raise ValueError(
                f"ManualClock.advance takes a non-negative number of milliseconds, got "
                f"{duration_ms}; use set_time() to move the clock backwards"
            )
        with self._changed:
            self._time += duration_ms
            self._changed.notify_all()
            return self._time

    def wait_till_time(self, target_ms: int, cancel: threading.Event | None = None) -> int | None:
        with self._changed:
            while self._time < target_ms:
                if cancel is not None and cancel.is_set():
                    return None
                self._changed.wait()
            return self._time

    def interrupt(self) -> None:
        with self._changed:
            self._changed.notify_all()

    def __repr__(self) -> str:
        return f"ManualClock(now_ms={self._time})"


def _check_ms(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(
            f"{name} must be an int number of milliseconds, got {value!r} "
            f"of type {type(value).__name__}"
        )
    return value


# Spark's class names (the tests of Spark itself set these) and our short forms.
_MANUAL_NAMES = frozenset(
    {
        "manual",
        "org.apache.spark.util.ManualClock",
        "org.apache.spark.streaming.util.ManualClock",
    }
)
_SYSTEM_NAMES = frozenset(
    {
        "system",
        "org.apache.spark.util.SystemClock",
        "org.apache.spark.streaming.util.SystemClock",
    }
)


def clock_from_conf(name: str | None) -> Clock:
    """Build the clock named by ``spark.streaming.clock`` (``None`` means the system clock).

    Raises
    ------
    ValueError
        If the name is neither a known clock nor an importable ``module.Class`` whose
        instances satisfy :class:`Clock`.
    """
    if name is None or name.strip() in _SYSTEM_NAMES:
        return SystemClock()
    name = name.strip()
    if name in _MANUAL_NAMES:
        return ManualClock()
    module_name, _, class_name = name.rpartition(".")
    try:
        cls = getattr(importlib.import_module(module_name), class_name) if module_name else None
    except (ImportError, AttributeError):
        cls = None
    clock = cls() if isinstance(cls, type) else None
    if clock is None or not isinstance(clock, Clock):
        raise ValueError(
            f"spark.streaming.clock={name!r} is not a clock: use 'system' (the default), "
            "'manual' (or Spark's 'org.apache.spark.util.ManualClock'), or the dotted path "
            "of a class with now_ms(), wait_till_time() and interrupt()"
        )
    return clock

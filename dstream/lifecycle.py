"""Lifecycle of a StreamingContext: its states, the one-active-context rule, termination.

What this module owns
---------------------
* :class:`State`: ``INITIALIZED -> ACTIVE -> STOPPED`` (and ``INITIALIZED -> STOPPED``).
  ``STOPPED`` is terminal.
* The process-wide registry of the active context (:func:`activate`,
  :func:`deactivate`, :func:`get_active`) under one lock: at most one StreamingContext
  is ACTIVE per process, as in Spark (one per JVM).
* :class:`TerminationWaiter`: what ``awaitTermination*`` blocks on. It holds a
  "stopped" flag and the error slot.

Error policy
------------
An exception raised while generating or running a batch is stored here and the context
keeps running (Spark's behaviour: later batches still run). ``awaitTermination*``
re-raises the stored exception object itself, so the user's traceback is intact. The
*first* error is kept (Spark keeps the last; the first is usually the cause of the
rest); later errors are counted and logged by the scheduler. Once an error is stored,
every ``awaitTermination*`` call raises it at once.
"""

from __future__ import annotations

import enum
import threading
import time
from typing import Any

from dstream.errors import StreamingStateError

# The longest a wait here blocks at a time. Python runs signal handlers on the main thread
# only when it returns to the interpreter, and a signal the kernel delivered to another
# thread does not wake a main thread blocked on a lock.
_SIGNAL_POLL_S = 0.2

__all__ = ["State", "TerminationWaiter", "activate", "deactivate", "get_active"]


class State(enum.Enum):
    """Lifecycle state of a StreamingContext."""

    INITIALIZED = "initialized"
    ACTIVE = "active"
    STOPPED = "stopped"


_activation_lock = threading.RLock()
_active: Any = None
_active_site: str = ""


def activate(context: Any, call_site: str) -> None:
    """Register ``context`` as the process's active context.

    Raises
    ------
    StreamingStateError
        If another context is active.
    """
    global _active, _active_site
    with _activation_lock:
        if _active is not None and _active is not context:
            raise StreamingStateError(
                "only one StreamingContext may be active in a process; another one was "
                f"started at {_active_site} and is still running: stop it first "
                "(StreamingContext.getActive().stop(stopSparkContext=False))"
            )
        _active = context
        _active_site = call_site


def deactivate(context: Any) -> None:
    """Forget ``context`` if it is the active one."""
    global _active, _active_site
    with _activation_lock:
        if _active is context:
            _active = None
            _active_site = ""


def get_active() -> Any:
    """Return the active context or ``None``."""
    with _activation_lock:
        return _active


def activation_lock() -> threading.RLock:
    """The lock that serialises start/stop/getActive across contexts."""
    return _activation_lock


class TerminationWaiter:
    """The stopped flag and the first error of a context; ``awaitTermination`` waits here."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._stopped = False
        self._error: BaseException | None = None
        # Re-raising appends frames to __traceback__; restoring the original each time
        # keeps repeated awaitTermination calls from growing it.
        self._error_tb: Any = None
        self._later_errors = 0

    def notify_stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify_all()

    def notify_error(self, error: BaseException) -> bool:
        """Store ``error`` if it is the first; return whether it was stored."""
        with self._cond:
            if self._error is not None:
                self._later_errors += 1
                return False
            self._error = error
            self._error_tb = error.__traceback__
            self._cond.notify_all()
            return True

    @property
    def error(self) -> BaseException | None:
        return self._error

    @property
    def later_errors(self) -> int:
        return self._later_errors

    def wait(self, timeout: float | None) -> bool:
        """Wait until stopped or failed; return ``True`` if stopped, ``False`` on timeout.

        Raises the stored error, if any (the user's exception object).
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._error is None and not self._stopped:
                if deadline is None:
                    # Bounded, so a Ctrl-C or SIGTERM that the kernel delivered to another
                    # thread still gets its handler run on this (main) thread promptly.
                    self._cond.wait(_SIGNAL_POLL_S)
                else:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        return False
                    self._cond.wait(min(remaining, _SIGNAL_POLL_S))
            if self._error is not None:
                raise self._error.with_traceback(self._error_tb)
            return True

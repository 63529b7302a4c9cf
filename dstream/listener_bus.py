"""Ordered, asynchronous delivery of listener events on one thread.

What this module owns
---------------------
:class:`ListenerBus`: a bounded queue of events and one daemon thread that hands each
event to every registered listener, in posting order. The engine's threads (the job
generator and the job scheduler) only append to the queue, so a slow listener never
delays a batch.

Invariants
----------
* Events reach each listener in the order they were posted; one event is delivered to
  all listeners before the next one is taken.
* A listener that raises is logged (with its traceback) and counted; delivery goes on,
  to the same listener too.
* The queue is bounded (``capacity``); when full, new events are dropped and counted
  rather than blocking the engine. The first drop is logged as a warning.
* ``post`` with no listener registered is a no-op (the per-batch fast path).
* ``stop`` delivers what is queued (bounded by its timeout), then ends the thread.
  Events posted after ``stop`` are dropped silently.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

__all__ = ["ListenerBus", "ListenerBusStatistics"]

logger = logging.getLogger(__name__)

# Large enough for minutes of batches with several output operations each; bounded so
# a stuck listener costs memory proportional to this, not to the stream's lifetime.
DEFAULT_CAPACITY = 10_000


@dataclass(frozen=True, slots=True)
class ListenerBusStatistics:
    """Counters of a :class:`ListenerBus`."""

    queued: int
    delivered: int
    dropped: int
    listener_errors: int


class ListenerBus:
    """Deliver events to listeners on a dedicated thread.

    An event is any object with a ``_callback`` attribute naming the listener method
    that receives it (``event._callback == "onBatchCompleted"``).
    """

    def __init__(self, name: str = "StreamingListenerBus", capacity: int = DEFAULT_CAPACITY) -> None:
        self._name = name
        self._capacity = capacity
        # Copy-on-write: the delivery thread iterates a snapshot without a lock.
        self._listeners: tuple[Any, ...] = ()
        self._queue: deque[Any] = deque()
        self._cond = threading.Condition()
        self._busy = False
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._delivered = 0
        self._dropped = 0
        self._errors = 0

    # -- registration ----------------------------------------------------------------
    def add_listener(self, listener: Any) -> None:
        with self._cond:
            self._listeners = (*self._listeners, listener)

    def remove_listener(self, listener: Any) -> None:
        """Remove ``listener`` (compared by identity); unknown listeners are ignored."""
        with self._cond:
            self._listeners = tuple(lst for lst in self._listeners if lst is not listener)

    @property
    def listeners(self) -> tuple[Any, ...]:
        return self._listeners

    # -- lifecycle -------------------------------------------------------------------
    def start(self) -> None:
        with self._cond:
            if self._thread is not None:
                return
            self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 10.0) -> bool:
        """Deliver the queued events, then end the thread; return ``False`` on timeout."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
            thread = self._thread
        if thread is None or thread is threading.current_thread():
            return True
        thread.join(timeout)
        if thread.is_alive():
            logger.warning(
                "%s did not finish delivering within %.1f s; %d event(s) left undelivered",
                self._name, timeout, len(self._queue),
            )
            return False
        return True

    # -- posting ---------------------------------------------------------------------
    def post(self, event: Any) -> None:
        if not self._listeners:
            return
        with self._cond:
            if self._stopping:
                return
            if len(self._queue) >= self._capacity:
                self._dropped += 1
                if self._dropped == 1:
                    logger.warning(
                        "%s queue is full (%d events): dropping events; a listener is too slow",
                        self._name, self._capacity,
                    )
                return
            self._queue.append(event)
            self._cond.notify_all()

    def wait_until_empty(self, timeout: float) -> bool:
        """Block until every posted event has been delivered; ``False`` on timeout."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._queue or self._busy:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._cond.wait(remaining)
            return True

    def statistics(self) -> ListenerBusStatistics:
        with self._cond:
            return ListenerBusStatistics(len(self._queue), self._delivered, self._dropped, self._errors)

    # -- delivery thread -------------------------------------------------------------
    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._stopping:
                    self._cond.wait()
                if not self._queue:
                    self._cond.notify_all()
                    return
                event = self._queue.popleft()
                self._busy = True
                listeners = self._listeners
            try:
                for listener in listeners:
                    self._deliver(listener, event)
            finally:
                with self._cond:
                    self._busy = False
                    self._delivered += 1
                    self._cond.notify_all()

    def _deliver(self, listener: Any, event: Any) -> None:
        callback = getattr(listener, event._callback, None)
        if callback is None:
            return
        try:
            callback(event)
        except Exception:
            with self._cond:
                self._errors += 1
            logger.exception(
                "listener %r raised in %s; the bus carries on", listener, event._callback
            )

"""``StreamingQueryListener`` and its events, delivered on a thread of their own.

What this module owns
---------------------
:class:`StreamingQueryListener` (PySpark's abstract class: ``onQueryStarted``,
``onQueryProgress``, ``onQueryIdle``, ``onQueryTerminated``), the four event classes,
and :class:`ListenerBus`, the queue and thread that deliver events of one session's
queries to its listeners.

Invariants
----------
* Events are delivered asynchronously, in the order they were posted, never on the
  query's own thread: a slow listener cannot slow a query down.
* A listener that raises is logged and keeps receiving later events.
* ``onQueryStarted`` is posted before ``start()`` returns.
"""

from __future__ import annotations

import logging
import queue
import threading
from typing import Any

__all__ = ["ListenerBus", "QueryIdleEvent", "QueryProgressEvent", "QueryStartedEvent", "QueryTerminatedEvent",
           "StreamingQueryListener"]

_log = logging.getLogger("dstream.sql.streaming")


class QueryStartedEvent:
    """A query started (``id``, ``runId``, ``name``, ``timestamp``)."""

    def __init__(self, id: str, runId: str, name: str | None, timestamp: str) -> None:  # noqa: A002,N803
        self.id, self.runId, self.name, self.timestamp = id, runId, name, timestamp


class QueryProgressEvent:
    """A trigger ran a batch (``progress``)."""

    def __init__(self, progress: Any) -> None:
        self.progress = progress


class QueryIdleEvent:
    """A query had nothing to do for a while (``id``, ``runId``, ``timestamp``)."""

    def __init__(self, id: str, runId: str, timestamp: str) -> None:  # noqa: A002,N803
        self.id, self.runId, self.timestamp = id, runId, timestamp


class QueryTerminatedEvent:
    """A query stopped (``exception`` is the error text, ``None`` on a clean stop)."""

    def __init__(self, id: str, runId: str, exception: str | None,  # noqa: A002,N803
                 errorClassOnException: str | None = None) -> None:  # noqa: N803
        self.id, self.runId, self.exception = id, runId, exception
        self.errorClassOnException = errorClassOnException


class StreamingQueryListener:
    """Receives the events of a session's streaming queries (``spark.streams.addListener``)."""

    def onQueryStarted(self, event: QueryStartedEvent) -> None:  # noqa: N802
        """A query started."""

    def onQueryProgress(self, event: QueryProgressEvent) -> None:  # noqa: N802
        """A query made progress."""

    def onQueryIdle(self, event: QueryIdleEvent) -> None:  # noqa: N802
        """A query is idle."""

    def onQueryTerminated(self, event: QueryTerminatedEvent) -> None:  # noqa: N802
        """A query stopped."""


_HANDLERS = {QueryStartedEvent: "onQueryStarted", QueryProgressEvent: "onQueryProgress",
             QueryIdleEvent: "onQueryIdle", QueryTerminatedEvent: "onQueryTerminated"}


class ListenerBus:
    """Delivers events to listeners from one daemon thread (started on the first listener)."""

    def __init__(self) -> None:
        self._listeners: list[StreamingQueryListener] = []
        self._lock = threading.Lock()
        self._queue: queue.Queue[Any] = queue.Queue()
        self._thread: threading.Thread | None = None

    def add(self, listener: StreamingQueryListener) -> None:
        with self._lock:
            self._listeners.append(listener)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="streaming-query-listener-bus", daemon=True)
                self._thread.start()

    def remove(self, listener: StreamingQueryListener) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def post(self, event: Any) -> None:
        with self._lock:
            if not self._listeners:
                return
        self._queue.put(event)

    def wait_until_empty(self, timeout: float) -> bool:
        """Wait until every posted event is delivered (``False`` if ``timeout`` passed first)."""
        done = threading.Event()
        self._queue.put(done)
        return done.wait(timeout) if self._thread is not None else True

    def _run(self) -> None:
        while True:
            event = self._queue.get()
            if isinstance(event, threading.Event):
                event.set()
                continue
            with self._lock:
                listeners = list(self._listeners)
            method = _HANDLERS[type(event)]
            for listener in listeners:
                try:
                    getattr(listener, method)(event)
                except Exception:
                    _log.exception("StreamingQueryListener %r failed on %s", listener, method)

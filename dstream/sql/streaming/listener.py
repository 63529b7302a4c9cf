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
  query's own thread: a slow listener cannot slow a query down. The bus is the engine's
  :class:`~rdd.engine_api.ListenerBus` (bounded queue, counted drops, one thread); each
  event names its listener method in ``_callback``.
* A listener that raises is logged and keeps receiving later events.
* ``onQueryStarted`` is posted before ``start()`` returns.
* The thread starts with the first listener and ends when the session stops, after the
  events queued so far (the queries' terminations among them) are delivered.
"""

from __future__ import annotations

import logging
from typing import Any

from rdd.engine_api import ListenerBus as _EngineListenerBus

__all__ = ["ListenerBus", "QueryIdleEvent", "QueryProgressEvent", "QueryStartedEvent", "QueryTerminatedEvent",
           "StreamingQueryListener"]

_log = logging.getLogger("dstream.sql.streaming")


class QueryStartedEvent:
    """A query started (``id``, ``runId``, ``name``, ``timestamp``)."""

    _callback = "onQueryStarted"

    def __init__(self, id: str, runId: str, name: str | None, timestamp: str) -> None:  # noqa: A002,N803
        self.id, self.runId, self.name, self.timestamp = id, runId, name, timestamp


class QueryProgressEvent:
    """A trigger ran a batch (``progress``)."""

    _callback = "onQueryProgress"

    def __init__(self, progress: Any) -> None:
        self.progress = progress


class QueryIdleEvent:
    """A query had nothing to do for a while (``id``, ``runId``, ``timestamp``)."""

    _callback = "onQueryIdle"

    def __init__(self, id: str, runId: str, timestamp: str) -> None:  # noqa: A002,N803
        self.id, self.runId, self.timestamp = id, runId, timestamp


class QueryTerminatedEvent:
    """A query stopped (``exception`` is the error text, ``None`` on a clean stop)."""

    _callback = "onQueryTerminated"

    def __init__(self, id: str, runId: str, exception: str | None,  # noqa: A002,N803
                 errorClassOnException: str | None = None) -> None:  # noqa: N803
        self.id, self.runId, self.exception = id, runId, exception
        self.errorClassOnException = errorClassOnException


class StreamingQueryListener:
    """Receives the events of a session's streaming queries (``spark.streams.addListener``)."""

    @property
    def spark(self) -> Any:
        """The session whose ``streams.addListener`` took this listener (``None`` before; settable, as PySpark's)."""
        return getattr(self, "_sparkSession", None)

    @spark.setter
    def spark(self, session: Any) -> None:
        self._sparkSession = session

    def onQueryStarted(self, event: QueryStartedEvent) -> None:  # noqa: N802
        """A query started."""

    def onQueryProgress(self, event: QueryProgressEvent) -> None:  # noqa: N802
        """A query made progress."""

    def onQueryIdle(self, event: QueryIdleEvent) -> None:  # noqa: N802
        """A query is idle."""

    def onQueryTerminated(self, event: QueryTerminatedEvent) -> None:  # noqa: N802
        """A query stopped."""


class ListenerBus(_EngineListenerBus):
    """Delivers one session's query events to its listeners, from one thread (see the module doc)."""

    def __init__(self) -> None:
        super().__init__("streaming-query-listener-bus", logger=_log)

    def add(self, listener: StreamingQueryListener) -> None:
        """Register ``listener``, starting the thread with the first one."""
        self.add_listener(listener)
        self.start()

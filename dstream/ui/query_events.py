"""The Structured Streaming query events as they travel on the SparkContext's bus and in the log.

What this module owns
---------------------
One frozen dataclass per ``StreamingQueryListener`` event, registered with the core event
registry under Spark's event-log name
(``org.apache.spark.sql.streaming.StreamingQueryListener$QueryProgressEvent`` ...), with
Spark's fields: ``id``, ``runId``, ``name``, ``timestamp`` (started); ``progress`` (the
dict ``lastProgress`` gives) (progress); ``id``, ``runId``, ``timestamp`` (idle); ``id``,
``runId``, ``exception``, ``errorClassOnException`` (terminated); and :func:`wrap_query_event`,
which turns a :mod:`dstream.sql.streaming.listener` event into its bus event.

Invariants
----------
* ``event_from_json(e.to_json()) == e`` for every event here.
* This module is imported by the query manager's forwarding hook only when a query
  starts, so a DStream-only program never imports the SQL layer for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from rdd.engine_api import register_event

__all__ = ["QueryIdleEventLogged", "QueryProgressEventLogged", "QueryStartedEventLogged",
           "QueryTerminatedEventLogged", "wrap_query_event"]

_PREFIX = "org.apache.spark.sql.streaming.StreamingQueryListener$"


@dataclass(frozen=True)
class QueryStartedEventLogged:
    """A query run started (``timestamp`` as Spark prints it, ``...T00:00:12.000Z``)."""

    _callback: ClassVar[str] = "onQueryStarted"
    id: str
    runId: str  # noqa: N815 - Spark's field name
    name: str | None
    timestamp: str


@dataclass(frozen=True)
class QueryProgressEventLogged:
    """A trigger ran a batch; ``progress`` is the progress dict."""

    _callback: ClassVar[str] = "onQueryProgress"
    progress: dict[str, Any]


@dataclass(frozen=True)
class QueryIdleEventLogged:
    """A query had nothing to do."""

    _callback: ClassVar[str] = "onQueryIdle"
    id: str
    runId: str  # noqa: N815
    timestamp: str


@dataclass(frozen=True)
class QueryTerminatedEventLogged:
    """A query run stopped; ``exception`` is the error text, ``None`` on a clean stop."""

    _callback: ClassVar[str] = "onQueryTerminated"
    id: str
    runId: str  # noqa: N815
    exception: str | None = None
    errorClassOnException: str | None = None  # noqa: N815


for _cls, _name in ((QueryStartedEventLogged, "QueryStartedEvent"), (QueryProgressEventLogged, "QueryProgressEvent"),
                    (QueryIdleEventLogged, "QueryIdleEvent"), (QueryTerminatedEventLogged, "QueryTerminatedEvent")):
    register_event(_cls, _PREFIX + _name)


def wrap_query_event(event: Any) -> Any:
    """The bus event carrying a :mod:`dstream.sql.streaming.listener` event (``None`` if unknown)."""
    kind = type(event).__name__
    if kind == "QueryStartedEvent":
        return QueryStartedEventLogged(event.id, event.runId, event.name, event.timestamp)
    if kind == "QueryProgressEvent":
        # Spark logs the progress' JSON (offsets as JSON, empty maps left out), not the object.
        # (json_object is that JSON read back, built directly: this runs once per trigger.)
        progress = event.progress
        json_object = getattr(progress, "json_object", None)
        return QueryProgressEventLogged(json_object() if json_object is not None else dict(progress))
    if kind == "QueryIdleEvent":
        return QueryIdleEventLogged(event.id, event.runId, event.timestamp)
    if kind == "QueryTerminatedEvent":
        return QueryTerminatedEventLogged(event.id, event.runId, event.exception, event.errorClassOnException)
    return None

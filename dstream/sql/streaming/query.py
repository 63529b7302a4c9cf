"""``StreamingQuery`` and ``spark.streams``: handles on running queries.

What this module owns
---------------------
* :class:`StreamingQuery`: PySpark's handle of a started query (``id`` stable across
  restarts on one checkpoint, ``runId`` new per start, ``status``, ``lastProgress``,
  ``recentProgress``, ``awaitTermination``, ``processAllAvailable``, ``stop``,
  ``exception``, ``explain``).
* :class:`StreamingQueryManager`: a session's queries (``active``, ``get``,
  ``awaitAnyTermination``, ``resetTerminated``) and listeners.

Invariants
----------
* At most one active query per name and per query id in a session: a second query
  with an active query's name is refused; starting on a checkpoint whose earlier run
  is still active stops that run first (Spark's ``stopActiveRunOnRestart``).
* Every wait takes a timeout; a query that failed makes its waiters raise its
  ``StreamingQueryException``.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any

from ..errors import PySparkValueError, StreamingQueryException
from .listener import ListenerBus, QueryStartedEvent, StreamingQueryListener
from .progress import StreamingQueryProgress, StreamingQueryStatus, iso_time

if TYPE_CHECKING:
    from ..session import SparkSession
    from .microbatch import MicroBatchExecution

__all__ = ["StreamingQuery", "StreamingQueryManager", "streams_of"]

_log = logging.getLogger("dstream.sql.streaming")


class StreamingQuery:
    """A handle on a query started with ``writeStream.start()``."""

    def __init__(self, execution: MicroBatchExecution, manager: StreamingQueryManager) -> None:
        self._execution = execution
        self._manager = manager

    @property
    def id(self) -> str:
        """The query's id: the same on every restart from its checkpoint."""
        return self._execution.id

    @property
    def runId(self) -> str:  # noqa: N802 - PySpark's name
        """This run's id: new at every start."""
        return self._execution.run_id

    @property
    def name(self) -> str | None:
        """The name given with ``queryName``, or ``None``."""
        return self._execution.name

    @property
    def isActive(self) -> bool:  # noqa: N802 - PySpark's name
        """Whether the query is running."""
        return self._execution.active

    @property
    def status(self) -> StreamingQueryStatus:
        """``message``, ``isDataAvailable``, ``isTriggerActive``."""
        return StreamingQueryStatus(self._execution.status)

    @property
    def recentProgress(self) -> list[StreamingQueryProgress]:  # noqa: N802 - PySpark's name
        """The latest progress reports, oldest first."""
        with self._execution._cond:
            return list(self._execution.recent)

    @property
    def lastProgress(self) -> StreamingQueryProgress | None:  # noqa: N802 - PySpark's name
        """The latest progress report, or ``None`` before the first."""
        with self._execution._cond:
            return self._execution.recent[-1] if self._execution.recent else None

    def awaitTermination(self, timeout: float | None = None) -> bool | None:  # noqa: N802 - PySpark's name
        """Wait until the query stops (at most ``timeout`` seconds); raise its error if it failed.

        Returns whether it stopped when a timeout is given, ``None`` otherwise.
        """
        if timeout is not None and (not isinstance(timeout, int | float) or timeout < 0):
            raise PySparkValueError(f"timeout must be a positive integer or float. Got {timeout}",
                                    "VALUE_NOT_POSITIVE", {"arg_name": "timeout", "arg_value": str(timeout)})
        stopped = self._execution.await_termination(timeout)
        if self._execution.exception is not None:
            raise self._execution.exception
        return stopped if timeout is not None else None

    def processAllAvailable(self, timeout: float | None = None) -> None:  # noqa: N802 - PySpark's name
        """Wait until every row available to the sources is processed (tests use this).

        ``timeout`` (seconds; dstreams' addition) raises ``TimeoutError`` instead of
        waiting for ever.
        """
        self._execution.process_all_available(timeout)

    def stop(self) -> None:
        """Stop the query (the running batch's jobs are cancelled); waits until it has stopped."""
        self._execution.stop()

    def exception(self) -> StreamingQueryException | None:
        """The error that stopped the query, or ``None``."""
        return self._execution.exception

    def explain(self, extended: bool = False) -> None:
        """Print the plan of the latest batch (with the logical plans too when ``extended``)."""
        execution = self._execution.last_execution
        if execution is None:
            print("No physical plan. Waiting for data.")
            return
        print(execution.explain_text("extended" if extended else "simple"))

    def __repr__(self) -> str:
        return f"<StreamingQuery id={self.id} runId={self.runId} name={self.name}>"


class StreamingQueryManager:
    """``spark.streams``: the session's active queries and its query listeners."""

    def __init__(self, session: SparkSession) -> None:
        self._session = session
        self._lock = threading.Condition()
        self._active: dict[str, StreamingQuery] = {}
        self._terminated: StreamingQuery | None = None
        self._bus = ListenerBus()

    @property
    def active(self) -> list[StreamingQuery]:
        """The queries running now."""
        with self._lock:
            return list(self._active.values())

    def get(self, id: str) -> StreamingQuery | None:  # noqa: A002 - PySpark's name
        """The active query with this id, or ``None``."""
        with self._lock:
            return self._active.get(str(id))

    def awaitAnyTermination(self, timeout: float | None = None) -> bool | None:  # noqa: N802 - PySpark's name
        """Wait until a query stops (since the last ``resetTerminated``); raise its error if it failed."""
        with self._lock:
            self._lock.wait_for(lambda: self._terminated is not None, timeout)
            done = self._terminated
        if done is not None and done.exception() is not None:
            raise done.exception()  # type: ignore[misc]
        return (done is not None) if timeout is not None else None

    def resetTerminated(self) -> None:  # noqa: N802 - PySpark's name
        """Forget the queries that stopped, so ``awaitAnyTermination`` waits for a new one."""
        with self._lock:
            self._terminated = None

    def addListener(self, listener: StreamingQueryListener) -> None:  # noqa: N802 - PySpark's name
        """Send the events of this session's queries to ``listener`` (its ``spark`` becomes this session, as
        Spark Connect sets it; classic PySpark leaves it ``None``)."""
        if getattr(listener, "spark", None) is None and isinstance(listener, StreamingQueryListener):
            listener.spark = self._session
        self._bus.add(listener)

    def removeListener(self, listener: StreamingQueryListener) -> None:  # noqa: N802 - PySpark's name
        """Stop sending events to ``listener``."""
        self._bus.remove_listener(listener)

    # -- for the writer ---------------------------------------------------------------

    def _start(self, execution: MicroBatchExecution) -> StreamingQuery:
        from ..errors import IllegalArgumentException

        query = StreamingQuery(execution, self)
        with self._lock:
            if execution.name is not None and any(q.name == execution.name for q in self._active.values()):
                raise IllegalArgumentException(
                    f"Cannot start query with name {execution.name} as a query with that name is already active "
                    f"in this SparkSession. Stop it first or choose another queryName.")
            earlier = self._active.get(execution.id)
        if earlier is not None:
            _log.warning("Stopping the earlier run %s of query %s: a new run starts on its checkpoint.",
                         earlier.runId, earlier.id)
            earlier.stop()
        with self._lock:
            self._active[execution.id] = query
        self._post(QueryStartedEvent(execution.id, execution.run_id, execution.name,
                                     iso_time(execution.clock.now_ms())))
        execution.start()
        return query

    def _post(self, event: Any) -> None:
        self._bus.post(event)
        # The SparkContext's bus too: its event log and the Structured Streaming tab.
        from dstream.ui.hooks import forward_query_event, query_ui

        sc = self._session.sparkContext
        if isinstance(event, QueryStartedEvent):
            query_ui(sc)
        forward_query_event(sc, event)

    def _terminated_run(self, execution: MicroBatchExecution) -> None:
        with self._lock:
            query = self._active.get(execution.id)
            if query is not None and query._execution is execution:
                del self._active[execution.id]
                self._terminated = query
            elif query is None:
                self._terminated = StreamingQuery(execution, self)
            self._lock.notify_all()

    def _wait_for_listeners(self, timeout: float = 30.0) -> bool:
        """Wait until every event posted so far reached the listeners (tests)."""
        return self._bus.wait_until_empty(timeout)

    def _stop_all(self) -> None:
        """Stop the queries, deliver the events queued so far, and end the listener thread."""
        for query in self.active:
            query.stop()
        self._bus.stop()


_managers_lock = threading.Lock()


def streams_of(session: SparkSession) -> StreamingQueryManager:
    """The session's query manager (made on first use)."""
    with _managers_lock:
        manager = getattr(session, "_streams", None)
        if manager is None:
            manager = StreamingQueryManager(session)
            session._streams = manager  # type: ignore[attr-defined]
        return manager

"""The Structured Streaming tab's status store and its JSON endpoints.

What this module owns
---------------------
* :class:`QueryStore`: Spark's StreamingQueryStatusListener, a listener on the
  SparkContext's bus fed with the query events the session forwards. One summary per run
  (name, id, runId, start, end, active, exception) and the run's last progresses.
* :class:`QueryApi`: dstreams' JSON addition (Spark has no REST for Structured
  Streaming), registered under ``sql/streaming``: ``queries`` (the list page's columns),
  ``queries/{runId}`` and ``queries/{runId}/progress`` (the retained progress dicts as
  ``lastProgress`` gives them, oldest first).

Invariants
----------
* Per run at most ``spark.sql.streaming.ui.retainedProgressUpdates`` (100) progresses are
  kept (the newest); inactive runs beyond ``spark.sql.streaming.ui.retainedQueries`` (100)
  are dropped with their progresses, earliest ended first; active runs never are.
* Idle events add no progress (the tab shows executed batches only, as Spark 3.5+).
* Every access holds ``_lock``; reads return copies.
* Averages are means over the retained progresses, with NaN and infinities counted as 0
  (Spark's list page).
"""

from __future__ import annotations

import datetime as dt
import math
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from dstream.ui.query_events import QueryProgressEventLogged, QueryStartedEventLogged, QueryTerminatedEventLogged
from dstream.ui.streaming_api import spark_date

__all__ = ["QueryApi", "QueryRun", "QueryStore", "iso_to_ms"]

Answer = tuple[int, Any]


def iso_to_ms(text: str) -> int:
    """Spark's progress timestamp (``2024-01-01T00:00:12.000Z``) as epoch ms."""
    parsed = dt.datetime.strptime(text.replace("Z", "+0000"), "%Y-%m-%dT%H:%M:%S.%f%z")
    return int(round(parsed.timestamp() * 1000))


@dataclass
class QueryRun:
    """One run of a query (Spark's StreamingQueryData) and its retained progresses."""

    name: str | None
    id: str
    run_id: str
    start_ms: int
    active: bool = True
    end_ms: int | None = None
    exception: str | None = None
    progress: deque[dict[str, Any]] = field(default_factory=deque)

    def copy(self) -> QueryRun:
        return QueryRun(self.name, self.id, self.run_id, self.start_ms, self.active, self.end_ms,
                        self.exception, deque(self.progress))

    @property
    def status(self) -> str:
        if self.active:
            return "RUNNING"
        return "FAILED" if self.exception else "FINISHED"


class QueryStore:
    """Listener and store of the Structured Streaming tab (see the module docstring)."""

    def __init__(self, retained_queries: int = 100, retained_progress: int = 100, live: bool = True) -> None:
        if retained_queries < 1 or retained_progress < 1:
            raise ValueError("spark.sql.streaming.ui.retainedQueries and retainedProgressUpdates must be at "
                             f"least 1, got {retained_queries} and {retained_progress}")
        self._lock = threading.Lock()
        self._retained_queries = retained_queries
        self._retained_progress = retained_progress
        self._runs: dict[str, QueryRun] = {}
        # A replayed log has no clock: a run ends with its last progress there.
        self._live = live

    def on_event(self, event: Any) -> None:
        """Take one event from the SparkContext's bus (others are ignored)."""
        with self._lock:
            if isinstance(event, QueryStartedEventLogged):
                self._runs[event.runId] = QueryRun(event.name, event.id, event.runId, iso_to_ms(event.timestamp))
            elif isinstance(event, QueryProgressEventLogged):
                progress = dict(event.progress)
                run = self._runs.get(str(progress.get("runId")))
                if run is not None:
                    run.progress.append(progress)
                    while len(run.progress) > self._retained_progress:
                        run.progress.popleft()
            elif isinstance(event, QueryTerminatedEventLogged):
                run = self._runs.get(event.runId)
                if run is not None:
                    run.active = False
                    run.exception = event.exception
                    run.end_ms = _end_ms(run, self._live)
                    self._trim()

    def _trim(self) -> None:
        inactive = sorted((r for r in self._runs.values() if not r.active), key=lambda r: r.end_ms or 0)
        excess = len(inactive) - self._retained_queries
        for run in inactive[:max(excess, 0)]:
            del self._runs[run.run_id]

    def runs(self) -> list[QueryRun]:
        """Copies of the retained runs, by start time."""
        with self._lock:
            return sorted((r.copy() for r in self._runs.values()), key=lambda r: r.start_ms)

    def run(self, run_id: str) -> QueryRun | None:
        with self._lock:
            run = self._runs.get(run_id)
            return None if run is None else run.copy()


def _end_ms(run: QueryRun, live: bool) -> int:
    # The terminated event carries no time. Live, it arrives as the run ends (Spark stamps
    # it with the listener's clock too); replayed, the last progress's end bounds it.
    last = run.start_ms
    if run.progress:
        final = run.progress[-1]
        last = iso_to_ms(final["timestamp"]) + int(final.get("batchDuration") or 0)
    return max(int(time.time() * 1000), last) if live else last


def _mean(values: list[float]) -> float:
    clean = [0.0 if v is None or math.isnan(v) or math.isinf(v) else float(v) for v in values]
    return sum(clean) / len(clean) if clean else 0.0


def query_summary(run: QueryRun) -> dict[str, Any]:
    """One row of the list page (and ``queries/{runId}``)."""
    end = run.end_ms if run.end_ms is not None else max(int(time.time() * 1000), run.start_ms)
    progress = list(run.progress)
    return {
        "name": run.name,
        "id": run.id,
        "runId": run.run_id,
        "status": run.status,
        "startTimestamp": spark_date(run.start_ms),
        "duration": max(0, end - run.start_ms),
        "avgInputRate": _mean([p.get("inputRowsPerSecond", 0.0) for p in progress]),
        "avgProcessRate": _mean([p.get("processedRowsPerSecond", 0.0) for p in progress]),
        "latestBatchId": progress[-1]["batchId"] if progress else None,
        "exception": run.exception,
    }


class QueryApi:
    """``handler(parts, query) -> (status, body)`` for ``sql/streaming/...``."""

    def __init__(self, store: QueryStore) -> None:
        self._store = store

    def __call__(self, parts: list[str], query: dict[str, list[str]]) -> Answer:
        parts = [p for p in parts if p]
        for segment in ("sql", "streaming"):  # whether or not the core strips the prefix
            if parts[:1] == [segment]:
                parts = parts[1:]
        if parts == ["queries"]:
            return 200, [query_summary(r) for r in self._store.runs()]
        if len(parts) in (2, 3) and parts[0] == "queries":
            run = self._store.run(parts[1])
            if run is None:
                return 404, f"unknown query run: {parts[1]}"
            if len(parts) == 2:
                return 200, query_summary(run)
            if parts[2] == "progress":
                return 200, list(run.progress)
        return 404, f"unknown Structured Streaming resource: {'/'.join(parts) or '(none)'}; known: queries, " \
                    "queries/{runId}, queries/{runId}/progress"

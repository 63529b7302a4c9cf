"""HistoryServer: replays event logs into fresh stores and serves each application's UI.

What this module owns
---------------------
:class:`HistoryServer`: scans a directory of event logs, replays each log (finished
``{appId}``, or in progress ``{appId}.inprogress``) into the same stores a live context
has (the core status store, the Streaming store, the Structured Streaming store), and
serves:

* ``/``: the list of applications (links to each one's UI);
* ``/api/v1/applications``: every application's entry; ``/api/v1/applications/{id}/...``:
  that application's REST API (the same endpoints as a live UI);
* ``/history/{appId}/``: a redirect to the application's UI, a :class:`~rdd.ui.web_ui.SparkUI`
  with the same pages as the live one, started on the first visit on a free port.

Invariants
----------
* A log is replayed again only when its size or modification time changed (an in-progress
  log grows); a truncated last line (a log being written) is ignored, a damaged line
  elsewhere fails the replay of that log with the file and line named.
* Every listener is fed every event in file order, as the live bus delivered them.
* Text from the logs reaches the list page escaped (``html.escape``).
"""

from __future__ import annotations

import html
import logging
import os
import threading
from dataclasses import dataclass, field
from typing import Any

from rdd.engine_api import (
    CORE_TABS,
    AppStatusStore,
    SparkUI,
    UIServer,
    UITab,
    find_event_logs,
    replay_event_log,
    rest_api,
)

from dstream.ui import query_events as _query_events  # noqa: F401 - registers the query event types
from dstream.ui.hooks import STATIC_DIR
from dstream.ui.query_store import QueryApi, QueryStore
from dstream.ui.streaming_api import StreamingApi
from dstream.ui.streaming_store import StreamingStore

__all__ = ["DEFAULT_PORT", "HistoryServer"]

log = logging.getLogger(__name__)

#: Spark's history server port.
DEFAULT_PORT = 18080
_TABS = (*CORE_TABS, UITab("streaming", "Streaming", "streaming.js"),
         UITab("StreamingQuery", "Structured Streaming", "structured_streaming.js"))


@dataclass
class _App:
    """One replayed event log."""

    app_id: str
    path: str
    stamp: tuple[int, float]
    api: Any
    ui: SparkUI | None = None
    entry: dict[str, Any] = field(default_factory=dict)


class HistoryServer:
    """Serve the UIs of the event logs in ``directory`` (see the module docstring)."""

    def __init__(self, directory: str, host: str = "127.0.0.1", port: int = DEFAULT_PORT,
                 max_retries: int = 16) -> None:
        if not os.path.isdir(directory):
            raise ValueError(f"event log directory {directory!r} does not exist; pass the spark.eventLog.dir "
                             "the applications wrote to")
        self.directory = directory
        self._host = host
        self._apps: dict[str, _App] = {}
        self._lock = threading.Lock()
        self._server = UIServer(host, port, max_retries, self._make_app, name="history-server")

    @property
    def url(self) -> str:
        return self._server.url

    def start(self) -> HistoryServer:
        self._server.start()
        log.info("History server for %s started at %s", self.directory, self.url)
        return self

    def stop(self) -> None:
        """Stop the list server and every application UI it started."""
        with self._lock:
            apps = list(self._apps.values())
        for app in apps:
            if app.ui is not None:
                app.ui.stop()
        self._server.stop()

    # -- applications ------------------------------------------------------------------
    def applications(self) -> list[dict[str, Any]]:
        """Every application's ``applications`` entry, newest first (new or changed logs replayed first)."""
        found = []
        for log_file in reversed(find_event_logs(self.directory)):
            app = self._load(log_file.app_id, log_file.path)
            if app is not None:
                found.append(app.entry)
        return found

    def app(self, app_id: str) -> _App | None:
        """The replayed application ``app_id`` (its log re-read if it changed), or ``None``."""
        for log_file in find_event_logs(self.directory):
            if log_file.app_id == app_id:
                return self._load(app_id, log_file.path)
        return None

    def ui_url(self, app_id: str) -> str | None:
        """The address of ``app_id``'s UI, started on first use."""
        app = self.app(app_id)
        if app is None:
            return None
        with self._lock:
            if app.ui is None:
                app.ui = SparkUI(_ReplayedApi(self, app_id), app.app_id, str(app.entry.get("name", app.app_id)),
                                 self._host, 0, 0, tabs=_TABS, static_dirs=[STATIC_DIR]).start()
            return app.ui.web_url

    def _load(self, app_id: str, path: str) -> _App | None:
        st = os.stat(path)
        stamp = (st.st_size, st.st_mtime)
        with self._lock:
            known = self._apps.get(app_id)
            if known is not None and known.stamp == stamp and known.path == path:
                return known
        core = AppStatusStore()
        streaming = StreamingStore()
        queries = QueryStore(live=False)
        try:
            replay_event_log(path, [core, streaming, queries])
        except (OSError, ValueError) as exc:
            log.warning("cannot read the event log %s: %s", path, exc)
            return None
        api = rest_api(lambda: {app_id: core})
        api.register("streaming", StreamingApi(streaming))
        api.register("sql/streaming", QueryApi(queries))
        status, entries = api.get("applications", {})
        if status != 200 or not entries:
            log.warning("the event log %s holds no application start; skipped", path)
            return None
        app = _App(app_id, path, stamp, api, entry=entries[0])
        with self._lock:
            old = self._apps.get(app_id)
            if old is not None:
                app.ui = old.ui  # it reads through _ReplayedApi: it sees the new replay
            self._apps[app_id] = app
        return app

    # -- HTTP --------------------------------------------------------------------------
    def _make_app(self) -> Any:
        from dstream.history.handlers import make_application  # tornado: only on the serving thread

        return make_application(self)

    def list_page(self) -> str:
        """The application list as HTML (every value escaped)."""
        rows = []
        for entry in self.applications():
            attempt = (entry.get("attempts") or [{}])[0]
            app_id = html.escape(str(entry.get("id", "")))
            rows.append(
                f'<tr><td><a href="/history/{app_id}/">{app_id}</a></td>'
                f"<td>{html.escape(str(entry.get('name', '')))}</td>"
                f"<td>{html.escape(str(attempt.get('startTime', '')))}</td>"
                f"<td>{html.escape(str(attempt.get('endTime', '')))}</td>"
                f"<td>{'yes' if attempt.get('completed') else 'no (in progress)'}</td></tr>")
        body = "".join(rows) or '<tr><td colspan="5">No event log in this directory yet</td></tr>'
        return _LIST_PAGE.format(directory=html.escape(self.directory), rows=body)

    def api_get(self, path: str, query: dict[str, list[str]]) -> tuple[int, Any]:
        """``/api/v1/{path}`` over every application."""
        parts = [p for p in path.split("/") if p]
        if parts == ["applications"]:
            return 200, self.applications()
        if len(parts) >= 2 and parts[0] == "applications":
            app = self.app(parts[1])
            if app is None:
                return 404, f"no such app: {parts[1]}"
            return app.api.get(path, query)
        return 404, f"unknown resource: /api/v1/{path}"


class _ReplayedApi:
    """An application UI's REST API: the latest replay of its log (re-read when the log grew)."""

    def __init__(self, history: HistoryServer, app_id: str) -> None:
        self._history = history
        self._app_id = app_id

    def get(self, path: str, query: dict[str, list[str]]) -> tuple[int, Any]:
        app = self._history.app(self._app_id)
        if app is None:
            return 404, {"message": f"no such app: {self._app_id} (its event log is gone)"}
        return app.api.get(path, query)


_LIST_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>History Server</title>
<link rel="icon" type="image/svg+xml" href="/static/favicon.svg"><link rel="stylesheet" href="/static/ui.css">
</head><body><nav class="navbar"><a class="brand" href="/">dstreams</a>
<span class="app-name">History Server</span></nav>
<main id="content"><h2 id="page-heading">History Server</h2><p>Event log directory: {directory}</p>
<table class="table" id="applications"><thead><tr><th>App ID</th><th>App Name</th><th>Started</th>
<th>Completed</th><th>Finished</th></tr></thead><tbody>{rows}</tbody></table></main></body></html>
"""

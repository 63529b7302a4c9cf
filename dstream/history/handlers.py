"""The history server's tornado handlers (imported on the serving thread only).

Routes: ``/`` (the application list), ``/history/{appId}/`` (redirect to that
application's UI), ``/api/v1/...`` (every application's REST API) and ``/static/...``
(the UI's own files).
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

import tornado.web

from rdd.engine_api import UI_STATIC_DIR

if TYPE_CHECKING:
    from dstream.history.server import HistoryServer

log = logging.getLogger(__name__)


class _Base(tornado.web.RequestHandler):
    def initialize(self, history: HistoryServer) -> None:
        self.history = history


class ListHandler(_Base):
    def get(self) -> None:
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        self.write(self.history.list_page())


class AppHandler(_Base):
    def get(self, app_id: str) -> None:
        url = self.history.ui_url(app_id)
        if url is None:
            raise tornado.web.HTTPError(404, reason="No such application")
        self.redirect(f"{url}/jobs/")


class ApiHandler(_Base):
    def get(self, path: str) -> None:
        query = {k: [v.decode("utf-8", "replace") for v in vs] for k, vs in self.request.query_arguments.items()}
        try:
            status, body = self.history.api_get(path.strip("/"), query)
        except Exception as exc:  # noqa: BLE001 - one broken log answers 500, the server goes on
            log.exception("history REST request /api/v1/%s failed", path)
            status, body = 500, f"internal error: {type(exc).__name__}: {exc}"
        self.set_status(status)
        if isinstance(body, str) and status >= 400:
            self.set_header("Content-Type", "text/plain; charset=utf-8")
            self.write(body)
        else:
            self.set_header("Content-Type", "application/json")
            self.write(json.dumps(body, indent=2))


def make_application(history: HistoryServer) -> Any:
    args = {"history": history}
    return tornado.web.Application([
        (r"/", ListHandler, args),
        (r"/static/(.*)", tornado.web.StaticFileHandler, {"path": UI_STATIC_DIR}),
        (r"/history/([^/]+)/?", AppHandler, args),
        (r"/api/v1/(.*)", ApiHandler, args),
    ])

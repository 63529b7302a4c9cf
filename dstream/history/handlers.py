"""The history server's tornado handlers (imported on the serving thread only).

Routes: ``/`` (the application list), ``/history/{appId}/`` (redirect to that
application's UI), ``/api/v1/...`` (every application's REST API) and ``/static/...``
(the UI's own files).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import tornado.web

from rdd.engine_api import UI_STATIC_DIR, rest_answer

if TYPE_CHECKING:
    from dstream.history.server import HistoryServer



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
        status, content_type, body = rest_answer(self.history.api_get, path, self.request.query_arguments)
        self.set_status(status)
        self.set_header("Content-Type", content_type)
        self.write(body)


def make_application(history: HistoryServer) -> Any:
    args = {"history": history}
    return tornado.web.Application([
        (r"/", ListHandler, args),
        (r"/static/(.*)", tornado.web.StaticFileHandler, {"path": UI_STATIC_DIR}),
        (r"/history/([^/]+)/?", AppHandler, args),
        (r"/api/v1/(.*)", ApiHandler, args),
    ])

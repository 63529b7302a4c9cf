"""The web UI's HTTP routes, as a tornado application (imported on the serving thread only).

Routes: ``/`` redirects to ``/jobs/``; ``/{tab}/`` and ``/{tab}/{page}/`` serve one HTML
shell (navigation bar, the page's script); ``/static/...`` serves the files of
``rdd/ui/static/`` (and of the UI's extra folders); ``/api/v1/...`` answers from the UI's
REST API as JSON with its status code.

Invariants: every value that comes from the application (its name, its id) is written
into the shell HTML-escaped, in attributes only; the scripts put them into the page with
``textContent``. Pages are never cached (they are a few hundred bytes and tabs come and
go); static files are revalidated with their ETag.
"""

from __future__ import annotations

import html
import logging
import os
from typing import TYPE_CHECKING, Any

import tornado.web

from .rest_answer import rest_answer

if TYPE_CHECKING:
    from .web_ui import SparkUI

log = logging.getLogger(__name__)

STATIC_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")

_SHELL = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Spark UI</title>
<link rel="icon" type="image/svg+xml" href="/static/favicon.svg">
<link rel="stylesheet" href="/static/ui.css">
</head>
<body data-app-id="{app_id}" data-app-name="{app_name}" data-tab="{tab}" data-page="{page}" data-title="{title}">
<nav class="navbar"><a class="brand" href="/">dstreams</a><ul class="tabs">{nav}</ul>
<span class="app-name" id="app-name"></span></nav>
<main id="content"><p class="loading">Loading...</p></main>
<script src="/static/ui.js"></script>
<script src="/static/{script}"></script>
</body>
</html>
"""


def _attr(value: object) -> str:
    return html.escape(str(value), quote=True)


class _Base(tornado.web.RequestHandler):
    def initialize(self, ui: SparkUI) -> None:
        self.spark_ui = ui

    def set_default_headers(self) -> None:
        # The pages load nothing from elsewhere; say so, so that injected markup could not either.
        self.set_header("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; "
                                                   "img-src 'self' data:")
        self.set_header("X-Content-Type-Options", "nosniff")

    def log_exception(self, typ: Any, value: Any, tb: Any) -> None:
        if isinstance(value, tornado.web.HTTPError):
            return  # an answer (404 for an unknown tab), not a failure
        log.error("web UI request %s %s failed", self.request.method, self.request.uri, exc_info=(typ, value, tb))


class RootHandler(_Base):
    def get(self) -> None:
        self.redirect("/jobs/")


class PageHandler(_Base):
    """The HTML shell of a tab's page; the tab's script fills it from the REST API."""

    def get(self, prefix: str, page: str | None = None) -> None:
        tab = self.spark_ui.tab(prefix)
        if tab is None:
            raise tornado.web.HTTPError(404, reason="No such tab")
        nav = "".join(
            f'<li class="tab{" active" if t.prefix == prefix else ""}"><a href="/{_attr(t.prefix)}/">'
            f"{_attr(t.title)}</a></li>" for t in self.spark_ui.tabs)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        self.write(_SHELL.format(app_id=_attr(self.spark_ui.app_id), app_name=_attr(self.spark_ui.app_name),
                                 tab=_attr(prefix), page=_attr(page or ""), title=_attr(tab.title),
                                 nav=nav, script=_attr(tab.script)))


class PageRedirectHandler(_Base):
    """``/jobs`` and ``/jobs/job`` (no trailing slash) go to the canonical URL."""

    def get(self, path: str) -> None:
        query = f"?{self.request.query}" if self.request.query else ""
        self.redirect(f"/{path}/{query}")


class ApiHandler(_Base):
    """``/api/v1/{path}``: the REST API's answer as JSON (plain text for its error messages)."""

    def get(self, path: str) -> None:
        status, content_type, body = rest_answer(self.spark_ui.api.get, path, self.request.query_arguments)
        self.set_status(status)
        self.set_header("Cache-Control", "no-store")
        self.set_header("Content-Type", content_type)
        self.write(body)


class StaticHandler(tornado.web.StaticFileHandler):
    """Static files, from the package's folder first, then the UI's extra folders."""

    @classmethod
    def get_absolute_path(cls, root: str, path: str) -> str:
        return os.path.abspath(os.path.join(root, path))

    def parse_url_path(self, url_path: str) -> str:
        name = super().parse_url_path(url_path)
        for folder in [self.root, *self.settings.get("static_extra_dirs", [])]:
            if os.path.isfile(os.path.join(folder, name)):
                self.root = folder
                break
        return name

    def set_extra_headers(self, path: str) -> None:
        self.set_header("Cache-Control", "no-cache")


class FaviconHandler(_Base):
    def get(self) -> None:
        with open(os.path.join(STATIC_DIR, "favicon.svg"), "rb") as f:
            self.set_header("Content-Type", "image/svg+xml")
            self.write(f.read())


def make_application(ui: SparkUI) -> tornado.web.Application:
    """The tornado application serving ``ui``'s pages, static files and REST API."""
    args = {"ui": ui}
    return tornado.web.Application([
        (r"/", RootHandler, args),
        (r"/favicon\.ico", FaviconHandler, args),
        (r"/static/(.*)", StaticHandler, {"path": STATIC_DIR}),
        (r"/api/v1/(.*)", ApiHandler, args),
        (r"/([A-Za-z][A-Za-z0-9_-]*)/", PageHandler, args),
        (r"/([A-Za-z][A-Za-z0-9_-]*)/([A-Za-z][A-Za-z0-9_-]*)/", PageHandler, args),
        (r"/([A-Za-z][A-Za-z0-9_-]*(?:/[A-Za-z][A-Za-z0-9_-]*)?)", PageRedirectHandler, args),
    ], compress_response=True, log_function=_log_request,
        static_extra_dirs=ui.static_dirs)  # the live list: tabs attached later add folders


def _log_request(handler: tornado.web.RequestHandler) -> None:
    # Browsers poll every page every few seconds: requests are DEBUG, not the access log's INFO.
    if log.isEnabledFor(logging.DEBUG):
        log.debug("%d %s %.1f ms", handler.get_status(), handler.request.uri, 1000 * handler.request.request_time())

"""The web UI's server and lifecycle, over real sockets on 127.0.0.1.

Ports: the first free one from ``spark.ui.port`` up to ``spark.port.maxRetries`` more, a
clear error when all are taken (two applications in two processes: test_processes.py);
lifecycle: the URL in ``sc.uiWebUrl`` and in the INFO log, nothing listening after
``sc.stop()`` or with ``spark.ui.enabled=false``; routes: the redirect, the page shells,
static files, the REST API as JSON, tabs attached and detached.
"""

from __future__ import annotations

import json
import logging
import socket
from collections.abc import Callable
from contextlib import closing

import pytest

from rdd import SparkContext
from rdd.ui.server import UIPortError, UIServer, bind_socket
from rdd.ui.web_ui import SparkUI, UITab

from tests.ui.ports import HTTP_DEADLINE_S, free_port_run, http, occupied, refused

# --------------------------------------------------------------------------- ports


def test_bind_socket_moves_to_the_next_port_when_taken() -> None:
    port = free_port_run(3)
    with occupied(port), occupied(port + 1):
        sock = bind_socket("127.0.0.1", port, max_retries=2)
        with closing(sock):
            assert sock.getsockname()[1] == port + 2


def test_bind_socket_names_the_ports_tried_when_all_are_taken() -> None:
    port = free_port_run(2)
    with occupied(port), occupied(port + 1):
        with pytest.raises(UIPortError) as info:
            bind_socket("127.0.0.1", port, max_retries=1)
    message = str(info.value)
    assert f"{port}-{port + 1}" in message
    assert "spark.ui.port" in message and "spark.port.maxRetries" in message


def test_server_stop_leaves_no_port_open_and_is_idempotent() -> None:
    import tornado.web

    class Hello(tornado.web.RequestHandler):
        def get(self) -> None:
            self.write("hello")

    server = UIServer("127.0.0.1", 0, 0, lambda: tornado.web.Application([(r"/", Hello)])).start()
    assert http(server.url + "/") == (200, "text/html; charset=UTF-8", "hello")
    # A kept-alive connection must not keep the server's thread or port alive.
    keep = socket.create_connection(("127.0.0.1", server.port), timeout=HTTP_DEADLINE_S)
    server.stop()
    server.stop()
    assert refused(server.port)
    assert not server._thread.is_alive()
    keep.close()


def test_server_stopped_before_any_connection_ends_its_thread_without_building_the_app() -> None:
    built: list[bool] = []
    server = UIServer("127.0.0.1", 0, 0, lambda: built.append(True)).start()
    server.stop()
    assert not server._thread.is_alive()
    assert refused(server.port)
    assert built == []  # nobody connected: the application was never built


def test_the_app_is_built_on_the_first_connection_and_serves_it() -> None:
    import tornado.web

    class Hello(tornado.web.RequestHandler):
        def get(self) -> None:
            self.write("hello")

    built: list[bool] = []

    def make_app() -> tornado.web.Application:
        built.append(True)
        return tornado.web.Application([(r"/", Hello)])

    server = UIServer("127.0.0.1", 0, 0, make_app).start()
    try:
        assert built == []
        # The kernel queued the connection while the thread built the application.
        assert http(server.url + "/") == (200, "text/html; charset=UTF-8", "hello")
        assert http(server.url + "/")[0] == 200
        assert built == [True]
    finally:
        server.stop()
    assert refused(server.port)


def test_an_app_that_fails_to_build_is_logged_and_refuses_clients(caplog: pytest.LogCaptureFixture) -> None:
    def broken() -> object:
        raise ImportError("no module named tornado_plugin")

    with caplog.at_level(logging.ERROR, logger="rdd.ui.server"):
        server = UIServer("127.0.0.1", 0, 0, broken).start()
        with pytest.raises(OSError):
            http(server.url + "/")
        server._thread.join(HTTP_DEADLINE_S)
        assert not server._thread.is_alive()
    assert f"the web UI could not start on port {server.port}: ImportError: no module named tornado_plugin" \
        in caplog.text
    assert refused(server.port)
    server.stop()


# --------------------------------------------------------------------------- context lifecycle


def test_context_serves_its_ui_and_logs_the_url(ui_context: Callable[..., SparkContext],
                                                 caplog: pytest.LogCaptureFixture) -> None:
    port = free_port_run(1)
    with caplog.at_level(logging.INFO, logger="rdd.ui.web_ui"):
        sc = ui_context(spark_ui_port=str(port))
    assert sc.uiWebUrl == f"http://127.0.0.1:{port}"
    assert f"Bound SparkUI to 127.0.0.1, and started at http://127.0.0.1:{port}" in caplog.text
    status, kind, body = http(f"{sc.uiWebUrl}/api/v1/applications")
    assert status == 200 and kind == "application/json"
    assert [app["id"] for app in json.loads(body)] == [sc.applicationId]
    sc.stop()
    assert refused(port), "the UI's port is still open after sc.stop()"


def test_a_taken_port_moves_the_ui_to_the_next_one(ui_context: Callable[..., SparkContext]) -> None:
    port = free_port_run(2)
    with occupied(port):
        sc = ui_context(spark_ui_port=str(port))
        assert sc.uiWebUrl == f"http://127.0.0.1:{port + 1}"


def test_ui_host_from_the_driver_bind_address(ui_context: Callable[..., SparkContext]) -> None:
    sc = ui_context(spark_driver_bindAddress="localhost", spark_ui_port="0")
    assert sc.uiWebUrl is not None and sc.uiWebUrl.startswith("http://localhost:")
    assert http(f"{sc.uiWebUrl}/api/v1/applications")[0] == 200


def test_ui_disabled_opens_no_port(ui_context: Callable[..., SparkContext]) -> None:
    port = free_port_run(1)
    sc = ui_context(spark_ui_enabled="false", spark_ui_port=str(port))
    assert sc.uiWebUrl is None
    assert sc.parallelize(range(4)).count() == 4
    assert refused(port)


# --------------------------------------------------------------------------- routes


def test_routes(ui_context: Callable[..., SparkContext]) -> None:
    sc = ui_context(spark_ui_port="0")
    url = sc.uiWebUrl
    assert url is not None
    status, location, _ = http(url + "/")
    assert status == 302 and location.endswith("/jobs/")
    for tab in ("jobs", "stages", "storage", "environment", "executors"):
        status, kind, body = http(f"{url}/{tab}/")
        assert (status, kind) == (200, "text/html; charset=utf-8"), tab
        assert f'data-tab="{tab}"' in body and f'src="/static/{tab}.js"' in body
    assert http(f"{url}/jobs/job/?id=0")[0] == 200
    assert http(f"{url}/stages")[0] == 302
    assert http(f"{url}/nosuchtab/")[0] == 404
    status, kind, body = http(f"{url}/static/ui.js")
    assert status == 200 and "UI.timeline" in body
    assert http(f"{url}/favicon.ico")[0] == 200
    assert http(f"{url}/static/../handlers.py")[0] in (403, 404)
    status, kind, body = http(f"{url}/api/v1/applications/{sc.applicationId}/jobs")
    assert (status, kind, json.loads(body)) == (200, "application/json", [])
    assert http(f"{url}/api/v1/applications/{sc.applicationId}/jobs/7")[0] == 404


def test_tabs_attach_and_detach(ui_context: Callable[..., SparkContext]) -> None:
    sc = ui_context(spark_ui_port="0")
    ui: SparkUI = sc._ui
    url = sc.uiWebUrl
    assert http(f"{url}/streaming/")[0] == 404
    ui.attach_tab(UITab(prefix="streaming", title="Streaming", script="streaming.js"))
    status, _, body = http(f"{url}/jobs/")
    assert ">Streaming</a>" in body and body.index(">Executors<") < body.index(">Streaming<")
    assert http(f"{url}/streaming/batch/")[0] == 200
    ui.detach_tab("streaming")
    assert http(f"{url}/streaming/")[0] == 404
    with pytest.raises(ValueError, match="URL path segment"):
        UITab(prefix="a/b", title="x", script="x.js")


def test_app_name_is_escaped_in_the_page_shell(ui_context: Callable[..., SparkContext]) -> None:
    sc = ui_context(app_name='<script>alert("x")</script>', spark_ui_port="0")
    _, _, body = http(f"{sc.uiWebUrl}/jobs/")
    assert "<script>alert" not in body
    assert 'data-app-name="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"' in body

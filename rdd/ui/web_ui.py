"""SparkUI: the web UI of one application (its tabs, its REST API and its server).

Owns the list of attached tabs and the :class:`~rdd.ui.server.UIServer` serving them.
A :class:`SparkContext` creates one with :func:`create_ui` unless ``spark.ui.enabled`` is
false, and stops it in ``stop()``. Other layers add pages through the tab plug-in
interface (:meth:`SparkUI.attach_tab` / :meth:`SparkUI.detach_tab`): a tab is a URL
prefix, a title in the navigation bar and a script under ``rdd/ui/static/`` that draws its
pages from the REST API.

Invariants: tab prefixes are unique; the core tabs (Jobs, Stages, Storage, Environment,
Executors) come first in the navigation bar, plug-in tabs after them in attach order;
tornado is never imported in the thread that creates the UI.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from .server import UIServer

if TYPE_CHECKING:
    from ..conf import SparkConf

log = logging.getLogger(__name__)

DEFAULT_PORT = 4040
DEFAULT_MAX_RETRIES = 16
DEFAULT_HOST = "127.0.0.1"

_PREFIX = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")


class RestApi(Protocol):
    """What the UI needs of the REST API: ``get(path, query) -> (status, body)``."""

    def get(self, path: str, query: dict[str, list[str]]) -> tuple[int, object]: ...


@dataclass(frozen=True)
class UITab:
    """One tab of the web UI.

    Parameters
    ----------
    prefix : str
        URL prefix: the tab's pages are ``/{prefix}/`` and ``/{prefix}/{page}/``.
    title : str
        Its name in the navigation bar.
    script : str
        File under ``rdd/ui/static/`` (or a folder added with ``static_dirs``) that draws
        the tab's pages; it reads ``UI.page`` to know which one.
    """

    prefix: str
    title: str
    script: str

    def __post_init__(self) -> None:
        if not _PREFIX.fullmatch(self.prefix):
            raise ValueError(f"UITab prefix {self.prefix!r} must be letters, digits, '_' or '-' "
                             "starting with a letter (it is one URL path segment)")


#: The core tabs, in Spark's order.
CORE_TABS = (
    UITab("jobs", "Jobs", "jobs.js"),
    UITab("stages", "Stages", "stages.js"),
    UITab("storage", "Storage", "storage.js"),
    UITab("environment", "Environment", "environment.js"),
    UITab("executors", "Executors", "executors.js"),
)


class SparkUI:
    """The web UI of one application: tabs, the REST API and the HTTP server.

    Parameters
    ----------
    api : RestApi
        Answers ``/api/v1/...`` requests (``ApiV1``).
    app_id : str
        The application id the pages ask the REST API about.
    app_name : str
        Shown in the page title and the navigation bar (as text, never as markup).
    host, port, max_retries
        Where to listen; see :func:`rdd.ui.server.bind_socket`.
    tabs : sequence of UITab
        Initial tabs (default: the core tabs).
    static_dirs : sequence of str
        Further folders whose files are served under ``/static/`` (after the package's own).
    """

    def __init__(self, api: RestApi, app_id: str, app_name: str, host: str = DEFAULT_HOST,
                 port: int = DEFAULT_PORT, max_retries: int = DEFAULT_MAX_RETRIES,
                 tabs: Sequence[UITab] = CORE_TABS, static_dirs: Sequence[str] = ()) -> None:
        self.api = api
        self.app_id = app_id
        self.app_name = app_name
        self.static_dirs = list(static_dirs)
        self._tabs: dict[str, UITab] = {}
        self._tabs_lock = threading.Lock()
        for tab in tabs:
            self.attach_tab(tab)
        self._server = UIServer(host, port, max_retries, self._make_app, name="spark-ui")

    # -- tabs --------------------------------------------------------------------
    def attach_tab(self, tab: UITab) -> None:
        """Add ``tab`` to the navigation bar (replacing a tab of the same prefix)."""
        with self._tabs_lock:
            self._tabs[tab.prefix] = tab

    def detach_tab(self, prefix: str) -> None:
        """Remove the tab of ``prefix``; its pages answer 404 from then on (no-op if absent)."""
        with self._tabs_lock:
            self._tabs.pop(prefix, None)

    @property
    def tabs(self) -> list[UITab]:
        """The attached tabs, in navigation-bar order."""
        with self._tabs_lock:
            return list(self._tabs.values())

    def tab(self, prefix: str) -> UITab | None:
        """The attached tab of ``prefix``, else ``None``."""
        with self._tabs_lock:
            return self._tabs.get(prefix)

    # -- server ------------------------------------------------------------------
    @property
    def host(self) -> str:
        return self._server.host

    @property
    def port(self) -> int:
        """The bound port (4040, or the next free one)."""
        return self._server.port

    @property
    def web_url(self) -> str:
        """``http://host:port``: what ``sc.uiWebUrl`` returns."""
        return self._server.url

    def start(self) -> SparkUI:
        """Serve, and log the URL at INFO as Spark does."""
        self._server.start()
        log.info("Bound SparkUI to %s, and started at %s", self.host, self.web_url)
        return self

    def stop(self) -> None:
        """Stop serving and free the port (idempotent)."""
        self._server.stop()

    def _make_app(self) -> Any:
        from .handlers import make_application  # tornado: only on the serving thread

        return make_application(self)


def ui_address(conf: SparkConf) -> tuple[str, int, int]:
    """``(host, port, max_retries)`` from ``spark.ui.host``/``spark.driver.bindAddress``,
    ``spark.ui.port`` and ``spark.port.maxRetries``."""
    host = conf.get("spark.ui.host") or conf.get("spark.driver.bindAddress") or DEFAULT_HOST
    port = conf.getInt("spark.ui.port", DEFAULT_PORT)
    retries = conf.getInt("spark.port.maxRetries", DEFAULT_MAX_RETRIES)
    if not 0 <= port <= 65535:
        raise ValueError(f"spark.ui.port={port} is not a TCP port; use 0 (any free port) to 65535")
    return host, port, retries


def create_ui(conf: SparkConf, api_factory: Callable[[], RestApi], app_id: str, app_name: str) -> SparkUI | None:
    """The started UI of a context, or ``None`` when ``spark.ui.enabled`` is false.

    ``api_factory`` is only called when the UI is enabled.
    """
    if not conf.getBoolean("spark.ui.enabled", True):
        return None
    host, port, retries = ui_address(conf)
    return SparkUI(api_factory(), app_id, app_name, host, port, retries).start()

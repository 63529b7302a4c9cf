"""UIServer: the web UI's listening socket and the daemon thread that serves it.

Owns one TCP socket and one thread. The socket is bound and listening synchronously, with
the standard library only, when the server is created: the URL is known at once and a port
clash is detected in the caller's thread (the next port is tried, up to
``spark.port.maxRetries`` times, as Spark does). Tornado and the application cost tens to
hundreds of milliseconds of CPU to import and build, so the serving thread builds them
only when the first connection arrives (the kernel holds it in the listen backlog
meanwhile): creating a context does not pay for a UI nobody opens, and its workers, which
start at the same time, do not share the cores with that import. The thread then runs its
own asyncio loop and accepts on the bound socket.

Invariants: after :meth:`UIServer.stop` returns, the socket is closed and the thread has
ended, so a connection to the port is refused; ``stop`` is idempotent; a server is never
restarted. A failure to build the application is logged and closes the socket (a client
is refused rather than left waiting).
"""

from __future__ import annotations

import errno
import logging
import select
import socket
import threading
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

#: How long ``stop`` waits for the serving thread to end before warning that it did not.
THREAD_DEADLINE_S = 10.0


class UIPortError(OSError):
    """Every port tried for the web UI was taken (or could not be bound)."""


def bind_socket(host: str, port: int, max_retries: int) -> socket.socket:
    """Bind and listen on ``host:port``, else on the next ports, ``max_retries`` more times.

    Parameters
    ----------
    host : str
        Address to bind (``127.0.0.1`` keeps the UI on the loopback interface).
    port : int
        First port to try; ``0`` asks the OS for a free port (no retry is needed).
    max_retries : int
        How many further ports (``port + 1``, ``port + 2``...) to try after ``port``.

    Returns
    -------
    socket.socket
        A listening, non-blocking socket.

    Raises
    ------
    UIPortError
        When every port tried is in use; the message names them and the settings to change.
    """
    tried: list[int] = []
    last_error: OSError | None = None
    for attempt in range(max(0, max_retries) + 1):
        candidate = port + attempt if port else 0
        if candidate > 65535:
            break
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            # No SO_REUSEADDR: on Linux it would let two live UIs share nothing but would
            # also hide a port still held by a stopped one; a clash must move us on.
            sock.bind((host, candidate))
            sock.listen(128)
            sock.setblocking(False)
            return sock
        except OSError as exc:
            sock.close()
            tried.append(candidate)
            last_error = exc
            if exc.errno not in (errno.EADDRINUSE, errno.EACCES):
                break
            log.debug("port %d is in use for the web UI; trying the next one", candidate)
    raise UIPortError(
        f"could not bind the web UI on {host}: ports {tried[0]}-{tried[-1]} are all in use or refused "
        f"({last_error}); set spark.ui.port to a free port, raise spark.port.maxRetries (now {max_retries}), "
        "or set spark.ui.enabled=false") from last_error


class UIServer:
    """An HTTP server on a daemon thread, serving a tornado application on a bound socket.

    Parameters
    ----------
    host, port, max_retries
        As :func:`bind_socket`.
    make_app : callable
        Called on the serving thread (after tornado is imported) and returns a
        ``tornado.web.Application``; keeping the import there keeps context creation fast.
    name : str
        Name of the serving thread.
    """

    def __init__(self, host: str, port: int, max_retries: int, make_app: Callable[[], Any],
                 name: str = "spark-ui") -> None:
        self._sock = bind_socket(host, port, max_retries)
        self.host = host
        self.port: int = self._sock.getsockname()[1]
        self._make_app = make_app
        self._loop: Any = None
        self._http: Any = None
        self._shutdown_task: Any = None
        self._error: BaseException | None = None
        self._stopped = False
        self._lock = threading.Lock()
        # Wakes the thread while it waits for the first connection (stop() writes to it).
        self._wake_r, self._wake_w = socket.socketpair()
        self._thread = threading.Thread(target=self._serve, name=f"{name}-{self.port}", daemon=True)

    @property
    def url(self) -> str:
        """``http://host:port`` (an IPv6 host in brackets)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def start(self) -> UIServer:
        """Start the serving thread; the bound socket already queues connections.

        Returns at once: the thread builds the application when the first connection
        arrives (see the module doc).
        """
        self._thread.start()
        return self

    def _serve(self) -> None:
        try:
            readable, _, _ = select.select([self._sock, self._wake_r], [], [], None)
        except (OSError, ValueError):  # stop() closed the socket
            return
        if self._wake_r in readable:
            return  # stopped before anyone connected
        import asyncio

        loop = asyncio.new_event_loop()
        try:
            asyncio.set_event_loop(loop)
            from tornado.httpserver import HTTPServer

            app = self._make_app()
            http = HTTPServer(app)
            http.add_sockets([self._sock])
        except BaseException as exc:  # noqa: BLE001 - a UI must not take the application down
            self._error = exc
            log.error("the web UI could not start on port %d: %s: %s", self.port, type(exc).__name__, exc)
            loop.close()
            self._sock.close()
            return
        with self._lock:
            if self._stopped:  # stop() ran while the application was being built
                http.stop()
                loop.close()
                return
            self._http = http
            self._loop = loop
        try:
            loop.run_forever()
        finally:
            try:
                loop.run_until_complete(loop.shutdown_asyncgens())
            finally:
                loop.close()

    def stop(self) -> None:
        """Close the socket and end the serving thread (idempotent); the port is then free."""
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
            loop = self._loop
        if loop is None:
            self._wake_w.send(b"x")  # the thread waits for a first connection, or is building the app
        else:
            async def shutdown() -> None:
                import asyncio

                self._http.stop()  # closes the listening socket
                try:
                    # Browsers keep connections alive; close them so no socket outlives the UI.
                    await asyncio.wait_for(self._http.close_all_connections(), THREAD_DEADLINE_S / 2)
                finally:
                    loop.stop()

            def schedule() -> None:
                self._shutdown_task = loop.create_task(shutdown())

            try:
                loop.call_soon_threadsafe(schedule)
            except RuntimeError:  # the loop already closed
                pass
        if self._thread.is_alive():
            self._thread.join(THREAD_DEADLINE_S)
            if self._thread.is_alive():
                log.warning("the web UI thread on port %d did not end within %.0f s", self.port,
                            THREAD_DEADLINE_S)
        self._sock.close()
        self._wake_r.close()
        self._wake_w.close()

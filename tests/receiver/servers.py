"""A real TCP line server on 127.0.0.1 for socket receiver tests (and netcat helpers).

:class:`LineServer` accepts connections on its own thread and lets the test send bytes to
the connected client, drop the connection or go away entirely. :func:`free_port` finds a
port nothing listens on. :class:`Netcat` runs ``nc -lk`` as the issue's server.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import threading
import time
from typing import Any

WAIT = 10.0


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (right now)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LineServer:
    """Listens on 127.0.0.1; each accepted client becomes the current connection."""

    def __init__(self, port: int = 0) -> None:
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", port))
        self._listener.listen(8)
        self.port = self._listener.getsockname()[1]
        self._cond = threading.Condition()
        self._conn: socket.socket | None = None
        self.connections = 0
        self._closed = False
        self._thread = threading.Thread(
            target=self._accept, name=f"LineServer-{self.port}", daemon=True
        )
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            with self._cond:
                if self._conn is not None:
                    self._conn.close()
                self._conn = conn
                self.connections += 1
                self._cond.notify_all()

    def wait_connections(self, count: int, timeout: float = WAIT) -> None:
        with self._cond:
            if not self._cond.wait_for(lambda: self.connections >= count, timeout):
                raise AssertionError(
                    f"no client connection #{count} to port {self.port} within {timeout} s"
                )

    def send(self, data: bytes | str) -> None:
        if isinstance(data, str):
            data = data.encode("utf-8")
        with self._cond:
            if not self._cond.wait_for(lambda: self._conn is not None, WAIT):
                raise AssertionError(f"nobody connected to port {self.port}")
            assert self._conn is not None
            self._conn.sendall(data)

    def drop(self) -> None:
        """Close the current connection (the client sees end of stream)."""
        with self._cond:
            conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # the client is gone already (killed, reset)
            conn.close()

    def close(self) -> None:
        self.drop()
        self._closed = True
        try:
            self._listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._listener.close()
        self._thread.join(WAIT)

    def __enter__(self) -> LineServer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def have_netcat() -> bool:
    return shutil.which("nc") is not None


class Netcat:
    """``nc -lk 127.0.0.1 PORT`` with a pipe to type lines into (the real tool)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.proc = subprocess.Popen(
            ["nc", "-lk", "127.0.0.1", str(port)],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        self._wait_listening()

    def _wait_listening(self) -> None:
        deadline = time.monotonic() + WAIT
        while True:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                raise AssertionError(f"nc exited with {self.proc.returncode}: {err}")
            if _listening(self.port):
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"nc is not listening on port {self.port} after {WAIT} s")
            threading.Event().wait(0.01)

    def type(self, data: bytes | str) -> None:
        if isinstance(data, str):
            data = data.encode("utf-8")
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(WAIT)
        for stream in (self.proc.stdin, self.proc.stderr):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass

    def __enter__(self) -> Netcat:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.kill()


def _listening(port: int) -> bool:
    # Reading /proc avoids connecting: a probe connection would be nc's one client.
    hex_port = f"{port:04X}"
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                for line in f:
                    parts = line.split()
                    if parts[1].endswith(":" + hex_port) and parts[3] == "0A":
                        return True
        except OSError:
            continue
    return False

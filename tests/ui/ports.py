"""Ports and HTTP for the web UI tests: free port runs, an occupied port, refused connections, GETs.

Everything here uses real sockets on 127.0.0.1.
"""

from __future__ import annotations

import socket
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import closing, contextmanager
from typing import Any

HTTP_DEADLINE_S = 10


def free_port_run(length: int) -> int:
    """A port p such that p..p+length-1 were all free a moment ago (bound and released)."""
    for _ in range(50):
        with closing(socket.socket()) as probe:
            probe.bind(("127.0.0.1", 0))
            start = probe.getsockname()[1]
        if start + length > 65535:
            continue
        socks = []
        try:
            for p in range(start, start + length):
                s = socket.socket()
                socks.append(s)
                s.bind(("127.0.0.1", p))
            return start
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()
    raise AssertionError(f"found no run of {length} free ports on 127.0.0.1 in 50 tries")


@contextmanager
def occupied(port: int) -> Iterator[socket.socket]:
    """A socket listening on ``port`` for the duration of the block."""
    with closing(socket.socket()) as s:
        s.bind(("127.0.0.1", port))
        s.listen(1)
        yield s


def refused(port: int) -> bool:
    """Whether a connection to 127.0.0.1:port is refused (nothing listens there)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=HTTP_DEADLINE_S):
            return False
    except ConnectionRefusedError:
        return True


def http(url: str) -> tuple[int, str, str]:
    """``(status, content type, body)`` of a GET, without following redirects."""
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(url, timeout=HTTP_DEADLINE_S) as resp:
            return resp.status, resp.headers.get("Content-Type", ""), resp.read().decode()
    except urllib.error.HTTPError as err:
        headers = err.headers
        return err.code, headers.get("Content-Type", "") + (headers.get("Location") or ""), err.read().decode()

"""The exec worker's FdConnection speaks multiprocessing's Connection framing, both ways."""

from __future__ import annotations

import socket
import threading
from multiprocessing.connection import Connection

import pytest

from rdd.executor.fd_connection import FdConnection


def _pair() -> tuple[Connection, FdConnection]:
    ours, theirs = socket.socketpair()
    return Connection(ours.detach()), FdConnection(theirs.detach())


@pytest.mark.parametrize("size", [0, 1, 16384, 16385, 3 * 1024 * 1024])
def test_messages_cross_both_ways_unchanged(size: int) -> None:
    driver, worker = _pair()
    payload = bytes(range(256)) * (size // 256) + bytes(size % 256)
    try:
        # A large message fills the socket's buffer: the reader must run concurrently.
        reader = threading.Thread(target=lambda: received.append(worker.recv_bytes()))
        received: list[bytes] = []
        reader.start()
        driver.send_bytes(payload)
        reader.join(30)
        assert received == [payload]
        reader = threading.Thread(target=lambda: worker.send_bytes(payload))
        reader.start()
        assert driver.recv_bytes() == payload
        reader.join(30)
    finally:
        driver.close()
        worker.close()


def test_a_closed_driver_reads_as_eof() -> None:
    driver, worker = _pair()
    driver.send_bytes(b"last")
    driver.close()
    assert worker.recv_bytes() == b"last"
    with pytest.raises(EOFError):
        worker.recv_bytes()
    worker.close()
    worker.close()  # idempotent

"""SocketReceiver, RawSocketReceiver: TCP clients (``socketTextStream``, ``rawSocketStream``).

What this module owns
---------------------
Spark's socket sources (``socketTextStream``, ``rawSocketStream``): the receiver connects to
``host:port`` (``nc -lk 9999`` is the usual server) and reads until the connection ends.

* ``onStart`` connects synchronously. A refused or failing connection calls
  ``restart("Error connecting to host:port", error)``: the supervisor logs a warning,
  waits ``spark.streaming.receiverRestartDelay`` (2 s) and tries again, forever. The
  stream keeps running (empty batches) meanwhile.
* A reading thread decodes the bytes. End of stream while running means the server
  went away: ``restart("Socket data stream had no more data")``; any other error:
  ``restart("Error receiving data", error)``. Either way it reconnects after the delay.
* ``onStop`` shuts the socket down (which wakes a blocked ``recv``) and closes it; it is
  idempotent, because a restart and a stop may both call it.

Text lines (:class:`SocketReceiver`): split at ``\\n``; a ``\\r`` before it is dropped;
bytes are decoded as UTF-8 with invalid sequences replaced by U+FFFD, never an error. A
last line without a newline is stored when the connection ends. Complete lines of a
read are stored together (one lock, one rate-limit charge per read), which is what
keeps the receiver's cost per record low.

Raw frames (:class:`RawSocketReceiver`): a stream of ``length:u32be payload`` frames whose
payload is a msgpack array of records; each frame is stored as one block,
synchronously. (Spark's raw format is Java serialization; ours is msgpack, which cannot
run code when decoded.)
"""

from __future__ import annotations

import logging
import socket
import struct
import threading
from typing import Any

import msgpack

from rdd import StorageLevel

from dstream.receiver.receiver import Receiver

__all__ = ["RawSocketReceiver", "SocketReceiver"]

logger = logging.getLogger(__name__)

#: Bytes per ``recv``: large enough that a busy stream costs few system calls.
READ_CHUNK = 256 * 1024
#: A connection attempt that takes longer than this is a failed attempt (then a restart).
CONNECT_TIMEOUT_S = 10.0


class _SocketClient(Receiver[Any]):
    """Connection handling shared by the text and raw receivers."""

    def __init__(self, host: str, port: int, storageLevel: StorageLevel) -> None:  # noqa: N803
        super().__init__(storageLevel)
        if not isinstance(port, int) or isinstance(port, bool) or not 0 < port < 65536:
            raise ValueError(f"port must be an integer in 1..65535, got {port!r}")
        self.host = str(host)
        self.port = port
        self._lock = threading.Lock()
        self._socket: socket.socket | None = None

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    def onStart(self) -> None:  # noqa: N802
        try:
            sock = socket.create_connection((self.host, self.port), timeout=CONNECT_TIMEOUT_S)
        except OSError as exc:
            self.restart(f"Error connecting to {self.address}", exc)
            return
        sock.settimeout(None)
        with self._lock:
            self._socket = sock
        logger.info("Connected to %s", self.address)
        threading.Thread(
            target=self._receive_guarded,
            args=(sock,),
            name=f"{type(self).__name__}-{self.address}",
            daemon=True,
        ).start()

    def onStop(self) -> None:  # noqa: N802
        with self._lock:
            sock, self._socket = self._socket, None
        _close(sock)

    def _receive_guarded(self, sock: socket.socket) -> None:
        try:
            self._receive(sock)
            if not self.isStopped():
                self.restart("Socket data stream had no more data")
        except Exception as exc:  # noqa: BLE001 - every failure means reconnect
            if not self.isStopped():
                self.restart("Error receiving data", exc)
        finally:
            with self._lock:
                if self._socket is sock:
                    self._socket = None
            _close(sock)

    def _receive(self, sock: socket.socket) -> None:
        raise NotImplementedError

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state["_socket"] = None
        state["_lock"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.address}>"


def _close(sock: socket.socket | None) -> None:
    if sock is None:
        return
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass


class SocketReceiver(_SocketClient):
    """Receive UTF-8 text lines from a TCP server (the source of ``socketTextStream``)."""

    def _receive(self, sock: socket.socket) -> None:
        buffer = bytearray()
        recv = sock.recv
        while not self.isStopped():
            chunk = recv(READ_CHUNK)
            if not chunk:
                break
            start = len(buffer)
            buffer += chunk
            cut = buffer.rfind(b"\n", start)
            if cut < 0:
                continue
            text = bytes(buffer[:cut]).decode("utf-8", "replace")
            del buffer[: cut + 1]
            lines = text.split("\n")
            if "\r" in text:
                lines = [line[:-1] if line.endswith("\r") else line for line in lines]
            self._store_many(lines)
        if buffer and not self.isStopped():
            line = bytes(buffer).decode("utf-8", "replace")
            self._store_many([line[:-1] if line.endswith("\r") else line])


_LENGTH = struct.Struct(">I")


class RawSocketReceiver(_SocketClient):
    """Receive msgpack-encoded blocks of records (the source of ``rawSocketStream``)."""

    def _receive(self, sock: socket.socket) -> None:
        reader = sock.makefile("rb")
        try:
            while not self.isStopped():
                header = reader.read(_LENGTH.size)
                if len(header) < _LENGTH.size:
                    return
                (length,) = _LENGTH.unpack(header)
                payload = reader.read(length)
                if len(payload) < length:
                    return
                records = msgpack.unpackb(payload, raw=False, strict_map_key=False)
                if not isinstance(records, list):
                    raise ValueError(
                        f"a rawSocketStream frame must hold a msgpack array of records, got "
                        f"{type(records).__name__}"
                    )
                if records:
                    self.store(records)
        finally:
            reader.close()

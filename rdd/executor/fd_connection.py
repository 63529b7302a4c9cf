"""The ``exec`` worker's end of its socket to the driver, without ``multiprocessing``.

The driver holds a ``multiprocessing.connection.Connection``; the worker speaks the same
framing over the inherited file descriptor: each message is a 4-byte big-endian signed
length then the bytes, or ``-1`` and an 8-byte big-endian length for a message past
2 GiB. Importing ``multiprocessing.connection`` costs a fresh worker ~10 ms of its start
(the package, its context, reduction and util modules), for two methods.

Invariant: byte-compatible with ``multiprocessing.connection.Connection`` on POSIX, in
both directions; a closed peer reads as ``EOFError``, as there.
"""

from __future__ import annotations

import os
import struct

_SMALL = 16384  # up to this size the header and the message go in one write, as multiprocessing's


class FdConnection:
    """``send_bytes``/``recv_bytes``/``close`` over a connected socket's file descriptor."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def fileno(self) -> int:
        return self._fd

    def send_bytes(self, buf: bytes) -> None:
        size = len(buf)
        header = struct.pack("!iQ", -1, size) if size > 0x7FFFFFFF else struct.pack("!i", size)
        if size <= _SMALL:
            self._write_all(header + buf)
        else:
            self._write_all(header)
            self._write_all(buf)

    def recv_bytes(self) -> bytes | bytearray:
        (size,) = struct.unpack("!i", self._read_exact(4))
        if size == -1:
            (size,) = struct.unpack("!Q", self._read_exact(8))
        return self._read_exact(size)

    def close(self) -> None:
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            os.close(fd)

    def _write_all(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view):]

    def _read_exact(self, size: int) -> bytes | bytearray:
        if size <= _SMALL:
            chunks: list[bytes] = []
            remaining = size
            while remaining:
                chunk = os.read(self._fd, remaining)
                if not chunk:
                    raise EOFError("the driver closed the connection")
                chunks.append(chunk)
                remaining -= len(chunk)
            return chunks[0] if len(chunks) == 1 else b"".join(chunks)
        # A large message arrives in pieces of the socket's buffer: read them into place,
        # rather than into pieces joined (copied) afterwards.
        buffer = bytearray(size)
        view = memoryview(buffer)
        position = 0
        while position < size:
            count = os.readv(self._fd, [view[position:]])
            if not count:
                raise EOFError("the driver closed the connection")
            position += count
        return buffer

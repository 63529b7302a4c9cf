"""How the driver frames a message to a worker process, and how the worker reads it.

A message (a task, ``remove_rdd``, ``drop_binaries``, ``stop``) is pickled with protocol
5; the large buffers inside it that were marked as such (a ``pickle.PickleBuffer``: a
parallelized slice's serialized records, say) are not copied into the pickle but sent
after it, each as its own frame, and handed back to the unpickler as they arrive. A
task carrying a 2.5 MB slice thus costs no copy of it on the driver (it used to be
copied into the task's pickle and again into the message's) and none after the read on
the worker, whose partition keeps the received buffer.

Frame 0 is one byte, the number ``n`` of out-of-band buffers, then the pickle; frames 1
to ``n`` are the buffers, in the order the pickler met them.

Invariant: everything the driver sends to a worker goes through :func:`send_message`,
and the worker reads only with :func:`recv_message`; the module imports nothing beyond
the standard library (a worker imports it at start).
"""

from __future__ import annotations

import pickle
from typing import Any, Protocol


class _Connection(Protocol):
    def send_bytes(self, buf: Any) -> None: ...

    def recv_bytes(self) -> Any: ...


#: Frame 0 counts the buffers in one byte; a message never carries nearly as many.
_MAX_BUFFERS = 255


def send_message(conn: _Connection, message: Any) -> None:
    """Send ``message`` on ``conn``, its ``PickleBuffer``s out of band (see the module doc)."""
    buffers: list[pickle.PickleBuffer] = []
    head = pickle.dumps(message, protocol=5, buffer_callback=buffers.append)
    if len(buffers) > _MAX_BUFFERS:  # in band after all: correct, only slower
        buffers = []
        head = pickle.dumps(message, protocol=5)
    conn.send_bytes(bytes((len(buffers),)) + head)
    for buffer in buffers:
        conn.send_bytes(buffer.raw())


def recv_message(conn: _Connection) -> Any:
    """The next message :func:`send_message` sent on ``conn``; raises ``EOFError`` at its end."""
    frame = conn.recv_bytes()
    count = frame[0]
    buffers = [conn.recv_bytes() for _ in range(count)]
    return pickle.loads(memoryview(frame)[1:], buffers=buffers)

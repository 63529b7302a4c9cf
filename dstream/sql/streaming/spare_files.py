"""Spare files: the next metadata log file created ahead of need, off the batch's thread.

What this module owns
---------------------
A micro-batch writes two log files (``offsets/N`` before it runs, ``commits/N`` after),
and each is a new file. On many file systems creating a file (a new inode) costs far
more than writing one that exists: a few ms on NFS or an object store mounted through
FUSE, and 0.3-0.4 ms on some virtual machines' local disks, against 20 us on a plain
ext4. Both creations sit on the batch's critical path, so on such a disk they were the
largest part of a small batch's fixed cost.

:class:`SpareFile` keeps one empty hidden file ready in a log's directory. The log's
writer takes it (no creation), writes its body into it, hard-links it into place and
unlinks the hidden name, as it did with a temporary file of its own; then it asks for
the next spare, which the query's :class:`FilePreparer` thread creates while the next
batch runs (the creation is a system call: it does not hold the interpreter lock).

Invariants
----------
* The writer never waits for a spare: when none is ready it creates its own temporary
  file, as without spares. A spare changes where the bytes are written first, never
  what ends up under a log's name, nor when.
* A spare is handed to one writer only: ``take`` gives its path away and forgets it.
* After ``close`` no spare of this object exists or appears: ``close`` waits for a
  creation in flight and removes an unused spare (a query removes its temporary
  checkpoint right after). A process killed mid-run may leave an empty spare behind;
  the next :class:`SpareFile` on the directory removes it.
"""

from __future__ import annotations

import contextlib
import os
import threading
import uuid
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

__all__ = ["FilePreparer", "SpareFile"]

_PREFIX = ".spare."
_SUFFIX = ".tmp"
_CLOSE_WAIT_S = 10.0


class FilePreparer:
    """One background thread that creates the spare files of one query's logs.

    Parameters
    ----------
    name : str
        Names the thread (``log file preparer for <name>``), for thread dumps.
    """

    def __init__(self, name: str) -> None:
        self._name = name
        self._lock = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None
        self._closed = False

    def submit(self, create: Callable[[], None]) -> Future[None] | None:
        """Run ``create()`` on the thread (started on first use); ``None`` once closed."""
        with self._lock:
            if self._closed:
                return None
            if self._executor is None:
                self._executor = ThreadPoolExecutor(1, thread_name_prefix=f"log file preparer for {self._name}")
            return self._executor.submit(create)

    def close(self) -> None:
        """Finish what was submitted and end the thread (idempotent)."""
        with self._lock:
            self._closed = True
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True)


class SpareFile:
    """The next file of the log in ``directory``, created ahead by ``preparer``.

    Parameters
    ----------
    directory : str
        The log's directory (it exists).
    preparer : FilePreparer
        The thread that creates spares.
    """

    def __init__(self, directory: str, preparer: FilePreparer) -> None:
        self._directory = directory
        self._preparer = preparer
        self._lock = threading.Lock()
        self._ready: str | None = None
        self._pending: Future[None] | None = None
        self._closed = False
        for name in os.listdir(directory):  # left by a process that was killed
            if name.startswith(_PREFIX) and name.endswith(_SUFFIX):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(os.path.join(directory, name))

    def take(self) -> str | None:
        """The path of an empty file to write, now yours; ``None`` when none is ready."""
        with self._lock:
            path, self._ready = self._ready, None
        return path

    def refill(self) -> None:
        """Have the next spare created in the background (unless one is ready or coming)."""
        with self._lock:
            if self._closed or self._ready is not None or (self._pending is not None and not self._pending.done()):
                return
            self._pending = self._preparer.submit(self._create)

    def _create(self) -> None:
        path = os.path.join(self._directory, f"{_PREFIX}{uuid.uuid4().hex}{_SUFFIX}")
        try:
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
        except OSError:
            return  # the directory is gone or full: the writer makes its own file, and says why
        with self._lock:
            if not self._closed and self._ready is None:
                self._ready = path
                return
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)

    def close(self) -> None:
        """Wait for a creation in flight, then remove an unused spare (idempotent)."""
        with self._lock:
            self._closed = True
            pending = self._pending
        if pending is not None:
            with contextlib.suppress(Exception):
                pending.result(_CLOSE_WAIT_S)
        path = self.take()
        if path is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)

"""Temporary checkpoint locations: made for queries started without one, gone by exit.

A query on the console, memory, foreach or foreachBatch sink may start without a
``checkpointLocation``; it then runs on a directory made for it here (``temporary-*``
in the system's temporary directory, as Spark names it).

Invariants, as Spark's (``Utils.createTempDir`` registers such a directory for deletion
when the JVM shuts down):

- a query that stops cleanly removes its directory at once;
- a query that failed keeps it while the application runs, so that its logs can be
  looked at, unless ``spark.sql.streaming.forceDeleteTempCheckpointLocation`` is true;
- whatever is left is removed when the Python process exits normally (``atexit``), so
  neither failed queries nor queries still running at exit leave directories behind.
  A process killed by a signal runs no exit handler: its directories stay.

Only the driver creates them; the set of live directories holds those not yet removed,
so a long application that starts many queries keeps it small.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import threading

__all__ = ["create", "remove"]

_LOCK = threading.Lock()
_LIVE: set[str] = set()
_REGISTERED = False


def create() -> str:
    """A new, empty temporary checkpoint directory, removed at exit if not before."""
    global _REGISTERED
    path = tempfile.mkdtemp(prefix="temporary-")
    with _LOCK:
        _LIVE.add(path)
        if not _REGISTERED:
            atexit.register(_remove_all)
            _REGISTERED = True
    return path


def remove(path: str) -> None:
    """Delete ``path`` (best effort, like Spark) and forget it."""
    shutil.rmtree(path, ignore_errors=True)
    with _LOCK:
        _LIVE.discard(path)


def _remove_all() -> None:
    with _LOCK:
        left = list(_LIVE)
    for path in left:
        remove(path)

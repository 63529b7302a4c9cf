"""Temporary checkpoint locations: made for queries started without one, gone by exit.

A query on the console, memory, foreach or foreachBatch sink may start without a
``checkpointLocation``; it then runs on a directory made for it here (``temporary-*``
in the system's temporary directory, as Spark names it).

Invariants, as Spark's (``Utils.createTempDir`` registers such a directory for deletion
when the JVM shuts down):

- a query that stops cleanly removes its directory at once: when ``stop()`` (or the end
  of an ``availableNow`` query) returns, nothing is left under the directory's name;
- a query that failed keeps it while the application runs, so that its logs can be
  looked at, unless ``spark.sql.streaming.forceDeleteTempCheckpointLocation`` is true;
- whatever is left is removed when the Python process exits normally (``atexit``), so
  neither failed queries nor queries still running at exit leave directories behind.
  A process killed by a signal runs no exit handler: its directories stay.

Removing is a rename, then the deletion of the renamed tree on a background thread:
a checkpoint holds a few files per micro-batch, and deleting them one by one took a
stopping query several milliseconds (more than a small micro-batch) on the stopping
thread. The renamed tree (``.temporary-*.removing``, beside the others) is the exit
handler's too, so it goes by exit as well.

Only the driver creates them; the sets of live and of renamed directories hold those
not yet removed, so a long application that starts many queries keeps them small.
"""

from __future__ import annotations

import atexit
import os
import queue
import shutil
import tempfile
import threading

__all__ = ["create", "remove"]

_LOCK = threading.Lock()
_LIVE: set[str] = set()
_RENAMED: set[str] = set()          # renamed away by remove(), not yet deleted
_PENDING: queue.SimpleQueue[str] = queue.SimpleQueue()
_REGISTERED = False
_REMOVER: threading.Thread | None = None


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
    """Take ``path`` away at once and delete its files in the background (best effort, like Spark)."""
    global _REMOVER
    parent, name = os.path.split(path)
    renamed = os.path.join(parent, f".{name}.removing")
    try:
        os.rename(path, renamed)
    except OSError:  # gone already, or not renamable: delete it here, as before
        _delete(path)
        return
    with _LOCK:
        _LIVE.discard(path)
        _RENAMED.add(renamed)
        if _REMOVER is None or not _REMOVER.is_alive():
            _REMOVER = threading.Thread(target=_remove_renamed, name="temporary-checkpoint-remover", daemon=True)
            _REMOVER.start()
    _PENDING.put(renamed)


def _delete(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)
    with _LOCK:
        _LIVE.discard(path)
        _RENAMED.discard(path)


def _remove_renamed() -> None:
    while True:
        _delete(_PENDING.get())


def _remove_all() -> None:
    # At exit: the renamed trees the thread has not reached yet, then the live ones. A
    # tree the thread is deleting right now is deleted by both; rmtree ignores what the
    # other removed first.
    with _LOCK:
        left = [*_RENAMED, *_LIVE]
    for path in left:
        _delete(path)

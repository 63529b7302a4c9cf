"""The local directory of a SparkContext: created owned, removed once its owner is gone.

A context keeps its shuffle files, broadcasts and disk blocks under one directory,
``<base>/dstreams-XXXXXXXX`` (``base``: ``spark.local.dir``, else the system's
temporary directory). ``stop()`` deletes it; this module makes sure a driver that died
without stopping (``kill -9``, a crash) does not leave it behind for good.

Invariants
----------
* A ``dstreams-*`` directory of a living driver holds ``owner.lock``, which that
  driver holds with ``flock(LOCK_EX)`` for the context's life. The directory is created
  under a hidden name (``.dstreams-new-*``), locked, then renamed, so it is never seen
  unlocked while its owner lives.
* The kernel releases a ``flock`` when the last descriptor of its holder closes, however
  the process ends, and a reused pid cannot hold it: a ``dstreams-*`` directory whose
  lock can be taken belongs to no living driver. Each new context removes such
  directories of its base (:func:`remove_stale`), and so do the workers of a driver that
  died (:func:`remove_orphaned`). The remover holds the lock while it removes, so no two
  remove one directory at once, and deletes ``owner.lock`` last, so a removal cut short
  is finished by the next one. A directory without ``owner.lock`` (written by an older
  version, or by hand) is left alone.
* ``owner.lock`` also records the owner's pid, for people looking at the directory.
"""

from __future__ import annotations

import errno
import fcntl
import logging
import os
import shutil
import tempfile

log = logging.getLogger(__name__)

PREFIX = "dstreams-"
LOCK_NAME = "owner.lock"


class LocalDir:
    """A fresh local directory under ``base`` (default: the temporary directory), locked by us."""

    def __init__(self, base: str | None = None) -> None:
        base = base or tempfile.gettempdir()
        os.makedirs(base, exist_ok=True)
        remove_stale(base)
        staging = tempfile.mkdtemp(prefix="." + PREFIX + "new-", dir=base)
        self._fd = os.open(os.path.join(staging, LOCK_NAME), os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.write(self._fd, f"{os.getpid()}\n".encode())
        suffix = os.path.basename(staging)[len("." + PREFIX + "new-"):]
        self.path = os.path.join(base, PREFIX + suffix)
        os.rename(staging, self.path)

    def remove(self) -> None:
        """Delete the directory, then let go of its lock."""
        if self._fd >= 0:
            _remove_lock_last(self.path)
            os.close(self._fd)
            self._fd = -1


def remove_orphaned(path: str) -> bool:
    """Delete ``path``, a context's local directory, if no living process holds its lock."""
    try:
        fd = os.open(os.path.join(path, LOCK_NAME), os.O_RDWR)
    except OSError:
        return False  # no lock file: not ours to judge; or removed meanwhile
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EACCES):
                return False  # its driver is alive, or someone else is removing it
            raise
        _remove_lock_last(path)
        return True
    finally:
        os.close(fd)


def _remove_lock_last(path: str) -> None:
    for name in os.listdir(path) if os.path.isdir(path) else ():
        if name != LOCK_NAME:
            entry = os.path.join(path, name)
            if os.path.isdir(entry) and not os.path.islink(entry):
                shutil.rmtree(entry, ignore_errors=True)
            else:
                _unlink(entry)
    _unlink(os.path.join(path, LOCK_NAME))
    try:
        os.rmdir(path)
    except OSError:
        pass


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def remove_stale(base: str) -> list[str]:
    """Delete the ``dstreams-*`` directories of ``base`` whose owner is gone; return them."""
    try:
        names = [n for n in os.listdir(base) if n.startswith(PREFIX)]
    except OSError:
        return []
    removed = [os.path.join(base, n) for n in names if remove_orphaned(os.path.join(base, n))]
    if removed:
        log.info("removed %d local director%s left by drivers that are gone: %s", len(removed),
                 "y" if len(removed) == 1 else "ies", ", ".join(removed))
    return removed

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
  directories of its base (:func:`remove_stale`), holding the lock while it does, so
  two new contexts never both remove one. A directory without ``owner.lock`` (written by
  an older version, or by hand) is left alone.
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
        self.path = os.path.join(base, PREFIX + os.path.basename(staging)[len("." + PREFIX + "new-"):])
        os.rename(staging, self.path)

    def remove(self) -> None:
        """Delete the directory, then let go of its lock."""
        shutil.rmtree(self.path, ignore_errors=True)
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def remove_stale(base: str) -> list[str]:
    """Delete the ``dstreams-*`` directories of ``base`` whose owner is gone; return them."""
    removed = []
    try:
        names = [n for n in os.listdir(base) if n.startswith(PREFIX)]
    except OSError:
        return removed
    for name in names:
        path = os.path.join(base, name)
        try:
            fd = os.open(os.path.join(path, LOCK_NAME), os.O_RDWR)
        except OSError:
            continue  # no lock file: not ours to judge; or removed meanwhile
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno in (errno.EWOULDBLOCK, errno.EACCES):
                    continue  # its driver is alive
                raise
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
        finally:
            os.close(fd)
    if removed:
        log.info("removed %d local director%s left by drivers that are gone: %s", len(removed),
                 "y" if len(removed) == 1 else "ies", ", ".join(removed))
    return removed

"""Where map outputs live: files shared by all processes, or the driver's memory.

Both stores hold, per ``(shuffle_id, map_id)``, one blob of back-to-back serialized
buckets and the ``num_reduce + 1`` offsets into it.

- ``FileShuffleStore`` (``local[N]``): one file ``<local_dir>/shuffle/<sid>/<map>.out``
  holding the buckets, then the ``num_reduce + 1`` offsets and their count as a trailer,
  written under a temporary name and renamed, so a reader that finds the file finds all
  of it. Any process can read any output. One file instead of a data and an index file
  halves the file system calls of a map output: a micro-batch pays them every batch.
  Removing a shuffle (the driver's cleaner, at the start of a job) renames its directory
  out of the way, one system call, and a daemon thread deletes it: the job that follows
  does not wait for the files of an old batch to be unlinked. From the rename on, the
  shuffle reads as missing and can be written again; ``close`` ends the thread (the
  context then deletes the whole local directory, trash included).
- ``MemoryShuffleStore`` (``local``): everything runs in the driver, so map outputs
  stay in a dict and a shuffle costs no file system calls at all.

A missing output raises ``FetchFailedError``; the scheduler re-runs that map task.
"""

from __future__ import annotations

import itertools
import logging
import os
import queue
import threading
from array import array

from ..errors import FetchFailedError

_OFFSET = 8  # bytes per offset in the trailer (int64, native order: written and read on one host)
#: How long ``close`` waits for the deleting thread to finish the directory it is on.
_CLOSE_DEADLINE_S = 10.0
#: Prefix of a removed shuffle's directory, waiting to be deleted (never a shuffle id).
TRASH_PREFIX = ".removed-"

log = logging.getLogger(__name__)


def _rmtree(path: str, ignore_errors: bool) -> None:
    import shutil  # only the driver removes shuffles: a worker's start skips shutil's imports

    shutil.rmtree(path, ignore_errors=ignore_errors)


class FileShuffleStore:
    #: Small map outputs may go back to the driver instead of into a file.
    accepts_inline = True

    def __init__(self, local_dir: str) -> None:
        self.root = os.path.join(local_dir, "shuffle")
        #: ``(shuffle_id, map_id, reduce_id)`` -> bucket bytes the running task received
        #: with its spec (set and cleared around each task by the task runner).
        self.inline: dict[tuple[int, int, int], bytes] = {}
        self._trash_ids = itertools.count()
        self._trash: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self._deleter: threading.Thread | None = None
        self._closed = False
        self._lock = threading.Lock()

    def _path(self, shuffle_id: int, map_id: int) -> str:
        return os.path.join(self.root, str(shuffle_id), f"{map_id}.out")

    def put(self, shuffle_id: int, map_id: int, attempt_id: int, blob: bytes, offsets: array) -> None:
        path = self._path(shuffle_id, map_id)
        temp = f"{path}.tmp-{os.getpid()}-{attempt_id}"
        trailer = offsets.tobytes() + array("q", [len(offsets)]).tobytes()
        try:
            f = open(temp, "wb")  # noqa: SIM115 - the directory is made on the first miss only
        except FileNotFoundError:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            f = open(temp, "wb")  # noqa: SIM115
        with f:
            f.write(blob)
            f.write(trailer)
        os.replace(temp, path)

    def get(self, shuffle_id: int, map_id: int, reduce_id: int) -> bytes:
        if self.inline:
            payload = self.inline.get((shuffle_id, map_id, reduce_id))
            if payload is not None:
                return payload
        path = self._path(shuffle_id, map_id)
        try:
            with open(path, "rb") as f:
                size = f.seek(0, os.SEEK_END)
                if size < _OFFSET:
                    raise FetchFailedError(shuffle_id, map_id, f"shuffle file {path} is truncated")
                f.seek(size - _OFFSET)
                count = array("q", f.read(_OFFSET))[0]
                first = size - _OFFSET - count * _OFFSET
                if first < 0 or not 0 <= reduce_id < count - 1:
                    raise FetchFailedError(shuffle_id, map_id, f"shuffle file {path} has no bucket {reduce_id}")
                f.seek(first + reduce_id * _OFFSET)
                start, end = array("q", f.read(2 * _OFFSET))
                if start == end:
                    return b""
                f.seek(start)
                return f.read(end - start)
        except FileNotFoundError as exc:
            raise FetchFailedError(shuffle_id, map_id, f"missing shuffle file {exc.filename}") from None

    def remove_shuffle(self, shuffle_id: int) -> None:
        """Make the shuffle's outputs missing now; their files are deleted in the background."""
        trash = os.path.join(self.root, f"{TRASH_PREFIX}{shuffle_id}-{next(self._trash_ids)}")
        try:
            os.rename(os.path.join(self.root, str(shuffle_id)), trash)
        except FileNotFoundError:
            return  # no map output was written (or it was removed already)
        except OSError:
            _rmtree(os.path.join(self.root, str(shuffle_id)), ignore_errors=True)
            return
        with self._lock:
            if self._closed:
                _rmtree(trash, ignore_errors=True)
                return
            if self._deleter is None:
                self._deleter = threading.Thread(target=self._delete_loop, daemon=True, name="shuffle-deleter")
                self._deleter.start()
            self._trash.put(trash)

    def _delete_loop(self) -> None:
        while (path := self._trash.get()) is not None:
            if not self._closed:  # closed: the local directory is about to go, trash and all
                _rmtree(path, ignore_errors=True)

    def close(self) -> None:
        """End the deleting thread (idempotent); what it had not deleted is left in ``root``."""
        with self._lock:
            self._closed = True
            deleter, self._deleter = self._deleter, None
        if deleter is not None:
            self._trash.put(None)
            deleter.join(_CLOSE_DEADLINE_S)
            if deleter.is_alive():
                log.warning("the shuffle-deleter thread did not end within %.0f s", _CLOSE_DEADLINE_S)


class MemoryShuffleStore:
    def __init__(self) -> None:
        self._outputs: dict[tuple[int, int], tuple[bytes, array]] = {}
        self._lock = threading.Lock()

    def put(self, shuffle_id: int, map_id: int, attempt_id: int, blob: bytes, offsets: array) -> None:
        with self._lock:
            self._outputs[(shuffle_id, map_id)] = (blob, offsets)

    def get(self, shuffle_id: int, map_id: int, reduce_id: int) -> bytes:
        with self._lock:
            entry = self._outputs.get((shuffle_id, map_id))
        if entry is None:
            raise FetchFailedError(shuffle_id, map_id, "map output is not in memory")
        blob, offsets = entry
        return blob[offsets[reduce_id]:offsets[reduce_id + 1]]

    def remove_shuffle(self, shuffle_id: int) -> None:
        with self._lock:
            for key in [k for k in self._outputs if k[0] == shuffle_id]:
                del self._outputs[key]

    def close(self) -> None:
        """Nothing runs in the background: memory goes with the store."""

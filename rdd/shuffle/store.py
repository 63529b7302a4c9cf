"""Where map outputs live: files shared by all processes, or the driver's memory.

Both stores hold, per ``(shuffle_id, map_id)``, one blob of back-to-back serialized
buckets and the ``num_reduce + 1`` offsets into it.

- ``FileShuffleStore`` (``local[N]``): ``<local_dir>/shuffle/<sid>/<map>.data`` and
  ``.index``, each written under a temporary name and renamed (data first), so a
  reader that finds the index finds complete data. Any process can read any output.
- ``MemoryShuffleStore`` (``local``): everything runs in the driver, so map outputs
  stay in a dict and a shuffle costs no file system calls at all.

A missing output raises ``FetchFailedError``; the scheduler re-runs that map task.
"""

from __future__ import annotations

import os
import shutil
import threading
from array import array

from ..errors import FetchFailedError


class FileShuffleStore:
    def __init__(self, local_dir: str) -> None:
        self.root = os.path.join(local_dir, "shuffle")

    def _paths(self, shuffle_id: int, map_id: int) -> tuple[str, str]:
        directory = os.path.join(self.root, str(shuffle_id))
        return os.path.join(directory, f"{map_id}.data"), os.path.join(directory, f"{map_id}.index")

    def put(self, shuffle_id: int, map_id: int, attempt_id: int, blob: bytes, offsets: array) -> None:
        data_path, index_path = self._paths(shuffle_id, map_id)
        os.makedirs(os.path.dirname(data_path), exist_ok=True)
        suffix = f".tmp-{os.getpid()}-{attempt_id}"
        with open(data_path + suffix, "wb") as f:
            f.write(blob)
        os.replace(data_path + suffix, data_path)
        with open(index_path + suffix, "wb") as f:
            f.write(offsets.tobytes())
        os.replace(index_path + suffix, index_path)

    def get(self, shuffle_id: int, map_id: int, reduce_id: int) -> bytes:
        data_path, index_path = self._paths(shuffle_id, map_id)
        try:
            with open(index_path, "rb") as f:
                f.seek(reduce_id * 8)
                bounds = array("q")
                bounds.frombytes(f.read(16))
            if len(bounds) != 2:
                raise FetchFailedError(shuffle_id, map_id, f"index file {index_path} is truncated")
            start, end = bounds
            if start == end:
                return b""
            with open(data_path, "rb") as f:
                f.seek(start)
                return f.read(end - start)
        except FileNotFoundError as exc:
            raise FetchFailedError(shuffle_id, map_id, f"missing shuffle file {exc.filename}") from None

    def remove_shuffle(self, shuffle_id: int) -> None:
        shutil.rmtree(os.path.join(self.root, str(shuffle_id)), ignore_errors=True)


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

"""Broadcast variables: a value written once to a file, read once per worker.

The driver pickles the value to ``<local_dir>/broadcast/<id>.pkl`` when it is
created. A ``Broadcast`` pickled into a task carries only its id and path; the first
``.value`` in a worker process loads the file and keeps it for later tasks.
"""

from __future__ import annotations

import os
import pickle
import threading
from typing import Any, Generic, TypeVar

from .serialization.serializer import dumps_data

T = TypeVar("T")

_loaded: dict[int, Any] = {}
_loaded_lock = threading.Lock()


class Broadcast(Generic[T]):
    """A read-only value shipped to every worker once; created by ``SparkContext.broadcast``."""

    def __init__(self, bid: int, path: str, value: Any = None, *, on_driver: bool = False) -> None:
        self._id = bid
        self._path = path
        if on_driver:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            tmp = f"{path}.tmp"
            with open(tmp, "wb") as f:
                f.write(dumps_data(value))
            os.replace(tmp, path)
            with _loaded_lock:
                _loaded[bid] = value

    @property
    def id(self) -> int:
        return self._id

    @property
    def value(self) -> T:
        """The broadcast value (loaded from its file on first use in a worker)."""
        with _loaded_lock:
            if self._id in _loaded:
                return _loaded[self._id]
        if not os.path.exists(self._path):
            raise RuntimeError(f"Broadcast {self._id} was destroyed or its SparkContext stopped; "
                               "create a new broadcast with sc.broadcast(value)")
        with open(self._path, "rb") as f:
            value = pickle.load(f)
        with _loaded_lock:
            _loaded[self._id] = value
        return value

    def unpersist(self, blocking: bool = False) -> None:
        """Drop the cached copies in workers (they reload on next use)."""

    def destroy(self, blocking: bool = False) -> None:
        """Destroy the value everywhere; it cannot be used afterwards."""
        with _loaded_lock:
            _loaded.pop(self._id, None)
        try:
            os.unlink(self._path)
        except FileNotFoundError:
            pass

    def dump(self, value: T, f: Any) -> None:
        pickle.dump(value, f, protocol=5)

    def load(self, file: Any) -> T:
        return pickle.load(file)

    def __reduce__(self) -> Any:
        return (Broadcast, (self._id, self._path))

    def __repr__(self) -> str:
        return f"<Broadcast {self._id}>"

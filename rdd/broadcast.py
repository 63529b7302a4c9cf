"""Broadcast variables: a value written once to a file, read once per worker.

The driver pickles the value to ``<local_dir>/broadcast/<id>.pkl`` when it is
created. A ``Broadcast`` pickled into a task carries only its id and path; the first
``.value`` in a worker process loads the file and keeps it for later tasks. An executor
that cannot see the driver's directory (a Ray executor on another node) asks its
environment's ``broadcast_source`` (the object store) for the same bytes.
"""

from __future__ import annotations

import os
import pickle
import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from .runtime import environment
from .serialization.serializer import dumps_data

T = TypeVar("T")

_loaded: dict[int, Any] = {}
_loaded_lock = threading.Lock()


class Broadcast(Generic[T]):
    """A read-only value shipped to every worker once; created by ``SparkContext.broadcast``."""

    def __init__(self, bid: int, path: str, value: Any = None, *, on_driver: bool = False,
                 on_destroy: Callable[[int], None] | None = None) -> None:
        self._id = bid
        self._path = path
        self._on_destroy = on_destroy  # the driver's: tell the executors' other sources
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
        try:
            with open(self._path, "rb") as f:
                value = pickle.load(f)
        except FileNotFoundError:
            source = environment.current().broadcast_source if environment.is_installed() else None
            payload = source(self._id) if source is not None else None
            if payload is None:
                raise RuntimeError(f"Broadcast {self._id} was destroyed or its SparkContext stopped; "
                                   "create a new broadcast with sc.broadcast(value)") from None
            value = pickle.loads(payload)
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
        if self._on_destroy is not None:
            self._on_destroy(self._id)

    def dump(self, value: T, f: Any) -> None:
        pickle.dump(value, f, protocol=5)

    def load(self, file: Any) -> T:
        return pickle.load(file)

    def __reduce__(self) -> Any:
        return (Broadcast, (self._id, self._path))

    def __repr__(self) -> str:
        return f"<Broadcast {self._id}>"

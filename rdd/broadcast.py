"""Broadcast variables: a value written once to a file, read once per worker.

The driver pickles the value to ``<local_dir>/broadcast/<id>.pkl`` when it is
created. A ``Broadcast`` pickled into a task carries only its id and path; the first
``.value`` in a worker process loads the file and keeps it for later tasks. An executor
that cannot see the driver's directory (a Ray executor on another node) asks its
environment's ``broadcast_source`` (the object store) for the same bytes.

The driver's own ``Broadcast`` object keeps the value: as in PySpark, ``.value`` on the
driver still answers after ``destroy()``; only tasks fail (they read the file, even those
run in the driver's process).
"""

from __future__ import annotations

import os
import pickle
import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from .runtime import environment
from .runtime.task_context import TaskContext
from .serialization.serializer import dumps_data

T = TypeVar("T")

_loaded: dict[int, Any] = {}
_NO_VALUE: Any = object()  # a Broadcast unpickled in a task: no driver copy
_loaded_lock = threading.Lock()


class Broadcast(Generic[T]):
    """A read-only value shipped to every worker once; created by ``SparkContext.broadcast``."""

    def __init__(self, bid: int, path: str, value: Any = None, *, on_driver: bool = False,
                 on_destroy: Callable[[int], None] | None = None) -> None:
        self._id = bid
        self._path = path
        self._on_destroy = on_destroy  # the driver's: tell the executors' other sources
        # PySpark's driver object holds its value, so destroy() does not take it from the driver.
        self._driver_value = value if on_driver else _NO_VALUE
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
        """The broadcast value (loaded from its file on first use in a worker; the driver's copy on the driver)."""
        if self._driver_value is not _NO_VALUE and TaskContext.get() is None:
            # On the driver outside a task; a task run in the driver's process reads the
            # file like any other, so a destroyed broadcast still fails there, as in Spark.
            return self._driver_value
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
        """Destroy the value in the workers; tasks cannot use it afterwards (the driver keeps its copy)."""
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

"""The executor environment of this process: its id, the context's local directory
and its shuffle store.

Installed once per process: by the ``SparkContext`` in the driver (executor id
``driver``), and by the worker's set-up in each worker process. Shuffle files,
broadcast files and disk blocks all live under ``local_dir``, which every process of
one context shares (they run on one machine). The shuffle store is given by whoever
installs the environment, so this module stays below the shuffle package.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass
class ExecutorEnv:
    executor_id: str
    local_dir: str
    shuffle_store: Any  # a ``rdd.shuffle.store`` store: files, or memory on ``local``
    #: Where a broadcast's pickled value comes from when its file is not visible here (a
    #: Ray executor on another node: the object store); ``None`` if nothing else has it.
    broadcast_source: Callable[[int], bytes | None] | None = None

    def broadcast_path(self, broadcast_id: int) -> str:
        return os.path.join(self.local_dir, "broadcast", f"{broadcast_id}.pkl")

    def block_dir(self) -> str:
        return os.path.join(self.local_dir, "blocks", self.executor_id)


_current: ExecutorEnv | None = None


def current() -> ExecutorEnv:
    if _current is None:
        raise RuntimeError("no executor environment in this process: create a SparkContext first")
    return _current


def is_installed() -> bool:
    return _current is not None


def install(env: ExecutorEnv) -> None:
    global _current
    _current = env

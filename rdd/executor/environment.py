"""The executor environment of this process: its id and the context's local directory.

Installed once per process: by the ``SparkContext`` in the driver (executor id
``driver``), and by the worker's set-up in each worker process. Shuffle files,
broadcast files and disk blocks all live under ``local_dir``, which every process of
one context shares (they run on one machine).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from ..shuffle.store import FileShuffleStore, MemoryShuffleStore


@dataclass
class ExecutorEnv:
    executor_id: str
    local_dir: str
    in_memory_shuffle: bool = False
    shuffle_store: Any = field(init=False)

    def __post_init__(self) -> None:
        self.shuffle_store = MemoryShuffleStore() if self.in_memory_shuffle else FileShuffleStore(self.local_dir)

    def broadcast_path(self, broadcast_id: int) -> str:
        return os.path.join(self.local_dir, "broadcast", f"{broadcast_id}.pkl")

    def block_dir(self) -> str:
        return os.path.join(self.local_dir, "blocks", self.executor_id)


_current: ExecutorEnv | None = None


def current() -> ExecutorEnv:
    if _current is None:
        raise RuntimeError("no executor environment in this process: create a SparkContext first")
    return _current


def install(env: ExecutorEnv) -> None:
    global _current
    _current = env

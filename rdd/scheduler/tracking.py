"""Driver-side bookkeeping: which shuffle outputs exist, which executor holds which block.

Pure data structures, no I/O; the DAG scheduler reads and updates them.
"""

from __future__ import annotations

import threading
from collections import defaultdict


class MapOutputTracker:
    """For each shuffle: the map ids whose output files are complete."""

    def __init__(self) -> None:
        self._outputs: dict[int, dict[int, list[int]]] = defaultdict(dict)
        self._num_maps: dict[int, int] = {}

    def register_shuffle(self, shuffle_id: int, num_maps: int) -> None:
        self._num_maps.setdefault(shuffle_id, num_maps)

    def register_output(self, shuffle_id: int, map_id: int, sizes: list[int]) -> None:
        self._outputs[shuffle_id][map_id] = sizes

    def unregister_output(self, shuffle_id: int, map_id: int) -> None:
        self._outputs[shuffle_id].pop(map_id, None)

    def missing(self, shuffle_id: int) -> list[int]:
        done = self._outputs.get(shuffle_id, {})
        return [m for m in range(self._num_maps[shuffle_id]) if m not in done]

    def is_available(self, shuffle_id: int) -> bool:
        return shuffle_id in self._num_maps and not self.missing(shuffle_id)

    def remove_shuffle(self, shuffle_id: int) -> None:
        self._outputs.pop(shuffle_id, None)
        self._num_maps.pop(shuffle_id, None)

class BlockLocations:
    """Block id → executors holding it (one in practice). Thread-safe: ``unpersist``
    may be called from any thread while a job reads locations."""

    def __init__(self) -> None:
        self._where: dict[str, set[str]] = defaultdict(set)
        self._lock = threading.Lock()

    def __bool__(self) -> bool:
        return bool(self._where)

    def add(self, block_id: str, executor_id: str) -> None:
        with self._lock:
            self._where[block_id].add(executor_id)

    def get(self, block_id: str) -> set[str]:
        with self._lock:
            return set(self._where.get(block_id, ()))

    def remove_executor(self, executor_id: str) -> None:
        with self._lock:
            for block_id in list(self._where):
                holders = self._where[block_id]
                holders.discard(executor_id)
                if not holders:
                    del self._where[block_id]

    def remove_rdd(self, rdd_id: int) -> None:
        prefix = f"rdd_{rdd_id}_"
        with self._lock:
            for block_id in [b for b in self._where if b.startswith(prefix)]:
                del self._where[block_id]

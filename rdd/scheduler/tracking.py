"""Driver-side bookkeeping: which shuffle outputs exist, which executor holds which block.

Pure data structures, no I/O; the DAG scheduler reads and updates them.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Iterable
from typing import Any


class MapOutputTracker:
    """For each shuffle: the map ids whose outputs are complete (files, or held inline).

    An output registered as an ``InlineMapOutput`` (anything with a ``bucket(reduce_id)``
    method) is held here, in the driver, until it is unregistered or its shuffle removed.
    """

    def __init__(self) -> None:
        self._outputs: dict[int, dict[int, Any]] = defaultdict(dict)
        self._num_maps: dict[int, int] = {}
        self._inline: dict[int, dict[int, Any]] = {}

    def register_shuffle(self, shuffle_id: int, num_maps: int) -> None:
        self._num_maps.setdefault(shuffle_id, num_maps)

    def register_output(self, shuffle_id: int, map_id: int, output: Any) -> None:
        """Record a map output: its bucket sizes, or an ``InlineMapOutput``."""
        self._outputs[shuffle_id][map_id] = output
        if hasattr(output, "bucket"):
            self._inline.setdefault(shuffle_id, {})[map_id] = output
        else:
            inline = self._inline.get(shuffle_id)
            if inline is not None:
                inline.pop(map_id, None)  # a later attempt wrote a file

    def unregister_output(self, shuffle_id: int, map_id: int) -> None:
        self._outputs[shuffle_id].pop(map_id, None)
        inline = self._inline.get(shuffle_id)
        if inline is not None:
            inline.pop(map_id, None)

    def inline_buckets(self, reads: Iterable[tuple[int, int]]) -> dict[tuple[int, int, int], bytes]:
        """The bytes of every held bucket among ``(shuffle_id, reduce_id)`` ``reads``."""
        found: dict[tuple[int, int, int], bytes] = {}
        for shuffle_id, reduce_id in reads:
            for map_id, output in self._inline.get(shuffle_id, {}).items():
                found[(shuffle_id, map_id, reduce_id)] = output.bucket(reduce_id)
        return found

    def holds_inline(self, shuffle_id: int) -> bool:
        return bool(self._inline.get(shuffle_id))

    def missing(self, shuffle_id: int) -> list[int]:
        done = self._outputs.get(shuffle_id, {})
        return [m for m in range(self._num_maps[shuffle_id]) if m not in done]

    def is_available(self, shuffle_id: int) -> bool:
        return shuffle_id in self._num_maps and not self.missing(shuffle_id)

    def remove_shuffle(self, shuffle_id: int) -> None:
        self._outputs.pop(shuffle_id, None)
        self._num_maps.pop(shuffle_id, None)
        self._inline.pop(shuffle_id, None)

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

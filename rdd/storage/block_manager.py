"""The block manager of one process: cached partitions and stream blocks.

Every process (the driver, and each worker) has exactly one ``BlockManager``, reached
with :func:`current`. Blocks are identified by strings such as ``rdd_3_1`` (RDD 3,
partition 1) or ``input-0-17`` (a received stream block).

Invariants
----------
- A block is stored whole or not at all (``put`` takes a list).
- Memory blocks are kept as Python lists (deserialized levels, and blocks of
  immutable records at a level that ``shares_immutable``) or bytes (serialized levels,
  ``dumps_records``: marshal for built-in types, else pickle); disk blocks are files
  of the same bytes under the process's block directory, written with a temporary
  name and renamed, so a reader never sees half a block.
- A list kept as objects is returned by ``get`` itself, not a copy: callers only iterate
  it (``LineageNode._get_or_compute`` hands readers an iterator over it). So a reader can
  change a cached record only if the record itself is mutable, which a
  ``shares_immutable`` level never keeps unserialized.
- ``remove_rdd`` also runs the hooks added with :func:`add_rdd_removal_hook`: data a layer
  above keeps per RDD id in this process goes with the RDD's blocks.
- The driver learns which process holds which block from task results
  (``TaskResult.blocks_added``) and uses it for preferred locations; a block that is
  asked for but missing is simply recomputed from lineage by the caller.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

from ..serialization.serializer import dumps_records, loads_records
from .immutable import records_are_immutable
from .level import StorageLevel

_log = logging.getLogger(__name__)


class BlockManager:
    """Stores blocks for one process (thread-safe)."""

    def __init__(self, executor_id: str, block_dir: str | None) -> None:
        self.executor_id = executor_id
        self.block_dir = block_dir
        # block id -> (kept as objects, the list of records or its serialized bytes)
        self._memory: dict[str, tuple[bool, Any]] = {}
        self._disk: dict[str, str] = {}
        self._lock = threading.Lock()

    def put(self, block_id: str, values: list, level: StorageLevel) -> tuple[int, int]:
        """Store ``values`` under ``block_id`` at ``level``; returns its (memory, disk) bytes.

        A deserialized block's memory size is an estimate (sampled ``sys.getsizeof``), as
        Spark's is: measuring every object would cost more than caching it.
        """
        if level.useMemory:
            as_objects = level.deserialized or (level.shares_immutable and records_are_immutable(values))
            payload: Any = values if as_objects else dumps_records(values)
            with self._lock:
                self._memory[block_id] = (as_objects, payload)
            return (estimate_size(values) if as_objects else len(payload)), 0
        if level.useDisk:
            path = self._disk_path(block_id)
            tmp = f"{path}.tmp-{os.getpid()}-{threading.get_ident()}"
            data = dumps_records(values)
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
            with self._lock:
                self._disk[block_id] = path
            return 0, len(data)
        return 0, 0

    def get(self, block_id: str) -> list | None:
        """The block's records, or ``None`` if this process does not hold it."""
        with self._lock:
            entry = self._memory.get(block_id)
            path = self._disk.get(block_id)
        if entry is not None:
            as_objects, payload = entry
            return payload if as_objects else loads_records(payload)
        if path is not None:
            try:
                with open(path, "rb") as f:
                    return loads_records(f.read())
            except FileNotFoundError:
                return None
        return None

    def contains(self, block_id: str) -> bool:
        with self._lock:
            return block_id in self._memory or block_id in self._disk

    def remove(self, block_id: str) -> bool:
        with self._lock:
            found = self._memory.pop(block_id, None) is not None
            path = self._disk.pop(block_id, None)
        if path is not None:
            found = True
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass
        return found

    def remove_rdd(self, rdd_id: int) -> list[str]:
        """Drop every partition of RDD ``rdd_id``, then run the removal hooks; returns the removed block ids."""
        prefix = f"rdd_{rdd_id}_"
        with self._lock:
            ids = [b for b in list(self._memory) + list(self._disk) if b.startswith(prefix)]
        for block_id in ids:
            self.remove(block_id)
        for hook in list(_removal_hooks):
            try:
                hook(rdd_id)
            except Exception:  # noqa: BLE001 - one layer's cleanup must not stop another's
                _log.exception("an RDD removal hook failed for RDD %d", rdd_id)
        return ids

    def block_ids(self) -> list[str]:
        with self._lock:
            return list(self._memory) + list(self._disk)

    def clear(self) -> None:
        for block_id in self.block_ids():
            self.remove(block_id)

    def _disk_path(self, block_id: str) -> str:
        if self.block_dir is None:
            raise RuntimeError("this block manager has no disk directory")
        os.makedirs(self.block_dir, exist_ok=True)
        return os.path.join(self.block_dir, block_id)


_current: BlockManager | None = None

#: Called with the id on every ``remove_rdd`` of this process, after its blocks are gone.
_removal_hooks: list[Callable[[int], None]] = []


def add_rdd_removal_hook(hook: Callable[[int], None]) -> None:
    """Call ``hook(rdd_id)`` whenever this process drops an RDD's blocks (an unpersist reached it).

    For a layer that keeps data of its own per RDD id in the processes that run tasks (the
    state of a streaming query run, say): the driver's ``remove_rdd`` of that id reaches
    every executor, and the hook drops the data there. Adding the same hook twice is a no-op.
    """
    if hook not in _removal_hooks:
        _removal_hooks.append(hook)


def current() -> BlockManager:
    """The block manager of this process (created on first use in the driver)."""
    global _current
    if _current is None:
        _current = BlockManager("driver", None)
    return _current


def install(manager: BlockManager) -> None:
    """Make ``manager`` this process's block manager (called by the executor set-up)."""
    global _current
    _current = manager


#: How many records of a block ``estimate_size`` measures.
_SIZE_SAMPLE = 32


def estimate_size(values: list) -> int:
    """Approximate bytes held by ``values``: the list plus a sample of its records, scaled."""
    count = len(values)
    if count == 0:
        return sys.getsizeof(values)
    step = max(1, count // _SIZE_SAMPLE)
    sample = values[::step]
    per_record = sum(_deep_size(v) for v in sample) / len(sample)
    return sys.getsizeof(values) + int(per_record * count)


def _deep_size(value: Any) -> int:
    # One level into tuples/lists: a (key, value) pair's parts are most of its weight.
    size = sys.getsizeof(value)
    if isinstance(value, (tuple, list)):
        size += sum(sys.getsizeof(v) for v in value[:16])
    return size


def rdd_block_id(rdd_id: int, split: int) -> str:
    return f"rdd_{rdd_id}_{split}"

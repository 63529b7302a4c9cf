"""Runs one task in whatever process it lands in (a worker, or the driver inline).

The stage binary is unpickled once per process and cached by digest (a bounded LRU):
that is what makes a stage's functions cross into each worker only once.
"""

from __future__ import annotations

import pickle
import traceback
from collections import OrderedDict
from typing import Any

from ..scheduler.task import ShuffleWriteSpec, TaskFailure, TaskResult, TaskSpec
from ..scheduler.task_context import TaskContext
from ..shuffle import fusion
from ..shuffle.writer import write_map_output
from . import environment

_BINARY_CACHE_SIZE = 64


class BinaryCache:
    """Unpickled stage binaries by digest, most recently used last."""

    def __init__(self) -> None:
        self._entries: OrderedDict[str, Any] = OrderedDict()

    def get(self, digest: str) -> Any | None:
        entry = self._entries.get(digest)
        if entry is not None:
            self._entries.move_to_end(digest)
        return entry

    def put(self, digest: str, payload: bytes) -> Any:
        value = pickle.loads(payload)
        self._entries[digest] = value
        if len(self._entries) > _BINARY_CACHE_SIZE:
            self._entries.popitem(last=False)
        return value

    def __contains__(self, digest: str) -> bool:
        return digest in self._entries


def run_task(spec: TaskSpec, binary: Any) -> TaskResult | TaskFailure:
    """Compute one partition and return its result, or the failure with its traceback."""
    env = environment.current()
    tctx = TaskContext(spec.stage_id, spec.partition, spec.attempt, spec.task_id, spec.local_properties)
    tctx.enter()
    try:
        node, payload = binary
        split = pickle.loads(spec.split_bytes)
        if spec.is_shuffle_map:
            assert isinstance(payload, ShuffleWriteSpec)
            combined = None
            if payload.count_constant is not None:
                combined = fusion.fused_items(node, payload.count_constant, split, tctx)
            records = node.iterator(split, tctx) if combined is None else combined
            value: Any = write_map_output(payload, split.index, spec.task_id, records,
                                          env.shuffle_store, combined is not None)
        else:
            value = payload(node.iterator(split, tctx))
        return TaskResult(spec.task_id, value, tctx.blocks_added, tctx.accumulator_updates, env.executor_id)
    except BaseException as exc:  # noqa: BLE001 - every failure is reported, never swallowed
        if isinstance(exc, (KeyboardInterrupt, SystemExit)) and env.executor_id == "driver":
            raise
        return TaskFailure(spec.task_id, exc, traceback.format_exc(), env.executor_id)
    finally:
        tctx.exit()

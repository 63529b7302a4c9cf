"""Runs one task in whatever process it lands in (a worker, or the driver inline).

The stage binary is unpickled once per process and cached by digest: that is what
makes a stage's functions cross into each worker only once. A closure can capture
anything (a million-element list), so the cache is bounded by the pickled size of
what it holds, and it is emptied when each job ends. In a worker the *driver* decides
what stays (it knows which binaries it sent, and sends a binary again when the worker
no longer has it): the worker's cache only obeys ``drop`` orders. Inline, the cache
evicts on its own, since every task comes with its binary.
"""

from __future__ import annotations

import pickle
import time
import traceback
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from ..nodes import fusion
from ..runtime import environment
from ..runtime.task_context import TaskContext
from ..scheduler.task import TaskFailure, TaskResult, TaskSpec
from ..shuffle.writer import ShuffleWriteSpec, write_map_output
from ..user_files import sync_python_path

#: A size (``64m``, ``512k``, or bytes), read with ``SparkConf.getSizeAsBytes``.
CLOSURE_CACHE_KEY = "spark.executor.closureCacheBytes"
#: The job property naming the accumulator a profiled job's tasks add their ``cProfile``
#: statistics to (``spark.python.profile``, see ``rdd.profiler``), keyed by the task's RDD.
PROFILE_PROPERTY = "spark.python.profile.accumulatorId"
#: Pickled bytes of stage binaries a process keeps beyond the one its task runs.
DEFAULT_CLOSURE_CACHE_BYTES = 64 * 1024 * 1024


class BinaryCache:
    """Unpickled stage binaries by digest, least recently used first.

    ``max_bytes`` bounds the pickled size of the entries (the newest entry always stays,
    its task needs it); ``None`` leaves eviction to the caller's :meth:`drop` calls.
    """

    def __init__(self, max_bytes: int | None = DEFAULT_CLOSURE_CACHE_BYTES) -> None:
        self._entries: OrderedDict[str, tuple[Any, int]] = OrderedDict()
        self._max_bytes = max_bytes
        self.nbytes = 0

    def get(self, digest: str) -> Any | None:
        entry = self._entries.get(digest)
        if entry is None:
            return None
        self._entries.move_to_end(digest)
        return entry[0]

    def put(self, digest: str, payload: bytes) -> Any:
        # A new stage's functions may import modules shipped with addPyFile since the last one.
        # The driver's own path is synced as files are added (context_files): its inline
        # tasks skip the check, a stat of a directory that cost a tenth of a small job.
        if environment.is_installed() and environment.current().executor_id != "driver":
            sync_python_path(environment.current().local_dir)
        value = pickle.loads(payload)
        self.drop([digest])
        self._entries[digest] = (value, len(payload))
        self.nbytes += len(payload)
        if self._max_bytes is not None:
            while self.nbytes > self._max_bytes and len(self._entries) > 1:
                self.drop([next(iter(self._entries))])
        return value

    def drop(self, digests: Iterable[str]) -> None:
        for digest in digests:
            entry = self._entries.pop(digest, None)
            if entry is not None:
                self.nbytes -= entry[1]

    def clear(self) -> None:
        self._entries.clear()
        self.nbytes = 0

    def __contains__(self, digest: str) -> bool:
        return digest in self._entries

    def __len__(self) -> int:
        return len(self._entries)


def run_task(spec: TaskSpec, binary: Any) -> TaskResult | TaskFailure:
    """Compute one partition and return its result, or the failure with its traceback.

    Either carries the task's metrics (run time, CPU time, shuffle bytes and records).
    """
    env = environment.current()
    tctx = TaskContext(spec.stage_id, spec.partition, spec.attempt, spec.task_id, spec.local_properties)
    tctx.enter()
    started = time.perf_counter()
    cpu_started = time.thread_time_ns()
    metrics = tctx.metrics
    store = env.shuffle_store
    if spec.inline_buckets:
        store.inline = spec.inline_buckets  # served by store.get while this task runs
    profiler = _profiler_for(spec)
    try:
        node, payload = binary
        split = pickle.loads(spec.split_bytes, buffers=spec.split_buffers)
        if spec.is_shuffle_map:
            assert isinstance(payload, ShuffleWriteSpec)
            combined = None
            if payload.count_constant is not None:
                combined = fusion.fused_counts(node, payload.count_constant, split, tctx)
            records = node.iterator(split, tctx) if combined is None else combined
            value: Any = write_map_output(payload, split.index, spec.task_id, records,
                                          env.shuffle_store, combined is not None)
        else:
            value = payload(node.iterator(split, tctx))
        if profiler is not None:
            _add_profile(tctx, spec, profiler, node.id)
        _finish_metrics(metrics, started, cpu_started)
        return TaskResult(spec.task_id, value, tctx.blocks_added, tctx.accumulator_updates, env.executor_id,
                          metrics, tctx.block_sizes)
    except BaseException as exc:  # noqa: BLE001 - every failure is reported, never swallowed
        if isinstance(exc, (KeyboardInterrupt, SystemExit)) and env.executor_id == "driver":
            raise
        _finish_metrics(metrics, started, cpu_started)
        return TaskFailure(spec.task_id, exc, traceback.format_exc(), env.executor_id, metrics)
    finally:
        if profiler is not None:
            profiler.disable()
        if spec.inline_buckets:
            store.inline = {}
        tctx.exit()


def _profiler_for(spec: TaskSpec) -> Any:
    """A started ``cProfile`` profiler when the task's job is profiled, else ``None``."""
    if PROFILE_PROPERTY not in spec.local_properties:
        return None
    import cProfile  # noqa: PLC0415 - only for profiled jobs

    profiler = cProfile.Profile()
    profiler.enable()
    return profiler


def _add_profile(tctx: TaskContext, spec: TaskSpec, profiler: Any, rdd_id: int) -> None:
    """The task's statistics, as an update of its job's profile accumulator (merged by the driver)."""
    profiler.disable()
    profiler.create_stats()
    tctx.accumulator_updates[int(spec.local_properties[PROFILE_PROPERTY])] = {rdd_id: profiler.stats}


def _finish_metrics(metrics: dict[str, int], started: float, cpu_started: int) -> None:
    metrics["executorRunTime"] = int((time.perf_counter() - started) * 1000)
    metrics["executorCpuTime"] = time.thread_time_ns() - cpu_started

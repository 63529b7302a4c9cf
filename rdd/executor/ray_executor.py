"""One executor of the Ray backend: the body of a Ray actor (``master="ray"``).

It runs the same task runner as a ``local[N]`` worker, with its own executor id, block
manager and stage-binary cache, for as long as the actor lives. What differs is the
shuffle: map outputs are not files but objects in Ray's object store.

::

    driver ── run(spec, binary|None, inputs) ──▶ actor: cache binary, fetch inputs, run_task
    driver ◀── (pickled outcome, bucket 0, ..., bucket R-1) ── actor   (num_returns = R + 1)

Invariants
----------
- The driver calls :meth:`RayExecutor.run` with ``num_returns`` set to one plus the
  number of reduce partitions of a map task (one for a result task), so each bucket of
  a map output is an object of its own, *owned by the driver*: it outlives this actor,
  is freed when the driver drops its reference (``remove_shuffle``), and a reduce task
  fetches only its own bucket of each map output.
- ``inputs`` maps ``(shuffle_id, map_id, reduce_id)`` to the reference of a bucket this
  task reads (``TaskSpec.shuffle_reads``, for every map output the driver holds). A
  reference that cannot be fetched (its node is gone) is a ``FetchFailedError`` for that
  map output, exactly as a missing shuffle file is on ``local[N]``: the scheduler re-runs
  the map task.
- Disk blocks go under the driver's local directory when this node sees it (one
  machine, or shared storage), as a ``local[N]`` worker's do; otherwise under a scratch
  directory of the actor's own. Both are removed when the actor is told to stop.
- A broadcast is read from the driver's local directory when this node sees it, else
  from the object store: the driver puts each broadcast there once and tells every
  actor its reference (``add_broadcast``), which is fetched on first use only.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from array import array
from typing import Any

from ..errors import FetchFailedError
from ..runtime import environment
from ..runtime.environment import ExecutorEnv
from ..scheduler.task import TaskFailure, TaskSpec
from ..storage import block_manager
from ..storage.block_manager import BlockManager
from .task_runner import BinaryCache, run_task
from .worker import dump_outcome


class TaskShuffleStore:
    """The shuffle store of one Ray executor: what the running task wrote and may read.

    ``put`` keeps the map task's blob and offsets for :meth:`RayExecutor.run` to return
    bucket by bucket; ``get`` serves the buckets fetched for the task before it ran.
    """

    def __init__(self) -> None:
        self.written: tuple[bytes, array] | None = None
        self.fetched: dict[tuple[int, int, int], bytes] = {}
        self.missing: dict[tuple[int, int, int], str] = {}

    def put(self, shuffle_id: int, map_id: int, attempt_id: int, blob: bytes, offsets: array) -> None:
        self.written = (blob, offsets)

    def get(self, shuffle_id: int, map_id: int, reduce_id: int) -> bytes:
        key = (shuffle_id, map_id, reduce_id)
        payload = self.fetched.get(key)
        if payload is None:
            raise FetchFailedError(shuffle_id, map_id, self.missing.get(key, "the driver holds no such map output"))
        return payload

    def remove_shuffle(self, shuffle_id: int) -> None:
        """Nothing is kept between tasks: the driver frees the objects."""

    def reset(self) -> None:
        self.written = None
        self.fetched = {}
        self.missing = {}


class RayExecutor:
    """An executor living in a Ray actor (wrapped with ``ray.remote`` by the backend)."""

    def __init__(self, executor_id: str, local_dir: str | None) -> None:
        self.executor_id = executor_id
        # On the driver's machine (or shared storage) the driver's local directory is
        # used as a local[N] worker uses it; elsewhere a scratch directory of our own.
        root = local_dir if local_dir and os.path.isdir(local_dir) else None
        self.scratch = None if root else tempfile.mkdtemp(prefix=f"dstreams-ray-executor-{executor_id}-")
        self.store = TaskShuffleStore()
        self.broadcasts: dict[int, Any] = {}
        env = ExecutorEnv(executor_id, root or self.scratch or "", self.store, self._broadcast_bytes)
        environment.install(env)
        self.block_dir = env.block_dir()
        block_manager.install(BlockManager(executor_id, self.block_dir))
        self.cache = BinaryCache(max_bytes=None)  # the driver says what to drop: it knows what it sent

    def identity(self) -> tuple[int, str]:
        """This actor's process id and its node's IP address."""
        import ray

        return os.getpid(), str(ray.util.get_node_ip_address())

    def run(self, spec: TaskSpec, binary: bytes | None,
            inputs: dict[tuple[int, int, int], Any]) -> bytes | tuple[bytes, ...]:
        """Run one task; returns its pickled outcome, then a map task's ``spec.buckets`` buckets."""
        store = self.store
        buckets = spec.buckets
        store.reset()
        try:
            stage = self.cache.get(spec.digest)
            if stage is None:
                if binary is None:
                    raise RuntimeError(f"stage binary {spec.digest} was not sent to executor {self.executor_id}")
                stage = self.cache.put(spec.digest, binary)
            self._fetch(inputs)
            outcome: Any = run_task(spec, stage)
        except BaseException as exc:  # noqa: BLE001 - unpickling user code can raise anything
            import traceback

            outcome = TaskFailure(spec.task_id, exc, traceback.format_exc(), self.executor_id)
        parts: list[bytes] = [b""] * buckets
        written = store.written
        if written is not None and not isinstance(outcome, TaskFailure):
            blob, offsets = written  # buckets + 1 offsets (``write_map_output``)
            view = memoryview(blob)
            parts = [bytes(view[offsets[i]:offsets[i + 1]]) for i in range(buckets)]
        store.reset()
        if buckets == 0:
            return dump_outcome(outcome)  # num_returns=1: the value itself, not a 1-tuple
        return (dump_outcome(outcome), *parts)

    def _fetch(self, inputs: dict[tuple[int, int, int], Any]) -> None:
        """Fetch every input bucket at once; on a failure find which ones are gone."""
        if not inputs:
            return
        import ray

        keys = list(inputs)
        refs = list(inputs.values())
        try:
            self.store.fetched = dict(zip(keys, ray.get(refs), strict=True))
            return
        except ray.exceptions.RayError:
            pass
        for key, ref in zip(keys, refs, strict=True):
            try:
                self.store.fetched[key] = ray.get(ref)
            except ray.exceptions.RayError as exc:
                self.store.missing[key] = f"its object in the Ray object store is lost ({type(exc).__name__})"

    def add_broadcast(self, broadcast_id: int, holder: list[Any]) -> None:
        """Remember where broadcast ``broadcast_id`` is (``[ref]``: fetched on first use only)."""
        self.broadcasts[broadcast_id] = holder[0]

    def remove_broadcast(self, broadcast_id: int) -> None:
        self.broadcasts.pop(broadcast_id, None)

    def _broadcast_bytes(self, broadcast_id: int) -> bytes | None:
        ref = self.broadcasts.get(broadcast_id)
        if ref is None:
            return None
        import ray

        return bytes(ray.get(ref))

    def node_id(self) -> str:
        """The Ray node this actor runs on."""
        import ray

        return str(ray.get_runtime_context().get_node_id())

    def remove_rdd(self, rdd_id: int) -> None:
        block_manager.current().remove_rdd(rdd_id)

    def drop_binaries(self, digests: list[str]) -> None:
        self.cache.drop(digests)

    def stop(self) -> None:
        """Drop every block and remove this executor's directories (the actor is killed next)."""
        block_manager.current().clear()
        shutil.rmtree(self.block_dir, ignore_errors=True)
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)

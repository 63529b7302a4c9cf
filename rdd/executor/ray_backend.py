"""RayBackend (``ray``, ``ray[N]``): executors are Ray actors; scheduling stays ours.

::

    submit() ─▶ queues ─▶ idle executor ── actor.run.remote(spec, binary ref, input refs) ──▶ RayExecutor
                 ▲ own queue (locality), then shared, then steal (``placement``)
    outcome object ready (a Ray callback) ─▶ results queue ─▶ results thread:
        outcome        ─▶ executor idle again ─▶ map output buckets kept ─▶ on_event(TaskFinished/TaskFailed)
        actor died     ─▶ replacement with a new id ─▶ on_event(ExecutorLost)

Invariants
----------
- The driver's DAG scheduler, lineage and recovery are the ones ``local[N]`` uses; this
  backend only keeps the executor contract (``rdd.executor.backend``), so a program
  behaves on ``ray`` as on ``local[N]``.
- An executor has at most one task in flight, as a ``local[N]`` worker: a dead actor
  loses exactly that task, and ``cancel_job`` can drop every queued task.
- A stage binary is put in the object store once per job and sent to an actor once; an
  actor that has it gets only the digest (the same budget as ``local[N]`` bounds what
  each actor keeps).
- Map outputs are objects owned by the driver, one per bucket (see ``ray_executor``):
  the driver keeps their references per ``(shuffle_id, map_id)`` until the shuffle is
  removed, which frees them by reference counting. A reduce task gets the references
  of the buckets it reads; one that cannot be fetched is a ``FetchFailedError``.
- Each broadcast is put in the object store once; every actor, a replacement too, is
  told its reference and fetches it on first use if it cannot read the driver's file.
- A dead actor is ``ExecutorLost``; its replacement has a new executor id and an empty
  block manager. Once ``shutdown`` has begun no actor is started.
- ``shutdown`` asks idle actors to clean up, kills every actor of this context, waits
  (on this node) for their processes to end, drops every object reference, then closes
  the connection (shutting a local cluster down if the context started it).
"""

from __future__ import annotations

import logging
import os
import pickle
import queue
import sys
import threading
import time
from collections import OrderedDict, deque
from typing import Any

from ..checkpoint import process_is_alive
from ..partitioner import worker_hash_seed
from ..scheduler.events import BackendEvent, EventSink, ExecutorLost, TaskFailed, TaskFinished
from ..scheduler.task import TaskFailure, TaskSpec
from . import placement
from .ray_cluster import RayConnection
from .ray_executor import RayExecutor
from .task_runner import DEFAULT_CLOSURE_CACHE_BYTES

log = logging.getLogger(__name__)

#: How long the first executors may take to start before the context gives up.
START_TIMEOUT_S = 120.0
_STOP_GRACE_S = 2.0
_EXIT_WAIT_S = 10.0


class _Executor:
    def __init__(self, executor_id: str, actor: Any) -> None:
        self.executor_id = executor_id
        self.actor = actor
        self.pid: int | None = None
        self.node_ip = ""
        self.identity: Any = None  # the reference of its (pid, node IP), asked once at start
        self.running: TaskSpec | None = None
        self.cancelled = False
        self.digests: OrderedDict[str, int] = OrderedDict()
        self.queue: deque[placement.Queued] = deque()


class RayBackend:
    def __init__(self, connection: RayConnection, executors: int, cores: int, on_event: EventSink,
                 local_dir: str, env_vars: dict[str, str] | None = None, locality_wait: float = 3.0,
                 closure_cache_bytes: int = DEFAULT_CLOSURE_CACHE_BYTES, observer: Any = None) -> None:
        self._ray = ray = connection.ray
        self.connection = connection
        self._on_event = on_event
        self._observer = observer
        self._local_dir = local_dir
        self._cores = cores
        self._locality_wait = locality_wait
        self._closure_cache_bytes = closure_cache_bytes
        env = dict(env_vars or {})
        env["PYTHONHASHSEED"] = worker_hash_seed(env.get("PYTHONHASHSEED"))
        env.setdefault("OMP_NUM_THREADS", str(cores))
        env.setdefault("PYTHONPATH", os.pathsep.join(p for p in sys.path if p))
        self._actor_class = ray.remote(RayExecutor).options(
            num_cpus=cores, max_restarts=0, max_task_retries=0, scheduling_strategy="SPREAD",
            runtime_env={"env_vars": env})
        self._lock = threading.RLock()
        self._executors: dict[str, _Executor] = {}
        self._shared: deque[placement.Queued] = deque()
        self._binary_refs: dict[str, Any] = {}
        self._broadcast_refs: dict[int, Any] = {}
        #: shuffle id -> map id -> bucket references (the driver owns the objects)
        self.map_outputs: dict[int, dict[int, list[Any]]] = {}
        self._results: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._next_id = 0
        self._closing = False
        self._num_executors = executors
        offered = connection.cpus()
        if executors * cores > offered:
            raise ValueError(f"master asks for {executors} Ray executor(s) of {cores} CPU(s) each, but the "
                             f"cluster at {connection.address} offers {offered} CPU(s): ask for fewer "
                             "(ray[N], spark.executor.instances, spark.executor.cores) or add nodes")
        for _ in range(executors):
            self._start_executor()
        self._await_started(list(self._executors.values()))
        self._thread = threading.Thread(target=self._result_loop, daemon=True, name="ray-executor-results")
        self._thread.start()

    # -- public seam -------------------------------------------------------------
    @property
    def parallelism(self) -> int:
        return self._num_executors

    def executor_ids(self) -> list[str]:
        with self._lock:
            return list(self._executors)

    def worker_pids(self) -> list[int]:
        """The executors' process ids (on their own nodes: a multi-node cluster repeats them)."""
        with self._lock:
            return [e.pid for e in self._executors.values() if e.pid is not None]

    def actors(self) -> dict[str, Any]:
        """The live actor handles by executor id (for diagnostics and tests)."""
        with self._lock:
            return {e.executor_id: e.actor for e in self._executors.values()}

    def submit(self, spec: TaskSpec, binary: bytes) -> None:
        with self._lock:
            if self._closing:
                raise RuntimeError("the Ray executors are shut down")
            owner = self._executors.get(spec.preferred) if spec.preferred else None
            (owner.queue if owner is not None else self._shared).append((spec, binary, time.monotonic()))
            self._dispatch()
            if owner is not None and owner.queue:
                self._results.put(None)  # the results thread must start the locality-wait clock

    def remove_rdd(self, rdd_id: int) -> None:
        with self._lock:
            for executor in self._executors.values():
                executor.actor.remove_rdd.remote(rdd_id)

    def remove_shuffle(self, shuffle_id: int) -> None:
        """Drop the references of a shuffle's map outputs: Ray frees the objects."""
        with self._lock:
            self.map_outputs.pop(shuffle_id, None)

    def add_broadcast(self, broadcast_id: int, path: str) -> None:
        """Put a broadcast's pickled value in the object store and tell every executor where."""
        with open(path, "rb") as f:
            ref = self._ray.put(f.read())
        with self._lock:
            self._broadcast_refs[broadcast_id] = ref
            for executor in self._executors.values():
                executor.actor.add_broadcast.remote(broadcast_id, [ref])

    def remove_broadcast(self, broadcast_id: int) -> None:
        with self._lock:
            if self._broadcast_refs.pop(broadcast_id, None) is not None:
                for executor in self._executors.values():
                    executor.actor.remove_broadcast.remote(broadcast_id)

    def release_binaries(self) -> None:
        with self._lock:
            for executor in self._executors.values():
                if executor.digests:
                    executor.actor.drop_binaries.remote(list(executor.digests))
                    executor.digests.clear()
            self._binary_refs.clear()

    def cancel_job(self, job_id: int) -> None:
        with self._lock:
            if self._closing:
                return
            placement.drop_job([self._shared] + [e.queue for e in self._executors.values()], job_id)
            for executor in self._executors.values():
                running = executor.running
                if running is not None and running.job_id == job_id and not executor.cancelled:
                    executor.cancelled = True
                    self._ray.kill(executor.actor, no_restart=True)  # seen as a death, then replaced

    def shutdown(self) -> None:
        with self._lock:
            if self._closing:
                return
            self._closing = True
            executors = list(self._executors.values())
            self._shared.clear()
        ray = self._ray
        try:
            idle = [e.actor.stop.remote() for e in executors if e.running is None]
            if idle:
                ray.wait(idle, num_returns=len(idle), timeout=_STOP_GRACE_S)
            for executor in executors:
                ray.kill(executor.actor, no_restart=True)
        except Exception:  # noqa: BLE001 - the cluster may already be gone; nothing else to stop
            log.debug("stopping Ray executors", exc_info=True)
        self._results.put(None)
        self._thread.join(_STOP_GRACE_S)
        here = ray.util.get_node_ip_address() if ray.is_initialized() else None
        _wait_for_exit([e.pid for e in executors if e.pid is not None and e.node_ip == here])
        with self._lock:
            self.map_outputs.clear()
            self._binary_refs.clear()
            self._broadcast_refs.clear()
            self._executors.clear()
        self.connection.close()

    # -- executors ---------------------------------------------------------------
    def _start_executor(self) -> _Executor:
        executor_id = str(self._next_id)
        self._next_id += 1
        actor = self._actor_class.remote(executor_id, self._local_dir)
        executor = _Executor(executor_id, actor)
        self._executors[executor_id] = executor
        for broadcast_id, ref in self._broadcast_refs.items():  # a replacement learns them too
            actor.add_broadcast.remote(broadcast_id, [ref])
        executor.identity = actor.identity.remote()
        executor.identity.future().add_done_callback(lambda _: self._results.put(("pid", executor)))
        return executor

    def _await_started(self, executors: list[_Executor]) -> None:
        try:
            identities = self._ray.get([e.identity for e in executors], timeout=START_TIMEOUT_S)
        except Exception as exc:
            for executor in executors:
                self._ray.kill(executor.actor, no_restart=True)
            raise RuntimeError(f"the Ray executors did not start within {START_TIMEOUT_S:.0f} s "
                               f"({type(exc).__name__}: {exc}); check the cluster at "
                               f"{self.connection.address} (ray status)") from exc
        for executor, identity in zip(executors, identities, strict=True):
            self._started(executor, identity)

    def _started(self, executor: _Executor, identity: tuple[int, str]) -> None:
        if executor.pid is None:
            executor.pid, executor.node_ip = identity
            if self._observer is not None:
                self._observer.executor_added(executor.executor_id, executor.pid)

    def _dispatch(self) -> None:
        """Give every idle executor a task: its own first, then shared, then stolen."""
        for executor in list(self._executors.values()):
            if executor.running is not None:
                continue
            item = placement.next_task(executor, self._executors.values(), self._shared, self._locality_wait)
            if item is None:
                continue
            spec, binary, _ = item
            executor.running = spec
            if self._observer is not None:
                self._observer.task_launched(spec, executor.executor_id)
            payload = None
            if spec.digest not in executor.digests:
                payload = self._binary_refs.get(spec.digest)
                if payload is None:
                    payload = self._binary_refs[spec.digest] = self._ray.put(binary)
            evicted = placement.remember_binary(executor.digests, spec.digest, len(binary),
                                                self._closure_cache_bytes)
            if evicted:
                executor.actor.drop_binaries.remote(evicted)
            returned = executor.actor.run.options(num_returns=1 + spec.buckets).remote(
                spec, payload, self._inputs(spec))
            refs = returned if spec.buckets else [returned]  # the outcome, then the buckets
            refs[0].future().add_done_callback(
                lambda _, e=executor, s=spec, r=refs: self._results.put(("done", e, s, r)))

    def _inputs(self, spec: TaskSpec) -> dict[tuple[int, int, int], Any]:
        inputs: dict[tuple[int, int, int], Any] = {}
        for shuffle_id, reduce_id in spec.shuffle_reads:
            for map_id, buckets in self.map_outputs.get(shuffle_id, {}).items():
                inputs[(shuffle_id, map_id, reduce_id)] = buckets[reduce_id]
        return inputs

    # -- the results thread ------------------------------------------------------------
    def _result_loop(self) -> None:
        while True:
            with self._lock:
                if self._closing:
                    return
                timeout = placement.steal_timeout(self._executors.values(), self._locality_wait)
            try:
                item = self._results.get(timeout=timeout)
            except queue.Empty:
                with self._lock:
                    if not self._closing:
                        self._dispatch()
                continue
            if item is None:
                continue
            if item[0] == "pid":
                _, executor = item
                try:
                    self._started(executor, self._ray.get(executor.identity))
                except Exception:  # noqa: BLE001 - it died starting: its first task reports that
                    pass
                continue
            _, executor, spec, refs = item
            event = self._outcome(executor, spec, refs)
            if event is not None:
                self._on_event(event)

    def _outcome(self, executor: _Executor, spec: TaskSpec, refs: list[Any]) -> BackendEvent | None:
        ray = self._ray
        try:
            data = ray.get(refs[0])
        except ray.exceptions.RayError as exc:
            return self._lose(executor, f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
        outcome = pickle.loads(data)
        metrics = getattr(outcome, "metrics", None)
        if metrics is not None:
            metrics["resultSize"] = len(data)
        with self._lock:
            if self._closing:
                return None
            executor.running = None
            if spec.buckets and not isinstance(outcome, TaskFailure):
                self.map_outputs.setdefault(spec.shuffle_id, {})[spec.partition] = refs[1:]
            self._dispatch()
        if isinstance(outcome, TaskFailure):
            return TaskFailed(spec, outcome)
        return TaskFinished(spec, outcome)

    def _lose(self, executor: _Executor, cause: str) -> BackendEvent | None:
        with self._lock:
            if self._closing or executor.executor_id not in self._executors:
                return None
            del self._executors[executor.executor_id]
            lost = (executor.running,) if executor.running is not None else ()
            self._shared.extendleft(reversed(executor.queue))  # their cached input died with it
            self._start_executor()
            self._dispatch()
        reason = f"executor {executor.executor_id} (Ray actor, pid {executor.pid}) died: {cause}"
        if executor.cancelled:
            log.info("%s (killed to cancel its task); started a replacement", reason)
        else:
            log.warning("%s; starting a replacement", reason)
        return ExecutorLost(executor.executor_id, reason, lost)


def _wait_for_exit(pids: list[int]) -> None:
    """Wait until the actors' processes on this machine have ended (others: Ray's to end)."""
    deadline = time.monotonic() + _EXIT_WAIT_S
    for pid in pids:
        while process_is_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.02)

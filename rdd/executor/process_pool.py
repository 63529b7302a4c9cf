"""ProcessPoolBackend (``local[N]``): N long-lived worker processes.

::

    submit() ─▶ queues ─▶ idle worker ──pipe──▶ worker_main
                 ▲ own queue (locality), then the shared queue, then steal
    reader thread: wait(pipes + process sentinels)
        result on a pipe   ─▶ worker idle again ─▶ on_event(TaskFinished/TaskFailed) ─▶ dispatch
        sentinel fires     ─▶ worker dead ─▶ replacement started ─▶ on_event(ExecutorLost)

Invariants
----------
- A worker has at most one task in flight; the driver knows which one, so a death
  loses exactly that task, reported in ``ExecutorLost``.
- A task with a preferred executor (it holds the task's cached input) waits in that
  worker's queue; which task an idle worker takes is ``placement``'s policy (its own,
  then shared, then one stolen after ``spark.locality.wait``): a cached partition is
  read where it lives, yet a core never idles for long behind one busy worker.
- A stage binary is sent to a worker once; later tasks carry only its digest. The
  driver keeps, per worker, the digests it sent and their pickled sizes: over the
  closure-cache budget it tells the worker to drop the least recently used ones, and
  at the end of each job to drop them all; a digest it dropped is sent again in full.
  At a job's end, binaries of at least ``EAGER_DROP_BYTES`` in all are dropped at once
  (a closure may hold a lot); smaller ones are dropped with the worker's next task, in
  the same message, so a micro-batch does not wake every worker once more per job.
- ``cancel_job`` drops the job's queued tasks and kills the workers running its tasks
  (a Python task cannot be interrupted from outside; PySpark kills its worker too);
  they are replaced as any dead worker is.
- ``shutdown`` kills busy workers at once (their jobs are cancelled), asks idle ones to
  stop, and kills those that do not within a grace period: nothing outlives it. Once
  it has begun, a dying worker is never replaced.
- Workers ignore SIGINT, SIGTERM and SIGHUP (see launcher.py), so only SIGKILL, used
  here, ends one early: a Ctrl-C or a process-group SIGTERM is the driver's to handle.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import pickle
import select
import threading
import time
from collections import OrderedDict, deque
from multiprocessing.connection import Connection
from typing import Any

from ..scheduler.events import EventSink, ExecutorLost, TaskFailed, TaskFinished
from ..scheduler.task import TaskFailure, TaskSpec
from . import placement
from .launcher import ExecWorker, ForkedWorker
from .task_runner import DEFAULT_CLOSURE_CACHE_BYTES
from .worker import worker_main

log = logging.getLogger(__name__)

_STOP_GRACE_SECONDS = 2.0
#: Pickled bytes of a worker's binaries from which a job's end drops them at once.
EAGER_DROP_BYTES = 1024 * 1024


class _Worker:
    def __init__(self, executor_id: str, process: Any, conn: Connection) -> None:
        self.executor_id = executor_id
        self.process = process
        self.conn = conn
        self.running: TaskSpec | None = None
        self.cancelled = False  # killed by cancel_job: its replacement is routine
        self.digests: OrderedDict[str, int] = OrderedDict()  # sent binaries, LRU first: size
        self.stale: list[str] = []  # released binaries to drop with the next task
        self.queue: deque[tuple[TaskSpec, bytes, float]] = deque()


class ProcessPoolBackend:
    def __init__(self, num_workers: int, local_dir: str, on_event: EventSink,
                 start_method: str = "exec", env_vars: dict[str, str] | None = None,
                 locality_wait: float = 3.0,
                 closure_cache_bytes: int = DEFAULT_CLOSURE_CACHE_BYTES, observer: Any = None) -> None:
        self._observer = observer  # told of each executor started and each task handed to one
        self._locality_wait = locality_wait
        self._closure_cache_bytes = closure_cache_bytes
        self._mp = multiprocessing.get_context("fork") if start_method == "fork" else None
        self._start_method = start_method
        self._local_dir = local_dir
        self._on_event = on_event
        self._env_vars = dict(env_vars or {})
        self._lock = threading.RLock()
        self._workers: dict[str, _Worker] = {}
        self._shared: deque[tuple[TaskSpec, bytes, float]] = deque()
        self._next_id = 0
        self._generation = 0  # bumped whenever a worker starts: the reader re-registers its pipes
        self._closing = False
        self._poked = False
        self._wake_r, self._wake_w = multiprocessing.Pipe(duplex=False)
        self._num_workers = num_workers
        for _ in range(num_workers):
            self._start_worker()
        self._reader = threading.Thread(target=self._read_loop, daemon=True, name="executor-results")
        self._reader.start()

    # -- public seam -------------------------------------------------------------
    @property
    def parallelism(self) -> int:
        return self._num_workers

    def executor_ids(self) -> list[str]:
        with self._lock:
            return list(self._workers)

    def worker_pids(self) -> list[int]:
        with self._lock:
            return [w.process.pid for w in self._workers.values()]

    def submit(self, spec: TaskSpec, binary: bytes) -> None:
        with self._lock:
            if self._closing:
                raise RuntimeError("the executor pool is shut down")
            owner = self._workers.get(spec.preferred) if spec.preferred else None
            (owner.queue if owner is not None else self._shared).append((spec, binary, time.monotonic()))
            self._dispatch()
            if owner is not None and owner.queue and not self._poked:
                self._poked = True  # the reader must start the locality-wait clock for this task
                self._wake_w.send_bytes(b"w")

    def remove_rdd(self, rdd_id: int) -> None:
        with self._lock:
            for worker in self._workers.values():
                self._send(worker, ("remove_rdd", rdd_id))

    def release_binaries(self) -> None:
        """Tell every worker to drop the stage binaries it holds (a job ended)."""
        with self._lock:
            for worker in self._workers.values():
                if worker.digests:
                    worker.stale.extend(worker.digests)
                    if sum(worker.digests.values()) >= EAGER_DROP_BYTES:
                        self._send(worker, ("drop_binaries", worker.stale))
                        worker.stale = []
                    worker.digests.clear()

    def cancel_job(self, job_id: int) -> None:
        with self._lock:
            if self._closing:
                return
            placement.drop_job([self._shared] + [w.queue for w in self._workers.values()], job_id)
            for worker in self._workers.values():
                running = worker.running
                if running is not None and running.job_id == job_id and not worker.cancelled:
                    worker.cancelled = True
                    worker.process.kill()  # the reader sees it die and starts a replacement

    def shutdown(self) -> None:
        with self._lock:
            if self._closing:
                return
            self._closing = True
            workers = list(self._workers.values())
            busy = [w for w in workers if w.running is not None]
        for worker in workers:
            if worker in busy:
                worker.process.kill()
            else:
                self._send(worker, ("stop",))
        self._wake_w.send_bytes(b"x")
        for worker in workers:
            worker.process.join(_STOP_GRACE_SECONDS)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.conn.close()
        self._reader.join(_STOP_GRACE_SECONDS)

    # -- workers ---------------------------------------------------------------
    def _start_worker(self) -> None:
        executor_id = str(self._next_id)
        self._next_id += 1
        if self._start_method == "exec":
            handle: Any = ExecWorker(executor_id, self._local_dir, self._env_vars)
        else:
            inherited = [w.conn for w in self._workers.values()] + [self._wake_r, self._wake_w]

            def args(conn: Connection) -> tuple:
                return (conn, executor_id, self._local_dir, os.getpid(), inherited, self._env_vars)

            handle = ForkedWorker(self._mp, worker_main, args, f"dstreams-executor-{executor_id}")
        self._workers[executor_id] = _Worker(executor_id, handle, handle.conn)
        self._generation += 1
        if self._observer is not None:
            self._observer.executor_added(executor_id, handle.pid)

    def _send(self, worker: _Worker, message: tuple) -> bool:
        try:
            worker.conn.send_bytes(pickle.dumps(message, protocol=5))
            return True
        except (OSError, ValueError):
            return False  # the reader thread will see the sentinel and report the loss

    def _dispatch(self) -> None:
        """Give every idle worker a task: its own first, then shared, then stolen."""
        for worker in list(self._workers.values()):
            if worker.running is not None:
                continue
            item = placement.next_task(worker, self._workers.values(), self._shared, self._locality_wait)
            if item is None:
                continue
            spec, binary, _ = item
            worker.running = spec
            if self._observer is not None:
                self._observer.task_launched(spec, worker.executor_id)
            payload = None if spec.digest in worker.digests else binary
            evicted = placement.remember_binary(worker.digests, spec.digest, len(binary), self._closure_cache_bytes)
            if evicted:
                self._send(worker, ("drop_binaries", evicted))
            stale, worker.stale = worker.stale, []
            self._send(worker, ("task", spec, payload, stale))

    # -- the reader thread -----------------------------------------------------
    def _read_loop(self) -> None:
        # One poll object for the pool's life, re-registered only when the workers change
        # (``_generation``): building a selector and registering every pipe for each
        # result, as multiprocessing's wait() does, cost more than reading the result.
        poller = select.poll()
        handles: dict[int, Any] = {}
        by_conn: dict[Any, _Worker] = {}
        by_sentinel: dict[Any, _Worker] = {}
        generation = -1
        while True:
            with self._lock:
                if self._closing:
                    return
                if generation != self._generation:
                    generation = self._generation
                    by_conn = {w.conn: w for w in self._workers.values()}
                    by_sentinel = {w.process.sentinel: w for w in self._workers.values()
                                   if w.process.sentinel is not None}
                    wanted = {c.fileno(): c for c in by_conn}
                    wanted.update({fd: fd for fd in by_sentinel})
                    wanted[self._wake_r.fileno()] = self._wake_r
                    for fd in handles:
                        poller.unregister(fd)
                    for fd in wanted:
                        poller.register(fd, select.POLLIN)
                    handles = wanted
                timeout = placement.steal_timeout(self._workers.values(), self._locality_wait)
            events = poller.poll(None if timeout is None else max(0.0, timeout) * 1000)
            ready: list[Any] = [handles[fd] for fd, _ in events if fd in handles]
            if not ready:
                with self._lock:
                    if not self._closing:
                        self._dispatch()
                continue
            if self._wake_r in ready:
                self._wake_r.recv_bytes()
                with self._lock:
                    self._poked = False
                    if self._closing:
                        return
                continue
            dead: list[_Worker] = []
            for handle in ready:
                worker = by_conn.get(handle)
                if worker is not None:
                    if not self._receive(worker):
                        dead.append(worker)
            for handle in ready:
                worker = by_sentinel.get(handle)
                if worker is not None and worker not in dead:
                    while worker.conn.poll():  # a result sent just before dying still counts
                        if not self._receive(worker):
                            break
                    dead.append(worker)
            for worker in dead:
                self._lose(worker)

    def _receive(self, worker: _Worker) -> bool:
        try:
            data = worker.conn.recv_bytes()
            outcome = pickle.loads(data)
        except (EOFError, OSError):
            return False
        metrics = getattr(outcome, "metrics", None)
        if metrics is not None:
            metrics["resultSize"] = len(data)
        with self._lock:
            spec = worker.running
            worker.running = None
            if not self._closing:
                self._dispatch()
        if spec is None or spec.task_id != outcome.task_id:
            log.error("executor %s returned task %s but was running %s", worker.executor_id,
                      outcome.task_id, spec and spec.task_id)
            return True
        self._on_event(TaskFailed(spec, outcome) if isinstance(outcome, TaskFailure) else TaskFinished(spec, outcome))
        return True

    def _lose(self, worker: _Worker) -> None:
        with self._lock:
            if self._closing or worker.executor_id not in self._workers:
                return
            del self._workers[worker.executor_id]
            self._generation += 1
            lost = (worker.running,) if worker.running is not None else ()
            self._shared.extendleft(reversed(worker.queue))  # their cached input died with it
            code = worker.process.exitcode
            try:
                worker.conn.close()
            except OSError:
                pass
            self._start_worker()
            self._dispatch()
        reason = f"executor {worker.executor_id} (pid {worker.process.pid}) exited with code {code}"
        if worker.cancelled:
            log.info("%s (killed to cancel its task); started a replacement", reason)
        else:
            log.warning("%s; starting a replacement", reason)
        self._on_event(ExecutorLost(worker.executor_id, reason, lost))

"""ProcessPoolBackend (``local[N]``): N long-lived worker processes.

::

    submit() ─▶ queues ─▶ idle worker ──pipe──▶ worker_main
                 ▲ own queue (locality), then the shared queue, then steal
    pump() on the job's thread: poll(pipes + process sentinels)
        result on a pipe   ─▶ worker idle again ─▶ on_event(TaskFinished/TaskFailed) ─▶ dispatch
        sentinel fires     ─▶ worker dead ─▶ replacement started ─▶ on_event(ExecutorLost)
    watcher thread: poll(process sentinels), the same for a death between jobs

Invariants
----------
- Task outcomes are read by ``pump`` only, on the thread waiting for them (the job's),
  so a result wakes one thread, not a reader that then wakes the job's thread. A
  worker's death is seen by a pump or by the watcher thread, whichever handles it
  first; the other skips a worker no longer in the pool.
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
from ..serialization.serializer import out_of_band
from . import placement
from .launcher import ExecWorker, ForkedWorker
from .messages import send_message
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


class _PollState:
    """The poll object over the workers' pipes and sentinels, and what each descriptor is."""

    def __init__(self) -> None:
        self.poller = select.poll()
        self.generation = -1
        self.handles: dict[int, Any] = {}
        self.by_conn: dict[Any, _Worker] = {}
        self.by_sentinel: dict[Any, _Worker] = {}

    def refresh(self, generation: int, workers: Any, wake: Connection, with_results: bool) -> None:
        self.generation = generation
        self.by_conn = {w.conn: w for w in workers} if with_results else {}
        self.by_sentinel = {w.process.sentinel: w for w in workers if w.process.sentinel is not None}
        wanted: dict[int, Any] = {c.fileno(): c for c in self.by_conn}
        wanted.update({fd: fd for fd in self.by_sentinel})
        wanted[wake.fileno()] = wake
        for fd in self.handles:
            self.poller.unregister(fd)
        for fd in wanted:
            self.poller.register(fd, select.POLLIN)
        self.handles = wanted


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
        self._generation = 0  # bumped whenever the workers change: each waiter re-registers its poll
        self._closing = False
        self._wake_r, self._wake_w = multiprocessing.Pipe(duplex=False)
        self._pump_r, self._pump_w = multiprocessing.Pipe(duplex=False)  # wakes a job's thread in pump()
        self._read_lock = threading.Lock()  # held while handling what a poll saw: one thread at a time
        self._pump_lock = threading.Lock()  # one thread pumps at a time (it owns ``_pump_state``)
        self._pump_state = _PollState()
        self._num_workers = num_workers
        for _ in range(num_workers):
            self._start_worker()
        self._watcher = threading.Thread(target=self._watch_loop, daemon=True, name="executor-watcher")
        self._watcher.start()

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
                    worker.process.kill()  # a pump or the watcher sees it die and starts a replacement

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
        self._pump_w.send_bytes(b"x")
        for worker in workers:
            worker.process.join(_STOP_GRACE_SECONDS)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.conn.close()
        self._watcher.join(_STOP_GRACE_SECONDS)

    # -- workers ---------------------------------------------------------------
    def _start_worker(self) -> None:
        executor_id = str(self._next_id)
        self._next_id += 1
        if self._start_method == "exec":
            handle: Any = ExecWorker(executor_id, self._local_dir, self._env_vars)
        else:
            inherited = [w.conn for w in self._workers.values()]
            inherited += [self._wake_r, self._wake_w, self._pump_r, self._pump_w]

            def args(conn: Connection) -> tuple:
                return (conn, executor_id, self._local_dir, os.getpid(), inherited, self._env_vars)

            handle = ForkedWorker(self._mp, worker_main, args, f"dstreams-executor-{executor_id}")
        self._workers[executor_id] = _Worker(executor_id, handle, handle.conn)
        self._generation += 1
        if self._observer is not None:
            self._observer.executor_added(executor_id, handle.pid)

    def _send(self, worker: _Worker, message: tuple) -> bool:
        try:
            send_message(worker.conn, message)
            return True
        except (OSError, ValueError):
            return False  # a pump or the watcher will see the sentinel and report the loss

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
            payload = None if spec.digest in worker.digests else out_of_band(binary)
            evicted = placement.remember_binary(worker.digests, spec.digest, len(binary), self._closure_cache_bytes)
            if evicted:
                self._send(worker, ("drop_binaries", evicted))
            stale, worker.stale = worker.stale, []
            self._send(worker, ("task", spec, payload, stale))

    # -- reading the workers' pipes ----------------------------------------------------
    def pump(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for the workers, on the calling thread, and handle what came.

        Task outcomes are read here only: a caller waiting for them calls ``pump`` in a
        loop, and they reach ``on_event`` from its thread before it returns. Handing
        each result from a reader thread to the job's thread cost a thread switch per
        task, a large share of a small job. It returns after one wait, whether or not
        anything arrived (at once after ``interrupt``), and raises ``RuntimeError``
        once the pool is shut down (nothing more will come).
        """
        with self._pump_lock:
            if not self._wait_once(self._pump_state, self._pump_r, timeout, with_results=True):
                raise RuntimeError("the executor pool is shut down")

    def interrupt(self) -> None:
        """Make a thread waiting in ``pump`` return at once."""
        with self._lock:
            if not self._closing:
                self._pump_w.send_bytes(b"i")

    def _watch_loop(self) -> None:
        """The watcher thread: replaces workers that die, between jobs as during them."""
        state = _PollState()
        while self._wait_once(state, self._wake_r, None, with_results=False):
            pass

    def _wait_once(self, state: _PollState, wake: Connection, cap: float | None, with_results: bool) -> bool:
        """Wait once (up to ``cap`` seconds) for the descriptors of ``state``, then handle them; False: closing.

        The watcher and a pumping thread wait at once, without a lock (a poll consumes
        nothing), and handle what they saw under ``_read_lock``. Only a pump reads a
        live worker's results, so what its poll saw is still there; the watcher reads a
        dead worker's last results and removes it in one step, so a pump skips a worker
        no longer in the pool. Each waiter keeps one poll object, re-registered only
        when the workers change (``_generation``): building a selector and registering
        every pipe for each result, as multiprocessing's wait() does, cost more than
        reading the result.
        """
        with self._lock:
            if self._closing:
                return False
            if state.generation != self._generation:
                state.refresh(self._generation, self._workers.values(), wake, with_results)
            timeout = placement.steal_timeout(self._workers.values(), self._locality_wait) if with_results else None
            if cap is not None:
                timeout = cap if timeout is None else min(timeout, cap)
        events = state.poller.poll(None if timeout is None else max(0.0, timeout) * 1000)
        ready: list[Any] = [state.handles[fd] for fd, _ in events if fd in state.handles]
        with self._read_lock:
            return self._handle_ready(state, wake, ready)

    def _handle_ready(self, state: _PollState, wake: Connection, ready: list[Any]) -> bool:
        if not ready:
            with self._lock:
                if not self._closing:
                    self._dispatch()  # a locality wait ran out
            return True
        if wake in ready:
            while wake.poll():
                wake.recv_bytes()
            if self._closing:
                return False
        dead: list[_Worker] = []
        for handle in ready:
            worker = state.by_conn.get(handle)
            if worker is not None and self._live(worker):
                if not self._receive(worker):
                    dead.append(worker)
        for handle in ready:
            worker = state.by_sentinel.get(handle)
            if worker is not None and worker not in dead and self._live(worker):
                while worker.conn.poll():  # a result sent just before dying still counts
                    if not self._receive(worker):
                        break
                dead.append(worker)
        for worker in dead:
            self._lose(worker)
        return True

    def _live(self, worker: _Worker) -> bool:
        """Whether ``worker`` is still in the pool (the other waiter may have handled its death)."""
        with self._lock:
            return self._workers.get(worker.executor_id) is worker

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

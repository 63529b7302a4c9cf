"""JobGenerator: the control thread that turns clock ticks into job sets.

Data flow::

    clock.wait_till_time(next) --> on_tick(t):
        1. clear_metadata for batches completed since the last tick (graph cleanup)
        2. graph.generate_jobs(t)   -- builds RDD lineage, runs user transform functions
        3. scheduler.submit(JobSet) -- or scheduler.skip(t) when there are no jobs
    next += batch

What this module owns
---------------------
* The batch grid. At start ``first = (floor(now / B) + 1) * B`` and
  ``zero_time = first - B``, so every batch time is ``zero_time + k*B`` (epoch aligned;
  with a ManualClock at 0 the batches are ``B, 2B, ...``). The timer adds ``B`` to the
  *scheduled* time, never to "now": after a stall the missed batches run back to back
  (Spark's behaviour) rather than being skipped.
* The graph: generation and metadata cleanup run only on this thread, which is why the
  per-node memos need no locks. The graph lock
  is still taken so ``DStream.slice`` from another thread sees a consistent memo.
* Cleanup timing: the job thread reports completed batches through a deque; they are
  cleared at the start of the next tick. Cleanup therefore lags at most one batch and
  the generator never needs a second wake-up source besides the clock. The cached RDDs
  that cleanup drops are unpersisted by the job thread, before the next batch's jobs:
  engine calls other than building lineage stay off this thread, so an unpersist never
  runs concurrently with a job.

:meth:`JobGenerator.on_tick` holds all the per-batch logic and is callable without
the thread, for tests.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dstream.clock import Clock
from dstream.scheduler.job import JobSet
from dstream.scheduler.job_scheduler import JobScheduler
from dstream.time import describe_time

if TYPE_CHECKING:
    from dstream.graph import DStreamGraph

__all__ = ["JobGenerator"]

logger = logging.getLogger(__name__)


class JobGenerator:
    """Generates one job set per batch time on its own daemon thread."""

    def __init__(self, graph: DStreamGraph, clock: Clock, scheduler: JobScheduler,
                 before_generate: Callable[[int], None] | None = None,
                 after_graph_start: Callable[[], None] | None = None,
                 after_generate: Callable[[int, list[int]], None] | None = None) -> None:
        self._before_generate = before_generate
        self._after_graph_start = after_graph_start
        self._after_generate = after_generate
        self._pending: set[int] = set()
        self._pending_lock = threading.Lock()
        self._replay: list[int] = []
        #: The last batch time a recovery re-runs on its own at start (None: no recovery).
        self.replayed_until: int | None = None
        self._graph = graph
        self._clock = clock
        self._scheduler = scheduler
        self._batch_ms = graph.batch_ms
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None
        self._completed: deque[int] = deque()
        self._generated = threading.Condition()
        self.next_time: int | None = None
        self.last_generated: int | None = None

    # -- lifecycle -------------------------------------------------------------------
    def start(self, recovery: Any = None) -> int:
        """Align the grid, start the graph, start the timer thread; return zero time.

        With ``recovery`` (a restored checkpoint), the grid is the checkpoint's, a
        manual clock is set to the checkpoint's time (Spark's test rule), and the
        batches that were pending or missed while the driver was down (up to the next
        grid time after now) run first, in order, at their original times.
        Validation errors from the graph propagate to the caller (``ssc.start()``).
        """
        batch = self._batch_ms
        if recovery is None:
            first = (self._clock.now_ms() // batch + 1) * batch
            zero = first - batch
        else:
            zero = recovery.zero_ms
            set_time = getattr(self._clock, "set_time", None)
            if set_time is not None and self._clock.now_ms() < recovery.time_ms:
                set_time(recovery.time_ms)
            first = zero + ((self._clock.now_ms() - zero) // batch + 1) * batch
        self._graph.start(zero)
        if self._after_graph_start is not None:
            self._after_graph_start()
        if recovery is not None:
            down = range(recovery.time_ms, first, batch)
            self._replay = sorted(t for t in set(recovery.pending) | set(down) if zero < t < first)
            self.replayed_until = self._replay[-1] if self._replay else None
        self.next_time = first
        self._thread = threading.Thread(target=self._run, name="JobGenerator", daemon=True)
        self._thread.start()
        return zero

    def stop(self, timeout: float) -> bool:
        """Stop ticking (the tick in progress finishes); ``False`` if the thread outlived ``timeout``."""
        self._cancel.set()
        self._clock.interrupt()
        thread = self._thread
        if thread is None or thread is threading.current_thread():
            return True
        thread.join(timeout)
        if thread.is_alive():
            logger.warning("the job generator did not stop within %.1f s", timeout)
            return False
        return True

    def wait_generated(self, time_ms: int, timeout: float) -> bool:
        """Block until batch ``time_ms`` has been generated (or skipped); ``False`` on timeout."""
        deadline = time.monotonic() + timeout
        with self._generated:
            while self.last_generated is None or self.last_generated < time_ms:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._generated.wait(remaining)
            return True

    def _mark_generated(self, time_ms: int) -> None:
        with self._generated:
            self.last_generated = time_ms
            self._generated.notify_all()

    def batch_completed(self, time_ms: int) -> None:
        """Called by the job thread: batch ``time_ms`` is over; clean up at the next tick."""
        with self._pending_lock:
            self._pending.discard(time_ms)
        self._completed.append(time_ms)

    def pending_times(self) -> list[int]:
        """Batches generated and not yet completed (what a restart must run again)."""
        with self._pending_lock:
            return sorted(self._pending)

    # -- the per-batch step ------------------------------------------------------------
    def on_tick(self, time_ms: int) -> None:
        graph = self._graph
        scheduler = self._scheduler
        completed = self._completed
        with graph.lock:
            while completed:
                t = completed.popleft()
                try:
                    stale = graph.clear_metadata(t)
                except Exception as exc:  # noqa: BLE001 - cleanup must not stop the timer
                    scheduler.report_error(
                        exc, f"clearing the metadata of batch {describe_time(t)}")
                else:
                    if stale:
                        scheduler.unpersist(stale)
            try:
                if self._before_generate is not None:
                    self._before_generate(time_ms)
                jobs = graph.generate_jobs(time_ms)
            except Exception as exc:  # noqa: BLE001 - Spark skips the batch and reports
                scheduler.report_error(exc, f"generating jobs for time {describe_time(time_ms)}")
                scheduler.skip(time_ms)
                self._mark_generated(time_ms)
                return
            infos = graph.input_infos(time_ms) if jobs else None
        if jobs:
            with self._pending_lock:
                self._pending.add(time_ms)
            if self._after_generate is not None:
                self._after_generate(time_ms, self.pending_times())
            scheduler.submit(JobSet(time_ms, jobs, self._clock.now_ms(), infos or {}))
        else:
            scheduler.skip(time_ms)
        self._mark_generated(time_ms)

    def _tick(self, time_ms: int) -> None:
        try:
            self.on_tick(time_ms)
        except BaseException as exc:  # noqa: BLE001 - keep the grid alive
            self._scheduler.report_error(exc, f"in the job generator at {describe_time(time_ms)}")
            self._scheduler.skip(time_ms)
            self._mark_generated(time_ms)

    def _run(self) -> None:
        clock = self._clock
        cancel = self._cancel
        batch = self._batch_ms
        next_time = self.next_time
        assert next_time is not None
        for time_ms in self._replay:  # recovery: pending and missed batches, in order
            if cancel.is_set():
                return
            logger.info("recovery: running batch %s again", describe_time(time_ms))
            self._tick(time_ms)
        self._replay = []
        while not cancel.is_set():
            if clock.wait_till_time(next_time, cancel) is None:
                break
            if cancel.is_set():
                break
            self._tick(next_time)
            next_time += batch
            self.next_time = next_time

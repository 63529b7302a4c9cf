"""JobScheduler: runs each batch's output jobs, in order, on one job thread.

Data flow::

    generator thread                      job thread ("JobScheduler")
    ----------------                      ---------------------------
    submit(JobSet t) --BatchSubmitted-->  take JobSet t
          |                               BatchStarted, then for each job in order:
          +--------- SimpleQueue -------->   OutputOperationStarted, job.run(),
    skip(t)  (no jobs / failed            |   OutputOperationCompleted
              generation)                 BatchCompleted
                                          on_batch_done(t)  -> generator cleans up later
                                          progress: done time = t (wakes waiters)

What this module owns
---------------------
* The job queue and the job thread (``spark.streaming.concurrentJobs = 1``: batches and
  their output operations run strictly in order). The queue also carries the cached
  RDDs that cleanup dropped: they are unpersisted here, between jobs.
* Batch progress: the latest batch time whose processing is over (completed, failed,
  or skipped). Tests and graceful stop wait on it; it only grows, because every batch,
  even one without jobs, passes through the same queue in time order.
* Errors: a failed job's exception (the user's own object) goes to the
  :class:`~dstream.lifecycle.TerminationWaiter`; the stream keeps running.
* Listener events of batches and output operations (built only if listeners exist).

Stamps (submission, start, end) come from the injected clock.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

from rdd import JobCancelledError

from dstream.clock import Clock
from dstream.lifecycle import TerminationWaiter
from dstream.listener import (
    BatchInfo,
    StreamingListenerBatchCompleted,
    StreamingListenerBatchStarted,
    StreamingListenerBatchSubmitted,
    StreamingListenerOutputOperationCompleted,
    StreamingListenerOutputOperationStarted,
)
from dstream.listener_bus import ListenerBus
from dstream.scheduler.job import Job, JobSet, batch_events, output_operation_events
from dstream.time import describe_time

__all__ = ["JobScheduler"]

logger = logging.getLogger(__name__)

# Queue items besides JobSets.
_STOP = object()


class _Skip:
    """A batch with no job set: only its progress is recorded, in order."""

    __slots__ = ("time_ms",)

    def __init__(self, time_ms: int) -> None:
        self.time_ms = time_ms


class _Unpersist:
    """RDDs that cleanup dropped: unpersisted between jobs, on the job thread."""

    __slots__ = ("rdds",)

    def __init__(self, rdds: list[Any]) -> None:
        self.rdds = rdds


class JobScheduler:
    """Runs JobSets in submission order on one daemon thread."""

    def __init__(
        self,
        clock: Clock,
        bus: ListenerBus,
        waiter: TerminationWaiter,
        on_batch_done: Callable[[int], None],
        before_job: Callable[[Job], None] | None = None,
    ) -> None:
        self._clock = clock
        # Sets the job thread's job properties (batch time, output op id) for the UI.
        self._before_job = before_job
        self._bus = bus
        self._waiter = waiter
        self._on_batch_done = on_batch_done
        self._queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._abandon = False
        self._progress = threading.Condition()
        self._done_time: int | None = None
        self._done_batches = 0
        self._failed_jobs = 0

    # -- lifecycle -------------------------------------------------------------------
    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="JobScheduler", daemon=True)
        self._thread.start()

    def stop(self, graceful: bool, timeout: float) -> bool:
        """Stop the job thread; return ``False`` if it did not finish within ``timeout``.

        Graceful: the queued batches run first. Otherwise they are dropped and only the
        job that is running finishes. A job that never returns cannot be interrupted; its
        daemon thread is abandoned after the timeout.
        """
        if not graceful:
            self.abandon()
        self._queue.put(_STOP)
        thread = self._thread
        if thread is None or thread is threading.current_thread():
            return True
        thread.join(timeout)
        if thread.is_alive():
            logger.warning("the job thread did not finish within %.1f s; abandoning it", timeout)
            return False
        return True

    def abandon(self) -> None:
        """Drop the queued batches: a stop is under way and will not wait for them.

        A job of the running batch cancelled from now on is the stop's doing, not a
        batch error: it is logged, not reported to ``awaitTermination``.
        """
        self._abandon = True

    @property
    def is_job_thread(self) -> bool:
        return threading.current_thread() is self._thread

    # -- submission (generator thread) -----------------------------------------------
    def submit(self, job_set: JobSet) -> None:
        if self._bus.listeners:
            self._bus.post_deferred(batch_events, StreamingListenerBatchSubmitted, job_set.facts())
        self._queue.put(job_set)

    def unpersist(self, rdds: list[Any]) -> None:
        """Unpersist ``rdds`` on the job thread before the next queued batch runs."""
        self._queue.put(_Unpersist(rdds))

    def skip(self, time_ms: int) -> None:
        """Record batch ``time_ms`` as processed without jobs (keeps progress in order)."""
        self._queue.put(_Skip(time_ms))

    def report_error(self, error: BaseException, what: str) -> None:
        """Log ``Error <what>`` and hand the error to ``awaitTermination``; the stream runs on.

        The first error is printed once, by whoever receives it from
        ``awaitTermination`` (uncaught, its traceback is Python's last word): the log
        line names it without repeating its traceback. Later errors reach nobody else,
        so their log line carries the traceback.
        """
        lines = traceback.format_exception_only(type(error), error)
        summary = " ".join("".join(lines).split("\n")).strip()
        if self._waiter.notify_error(error):
            logger.error("Error %s: %s (awaitTermination raises it, with its traceback)", what,
                         summary)
        else:
            logger.error("Error %s (awaitTermination raises the first error)", what,
                         exc_info=error)

    # -- progress --------------------------------------------------------------------
    @property
    def done_time(self) -> int | None:
        """The latest batch time whose processing is over, or ``None``."""
        return self._done_time

    @property
    def done_batches(self) -> int:
        return self._done_batches

    def wait_batch_done(self, time_ms: int, timeout: float) -> bool:
        """Block until batch ``time_ms`` (and every earlier one) is over; ``False`` on timeout."""
        deadline = time.monotonic() + timeout
        with self._progress:
            while self._done_time is None or self._done_time < time_ms:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._progress.wait(remaining)
            return True

    def pending_batches(self) -> int:
        """Approximate number of batches queued or running."""
        return self._queue.qsize()

    # -- job thread ------------------------------------------------------------------
    def _run(self) -> None:
        get = self._queue.get
        while True:
            item = get()
            if item is _STOP:
                return
            if self._abandon:
                continue
            try:
                if isinstance(item, JobSet):
                    self._run_job_set(item)
                elif isinstance(item, _Unpersist):
                    self._unpersist(item.rdds)
                else:
                    self._batch_over(item.time_ms)  # type: ignore[attr-defined]
            except BaseException as exc:  # noqa: BLE001 - the job thread must survive
                # Job.run records user errors itself; this is a bug of ours or of a
                # listener record. Report it and keep the progress moving, never hang.
                self.report_error(exc, "in the job scheduler")
                if isinstance(item, JobSet) and self._done_time != item.time_ms:
                    self._batch_over(item.time_ms)

    def _unpersist(self, rdds: list[Any]) -> None:
        for rdd in rdds:
            try:
                rdd.unpersist()
            except Exception:  # noqa: BLE001 - a failed unpersist only costs memory
                logger.exception("unpersisting %r failed", rdd)

    def _run_job_set(self, job_set: JobSet) -> None:
        clock = self._clock
        bus = self._bus
        job_set.processing_start = clock.now_ms()
        if bus.listeners:
            bus.post_deferred(batch_events, StreamingListenerBatchStarted, job_set.facts())
        for job in job_set.jobs:
            job.start_time = clock.now_ms()
            if bus.listeners:
                bus.post_deferred(output_operation_events, StreamingListenerOutputOperationStarted,
                                  job.time_ms, job.facts())
            if self._before_job is not None:
                self._before_job(job)
            job.run()
            job.end_time = clock.now_ms()
            if isinstance(job.error, JobCancelledError) and self._abandon:
                logger.info("output operation %s of batch %s was cancelled by the stop: %s",
                            job.output_op_id, job.time_ms, job.error)
            elif job.error is not None:
                self._failed_jobs += 1
                self.report_error(job.error, f"running job {_job_name(job)}")
            elif logger.isEnabledFor(logging.INFO):
                logger.info("Finished job %s in %.3f s", _job_name(job),
                            (job.end_time - job.start_time) / 1000)
            if bus.listeners:
                bus.post_deferred(output_operation_events, StreamingListenerOutputOperationCompleted,
                                  job.time_ms, job.facts())
        job_set.processing_end = clock.now_ms()
        if bus.listeners:
            bus.post_deferred(batch_events, StreamingListenerBatchCompleted, job_set.facts())
        if logger.isEnabledFor(logging.INFO):
            _log_batch(job_set.batch_info())
        # A failed job does not keep the batch's RDDs alive (Spark would keep the batch
        # pending); later batches would clean them anyway, and the error is reported.
        self._on_batch_done(job_set.time_ms)
        self._batch_over(job_set.time_ms)

    def _batch_over(self, time_ms: int) -> None:
        with self._progress:
            self._done_time = time_ms
            self._done_batches += 1
            self._progress.notify_all()


def _job_name(job: Job) -> str:
    """Spark's ``streaming job <time> ms.<op>``, with the time readable, and the operation."""
    return f"streaming job {describe_time(job.time_ms)}.{job.output_op_id} ({job.name})"


def _log_batch(info: BatchInfo) -> None:
    """One INFO line per batch: its time, records, processing time and scheduling delay."""
    if logger.isEnabledFor(logging.INFO):
        logger.info("Finished batch %s: %d records, processing time %.3f s, "
                    "scheduling delay %.3f s", describe_time(info.batchTime().milliseconds()),
                    info.numRecords(), info.processingDelay() / 1000, info.schedulingDelay() / 1000)

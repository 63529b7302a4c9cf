"""JobRunner: the I/O shell around the DAG scheduler.

It turns ``SubmitTask`` actions into ``backend.submit`` calls and backend events
into ``DAGScheduler.handle`` calls, on the thread that asked for the job. Jobs run
one at a time per context (a lock), which keeps scheduling deterministic; streaming
output operations are sequential anyway.

Cancellation (``stop``, ``cancel``) never takes that lock: it marks the jobs it hits
(the running one and those waiting for the lock), wakes the running job's thread with
a sentinel event and asks the backend to kill the job's tasks. The thread that ran the
action then raises :class:`JobCancelledError`, so a stop returns at once even while a
task runs forever.
"""

from __future__ import annotations

import itertools
import queue
import sys
import threading
from collections.abc import Callable
from typing import Any

from ..errors import ContextStoppedError, JobCancelledError, LineageTooDeepError
from ..nodes.base import LineageNode
from ..status.entities import job_tags
from .dag_scheduler import DAGScheduler, JobFailed, JobSucceeded, MergeAccumulators, SubmitTask
from .reporter import JobReporter
from .tracking import BlockLocations, MapOutputTracker

#: An event that only wakes the thread waiting for its job's events (to see a cancellation).
_WAKE = object()
# How long the job's thread blocks for an event before looking again. Python runs a
# signal handler on the main thread only once that thread returns to the interpreter,
# and a signal the kernel delivered to another thread (the pool's reader, say) does not
# wake a main thread blocked on a lock: without a bound, Ctrl-C or SIGTERM during a job
# whose tasks run long would wait for the job to end.
_EVENT_POLL_S = 0.2


class _Ticket:
    """One call of ``run_job``: its job group and tags, and why it was cancelled (``None``: it was not)."""

    __slots__ = ("group", "job_id", "reason", "tags")

    def __init__(self, group: str | None, tags: frozenset[str]) -> None:
        self.group = group
        self.tags = tags
        self.job_id: int | None = None
        self.reason: str | None = None

    def error(self) -> JobCancelledError:
        which = "A job waiting to start" if self.job_id is None else f"Job {self.job_id}"
        return JobCancelledError(f"{which} cancelled {self.reason}")


class JobRunner:
    def __init__(self, merge_accumulators: Callable[[dict[int, Any]], None], cleaner: Any = None,
                 remove_shuffle: Callable[[int], None] | None = None,
                 remove_rdd: Callable[[int], None] | None = None, reporter: JobReporter | None = None) -> None:
        self.cleaner = cleaner
        self.reporter = reporter
        self._remove_shuffle = remove_shuffle
        self._remove_rdd = remove_rdd
        self.tracker = MapOutputTracker()
        self.locations = BlockLocations()
        self.scheduler = DAGScheduler(self.tracker, self.locations)
        self.events: queue.SimpleQueue = queue.SimpleQueue()
        self.backend: Any = None
        self._merge_accumulators = merge_accumulators
        self._job_lock = threading.RLock()
        self._job_ids = itertools.count()
        self._stopped = False
        self._tickets_lock = threading.Lock()
        self._tickets: set[_Ticket] = set()
        self._running: _Ticket | None = None

    def on_event(self, event: Any) -> None:
        if self.reporter is not None:
            self.reporter.task_event(event)  # before the job's thread can see it: TaskEnd precedes StageCompleted
        self.events.put(event)

    def run_job(self, node: LineageNode, func: Callable[[Any], Any], partitions: list[int],
                properties: dict[str, str] | None = None, site: tuple[str, str, int] | None = None) -> list[Any]:
        """Run one job; ``site`` is the user's call site when the caller took it (listeners only)."""
        props = properties or {}
        ticket = _Ticket(props.get("spark.jobGroup.id"), job_tags(props))
        with self._tickets_lock:
            self._check_not_stopped()
            self._tickets.add(ticket)
        try:
            with self._job_lock:
                with self._tickets_lock:
                    if ticket.reason is not None:
                        raise ticket.error()
                    self._check_not_stopped()
                    ticket.job_id = next(self._job_ids)
                    self._running = ticket
                try:
                    return self._run(ticket, node, func, partitions, properties, site)
                finally:
                    with self._tickets_lock:
                        self._running = None
        finally:
            with self._tickets_lock:
                self._tickets.discard(ticket)

    def _check_not_stopped(self) -> None:
        if self._stopped:
            raise ContextStoppedError("Cannot run a job: the SparkContext was stopped. "
                                      "Create a new SparkContext.")

    def _run(self, ticket: _Ticket, node: LineageNode, func: Callable[[Any], Any],
             partitions: list[int], properties: dict[str, str] | None,
             site: tuple[str, str, int] | None = None) -> list[Any]:
        if self.cleaner is not None:
            self.cleaner.drain(self._remove_shuffle, self._remove_rdd)
        job_id = ticket.job_id
        assert job_id is not None
        reporter = self.reporter
        outcome = None
        reported = False
        # A backend that lets the job's thread read its executors' results (``pump``)
        # saves a thread switch per task; the others deliver events from their own thread.
        pump = getattr(self.backend, "pump", None)
        try:
            try:
                actions = self.scheduler.submit_job(job_id, node, func, partitions, properties)
                if reporter is not None:
                    # With the stages its submission started: one post for both.
                    reporter.job_started(job_id, self.scheduler.job_stages(), properties or {},
                                         self.scheduler.take_notices(), site)
                    reported = True
            except LineageTooDeepError:
                raise  # already says what was too deep (a stage's pickle)
            except RecursionError as exc:
                raise LineageTooDeepError(
                    f"cannot run a job on RDD {node.id} ({node.describe()}): its lineage is too deep to plan "
                    "(a long chain of transformations or shuffles that was never checkpointed). Cut it every "
                    "few dozen iterations with rdd.checkpoint() (after sc.setCheckpointDir(dir)) or "
                    "rdd.localCheckpoint(), followed by an action.") from exc
            outcome = self._perform(ticket, actions)
            if outcome is None:
                self.scheduler.prepare_waiting()  # while the first tasks run
            while outcome is None and ticket.reason is None:
                try:
                    event = self.events.get_nowait() if pump is not None else self.events.get(timeout=_EVENT_POLL_S)
                except queue.Empty:
                    if pump is not None:
                        pump(_EVENT_POLL_S)  # this thread reads the results: their events are queued
                    continue
                if event is not _WAKE:
                    outcome = self._perform(ticket, self.scheduler.handle(event))
        except Exception as exc:
            if ticket.reason is not None:  # e.g. a submit to the pool that stop() shut down
                raise ticket.error() from exc
            raise
        except BaseException:
            # Interrupted (Ctrl-C in the thread that waits): its tasks must not keep
            # the workers busy for the jobs that follow.
            self.backend.cancel_job(job_id)
            raise
        finally:
            notices = self.scheduler.take_notices()
            if reported:
                assert reporter is not None
                reporter.job_ended(job_id, _job_error(ticket, outcome, sys.exc_info()[1]), notices)
            self.scheduler.end_job()
            self.backend.release_binaries()  # a closure may hold a lot: free it with its job
        if outcome is None:  # cancelled before it ended
            raise ticket.error()
        if isinstance(outcome, JobFailed):
            raise outcome.error
        return outcome.results

    def _perform(self, ticket: _Ticket, actions: list[Any]) -> JobSucceeded | JobFailed | None:
        outcome = None
        notices = self.scheduler.take_notices()
        if notices and self.reporter is not None:
            self.reporter.notices(notices)  # a stage is reported submitted before its tasks start
        for action in actions:
            if ticket.reason is not None:
                return None  # inline tasks run in submit(): start no more of them
            if isinstance(action, SubmitTask):
                self.backend.submit(action.spec, action.binary)
            elif isinstance(action, MergeAccumulators):
                self._merge_accumulators(action.updates)
            else:
                outcome = action
        return outcome

    def cancel(self, reason: str, group: str | None = None, tag: str | None = None) -> list[frozenset[str]]:
        """Cancel the running and waiting jobs (of job group ``group``, or with tag ``tag``, if given).

        Returns at once, with the tags of each job cancelled; each cancelled job raises
        :class:`JobCancelledError`, whose message ends with ``reason``, in the thread
        that ran its action.
        """
        with self._tickets_lock:
            hit = [t for t in self._tickets
                   if t.reason is None and (group is None or t.group == group) and (tag is None or tag in t.tags)]
            for ticket in hit:
                ticket.reason = reason
            running = self._running if self._running in hit else None
        if running is not None:
            assert running.job_id is not None
            self._wake()
            self.backend.cancel_job(running.job_id)
        return [t.tags for t in hit]

    def stop(self) -> None:
        """Refuse new jobs and cancel the running and waiting ones (never waits for them)."""
        with self._tickets_lock:
            self._stopped = True
            hit = [t for t in self._tickets if t.reason is None]
            for ticket in hit:
                ticket.reason = "because SparkContext was shut down"
        if hit:
            self._wake()

    def _wake(self) -> None:
        """Wake the running job's thread, wherever it waits (the event queue or the backend's pipes)."""
        self.events.put(_WAKE)
        interrupt = getattr(self.backend, "interrupt", None)
        if interrupt is not None:
            interrupt()


def _job_error(ticket: _Ticket, outcome: JobSucceeded | JobFailed | None,
               raised: BaseException | None) -> BaseException | None:
    """Why a job ended, for its JobEnd event (``None``: it succeeded)."""
    if isinstance(outcome, JobSucceeded):
        return None
    if isinstance(outcome, JobFailed):
        return outcome.error
    if ticket.reason is not None:
        return ticket.error()
    return raised if raised is not None else RuntimeError("the job was interrupted")

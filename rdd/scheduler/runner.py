"""JobRunner: the I/O shell around the DAG scheduler.

It turns ``SubmitTask`` actions into ``backend.submit`` calls and backend events
into ``DAGScheduler.handle`` calls, on the thread that asked for the job. Jobs run
one at a time per context (a lock), which keeps scheduling deterministic; streaming
output operations are sequential anyway.
"""

from __future__ import annotations

import itertools
import queue
import threading
from typing import Any, Callable

from ..errors import ContextStoppedError, LineageTooDeepError
from ..nodes.base import LineageNode
from .dag_scheduler import DAGScheduler, JobFailed, JobSucceeded, MergeAccumulators, SubmitTask
from .tracking import BlockLocations, MapOutputTracker


class JobRunner:
    def __init__(self, merge_accumulators: Callable[[dict[int, Any]], None], cleaner: Any = None,
                 remove_shuffle: Callable[[int], None] | None = None,
                 remove_rdd: Callable[[int], None] | None = None) -> None:
        self.cleaner = cleaner
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

    def on_event(self, event: Any) -> None:
        self.events.put(event)

    def run_job(self, node: LineageNode, func: Callable[[Any], Any], partitions: list[int],
                properties: dict[str, str] | None = None) -> list[Any]:
        with self._job_lock:
            if self._stopped:
                raise ContextStoppedError("Cannot run a job: the SparkContext was stopped. Create a new SparkContext.")
            if self.cleaner is not None:
                self.cleaner.drain(self._remove_shuffle, self._remove_rdd)
            job_id = next(self._job_ids)
            try:
                try:
                    actions = self.scheduler.submit_job(job_id, node, func, partitions, properties)
                except LineageTooDeepError:
                    raise  # already says what was too deep (a stage's pickle)
                except RecursionError as exc:
                    raise LineageTooDeepError(
                        f"cannot run a job on RDD {node.id} ({node.describe()}): its lineage is too deep to plan "
                        "(a long chain of transformations or shuffles that was never checkpointed). Cut it every "
                        "few dozen iterations with rdd.checkpoint() (after sc.setCheckpointDir(dir)) or "
                        "rdd.localCheckpoint(), followed by an action.") from exc
                outcome = self._perform(actions)
                while outcome is None:
                    outcome = self._perform(self.scheduler.handle(self.events.get()))
            finally:
                self.scheduler.end_job()
                self.backend.release_binaries()  # a closure may hold a lot: free it with its job
            if isinstance(outcome, JobFailed):
                raise outcome.error
            return outcome.results

    def _perform(self, actions: list[Any]) -> JobSucceeded | JobFailed | None:
        outcome = None
        for action in actions:
            if isinstance(action, SubmitTask):
                self.backend.submit(action.spec, action.binary)
            elif isinstance(action, MergeAccumulators):
                self._merge_accumulators(action.updates)
            else:
                outcome = action
        return outcome

    def stop(self) -> None:
        with self._job_lock:
            self._stopped = True

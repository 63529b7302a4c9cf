"""JobReporter: turns what the scheduler and the executors do into listener events.

What this module owns
---------------------
The translation from the engine's own objects (``Stage``, ``TaskSpec``, the backends'
``TaskFinished``/``TaskFailed``/``ExecutorLost``, the DAG scheduler's notices) to the
events of :mod:`rdd.status.events`, posted on the context's listener bus. The runner
calls it around each job; the backends call it when a task is handed to an executor and
when an executor starts; the runner's event sink calls it for each task outcome.

Invariants
----------
* With no listener on the bus every method returns after one check: nothing is built.
* The engine's threads only snapshot facts (times, attempts, the call site) and queue
  them with ``post_deferred``; the events are built on the bus's delivery thread, so
  a job pays a few appends for its events, not their construction.
* A queued post holds plain values (builders by their bus code, stages by id) except
  the job's start, which holds its stages' RDDs: the garbage collector forgets the others
  at its first pass, so a loop of small jobs does not make it walk their facts again
  and again while they wait for the bus's linger (with a Stage object per post, that
  walking was most of what the UI cost a 40 us job).
* Per stage attempt the order is StageSubmitted, then its TaskStart/TaskEnd events,
  then StageCompleted; a job's JobStart comes before its stages and JobEnd after them.
  The runner keeps this order by reporting notices before performing actions, and the
  event sink reports a task's end before the runner handles it.
* Every stage attempt reported as submitted is reported as completed exactly once: a
  job that ends (failed or cancelled) with stages still running closes them as failed.
* The tables (tasks launched, attempts, running stages, RDD infos, storage levels) are
  read and written by the builders only, on the delivery thread, in posting order.
* Its tables only hold the running job's stages, RDDs and tasks (jobs run one at a
  time per context): they are emptied when the job ends.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Sequence
from typing import Any

from ..nodes.base import walk_narrow
from ..status.events import (
    RDDInfo,
    SparkListenerBlockUpdated,
    SparkListenerExecutorAdded,
    SparkListenerExecutorRemoved,
    SparkListenerJobEnd,
    SparkListenerJobStart,
    SparkListenerStageCompleted,
    SparkListenerStageSubmitted,
    SparkListenerTaskEnd,
    SparkListenerTaskStart,
    StageInfo,
    TaskInfo,
    TaskMetrics,
)
from ..storage.level import StorageLevel
from .events import ExecutorLost, TaskFailed, TaskFinished
from .task import TaskSpec

_RDD_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The engine's frames and those of the streaming layer built on it (a sibling package)
# are skipped when naming the user's call site.
_ENGINE_DIRS = (_RDD_DIR + os.sep, os.path.join(os.path.dirname(_RDD_DIR), "dstream") + os.sep)
_METRIC_FIELDS = frozenset(TaskMetrics.__dataclass_fields__)


def _now() -> int:
    return int(time.time() * 1000)


# Code object -> None for user code, else the engine function's public name ("" if private).
# Every job walks its stack: classifying each code object once keeps that walk to a dict
# lookup per frame (a job's call site was a third of what the UI costs a small job).
_ENGINE_NAMES: dict[Any, str | None] = {}


def call_site_parts(depth: int = 1) -> tuple[str, str, int]:
    """``(method, file, line)`` of the call site (``file`` empty when no user frame is on the stack);
    cheap to take on the engine's thread, formatted later by :func:`site_text`."""
    frame: Any = sys._getframe(depth)
    method = ""
    names = _ENGINE_NAMES
    while frame is not None:
        code = frame.f_code
        try:
            name = names[code]
        except KeyError:
            name = names[code] = (None if not code.co_filename.startswith(_ENGINE_DIRS)
                                  else "" if code.co_name.startswith("_") else code.co_name)
        if name is None:
            return method or code.co_name, code.co_filename, frame.f_lineno
        if name:
            method = name
        frame = frame.f_back
    return method or "job", "", 0


def site_text(method: str, filename: str, line: int) -> str:
    """The call site as Spark writes it: ``"count at app.py:12"`` (the method alone without a file)."""
    return f"{method} at {os.path.basename(filename)}:{line}" if filename else method


# A post's snapshot is one flat list (one per stage at most): it waits in the bus's queue
# for up to the bus's linger, and each container in it would be one more object for the
# garbage collector to walk, and promote, meanwhile.

def _lineage(node: Any) -> list[Any]:
    """The RDDs of ``node``'s stage as they are now: flat ``rdd, name, storage level`` triples."""
    out: list[Any] = []
    for n in walk_narrow(node):
        out += (n, n.name, n.storage_level)
    return out


def _triples(flat: Sequence[Any]) -> Iterable[tuple[Any, Any, Any]]:
    return zip(flat[0::3], flat[1::3], flat[2::3])


def _stage_snapshot(stage: Any) -> tuple[Any, ...]:
    """What the builders need of a stage: ``id, node, parent ids, is_shuffle_map``, then its
    lineage's ``rdd, name, storage level`` triples as they are now."""
    return (stage.id, stage.node, tuple([p.id for p in stage.parents]), stage.shuffle_dep is not None,
            *_lineage(stage.node))


def level_name(level: StorageLevel) -> str:
    return "NONE" if not level.is_valid else str(level)


class JobReporter:
    """Posts job, stage, task, executor and block events on ``bus`` (see the module doc)."""

    def __init__(self, bus: Any) -> None:
        self._bus = bus
        self._launched: dict[int, TaskInfo] = {}             # task id -> its TaskStart's info
        self._attempts: dict[int, int] = {}                  # stage id -> latest attempt
        self._running_stages: dict[int, StageInfo] = {}      # running stage attempts
        self._job_site = ""
        self._levels: dict[str, str] = {}                     # rdd id (as in block ids) -> level
        self._rdd_infos: dict[int, tuple[RDDInfo, ...]] = {}  # stage id -> its RDDs, for the running job
        self._job_properties: dict[str, str] = {}
        # stage id -> (node, parent ids, is_shuffle_map), for the running job (builders only)
        self._stage_facts: dict[int, tuple[Any, tuple[int, ...], bool]] = {}
        # The ids of the stages the running job's start reported (the engine's thread only):
        # a notice names such a stage by id, any other one comes with its snapshot.
        self._listed: set[int] = set()
        # Stage-end notices waiting for the next post (the engine's thread only; see notices()).
        self._held: tuple[Any, ...] = ()
        # The builders by their bus codes (see the module doc).
        code = bus.builder_code
        self._task_start_builder = code(self._build_task_start)
        self._task_outcome_builder = code(self._build_task_outcome)
        self._task_finished_builder = code(self._build_task_finished)
        self._job_start_builder = code(self._build_job_start)
        self._notices_builder = code(self._build_stage_notices)
        self._job_end_builder = code(self._build_job_end)

    # -- executors (called by the backends) -------------------------------------------
    def executor_added(self, executor_id: str, pid: int | None, cores: int = 1) -> None:
        if self._bus.listeners:
            self._bus.post(SparkListenerExecutorAdded(_now(), executor_id, {
                "Host": "localhost", "Total Cores": cores, "Log Urls": {}, "Pid": pid}))

    def task_launched(self, spec: TaskSpec, executor_id: str) -> None:
        if self._bus.listeners:
            # Plain values, not the spec: a tuple of them is one object the collector soon
            # stops tracking, and the spec (with its task's data) is not kept alive.
            self._bus.post_deferred(self._task_start_builder, spec.task_id, spec.partition, spec.attempt,
                                    spec.stage_id, spec.preferred is None, executor_id, _now())

    def _build_task_start(self, task_id: int, partition: int, attempt: int, stage_id: int, anywhere: bool,
                          executor_id: str, now: int) -> tuple[Any, ...]:
        info = TaskInfo(task_id, partition, attempt, partition, now, executor_id,
                        taskLocality="PROCESS_LOCAL" if anywhere else "NODE_LOCAL")
        self._launched[task_id] = info
        return (SparkListenerTaskStart(stage_id, self._attempts.get(stage_id, 0), info),)

    # -- task outcomes (called by the runner's event sink, on the backend's thread) ----
    def task_event(self, event: Any) -> None:
        if not self._bus.listeners:
            return
        if isinstance(event, TaskFinished):
            # The common outcome as plain values (see task_launched): the result's value,
            # which may be large, is not held until the event is built. The dicts go as
            # tuples of items: the collector never forgets a tuple that holds a dict.
            spec, result = event.spec, event.result
            blocks = result.block_sizes
            self._bus.post_deferred(self._task_finished_builder, spec.task_id, spec.partition, spec.attempt,
                                    spec.stage_id, spec.is_shuffle_map, tuple(result.metrics.items()),
                                    tuple(blocks.items()) if blocks else (), result.executor_id, _now())
        else:
            self._bus.post_deferred(self._task_outcome_builder, event, _now())

    def _build_task_finished(self, task_id: int, partition: int, attempt: int, stage_id: int, shuffle_map: bool,
                             metrics: tuple[tuple[str, int], ...], block_sizes: tuple[tuple[str, tuple[int, int]], ...],
                             executor_id: str, now: int) -> list[Any]:
        out: list[Any] = [self._task_end(task_id, partition, attempt, stage_id, shuffle_map, {"Reason": "Success"},
                                         dict(metrics), False, now)]
        for block_id, (memory, disk) in block_sizes:
            level = self._levels.get(block_id.split("_")[1], "NONE")
            out.append(SparkListenerBlockUpdated(executor_id, block_id, level, memory, disk))
        return out

    def _build_task_outcome(self, event: Any, now: int) -> list[Any]:
        # A task's failure or an executor's loss (task_event queues a success as plain values).
        out: list[Any] = []
        if isinstance(event, TaskFailed):
            error = event.failure.error
            kind = "FetchFailed" if type(error).__name__ == "FetchFailedError" else "ExceptionFailure"
            reason = {"Reason": kind, "Class Name": type(error).__name__, "Description": str(error),
                      "Stack Trace": event.failure.traceback_text}
            out.append(self._spec_end(event.spec, reason, event.failure.metrics, True, now))
        elif isinstance(event, ExecutorLost):
            for spec in event.tasks:
                out.append(self._spec_end(spec, {"Reason": "ExecutorLostFailure", "Executor ID": event.executor_id,
                                                 "Loss Reason": event.reason}, {}, True, now))
            out.append(SparkListenerExecutorRemoved(now, event.executor_id, event.reason))
        return out

    def _spec_end(self, spec: TaskSpec, reason: dict[str, str], metrics: dict[str, int], failed: bool,
                  finish: int) -> SparkListenerTaskEnd:
        return self._task_end(spec.task_id, spec.partition, spec.attempt, spec.stage_id, spec.is_shuffle_map,
                              reason, metrics, failed, finish)

    def _task_end(self, task_id: int, partition: int, attempt: int, stage_id: int, shuffle_map: bool,
                  reason: dict[str, str], metrics: dict[str, int], failed: bool, finish: int) -> SparkListenerTaskEnd:
        started = self._launched.pop(task_id, None)
        launch = started.launchTime if started is not None else finish - metrics.get("executorRunTime", 0)
        executor = started.executorId if started is not None else "driver"
        info = TaskInfo(task_id, partition, attempt, partition, launch, executor,
                        taskLocality=started.taskLocality if started is not None else "PROCESS_LOCAL",
                        finishTime=finish, failed=failed)
        # An executor's metrics are TaskMetrics' fields (extra keys, if any, are left out).
        task_metrics = TaskMetrics(**(metrics if metrics.keys() <= _METRIC_FIELDS else
                                      {k: v for k, v in metrics.items() if k in _METRIC_FIELDS}))
        task_type = "ShuffleMapTask" if shuffle_map else "ResultTask"
        return SparkListenerTaskEnd(stage_id, self._attempts.get(stage_id, 0), task_type, reason, info, task_metrics)

    # -- jobs and stages (called by the runner) ----------------------------------------
    def job_started(self, job_id: int, stages: list[Any], properties: dict[str, str],
                    notices: Iterable[tuple[Any, ...]] = (), site: tuple[str, str, int] | None = None) -> None:
        """Report a job's start, then the stage ``notices`` its submission produced (one post).

        ``site`` is the call site if the caller took it nearer the user's frame (each frame a
        walk passes costs a frame object); otherwise it is taken here.
        """
        if self._bus.listeners:
            # Snapshot what may change before the events are built: the call site, each
            # stage's attempt, and its RDDs' names and storage levels (setName, unpersist).
            listed = self._listed
            listed.clear()
            listed.update([stage.id for stage in stages])
            self._bus.post_deferred(self._job_start_builder, job_id, tuple([_stage_snapshot(s) for s in stages]),
                                    tuple([max(stage.attempt, 0) for stage in stages]), dict(properties),
                                    call_site_parts(2) if site is None else site,
                                    self._notice_facts(notices), _now())

    def _build_job_start(self, job_id: int, stages: tuple[tuple[Any, ...], ...], attempts: tuple[int, ...],
                         properties: dict[str, str], site: tuple[str, str, int], notices: tuple[Any, ...],
                         now: int) -> list[Any]:
        self._job_site = site_text(*site)
        self._job_properties = properties
        self._rdd_infos.clear()
        for snapshot in stages:
            self._learn_stage(snapshot)
        infos = [self._stage_info(snapshot[0], attempt) for snapshot, attempt in zip(stages, attempts)]
        return [SparkListenerJobStart(job_id, now, infos, properties), *self._build_stage_notices(notices, now)]

    def _notice_facts(self, notices: Iterable[tuple[Any, ...]]) -> tuple[Any, ...]:
        """The DAG scheduler's notices as flat ``kind, stage id, attempt, failure, snapshot``
        quintuples, the attempt as it is now; the snapshot only for a stage the job's start
        did not report."""
        out: list[Any] = []
        listed = self._listed
        for n in notices:
            stage = n[1]
            out += (n[0], stage.id, stage.attempt, n[2] if n[0] == "failed" else None,
                    None if stage.id in listed else _stage_snapshot(stage))
        return tuple(out)

    def notices(self, notices: list[tuple[Any, ...]]) -> None:
        """Report the DAG scheduler's stage notices (``take_notices``).

        A stage's end alone (the last stage's, before its job ends) rides with the next post,
        which follows within the same scheduler step: one post fewer per job.
        """
        if notices and self._bus.listeners:
            facts = self._notice_facts(notices)
            if len(notices) == 1 and notices[0][0] == "completed":
                self._held += facts
                return
            held, self._held = self._held, ()
            self._bus.post_deferred(self._notices_builder, held + facts, _now())

    def _build_stage_notices(self, facts: tuple[Any, ...], now: int) -> list[Any]:
        out: list[Any] = []
        for i in range(0, len(facts), 5):
            kind, stage_id, attempt, failure, snapshot = facts[i:i + 5]
            if snapshot is not None:
                self._learn_stage(snapshot)
            if kind == "submitted":
                self._attempts[stage_id] = attempt
                info = self._stage_info(stage_id, attempt, num_tasks=self._stage_facts[stage_id][0].num_partitions,
                                        submitted=now)
                self._running_stages[stage_id] = info
                out.append(SparkListenerStageSubmitted(info, self._job_properties))
            else:
                out.extend(self._complete(stage_id, failure, now))
        return out

    def job_ended(self, job_id: int, error: BaseException | None,
                  notices: Iterable[tuple[Any, ...]] = ()) -> None:
        """Report the stage ``notices`` left at a job's end, then the end itself (one post)."""
        if self._bus.listeners:
            text = None if error is None else f"{type(error).__name__}: {error}"
            held, self._held = self._held, ()
            self._bus.post_deferred(self._job_end_builder, job_id, text, held + self._notice_facts(notices), _now())

    def _build_job_end(self, job_id: int, text: str | None, notices: tuple[Any, ...], now: int) -> list[Any]:
        out: list[Any] = self._build_stage_notices(notices, now)
        for stage_id in list(self._running_stages):
            out.extend(self._complete(stage_id, text or "Job ended before the stage finished", now))
        result = {"Result": "JobSucceeded"} if text is None else {"Result": "JobFailed", "Exception": text}
        out.append(SparkListenerJobEnd(job_id, now, result))
        # Per-job tables: a stream runs jobs for months, nothing may pile up across them.
        self._attempts.clear()
        self._levels.clear()
        self._rdd_infos.clear()
        self._stage_facts.clear()
        return out

    def _complete(self, stage_id: int, failure: str | None, now: int) -> tuple[Any, ...]:
        info = self._running_stages.pop(stage_id, None)
        if info is None:
            return ()
        done = StageInfo(info.stageId, info.attemptId, info.name, info.numTasks, info.rddInfos, info.parentIds,
                         info.details, info.submissionTime, now, failure, info.isShuffleMap)
        return (SparkListenerStageCompleted(done),)

    def _learn_stage(self, snapshot: tuple[Any, ...]) -> None:
        """Note a stage's facts and RDDs from its :func:`_stage_snapshot`."""
        stage_id, node, parent_ids, shuffle_map, *lineage = snapshot
        self._stage_facts[stage_id] = (node, parent_ids, shuffle_map)
        self._remember_rdds(stage_id, lineage)

    def _remember_rdds(self, stage_id: int, lineage: Sequence[Any]) -> None:
        """Note the RDDs of a stage from its lineage's flat ``(rdd, name, level)`` triples."""
        rdds = self._rdd_infos[stage_id] = tuple([
            RDDInfo(node.id, name or node.describe(), node.num_partitions, level_name(level), level.useMemory,
                    level.useDisk, level.deserialized, tuple([d.parent.id for d in node.dependencies]))
            for node, name, level in _triples(lineage)])
        for rdd in rdds:
            if rdd.storageLevel != "NONE":
                self._levels[str(rdd.id)] = rdd.storageLevel

    def _stage_info(self, stage_id: int, attempt: int, num_tasks: int | None = None,
                    submitted: int | None = None) -> StageInfo:
        node, parent_ids, shuffle_map = self._stage_facts[stage_id]
        name = node.creation_site or self._job_site
        return StageInfo(stage_id, attempt, name, num_tasks if num_tasks is not None else node.num_partitions,
                         self._rdd_infos[stage_id], parent_ids, self._job_site, submitted, None, None, shuffle_map)

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
* Per stage attempt the order is StageSubmitted, then its TaskStart/TaskEnd events,
  then StageCompleted; a job's JobStart comes before its stages and JobEnd after them.
  The runner keeps this order by reporting notices before performing actions, and the
  event sink reports a task's end before the runner handles it.
* Every stage attempt reported as submitted is reported as completed exactly once: a
  job that ends (failed or cancelled) with stages still running closes them as failed.
* Methods may be called from the runner's thread and the executors' reader thread;
  the shared tables are touched with single dict operations only.
* Its tables only hold the running job's stages, RDDs and tasks (jobs run one at a
  time per context): they are emptied when the job ends.
"""

from __future__ import annotations

import os
import sys
import time
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


def call_site() -> str:
    """Spark's ``"count at app.py:12"``: the engine method the user called, and where."""
    frame: Any = sys._getframe(1)
    method = ""
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(_ENGINE_DIRS):
            return f"{method or frame.f_code.co_name} at {os.path.basename(filename)}:{frame.f_lineno}"
        if not frame.f_code.co_name.startswith("_"):
            method = frame.f_code.co_name
        frame = frame.f_back
    return method or "job"


def level_name(level: StorageLevel) -> str:
    return "NONE" if not level.is_valid else str(level)


class JobReporter:
    """Posts job, stage, task, executor and block events on ``bus`` (see the module doc)."""

    def __init__(self, bus: Any) -> None:
        self._bus = bus
        self._launched: dict[int, TaskInfo] = {}             # task id -> its TaskStart's info
        self._attempts: dict[int, int] = {}                  # stage id -> latest attempt
        self._running_stages: dict[int, tuple[Any, StageInfo]] = {}  # running stage attempts
        self._job_site = ""
        self._levels: dict[str, str] = {}                     # rdd id (as in block ids) -> level
        self._rdd_infos: dict[int, list[RDDInfo]] = {}        # stage id -> its RDDs, for the running job
        self._job_properties: dict[str, str] = {}

    @property
    def enabled(self) -> bool:
        return bool(self._bus.listeners)

    # -- executors (called by the backends) -------------------------------------------
    def executor_added(self, executor_id: str, pid: int | None, cores: int = 1) -> None:
        if self.enabled:
            self._bus.post(SparkListenerExecutorAdded(_now(), executor_id, {
                "Host": "localhost", "Total Cores": cores, "Log Urls": {}, "Pid": pid}))

    def task_launched(self, spec: TaskSpec, executor_id: str) -> None:
        if not self.enabled:
            return
        info = TaskInfo(spec.task_id, spec.partition, spec.attempt, spec.partition, _now(), executor_id,
                        taskLocality="PROCESS_LOCAL" if spec.preferred is None else "NODE_LOCAL")
        self._launched[spec.task_id] = info
        self._bus.post(SparkListenerTaskStart(spec.stage_id, self._attempts.get(spec.stage_id, 0), info))

    # -- task outcomes (called by the runner's event sink, on the backend's thread) ----
    def task_event(self, event: Any) -> None:
        if not self.enabled:
            return
        if isinstance(event, TaskFinished):
            result = event.result
            self._task_end(event.spec, {"Reason": "Success"}, result.metrics, False)
            for block_id, (memory, disk) in result.block_sizes.items():
                level = self._levels.get(block_id.split("_")[1], "NONE")
                self._bus.post(SparkListenerBlockUpdated(result.executor_id, block_id, level, memory, disk))
        elif isinstance(event, TaskFailed):
            error = event.failure.error
            kind = "FetchFailed" if type(error).__name__ == "FetchFailedError" else "ExceptionFailure"
            reason = {"Reason": kind, "Class Name": type(error).__name__, "Description": str(error),
                      "Stack Trace": event.failure.traceback_text}
            self._task_end(event.spec, reason, event.failure.metrics, True)
        elif isinstance(event, ExecutorLost):
            for spec in event.tasks:
                self._task_end(spec, {"Reason": "ExecutorLostFailure", "Executor ID": event.executor_id,
                                      "Loss Reason": event.reason}, {}, True)
            self._bus.post(SparkListenerExecutorRemoved(_now(), event.executor_id, event.reason))

    def _task_end(self, spec: TaskSpec, reason: dict[str, str], metrics: dict[str, int], failed: bool) -> None:
        started = self._launched.pop(spec.task_id, None)
        finish = _now()
        launch = started.launchTime if started is not None else finish - metrics.get("executorRunTime", 0)
        executor = started.executorId if started is not None else "driver"
        info = TaskInfo(spec.task_id, spec.partition, spec.attempt, spec.partition, launch, executor,
                        taskLocality=started.taskLocality if started is not None else "PROCESS_LOCAL",
                        finishTime=finish, failed=failed)
        task_metrics = TaskMetrics(**{k: v for k, v in metrics.items() if k in _METRIC_FIELDS})
        task_type = "ShuffleMapTask" if spec.is_shuffle_map else "ResultTask"
        self._bus.post(SparkListenerTaskEnd(spec.stage_id, self._attempts.get(spec.stage_id, 0), task_type,
                                            reason, info, task_metrics))

    # -- jobs and stages (called by the runner) ----------------------------------------
    def job_started(self, job_id: int, stages: list[Any], properties: dict[str, str]) -> None:
        if not self.enabled:
            return
        self._job_site = call_site()
        self._job_properties = dict(properties)
        self._rdd_infos.clear()
        infos = [self._stage_info(stage, max(stage.attempt, 0)) for stage in stages]
        self._bus.post(SparkListenerJobStart(job_id, _now(), infos, self._job_properties))

    def notices(self, notices: list[tuple[Any, ...]]) -> None:
        """Report the DAG scheduler's stage notices (``take_notices``)."""
        if not self.enabled:
            return
        for notice in notices:
            kind, stage = notice[0], notice[1]
            if kind == "submitted":
                self._attempts[stage.id] = stage.attempt
                info = self._stage_info(stage, stage.attempt, num_tasks=stage.node.num_partitions,
                                        submitted=_now())
                self._running_stages[stage.id] = (stage, info)
                self._bus.post(SparkListenerStageSubmitted(info, self._job_properties))
            else:
                self._complete(stage.id, notice[2] if kind == "failed" else None)

    def job_ended(self, job_id: int, error: BaseException | None) -> None:
        if not self.enabled:
            return
        text = None if error is None else f"{type(error).__name__}: {error}"
        for stage_id in list(self._running_stages):
            self._complete(stage_id, text or "Job ended before the stage finished")
        result = {"Result": "JobSucceeded"} if text is None else {"Result": "JobFailed", "Exception": text}
        self._bus.post(SparkListenerJobEnd(job_id, _now(), result))
        # Per-job tables: a stream runs jobs for months, nothing may pile up across them.
        self._attempts.clear()
        self._levels.clear()
        self._rdd_infos.clear()

    def _complete(self, stage_id: int, failure: str | None) -> None:
        entry = self._running_stages.pop(stage_id, None)
        if entry is None:
            return
        _, info = entry
        done = StageInfo(info.stageId, info.attemptId, info.name, info.numTasks, info.rddInfos, info.parentIds,
                         info.details, info.submissionTime, _now(), failure, info.isShuffleMap)
        self._bus.post(SparkListenerStageCompleted(done))

    def _stage_info(self, stage: Any, attempt: int, num_tasks: int | None = None,
                    submitted: int | None = None) -> StageInfo:
        rdds = self._rdd_infos.get(stage.id)
        if rdds is None:
            rdds = self._rdd_infos[stage.id] = [
                RDDInfo(node.id, node.name or node.describe(), node.num_partitions, level_name(node.storage_level),
                        node.storage_level.useMemory, node.storage_level.useDisk, node.storage_level.deserialized,
                        [d.parent.id for d in node.dependencies])
                for node in walk_narrow(stage.node)]
            for rdd in rdds:
                if rdd.storageLevel != "NONE":
                    self._levels[str(rdd.id)] = rdd.storageLevel
        name = stage.node.creation_site or self._job_site
        return StageInfo(stage.id, attempt, name, num_tasks if num_tasks is not None else stage.node.num_partitions,
                         rdds, [p.id for p in stage.parents], self._job_site, submitted, None, None,
                         stage.is_shuffle_map)

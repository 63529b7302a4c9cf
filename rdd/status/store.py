"""AppStatusStore: the live state of one application, kept from its listener events.

What this module owns
---------------------
A listener (``on_event``) that keeps the application, its jobs, stage attempts, tasks,
executors, cached RDDs and environment, the way Spark's ``AppStatusListener`` does, and
the reads the REST API and the UI make of them (``jobs()``, ``stage()``...: fresh
JSON-able dicts). The same store serves a live context (fed by its bus) and a replayed
event log (fed by :mod:`rdd.status.replay`).

Invariants
----------
* Bounded, as Spark: at most ``spark.ui.retainedJobs`` jobs, ``spark.ui.retainedStages``
  stage attempts, ``spark.ui.retainedTasks`` tasks per stage attempt and
  ``spark.ui.retainedDeadExecutors`` dead executors. Past a limit the oldest *finished*
  entries go (in the order they finished), ``max(limit // 10, excess)`` at a time, so
  cleanup runs rarely and costs what it drops; running ones always stay.
* One lock: the bus thread writes and the HTTP thread reads under it; the critical
  sections are one event's update or one read's copy.
"""

from __future__ import annotations

import itertools
import operator
import threading
from collections import OrderedDict
from typing import Any

from .entities import LiveExecutor, LiveJob, LiveRDD, LiveStage, LiveTask, api_date, metric_values, stage_index_key

RETAINED = {"jobs": ("spark.ui.retainedJobs", 1000), "stages": ("spark.ui.retainedStages", 1000),
            "tasks": ("spark.ui.retainedTasks", 100000), "dead": ("spark.ui.retainedDeadExecutors", 100)}


_stage_id = operator.attrgetter("stageId")


def to_remove(count: int, limit: int) -> int:
    """Spark's ``calculateNumberToRemove``: how many entries a cleanup drops."""
    return max(limit // 10, count - limit) if count > limit else 0


class AppStatusStore:
    """The live status of one application (see the module docstring).

    Parameters
    ----------
    conf : SparkConf, optional
        Where the retention limits are read (Spark's defaults without it).
    """

    def __init__(self, conf: Any = None) -> None:
        def limit(which: str) -> int:
            key, default = RETAINED[which]
            return default if conf is None else max(1, conf.getInt(key, default))
        self.retained_jobs, self.retained_stages = limit("jobs"), limit("stages")
        self.retained_tasks, self.retained_dead_executors = limit("tasks"), limit("dead")
        self.lock = threading.RLock()
        self.application: dict[str, Any] = {}
        self.environment: dict[str, list[list[str]]] = {}
        self._jobs: OrderedDict[int, LiveJob] = OrderedDict()
        self._running_jobs: dict[int, LiveJob] = {}
        self._stages: OrderedDict[tuple[int, int], LiveStage] = OrderedDict()
        self._latest_attempt: dict[int, int] = {}
        self._tasks: dict[int, LiveTask] = {}
        self._executors: dict[str, LiveExecutor] = {}
        self._rdds: dict[int, LiveRDD] = {}
        self._handlers: dict[type, Any] = {}  # event type -> bound handler (or None)
        # Finished jobs and stage attempts in the order they finished (the order their end
        # events arrived, which is their completion order): a cleanup drops the oldest from
        # the front, without sorting every retained entry each time.
        self._finished_jobs: dict[int, None] = {}
        self._finished_stages: dict[tuple[int, int], None] = {}

    # -- the listener ------------------------------------------------------------------
    def on_event(self, event: Any) -> None:
        kind = type(event)
        try:
            handler = self._handlers[kind]
        except KeyError:  # the first event of its type: look its handler up once
            handler = self._handlers[kind] = getattr(self, "_" + getattr(event, "_callback", "onOtherEvent"), None)
        if handler is not None:
            with self.lock:
                handler(event)

    def _onApplicationStart(self, e: Any) -> None:  # noqa: N802 - named after the callbacks
        self.application = {"id": e.appId, "name": e.appName, "startTime": e.time, "endTime": None,
                            "sparkUser": e.sparkUser, "attemptId": e.appAttemptId}

    def _onApplicationEnd(self, e: Any) -> None:  # noqa: N802
        self.application["endTime"] = e.time

    def _onEnvironmentUpdate(self, e: Any) -> None:  # noqa: N802
        self.environment = {k: [list(p) for p in v] for k, v in e.environmentDetails.items()}

    def _onJobStart(self, e: Any) -> None:  # noqa: N802
        props = e.properties or {}
        infos = e.stageInfos
        # The job is named after its final stage, the highest id. Events are read-only: the
        # job keeps the event's properties rather than a copy.
        name = max(infos, key=_stage_id).name if infos else ""
        job = LiveJob(e.jobId, name, e.time, tuple(sorted([s.stageId for s in infos])),
                      sum([s.numTasks for s in infos]), props.get("spark.job.description"),
                      props.get("spark.jobGroup.id"), properties=props)
        self._jobs[e.jobId] = job
        self._running_jobs[e.jobId] = job
        stages = self._stages
        for info in infos:
            key = (info.stageId, info.attemptId)
            stage = stages.get(key)
            if stage is None:
                stage = stages[key] = LiveStage(info)
                self._latest_attempt.setdefault(info.stageId, info.attemptId)
            stage.job_ids[e.jobId] = None
        self._cleanup_jobs()
        self._cleanup_stages()

    def _onJobEnd(self, e: Any) -> None:  # noqa: N802
        self._running_jobs.pop(e.jobId, None)
        job = self._jobs.get(e.jobId)
        if job is None:
            return
        job.status = "SUCCEEDED" if e.jobResult.get("Result") == "JobSucceeded" else "FAILED"
        job.completionTime = e.time
        self._finished(self._finished_jobs, e.jobId)
        for stage_id in job.stageIds:
            if stage_id in job.completed_stages or stage_id in job.active_stages or stage_id in job.failed_ids:
                continue
            stage = self._stages.get((stage_id, self._latest_attempt.get(stage_id, 0)))
            job.skipped_stages += 1
            if stage is not None:
                job.skipped_tasks += stage.info.numTasks
                if stage.status == "PENDING":
                    stage.status = "SKIPPED"
                    self._finished(self._finished_stages, stage.key)
        self._cleanup_jobs()

    def _onStageSubmitted(self, e: Any) -> None:  # noqa: N802
        info = e.stageInfo
        key = (info.stageId, info.attemptId)
        stage = self._stages.get(key)
        if stage is None:
            stage = LiveStage(info)
            self._stages[key] = stage
        stage.info, stage.status = info, "ACTIVE"
        self._finished_stages.pop(key, None)
        self._latest_attempt[info.stageId] = info.attemptId
        props = e.properties or {}
        stage.description, stage.job_group = props.get("spark.job.description"), props.get("spark.jobGroup.id")
        for job in self._running_jobs.values():
            if info.stageId in job.stageIds:
                stage.job_ids[job.jobId] = None
                job.active_stages[info.stageId] = None
        self._cleanup_stages()

    def _onStageCompleted(self, e: Any) -> None:  # noqa: N802
        info = e.stageInfo
        stage = self._stages.get((info.stageId, info.attemptId))
        if stage is None:
            return
        stage.info = info
        stage.status = "FAILED" if info.failureReason else "COMPLETE"
        self._finished(self._finished_stages, stage.key)
        for job_id in stage.job_ids:
            job = self._jobs.get(job_id)
            if job is None:
                continue
            job.active_stages.pop(info.stageId, None)
            if stage.status == "COMPLETE":
                job.completed_stages[info.stageId] = None
            else:
                job.failed_stages += 1
                job.failed_ids[info.stageId] = None
        self._cleanup_stages()

    def _onTaskStart(self, e: Any) -> None:  # noqa: N802
        t = e.taskInfo
        key = (e.stageId, e.stageAttemptId)
        self._tasks[t.taskId] = LiveTask(t.taskId, t.index, t.attempt, t.partitionId, t.launchTime, t.executorId,
                                         t.host, t.taskLocality, key)
        stage = self._stages.get(key)
        if stage is not None:
            stage.active_tasks += 1
            stage.task_ids[t.taskId] = None
            if stage.first_launch is None:
                stage.first_launch = t.launchTime
            for job_id in stage.job_ids:
                job = self._jobs.get(job_id)
                if job is not None:
                    job.active_tasks += 1
        executor = self._executors.get(t.executorId)
        if executor is not None:
            executor.activeTasks += 1

    def _onTaskEnd(self, e: Any) -> None:  # noqa: N802
        t, metrics = e.taskInfo, e.taskMetrics
        reason = e.reason.get("Reason", "Success")
        status = "SUCCESS" if reason == "Success" else ("KILLED" if reason == "TaskKilled" else "FAILED")
        key = (e.stageId, e.stageAttemptId)
        task = self._tasks.get(t.taskId)
        started = task is not None
        if task is None:
            task = LiveTask(t.taskId, t.index, t.attempt, t.partitionId, t.launchTime, t.executorId, t.host,
                            t.taskLocality, key)
            self._tasks[t.taskId] = task
        task.status, task.finishTime = status, t.finishTime
        task.metrics = None if metrics is None else metric_values(metrics)
        if status == "FAILED":
            task.errorMessage = e.reason.get("Description") or e.reason.get("Loss Reason") or reason
        stage = self._stages.get(key)
        if stage is not None:
            if not started:
                stage.task_ids[t.taskId] = None
            stage.active_tasks -= started
            if status == "SUCCESS":
                stage.complete_tasks += 1
                stage.completed_indices[t.index] = None
            elif status == "KILLED":
                stage.killed_tasks += 1
            else:
                stage.failed_tasks += 1
            if metrics is not None:
                stage.add_metrics(t.executorId, metrics, status != "SUCCESS")
            for job_id in stage.job_ids:
                job = self._jobs.get(job_id)
                if job is None:
                    continue
                job.active_tasks -= started
                if status == "SUCCESS":
                    job.completed_tasks += 1
                    job.completed_indices[stage_index_key(e.stageId, t.index)] = None
                elif status == "KILLED":
                    job.killed_tasks += 1
                else:
                    job.failed_tasks += 1
            self._cleanup_tasks(stage)
        executor = self._executors.get(t.executorId)
        if executor is not None:
            executor.activeTasks -= started
            if status == "SUCCESS":
                executor.completedTasks += 1
            else:
                executor.failedTasks += 1
            executor.totalDuration += max(0, t.finishTime - t.launchTime)
            if metrics is not None:
                executor.totalInputBytes += metrics.inputBytes
                executor.totalShuffleRead += metrics.shuffleReadBytes
                executor.totalShuffleWrite += metrics.shuffleWriteBytes

    def _onExecutorAdded(self, e: Any) -> None:  # noqa: N802
        info = e.executorInfo
        self._executors[e.executorId] = LiveExecutor(e.executorId, e.time, int(info.get("Total Cores", 1)),
                                                     info.get("Pid"))

    def _onExecutorRemoved(self, e: Any) -> None:  # noqa: N802
        executor = self._executors.get(e.executorId)
        if executor is None:
            return
        executor.isActive, executor.removeTime, executor.removeReason = False, e.time, e.reason
        for block in executor.blocks:
            rdd_id = _rdd_id(block)
            rdd = self._rdds.get(rdd_id) if rdd_id is not None else None
            if rdd is not None:
                rdd.partitions.pop(block, None)
        executor.blocks.clear()
        dead = [x for x in self._executors.values() if not x.isActive]
        drop = to_remove(len(dead), self.retained_dead_executors)
        for x in sorted(dead, key=lambda x: x.removeTime or 0)[:drop]:
            del self._executors[x.id]

    def _onBlockUpdated(self, e: Any) -> None:  # noqa: N802
        rdd_id = _rdd_id(e.blockId)
        if rdd_id is None:
            return
        executor = self._executors.get(e.executorId)
        rdd = self._rdds.get(rdd_id)
        stored = e.memSize > 0 or e.diskSize > 0
        if stored and rdd is None:
            info = self._rdd_info(rdd_id)
            rdd = LiveRDD(rdd_id, info.name if info else f"rdd_{rdd_id}", info.numPartitions if info else 0,
                          e.storageLevel)
            self._rdds[rdd_id] = rdd
        if stored:
            assert rdd is not None
            rdd.partitions[e.blockId] = (e.executorId, e.memSize, e.diskSize)
            if executor is not None:
                executor.blocks[e.blockId] = (e.memSize, e.diskSize)
        else:
            if rdd is not None:
                rdd.partitions.pop(e.blockId, None)
            if executor is not None:
                executor.blocks.pop(e.blockId, None)

    def _onUnpersistRDD(self, e: Any) -> None:  # noqa: N802
        self._rdds.pop(e.rddId, None)
        prefix = f"rdd_{e.rddId}_"
        for executor in self._executors.values():
            for block in [b for b in executor.blocks if b.startswith(prefix)]:
                del executor.blocks[block]

    def _rdd_info(self, rdd_id: int) -> Any:
        for stage in reversed(self._stages.values()):
            for info in stage.info.rddInfos:
                if info.id == rdd_id:
                    return info
        return None

    # -- retention ---------------------------------------------------------------------
    @staticmethod
    def _finished(order: dict[Any, None], key: Any) -> None:
        order.pop(key, None)  # finished again (a stage attempt re-run): it moves to the back
        order[key] = None

    def _cleanup_jobs(self) -> None:
        drop = to_remove(len(self._jobs), self.retained_jobs)
        if drop:
            order = self._finished_jobs
            for job_id in list(itertools.islice(order, drop)):
                del order[job_id]
                self._jobs.pop(job_id, None)

    def _cleanup_stages(self) -> None:
        drop = to_remove(len(self._stages), self.retained_stages)
        if drop:
            order = self._finished_stages
            for key in list(itertools.islice(order, drop)):
                del order[key]
                stage = self._stages.pop(key, None)
                if stage is None:
                    continue
                if self._latest_attempt.get(stage.info.stageId) == stage.info.attemptId:
                    del self._latest_attempt[stage.info.stageId]
                for task_id in stage.task_ids:
                    self._tasks.pop(task_id, None)

    def _cleanup_tasks(self, stage: LiveStage) -> None:
        drop = to_remove(len(stage.task_ids), self.retained_tasks)
        if drop:
            done = [i for i in stage.task_ids if self._tasks.get(i) is None or self._tasks[i].status != "RUNNING"]
            gone = set(sorted(done, key=lambda i: self._tasks[i].finishTime if i in self._tasks else 0)[:drop])
            for task_id in gone:
                self._tasks.pop(task_id, None)
            stage.task_ids = {i: None for i in stage.task_ids if i not in gone}

    # -- reads (JSON-able copies) --------------------------------------------------------
    def application_info(self) -> dict[str, Any]:
        """Spark's ``ApplicationInfo`` of this application."""
        with self.lock:
            app = dict(self.application)
        start, end = app.get("startTime", 0), app.get("endTime")
        attempt: dict[str, Any] = {}
        if app.get("attemptId"):
            attempt["attemptId"] = app["attemptId"]
        last = end if end is not None else start
        attempt.update({"startTime": api_date(start), "endTime": api_date(end if end is not None else -1),
                        "lastUpdated": api_date(last), "duration": (end - start) if end is not None else 0,
                        "sparkUser": app.get("sparkUser", ""), "completed": end is not None,
                        "appSparkVersion": _version(), "startTimeEpoch": start,
                        "endTimeEpoch": end if end is not None else -1, "lastUpdatedEpoch": last})
        return {"id": app.get("id", ""), "name": app.get("name", ""), "attempts": [attempt]}

    def jobs(self, statuses: set[str] | None = None) -> list[dict[str, Any]]:
        with self.lock:
            return [j.to_api() for j in reversed(self._jobs.values()) if not statuses or j.status in statuses]

    def job(self, job_id: int) -> dict[str, Any] | None:
        with self.lock:
            job = self._jobs.get(job_id)
            return None if job is None else job.to_api()

    def stages(self, statuses: set[str] | None = None) -> list[dict[str, Any]]:
        with self.lock:
            return [s.to_api() for s in sorted(self._stages.values(), key=lambda s: s.key, reverse=True)
                    if not statuses or s.status in statuses]

    def stage_attempts(self, stage_id: int, details: bool = True) -> list[dict[str, Any]]:
        with self.lock:
            found = [s for s in self._stages.values() if s.info.stageId == stage_id]
            return [s.to_api(self._tasks if details else None) for s in sorted(found, key=lambda s: s.key)]

    def active_stage_progress(self) -> list[tuple[int, int, int, int, int]]:
        """``(stageId, submissionTime ms, numTasks, completed, active)`` of running stages, by id."""
        with self.lock:
            return [(s.info.stageId, s.info.submissionTime or 0, s.info.numTasks, s.complete_tasks, s.active_tasks)
                    for s in sorted(self._stages.values(), key=lambda s: s.key) if s.status == "ACTIVE"]

    def stage_tasks(self, stage_id: int, attempt: int) -> list[dict[str, Any]] | None:
        with self.lock:
            stage = self._stages.get((stage_id, attempt))
            if stage is None:
                return None
            return [self._tasks[i].to_api() for i in stage.task_ids if i in self._tasks]

    def executors(self, active_only: bool) -> list[dict[str, Any]]:
        with self.lock:
            return [x.to_api() for x in self._executors.values() if x.isActive or not active_only]

    def rdds(self) -> list[dict[str, Any]]:
        with self.lock:
            return [r.to_api() for r in sorted(self._rdds.values(), key=lambda r: r.id) if r.partitions]

    def rdd(self, rdd_id: int) -> dict[str, Any] | None:
        with self.lock:
            rdd = self._rdds.get(rdd_id)
            return None if rdd is None else rdd.to_api(detail=True)

    def environment_info(self) -> dict[str, Any]:
        with self.lock:
            env = {k: [list(p) for p in v] for k, v in self.environment.items()}
        runtime = dict((k, v) for k, v in env.get("JVM Information", []))
        return {"runtime": {"javaVersion": runtime.get("Java Version", ""), "javaHome": runtime.get("Java Home", ""),
                            "scalaVersion": runtime.get("Scala Version", "")},
                "sparkProperties": env.get("Spark Properties", []),
                "hadoopProperties": env.get("Hadoop Properties", []),
                "systemProperties": env.get("System Properties", []),
                "metricsProperties": env.get("Metrics Properties", []),
                "classpathEntries": env.get("Classpath Entries", []), "resourceProfiles": []}


def _rdd_id(block_id: str) -> int | None:
    parts = block_id.split("_")
    if len(parts) == 3 and parts[0] == "rdd" and parts[1].isdigit():
        return int(parts[1])
    return None


def _version() -> str:
    from ..version import __version__
    return __version__

"""The live entities of the status store and their REST form (Spark's ``api/v1`` JSON).

What this module owns
---------------------
One mutable record per job, stage attempt, task, executor and cached RDD, updated by
:class:`~rdd.status.store.AppStatusStore` on the bus thread, and ``to_api()`` methods
that build the dicts the REST API returns, with Spark's field names and JSON types
(dates as ``"2026-12-01T10:00:00.000GMT"`` strings; optional fields left out while
unknown, as Spark's JSON leaves them out).

Invariants
----------
* Entities are only touched under the store's lock; ``to_api()`` returns fresh dicts
  and lists (nothing the bus thread mutates later).
* Besides the entity itself, what it keeps is invisible to the garbage collector: sets
  of ids are dicts of ``id -> None`` and sums are tuples (a dict or tuple holding only
  numbers and strings is not tracked; a set or list always is). The store keeps a
  thousand jobs and stages and a hundred thousand tasks: every tracked object among them
  made each collection walk it, and the collections the store's new entities triggered
  were most of what the UI cost a small job.
"""

# ruff: noqa: N815 - fields are named as Spark's JSON (camelCase), the contract of the event log and REST API
from __future__ import annotations

import operator
import time
from dataclasses import dataclass, field
from typing import Any

from .events import StageInfo, TaskMetrics

_METRIC_NAMES = tuple(TaskMetrics.__dataclass_fields__)
#: All of a TaskMetrics' values in one C call (a task's end adds each to its stage's totals).
metric_values = operator.attrgetter(*_METRIC_NAMES)
_RUN_TIME = _METRIC_NAMES.index("executorRunTime")
#: A job's completed task indices are ``stage id * _INDEX_SPAN + index`` (ints, not pairs).
_INDEX_SPAN = 1 << 32


#: The local property holding a thread's job tags, comma-separated (Spark's name). The
#: scheduler, the context and the store read it, through :func:`job_tags`.
JOB_TAGS_KEY = "spark.job.tags"


def job_tags(properties: dict[str, str]) -> frozenset[str]:
    """The tags of a job (or a thread) whose local properties are ``properties``."""
    return frozenset(filter(None, (properties.get(JOB_TAGS_KEY) or "").split(",")))


def api_date(ms: int | None) -> str | None:
    """Epoch ms as Spark's REST date string (``None`` stays ``None``)."""
    if ms is None:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms / 1000)) + f".{int(ms) % 1000:03d}GMT"


def _put(out: dict[str, Any], key: str, value: Any) -> None:
    if value is not None:
        out[key] = value


def task_metrics_api(m: TaskMetrics) -> dict[str, Any]:
    """Spark's nested ``TaskMetrics`` REST shape."""
    return {
        "executorDeserializeTime": m.executorDeserializeTime,
        "executorDeserializeCpuTime": m.executorDeserializeCpuTime,
        "executorRunTime": m.executorRunTime, "executorCpuTime": m.executorCpuTime,
        "resultSize": m.resultSize, "jvmGcTime": m.jvmGcTime,
        "resultSerializationTime": m.resultSerializationTime,
        "memoryBytesSpilled": m.memoryBytesSpilled, "diskBytesSpilled": m.diskBytesSpilled,
        "peakExecutionMemory": m.peakExecutionMemory,
        "inputMetrics": {"bytesRead": m.inputBytes, "recordsRead": m.inputRecords},
        "outputMetrics": {"bytesWritten": m.outputBytes, "recordsWritten": m.outputRecords},
        "shuffleReadMetrics": {
            "remoteBlocksFetched": 0, "localBlocksFetched": m.shuffleReadBlocks, "fetchWaitTime": 0,
            "remoteBytesRead": 0, "remoteBytesReadToDisk": 0, "localBytesRead": m.shuffleReadBytes,
            "recordsRead": m.shuffleReadRecords, "remoteReqsDuration": 0,
            "shufflePushReadMetrics": {
                "corruptMergedBlockChunks": 0, "mergedFetchFallbackCount": 0, "remoteMergedBlocksFetched": 0,
                "localMergedBlocksFetched": 0, "remoteMergedChunksFetched": 0, "localMergedChunksFetched": 0,
                "remoteMergedBytesRead": 0, "localMergedBytesRead": 0, "remoteMergedReqsDuration": 0}},
        "shuffleWriteMetrics": {"bytesWritten": m.shuffleWriteBytes, "writeTime": m.shuffleWriteTime,
                                "recordsWritten": m.shuffleWriteRecords},
    }


_EXECUTOR_TOTALS = ("taskTime", "failedTasks", "succeededTasks", "killedTasks", "inputBytes", "inputRecords",
                    "outputBytes", "outputRecords", "shuffleRead", "shuffleReadRecords", "shuffleWrite",
                    "shuffleWriteRecords", "memoryBytesSpilled", "diskBytesSpilled")


def stage_index_key(stage_id: int, index: int) -> int:
    """One int for a (stage, task index) pair: a job's completed indices are a dict of these."""
    return stage_id * _INDEX_SPAN + index


@dataclass(eq=False, slots=True)
class LiveTask:
    taskId: int
    index: int
    attempt: int
    partitionId: int
    launchTime: int
    executorId: str
    host: str
    taskLocality: str
    stage_key: tuple[int, int]
    status: str = "RUNNING"
    finishTime: int = 0
    errorMessage: str | None = None
    metrics: tuple[int, ...] | None = None  # the TaskMetrics' values, in its field order

    @property
    def duration(self) -> int:
        end = self.finishTime or int(time.time() * 1000)
        return max(0, end - self.launchTime)

    def to_api(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "taskId": self.taskId, "index": self.index, "attempt": self.attempt, "partitionId": self.partitionId,
            "launchTime": api_date(self.launchTime), "duration": self.duration, "executorId": self.executorId,
            "host": self.host, "status": self.status, "taskLocality": self.taskLocality, "speculative": False,
            "accumulatorUpdates": []}
        _put(out, "errorMessage", self.errorMessage)
        if self.metrics is not None:
            out["taskMetrics"] = task_metrics_api(TaskMetrics(*self.metrics))
        run = self.metrics[_RUN_TIME] if self.metrics is not None else 0
        out.update({"executorLogs": {}, "schedulerDelay": max(0, self.duration - run) if self.finishTime else 0,
                    "gettingResultTime": 0})
        return out


@dataclass(eq=False, slots=True)
class LiveStage:
    info: StageInfo
    status: str = "PENDING"
    job_ids: dict[int, None] = field(default_factory=dict)  # a set (see the module doc)
    description: str | None = None
    job_group: str | None = None
    active_tasks: int = 0
    complete_tasks: int = 0
    failed_tasks: int = 0
    killed_tasks: int = 0
    completed_indices: dict[int, None] = field(default_factory=dict)
    first_launch: int | None = None
    totals: tuple[int, ...] = (0,) * len(_METRIC_NAMES)  # in _METRIC_NAMES order
    task_ids: dict[int, None] = field(default_factory=dict)  # in launch order
    executor_totals: dict[str, tuple[int, ...]] = field(default_factory=dict)  # in _EXECUTOR_TOTALS order

    @property
    def key(self) -> tuple[int, int]:
        return self.info.stageId, self.info.attemptId

    def add_metrics(self, executor_id: str, metrics: TaskMetrics, failed: bool) -> None:
        self.totals = tuple(map(operator.add, self.totals, metric_values(metrics)))  # one C loop
        task = (metrics.executorRunTime, int(failed), int(not failed), 0, metrics.inputBytes, metrics.inputRecords,
                0, 0, metrics.shuffleReadBytes, metrics.shuffleReadRecords, metrics.shuffleWriteBytes,
                metrics.shuffleWriteRecords, 0, 0)
        per = self.executor_totals.get(executor_id)
        self.executor_totals[executor_id] = task if per is None else tuple(map(operator.add, per, task))

    def to_api(self, tasks: dict[int, LiveTask] | None = None) -> dict[str, Any]:
        info, t = self.info, dict(zip(_METRIC_NAMES, self.totals))
        out: dict[str, Any] = {
            "status": self.status, "stageId": info.stageId, "attemptId": info.attemptId,
            "numTasks": info.numTasks, "numActiveTasks": self.active_tasks, "numCompleteTasks": self.complete_tasks,
            "numFailedTasks": self.failed_tasks, "numKilledTasks": self.killed_tasks,
            "numCompletedIndices": len(self.completed_indices)}
        _put(out, "submissionTime", api_date(info.submissionTime))
        _put(out, "firstTaskLaunchedTime", api_date(self.first_launch))
        _put(out, "completionTime", api_date(info.completionTime))
        _put(out, "failureReason", info.failureReason)
        out.update({
            "executorDeserializeTime": t["executorDeserializeTime"],
            "executorDeserializeCpuTime": t["executorDeserializeCpuTime"],
            "executorRunTime": t["executorRunTime"], "executorCpuTime": t["executorCpuTime"],
            "resultSize": t["resultSize"], "jvmGcTime": t["jvmGcTime"],
            "resultSerializationTime": t["resultSerializationTime"],
            "memoryBytesSpilled": t["memoryBytesSpilled"], "diskBytesSpilled": t["diskBytesSpilled"],
            "peakExecutionMemory": t["peakExecutionMemory"], "inputBytes": t["inputBytes"],
            "inputRecords": t["inputRecords"], "outputBytes": t["outputBytes"], "outputRecords": t["outputRecords"],
            "shuffleRemoteBlocksFetched": 0, "shuffleLocalBlocksFetched": t["shuffleReadBlocks"],
            "shuffleFetchWaitTime": 0, "shuffleRemoteBytesRead": 0, "shuffleRemoteBytesReadToDisk": 0,
            "shuffleLocalBytesRead": t["shuffleReadBytes"], "shuffleReadBytes": t["shuffleReadBytes"],
            "shuffleReadRecords": t["shuffleReadRecords"], "shuffleWriteBytes": t["shuffleWriteBytes"],
            "shuffleWriteTime": t["shuffleWriteTime"], "shuffleWriteRecords": t["shuffleWriteRecords"],
            "name": info.name})
        _put(out, "description", self.description)
        out.update({"details": info.details, "schedulingPool": "default",
                    "rddIds": [r.id for r in info.rddInfos], "accumulatorUpdates": []})
        if tasks is not None:
            out["tasks"] = {str(i): tasks[i].to_api() for i in self.task_ids if i in tasks}
            out["executorSummary"] = {k: dict(zip(_EXECUTOR_TOTALS, v), isBlacklistedForStage=False,
                                              isExcludedForStage=False)
                                      for k, v in self.executor_totals.items()}
        out.update({"killedTasksSummary": {}, "resourceProfileId": 0, "isShufflePushEnabled": False,
                    "shuffleMergersCount": 0})
        # Ours, not Spark's: the stage graph for the UI's DAG drawing.
        out["parentIds"] = list(info.parentIds)
        out["jobIds"] = sorted(self.job_ids)
        return out


@dataclass(eq=False, slots=True)
class LiveJob:
    jobId: int
    name: str
    submissionTime: int
    stageIds: tuple[int, ...]
    numTasks: int
    description: str | None = None
    jobGroup: str | None = None
    status: str = "RUNNING"
    completionTime: int | None = None
    active_tasks: int = 0
    completed_tasks: int = 0
    failed_tasks: int = 0
    killed_tasks: int = 0
    skipped_tasks: int = 0
    # Sets as dicts of key -> None (see the module doc); an index is stage_index_key's int.
    completed_indices: dict[int, None] = field(default_factory=dict)
    active_stages: dict[int, None] = field(default_factory=dict)
    completed_stages: dict[int, None] = field(default_factory=dict)
    failed_stages: int = 0
    failed_ids: dict[int, None] = field(default_factory=dict)
    skipped_stages: int = 0
    properties: dict[str, str] = field(default_factory=dict)

    def to_api(self) -> dict[str, Any]:
        out: dict[str, Any] = {"jobId": self.jobId, "name": self.name}
        _put(out, "description", self.description)
        _put(out, "submissionTime", api_date(self.submissionTime))
        _put(out, "completionTime", api_date(self.completionTime))
        out["stageIds"] = list(self.stageIds)
        _put(out, "jobGroup", self.jobGroup)
        out.update({
            "jobTags": sorted(job_tags(self.properties)),
            "status": self.status, "numTasks": self.numTasks, "numActiveTasks": self.active_tasks,
            "numCompletedTasks": self.completed_tasks, "numSkippedTasks": self.skipped_tasks,
            "numFailedTasks": self.failed_tasks, "numKilledTasks": self.killed_tasks,
            "numCompletedIndices": len(self.completed_indices), "numActiveStages": len(self.active_stages),
            "numCompletedStages": len(self.completed_stages), "numSkippedStages": self.skipped_stages,
            "numFailedStages": self.failed_stages, "killedTasksSummary": {}})
        return out


@dataclass(eq=False, slots=True)
class LiveExecutor:
    id: str
    addTime: int
    totalCores: int
    pid: int | None = None
    isActive: bool = True
    removeTime: int | None = None
    removeReason: str | None = None
    activeTasks: int = 0
    failedTasks: int = 0
    completedTasks: int = 0
    totalDuration: int = 0
    totalInputBytes: int = 0
    totalShuffleRead: int = 0
    totalShuffleWrite: int = 0
    blocks: dict[str, tuple[int, int]] = field(default_factory=dict)

    def to_api(self) -> dict[str, Any]:
        memory = sum(m for m, _ in self.blocks.values())
        disk = sum(d for _, d in self.blocks.values())
        out: dict[str, Any] = {
            "id": self.id, "hostPort": "localhost" if self.pid is None else f"localhost (pid {self.pid})",
            "isActive": self.isActive, "rddBlocks": len(self.blocks), "memoryUsed": memory, "diskUsed": disk,
            "totalCores": self.totalCores, "maxTasks": self.totalCores, "activeTasks": self.activeTasks,
            "failedTasks": self.failedTasks, "completedTasks": self.completedTasks,
            "totalTasks": self.activeTasks + self.failedTasks + self.completedTasks,
            "totalDuration": self.totalDuration, "totalGCTime": 0, "totalInputBytes": self.totalInputBytes,
            "totalShuffleRead": self.totalShuffleRead, "totalShuffleWrite": self.totalShuffleWrite,
            "isBlacklisted": False, "maxMemory": 0, "addTime": api_date(self.addTime)}
        _put(out, "removeTime", api_date(self.removeTime))
        _put(out, "removeReason", self.removeReason)
        out.update({"executorLogs": {}, "memoryMetrics": {
            "usedOnHeapStorageMemory": memory, "usedOffHeapStorageMemory": 0, "totalOnHeapStorageMemory": 0,
            "totalOffHeapStorageMemory": 0}, "blacklistedInStages": [], "attributes": {}, "resources": {},
            "resourceProfileId": 0, "isExcluded": False, "excludedInStages": []})
        return out


@dataclass(eq=False, slots=True)
class LiveRDD:
    id: int
    name: str
    numPartitions: int
    storageLevel: str
    partitions: dict[str, tuple[str, int, int]] = field(default_factory=dict)  # block -> (executor, mem, disk)

    def to_api(self, detail: bool = False) -> dict[str, Any]:
        memory = sum(m for _, m, _ in self.partitions.values())
        disk = sum(d for _, _, d in self.partitions.values())
        out: dict[str, Any] = {
            "id": self.id, "name": self.name, "numPartitions": self.numPartitions,
            "numCachedPartitions": len(self.partitions), "storageLevel": self.storageLevel,
            "memoryUsed": memory, "diskUsed": disk}
        if detail:
            by_executor: dict[str, list[int]] = {}
            for executor, mem, dsk in self.partitions.values():
                acc = by_executor.setdefault(executor, [0, 0])
                acc[0] += mem
                acc[1] += dsk
            out["dataDistribution"] = [
                {"address": executor, "memoryUsed": mem, "memoryRemaining": 0, "diskUsed": dsk,
                 "onHeapMemoryUsed": mem, "offHeapMemoryUsed": 0, "onHeapMemoryRemaining": 0,
                 "offHeapMemoryRemaining": 0} for executor, (mem, dsk) in sorted(by_executor.items())]
            out["partitions"] = [
                {"blockName": block, "storageLevel": self.storageLevel, "memoryUsed": mem, "diskUsed": dsk,
                 "executors": [executor]}
                for block, (executor, mem, dsk) in sorted(self.partitions.items(),
                                                          key=lambda kv: int(kv[0].rsplit("_", 1)[1]))]
        return out

"""The REST API's core endpoints against Spark's documented JSON shapes, on real jobs.

Each ``SHAPE`` lists the fields Spark's ``/api/v1`` returns for an endpoint with the
JSON type of each (``str``, ``int``, ``bool``, ``list``, ``dict``); optional fields
(Spark leaves them out while unknown) are checked only when present. The API is
called as the web server calls it: ``ApiV1.get(path, query)``.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from rdd import SparkContext, StorageLevel
from rdd.status.api import ApiV1

WAIT = 10.0
DATE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}GMT$")
D = "date"  # a str in Spark's date format

APPLICATION = {"id": str, "name": str, "attempts": list}
ATTEMPT = {"startTime": D, "endTime": D, "lastUpdated": D, "duration": int, "sparkUser": str, "completed": bool,
           "appSparkVersion": str, "startTimeEpoch": int, "endTimeEpoch": int, "lastUpdatedEpoch": int}
JOB = {"jobId": int, "name": str, "submissionTime": D, "stageIds": list, "jobTags": list, "status": str,
       "numTasks": int, "numActiveTasks": int, "numCompletedTasks": int, "numSkippedTasks": int,
       "numFailedTasks": int, "numKilledTasks": int, "numCompletedIndices": int, "numActiveStages": int,
       "numCompletedStages": int, "numSkippedStages": int, "numFailedStages": int, "killedTasksSummary": dict}
JOB_OPTIONAL = {"description": str, "completionTime": D, "jobGroup": str}
STAGE = {"status": str, "stageId": int, "attemptId": int, "numTasks": int, "numActiveTasks": int,
         "numCompleteTasks": int, "numFailedTasks": int, "numKilledTasks": int, "numCompletedIndices": int,
         "executorDeserializeTime": int, "executorDeserializeCpuTime": int, "executorRunTime": int,
         "executorCpuTime": int, "resultSize": int, "jvmGcTime": int, "resultSerializationTime": int,
         "memoryBytesSpilled": int, "diskBytesSpilled": int, "peakExecutionMemory": int, "inputBytes": int,
         "inputRecords": int, "outputBytes": int, "outputRecords": int, "shuffleRemoteBlocksFetched": int,
         "shuffleLocalBlocksFetched": int, "shuffleFetchWaitTime": int, "shuffleRemoteBytesRead": int,
         "shuffleRemoteBytesReadToDisk": int, "shuffleLocalBytesRead": int, "shuffleReadBytes": int,
         "shuffleReadRecords": int, "shuffleWriteBytes": int, "shuffleWriteTime": int, "shuffleWriteRecords": int,
         "name": str, "details": str, "schedulingPool": str, "rddIds": list, "accumulatorUpdates": list,
         "killedTasksSummary": dict, "resourceProfileId": int}
STAGE_OPTIONAL = {"submissionTime": D, "firstTaskLaunchedTime": D, "completionTime": D, "failureReason": str,
                  "description": str, "tasks": dict, "executorSummary": dict}
TASK = {"taskId": int, "index": int, "attempt": int, "partitionId": int, "launchTime": D, "executorId": str,
        "host": str, "status": str, "taskLocality": str, "speculative": bool, "accumulatorUpdates": list,
        "executorLogs": dict, "schedulerDelay": int, "gettingResultTime": int}
TASK_OPTIONAL = {"duration": int, "errorMessage": str, "taskMetrics": dict}
TASK_METRICS = {"executorDeserializeTime": int, "executorDeserializeCpuTime": int, "executorRunTime": int,
                "executorCpuTime": int, "resultSize": int, "jvmGcTime": int, "resultSerializationTime": int,
                "memoryBytesSpilled": int, "diskBytesSpilled": int, "peakExecutionMemory": int,
                "inputMetrics": dict, "outputMetrics": dict, "shuffleReadMetrics": dict, "shuffleWriteMetrics": dict}
SHUFFLE_READ = {"remoteBlocksFetched": int, "localBlocksFetched": int, "fetchWaitTime": int, "remoteBytesRead": int,
                "remoteBytesReadToDisk": int, "localBytesRead": int, "recordsRead": int}
SHUFFLE_WRITE = {"bytesWritten": int, "writeTime": int, "recordsWritten": int}
EXECUTOR = {"id": str, "hostPort": str, "isActive": bool, "rddBlocks": int, "memoryUsed": int, "diskUsed": int,
            "totalCores": int, "maxTasks": int, "activeTasks": int, "failedTasks": int, "completedTasks": int,
            "totalTasks": int, "totalDuration": int, "totalGCTime": int, "totalInputBytes": int,
            "totalShuffleRead": int, "totalShuffleWrite": int, "isBlacklisted": bool, "maxMemory": int,
            "addTime": D, "executorLogs": dict, "blacklistedInStages": list, "attributes": dict,
            "resources": dict, "resourceProfileId": int, "isExcluded": bool, "excludedInStages": list}
EXECUTOR_OPTIONAL = {"removeTime": D, "removeReason": str, "memoryMetrics": dict}
RDD = {"id": int, "name": str, "numPartitions": int, "numCachedPartitions": int, "storageLevel": str,
       "memoryUsed": int, "diskUsed": int}
RDD_DETAIL = {**RDD, "dataDistribution": list, "partitions": list}
PARTITION = {"blockName": str, "storageLevel": str, "memoryUsed": int, "diskUsed": int, "executors": list}
ENVIRONMENT = {"runtime": dict, "sparkProperties": list, "hadoopProperties": list, "systemProperties": list,
               "metricsProperties": list, "classpathEntries": list, "resourceProfiles": list}
RUNTIME = {"javaVersion": str, "javaHome": str, "scalaVersion": str}


def conforms(value: dict[str, Any], shape: dict[str, Any], optional: dict[str, Any] | None = None) -> None:
    missing = set(shape) - set(value)
    assert not missing, f"fields missing: {sorted(missing)}"
    for name, kind in {**shape, **(optional or {})}.items():
        if name not in value:
            continue
        got = value[name]
        if kind == D:
            assert isinstance(got, str) and DATE.match(got), f"{name}={got!r} is not a Spark date"
        elif kind is int:
            assert isinstance(got, int) and not isinstance(got, bool), f"{name}={got!r} is not an integer"
        else:
            assert isinstance(got, kind), f"{name}={got!r} is not a {kind.__name__}"


@pytest.fixture
def app(sc: SparkContext) -> tuple[SparkContext, ApiV1]:
    cached = sc.parallelize(range(200), 4).map(lambda x: (x % 7, x)).persist(StorageLevel.MEMORY_ONLY)
    cached.setName("pairs")
    cached.reduceByKey(lambda a, b: a + b, 2).collect()
    cached.groupByKey(3).count()
    with pytest.raises(ZeroDivisionError):
        sc.parallelize([0], 1).map(lambda x: 1 // x).collect()
    assert sc._listener_bus.wait_until_empty(WAIT)
    api = ApiV1(lambda: {sc.applicationId: sc._status_store})
    return sc, api


def ok(api: ApiV1, path: str, **query: str) -> Any:
    status, body = api.get(path, {k: [v] for k, v in query.items()})
    assert status == 200, f"GET {path}: {status} {body}"
    json.dumps(body)  # JSON-able
    return body


def test_applications(app: tuple[SparkContext, ApiV1]) -> None:
    sc, api = app
    (entry,) = ok(api, "applications")
    conforms(entry, APPLICATION)
    assert entry["id"] == sc.applicationId and entry["name"] == sc.appName
    (attempt,) = entry["attempts"]
    conforms(attempt, ATTEMPT)
    assert attempt["completed"] is False
    assert ok(api, f"applications/{sc.applicationId}") == entry


def test_jobs_and_job(app: tuple[SparkContext, ApiV1]) -> None:
    sc, api = app
    base = f"applications/{sc.applicationId}"
    jobs = ok(api, f"{base}/jobs")
    assert [j["jobId"] for j in jobs] == [2, 1, 0]  # newest first, as Spark
    for job in jobs:
        conforms(job, JOB, JOB_OPTIONAL)
    assert [j["status"] for j in jobs] == ["FAILED", "SUCCEEDED", "SUCCEEDED"]
    assert [j["jobId"] for j in ok(api, f"{base}/jobs", status="succeeded")] == [1, 0]
    assert jobs[1]["numSkippedStages"] == 0 and jobs[1]["numCompletedStages"] == 2
    assert ok(api, f"{base}/jobs/0") == jobs[2]
    assert jobs[2]["numTasks"] == 6 and jobs[2]["numCompletedTasks"] == 6


def test_stages_stage_attempt_and_task_list(app: tuple[SparkContext, ApiV1]) -> None:
    sc, api = app
    base = f"applications/{sc.applicationId}"
    stages = ok(api, f"{base}/stages")
    for stage in stages:
        conforms(stage, STAGE, STAGE_OPTIONAL)
        assert "tasks" not in stage
    assert {s["status"] for s in stages} == {"COMPLETE", "FAILED"}
    failed = ok(api, f"{base}/stages", status="failed")
    assert len(failed) == 1 and "ZeroDivisionError" in failed[0]["failureReason"]
    map_stage = next(s for s in stages if s["shuffleWriteBytes"] > 0)
    attempts = ok(api, f"{base}/stages/{map_stage['stageId']}")
    assert [a["attemptId"] for a in attempts] == [0]
    detail = ok(api, f"{base}/stages/{map_stage['stageId']}/0")
    conforms(detail, STAGE, STAGE_OPTIONAL)
    assert len(detail["tasks"]) == 4
    for task in detail["tasks"].values():
        conforms(task, TASK, TASK_OPTIONAL)
        conforms(task["taskMetrics"], TASK_METRICS)
        conforms(task["taskMetrics"]["shuffleReadMetrics"], SHUFFLE_READ)
        conforms(task["taskMetrics"]["shuffleWriteMetrics"], SHUFFLE_WRITE)
    page = ok(api, f"{base}/stages/{map_stage['stageId']}/0/taskList", offset="1", length="2")
    assert [t["index"] for t in page] == [1, 2]
    by_runtime = ok(api, f"{base}/stages/{map_stage['stageId']}/0/taskList", sortBy="-runtime")
    runtimes = [t["taskMetrics"]["executorRunTime"] for t in by_runtime]
    assert runtimes == sorted(runtimes, reverse=True)
    failed_detail = ok(api, f"{base}/stages/{failed[0]['stageId']}/0")
    (task,) = failed_detail["tasks"].values()
    assert task["status"] == "FAILED" and "division" in task["errorMessage"]


def test_executors_and_allexecutors(app: tuple[SparkContext, ApiV1]) -> None:
    sc, api = app
    base = f"applications/{sc.applicationId}"
    (driver,) = ok(api, f"{base}/executors")
    conforms(driver, EXECUTOR, EXECUTOR_OPTIONAL)
    assert driver["id"] == "driver" and driver["isActive"] is True
    assert driver["completedTasks"] > 0 and driver["failedTasks"] == 1
    assert driver["rddBlocks"] == 4 and driver["memoryUsed"] > 0
    assert ok(api, f"{base}/allexecutors") == [driver]


def test_storage_rdd_list_and_detail(app: tuple[SparkContext, ApiV1]) -> None:
    sc, api = app
    base = f"applications/{sc.applicationId}"
    (rdd,) = ok(api, f"{base}/storage/rdd")
    conforms(rdd, RDD)
    assert rdd["name"] == "pairs" and rdd["numPartitions"] == 4 and rdd["numCachedPartitions"] == 4
    assert rdd["storageLevel"] == "Memory Serialized 1x Replicated"
    detail = ok(api, f"{base}/storage/rdd/{rdd['id']}")
    conforms(detail, RDD_DETAIL)
    for partition in detail["partitions"]:
        conforms(partition, PARTITION)
    assert [p["blockName"] for p in detail["partitions"]] == [f"rdd_{rdd['id']}_{i}" for i in range(4)]


def test_environment(app: tuple[SparkContext, ApiV1]) -> None:
    sc, api = app
    env = ok(api, f"applications/{sc.applicationId}/environment")
    conforms(env, ENVIRONMENT)
    conforms(env["runtime"], RUNTIME)
    assert ["spark.master", "local"] in env["sparkProperties"]
    assert all(isinstance(p, list) and len(p) == 2 for p in env["sparkProperties"])


@pytest.mark.parametrize(("path", "message"), [
    ("applications/nope/jobs", "no such app: nope"),
    ("applications/{app}/jobs/99", "unknown job: 99"),
    ("applications/{app}/stages/99", "unknown stage: 99"),
    ("applications/{app}/stages/0/5", "unknown attempt for stage 0.  Found attempts: [0]"),
    ("applications/{app}/storage/rdd/99", "unknown rdd: 99"),
    ("applications/{app}/nothing", "unknown path"),
    ("nothing", "unknown path"),
])
def test_unknown_ids_are_404_with_spark_messages(app: tuple[SparkContext, ApiV1], path: str, message: str) -> None:
    sc, api = app
    status, body = api.get(path.format(app=sc.applicationId), {})
    assert status == 404
    assert message in body["message"]


@pytest.mark.parametrize(("path", "query"), [
    ("jobs/x", {}),
    ("stages/1.5", {}),
    ("jobs", {"status": ["sleeping"]}),
    ("stages", {"status": ["done"]}),
    ("stages/0/0/taskList", {"sortBy": ["name"]}),
    ("stages/0/0/taskList", {"offset": ["-1"]}),
    ("storage/rdd/abc", {}),
    ("stages/0", {"details": ["maybe"]}),
])
def test_bad_parameters_are_400(app: tuple[SparkContext, ApiV1], path: str, query: dict[str, list[str]]) -> None:
    sc, api = app
    status, body = api.get(f"applications/{sc.applicationId}/{path}", query)
    assert status == 400, body
    assert body["message"]


def test_plugins_serve_their_prefix(app: tuple[SparkContext, ApiV1]) -> None:
    sc, api = app
    seen: list[tuple[list[str], dict[str, list[str]]]] = []

    def streaming(parts: list[str], query: dict[str, list[str]]) -> tuple[int, Any]:
        seen.append((parts, query))
        if parts == ["batches", "7"]:
            return 404, {"message": "unknown batch: 7"}
        return 200, {"parts": parts}

    api.register("streaming", streaming)
    base = f"applications/{sc.applicationId}"
    assert api.get(f"{base}/streaming/statistics", {}) == (200, {"parts": ["statistics"]})
    assert api.get(f"{base}/streaming/batches/7", {}) == (404, {"message": "unknown batch: 7"})
    assert api.get(f"{base}/streaming", {"a": ["1"]}) == (200, {"parts": []})
    assert seen[-1] == ([], {"a": ["1"]})
    api.unregister("streaming")
    assert api.get(f"{base}/streaming/statistics", {})[0] == 404

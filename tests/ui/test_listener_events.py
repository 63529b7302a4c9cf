"""Listener events: the JSON round trip, the registry, and what real jobs post.

Real contexts (``local`` and ``local[2]``) run real jobs; a recording listener on the
context's bus sees the events in order.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import threading
from dataclasses import dataclass
from typing import Any

import pytest

from rdd import SparkConf, SparkContext, StorageLevel
from rdd.status import events as ev
from rdd.status.bus import SparkListener

WAIT = 10.0


class Recorder:
    def __init__(self) -> None:
        self.events: list[Any] = []

    def on_event(self, event: Any) -> None:
        self.events.append(event)

    def of(self, cls: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, cls)]


def record(sc: SparkContext) -> Recorder:
    recorder = Recorder()
    sc._listener_bus.add_listener(recorder)
    return recorder


def settle(sc: SparkContext) -> None:
    assert sc._listener_bus.wait_until_empty(WAIT), "the listener bus did not deliver within 10 s"


SAMPLES = [
    ev.SparkListenerApplicationStart("app", "local-1", 1, "me"),
    ev.SparkListenerApplicationEnd(2),
    ev.SparkListenerEnvironmentUpdate({"Spark Properties": [["spark.master", "local"]]}),
    ev.SparkListenerJobStart(0, 3, [ev.StageInfo(0, 0, "count at x.py:1", 2, (ev.RDDInfo(1, "r", 2, parentIds=(0,)),),
                                                 (3,))],
                             {"spark.job.description": "d"}),
    ev.SparkListenerJobEnd(0, 4, {"Result": "JobFailed", "Exception": "ValueError: no"}),
    ev.SparkListenerStageSubmitted(ev.StageInfo(1, 0, "s", 3, submissionTime=5), {}),
    ev.SparkListenerStageCompleted(ev.StageInfo(1, 0, "s", 3, submissionTime=5, completionTime=6)),
    ev.SparkListenerTaskStart(1, 0, ev.TaskInfo(7, 0, 0, 0, 5, "0")),
    ev.SparkListenerTaskEnd(1, 0, "ResultTask", {"Reason": "Success"}, ev.TaskInfo(7, 0, 0, 0, 5, "0", finishTime=9),
                            ev.TaskMetrics(executorRunTime=4, shuffleReadBytes=10)),
    ev.SparkListenerExecutorAdded(1, "0", {"Host": "localhost", "Total Cores": 1, "Log Urls": {}, "Pid": 3}),
    ev.SparkListenerExecutorRemoved(2, "0", "exited"),
    ev.SparkListenerBlockUpdated("0", "rdd_1_0", "Memory Deserialized 1x Replicated", 100, 0),
    ev.SparkListenerUnpersistRDD(1),
]


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: type(e).__name__)
def test_every_event_round_trips_through_json_text(event: Any) -> None:
    data = event.to_json()
    assert data["Event"] == type(event).__name__
    assert ev.event_from_json(json.loads(json.dumps(data))) == event


def test_every_registered_core_event_has_a_sample() -> None:
    core = {name for name, cls in ev.registered_events().items() if cls.__module__ == ev.__name__}
    assert core == {type(e).__name__ for e in SAMPLES}


def test_a_layer_registers_its_own_event_type() -> None:
    @ev.register_event
    @dataclass(frozen=True)
    class MyLayerEvent(ev.SparkListenerEvent):
        _nested = {"info": ev.TaskInfo}
        batchTime: int
        info: ev.TaskInfo

    event = MyLayerEvent(5, ev.TaskInfo(1, 0, 0, 0, 2, "driver"))
    assert ev.event_from_json(json.loads(json.dumps(event.to_json()))) == event


def test_registering_two_classes_under_one_name_is_refused() -> None:
    @dataclass(frozen=True)
    class Other:
        x: int

    with pytest.raises(ValueError, match="already registered"):
        ev.register_event(Other, name="SparkListenerJobStart")


def test_an_unknown_event_name_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown listener event 'Nope'.*SparkListenerJobStart"):
        ev.event_from_json({"Event": "Nope"})


def test_spark_listener_dispatches_to_spark_callback_names(sc: SparkContext) -> None:
    class Jobs(SparkListener):
        def __init__(self) -> None:
            self.started: list[int] = []
            self.ended: list[str] = []

        def onJobStart(self, event: Any) -> None:  # noqa: N802
            self.started.append(event.jobId)

        def onJobEnd(self, event: Any) -> None:  # noqa: N802
            self.ended.append(event.jobResult["Result"])

    jobs = Jobs()
    sc._listener_bus.add_listener(jobs)
    sc.parallelize(range(4), 2).count()
    settle(sc)
    assert jobs.started == [0] and jobs.ended == ["JobSucceeded"]


def check_order(events: list[Any]) -> None:
    """Per stage attempt: submitted, then its tasks, then completed; per job: start ... end."""
    open_stages: set[tuple[int, int]] = set()
    done_stages: set[tuple[int, int]] = set()
    open_jobs: set[int] = set()
    running: set[int] = set()
    for e in events:
        if isinstance(e, ev.SparkListenerJobStart):
            open_jobs.add(e.jobId)
        elif isinstance(e, ev.SparkListenerJobEnd):
            assert e.jobId in open_jobs
            open_jobs.discard(e.jobId)
        elif isinstance(e, ev.SparkListenerStageSubmitted):
            open_stages.add((e.stageInfo.stageId, e.stageInfo.attemptId))
        elif isinstance(e, ev.SparkListenerStageCompleted):
            key = (e.stageInfo.stageId, e.stageInfo.attemptId)
            assert key in open_stages, f"stage {key} completed before it was submitted"
            open_stages.discard(key)
            done_stages.add(key)
        elif isinstance(e, ev.SparkListenerTaskStart):
            assert (e.stageId, e.stageAttemptId) in open_stages
            running.add(e.taskInfo.taskId)
        elif isinstance(e, ev.SparkListenerTaskEnd):
            assert (e.stageId, e.stageAttemptId) in open_stages, "a task ended after its stage"
            assert e.taskInfo.taskId in running
            running.discard(e.taskInfo.taskId)
    assert not open_stages and not open_jobs and not running


@pytest.mark.parametrize("master", ["local", "local[2]"])
def test_a_shuffle_job_posts_its_stages_and_tasks_in_order_with_metrics(make_sc: Any, master: str) -> None:
    sc = make_sc(master)
    recorder = record(sc)
    pairs = sc.parallelize(range(100), 4).map(lambda x: (x % 5, 1)).reduceByKey(lambda a, b: a + b, 2)
    assert sorted(pairs.collect()) == [(k, 20) for k in range(5)]
    settle(sc)
    check_order(recorder.events)
    (start,) = recorder.of(ev.SparkListenerJobStart)
    assert sorted(s.numTasks for s in start.stageInfos) == [2, 4]
    assert start.stageInfos[0].name.startswith("collect at test_listener_events.py:")
    (end,) = recorder.of(ev.SparkListenerJobEnd)
    assert end.jobResult == {"Result": "JobSucceeded"}
    ends = recorder.of(ev.SparkListenerTaskEnd)
    maps = [e for e in ends if e.taskType == "ShuffleMapTask"]
    results = [e for e in ends if e.taskType == "ResultTask"]
    assert len(maps) == 4 and len(results) == 2
    assert sum(e.taskMetrics.shuffleWriteRecords for e in maps) == 4 * 5  # map-side combine: 5 keys each
    assert sum(e.taskMetrics.shuffleWriteBytes for e in maps) == sum(e.taskMetrics.shuffleReadBytes for e in results)
    assert sum(e.taskMetrics.shuffleReadRecords for e in results) == 20
    assert all(e.reason == {"Reason": "Success"} and e.taskInfo.finishTime >= e.taskInfo.launchTime for e in ends)
    executors = {e.taskInfo.executorId for e in ends}
    if master == "local":
        assert executors == {"driver"}
    else:
        assert executors <= {"0", "1"}
        assert all(e.taskMetrics.resultSize > 0 for e in ends)


def test_a_second_job_over_a_shuffle_skips_its_map_stage(sc: SparkContext) -> None:
    recorder = record(sc)
    pairs = sc.parallelize(range(10), 2).map(lambda x: (x % 2, x)).groupByKey()
    pairs.count()
    pairs.count()
    settle(sc)
    starts = recorder.of(ev.SparkListenerJobStart)
    assert [len(s.stageInfos) for s in starts] == [2, 2]
    submitted = [e.stageInfo.stageId for e in recorder.of(ev.SparkListenerStageSubmitted)]
    map_stage = min(s.stageId for s in starts[1].stageInfos)
    assert submitted.count(map_stage) == 1  # only the first job ran it


def test_a_failing_job_fails_its_task_stage_and_job(sc: SparkContext) -> None:
    recorder = record(sc)

    def boom(x: int) -> int:
        raise ValueError(f"bad record {x}")

    with pytest.raises(ValueError):
        sc.parallelize([1, 2], 1).map(boom).collect()
    settle(sc)
    check_order(recorder.events)
    (task_end,) = recorder.of(ev.SparkListenerTaskEnd)
    assert task_end.reason["Reason"] == "ExceptionFailure"
    assert "bad record 1" in task_end.reason["Description"] and task_end.taskInfo.failed
    (completed,) = recorder.of(ev.SparkListenerStageCompleted)
    assert "bad record 1" in (completed.stageInfo.failureReason or "")
    (end,) = recorder.of(ev.SparkListenerJobEnd)
    assert end.jobResult["Result"] == "JobFailed" and "bad record 1" in end.jobResult["Exception"]


def test_cached_partitions_post_block_updates_and_unpersist(sc: SparkContext) -> None:
    recorder = record(sc)
    rdd = sc.parallelize(range(1000), 2).persist(StorageLevel.MEMORY_ONLY).setName("cached numbers")
    rdd.count()
    rdd.unpersist()
    settle(sc)
    blocks = recorder.of(ev.SparkListenerBlockUpdated)
    assert sorted(b.blockId for b in blocks) == [f"rdd_{rdd.id()}_0", f"rdd_{rdd.id()}_1"]
    assert all(b.memSize > 0 and b.diskSize == 0 and b.executorId == "driver" for b in blocks)
    assert all("Memory" in b.storageLevel for b in blocks)
    assert recorder.of(ev.SparkListenerUnpersistRDD) == [ev.SparkListenerUnpersistRDD(rdd.id())]
    (start,) = recorder.of(ev.SparkListenerJobStart)
    assert start.stageInfos[0].rddInfos[0].name == "cached numbers"


def test_the_pool_workers_and_the_driver_are_executors(make_sc: Any) -> None:
    sc = make_sc("local[2]")
    # The executors were added while the context started: the store saw them.
    settle(sc)
    ids = sorted(x["id"] for x in sc._status_store.executors(active_only=True))
    assert ids == ["0", "1", "driver"]


def test_stop_delivers_application_end_and_leaves_no_bus_thread(no_active_context: None) -> None:
    sc = SparkContext("local", "stopping", conf=SparkConf())
    recorder = record(sc)
    sc.parallelize([1]).count()
    bus = sc._listener_bus
    sc.stop()
    assert isinstance(recorder.events[-1], ev.SparkListenerApplicationEnd)
    assert not any(t.name == "spark-listener-group-shared" for t in threading.enumerate())
    assert bus.stopped


def test_application_start_and_environment_are_posted_first_with_redaction(no_active_context: None) -> None:
    conf = SparkConf().set("spark.my.password", "hunter2").set("spark.app.flavour", "plain")
    sc = SparkContext("local", "app-with-secrets", conf=conf)
    try:
        settle(sc)
        env = sc._status_store.environment_info()
        props = dict(env["sparkProperties"])
        assert props["spark.my.password"] == "*********(redacted)"
        assert props["spark.app.flavour"] == "plain"
        assert sc._status_store.application["name"] == "app-with-secrets"
        assert sc._status_store.application["id"] == sc.applicationId
    finally:
        sc.stop()


def test_posting_with_no_listener_is_a_no_op(sc: SparkContext) -> None:
    bus = sc._listener_bus
    settle(sc)  # the context's own start-up events
    bus.remove_listener(sc._status_store)
    before = bus.statistics()
    sc.parallelize([1]).count()
    settle(sc)
    assert bus.statistics() == before
    assert dataclasses.is_dataclass(ev.TaskMetrics())


def test_a_lingering_bus_delivers_without_anyone_waiting() -> None:
    from rdd.status.bus import LiveListenerBus

    bus = LiveListenerBus()
    arrived = threading.Event()

    class Flag:
        def on_event(self, event: Any) -> None:
            arrived.set()

    bus.add_listener(Flag())
    bus.start()
    try:
        bus.post(ev.SparkListenerApplicationEnd(1))
        assert arrived.wait(WAIT), "the event was not delivered within 10 s although the bus lingers 50 ms"
    finally:
        assert bus.stop(WAIT)


def test_a_full_context_bus_counts_its_drops(make_sc: Any, caplog: pytest.LogCaptureFixture) -> None:
    gate = threading.Event()

    class Stuck:
        def on_event(self, event: Any) -> None:
            gate.wait(WAIT)

    sc = make_sc("local", SparkConf().set("spark.scheduler.listenerbus.eventqueue.capacity", "5"))
    sc._listener_bus.add_listener(Stuck())
    with caplog.at_level("WARNING", logger="rdd.status.bus"):
        for _ in range(5):
            sc.parallelize([1]).count()
    gate.set()
    assert sc._listener_bus.statistics().dropped > 0
    assert "queue is full" in caplog.text and "spark.scheduler.listenerbus.eventqueue.capacity" in caplog.text


def test_a_jobs_queued_posts_leave_the_garbage_collectors_books_but_its_start(make_sc: Any) -> None:
    # The reporter's posts wait in the queue for the bus's linger: each one the collector
    # still tracks after a pass is walked again by every later collection. Only a job's
    # start may stay tracked (it holds its stages' RDDs); the rest are plain values.
    gate = threading.Event()
    delivering = threading.Event()

    class Stuck:
        def on_event(self, event: Any) -> None:
            delivering.set()
            gate.wait(WAIT)

    sc = make_sc("local")
    sc._listener_bus.add_listener(Stuck())
    rdd = sc.parallelize([1, 2, 3], 1)
    try:
        rdd.count()
        assert delivering.wait(WAIT), "the bus delivered nothing within 10 s"
        queue = sc._listener_bus._queue
        before = len(queue)
        jobs = 20
        for _ in range(jobs):
            rdd.count()
        for _ in range(4):  # a pass drops a tuple only if its items were dropped before it: one level a pass
            gc.collect()
        posts = list(queue)[before:]
        assert len(posts) == 4 * jobs  # start, task start, task end, end (the stage's end rides with the job's)
        tracked = [post for post in posts if gc.is_tracked(post)]
        assert len(tracked) == jobs, tracked[:3]
        assert all(type(post[0]) is int for post in posts)  # builders by their codes
    finally:
        gate.set()
    settle(sc)

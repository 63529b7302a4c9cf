"""AppStatusStore: what real jobs leave in it, Spark's retention, and concurrent reads."""

from __future__ import annotations

import gc
import threading
from typing import Any

import pytest

from rdd import SparkConf, SparkContext
from rdd.status import events as ev
from rdd.status.store import AppStatusStore, to_remove

WAIT = 10.0


def settle(sc: SparkContext) -> None:
    assert sc._listener_bus.wait_until_empty(WAIT), "the listener bus did not deliver within 10 s"


def test_to_remove_is_sparks_chunked_rule() -> None:
    assert to_remove(10, 10) == 0
    assert to_remove(11, 10) == 1          # max(10 // 10, 1)
    assert to_remove(1001, 1000) == 100    # a tenth at a time: cleanup runs rarely
    assert to_remove(1500, 1000) == 500    # at least the excess


def test_retained_jobs_and_stages_keep_the_newest(make_sc: Any) -> None:
    conf = SparkConf().set("spark.ui.retainedJobs", "10").set("spark.ui.retainedStages", "10")
    sc = make_sc("local", conf)
    for _ in range(25):
        sc.parallelize([1, 2], 2).count()
    settle(sc)
    store = sc._status_store
    jobs = [j["jobId"] for j in store.jobs()]
    assert 10 <= len(jobs) <= 11 and jobs[0] == 24
    assert jobs == sorted(jobs, reverse=True) and jobs == list(range(24, 24 - len(jobs), -1))
    stages = store.stages()
    assert len(stages) <= 11 and stages[0]["stageId"] == 24
    # The tasks of removed stages went with them.
    assert len(store._tasks) == 2 * len(stages)


def test_retained_tasks_per_stage(make_sc: Any) -> None:
    sc = make_sc("local", SparkConf().set("spark.ui.retainedTasks", "20"))
    sc.parallelize(range(50), 50).count()
    settle(sc)
    (stage,) = sc._status_store.stage_attempts(0)
    assert stage["numCompleteTasks"] == 50  # the counters keep counting
    assert 18 <= len(stage["tasks"]) <= 20
    assert max(int(t) for t in stage["tasks"]) == 49  # the newest stay


def test_running_entries_are_never_cleaned_up() -> None:
    store = AppStatusStore(SparkConf().set("spark.ui.retainedJobs", "2"))
    store.on_event(ev.SparkListenerJobStart(0, 1, [], {}))  # never ends
    for job_id in range(1, 6):
        store.on_event(ev.SparkListenerJobStart(job_id, job_id, [], {}))
        store.on_event(ev.SparkListenerJobEnd(job_id, job_id + 1, {"Result": "JobSucceeded"}))
    ids = [j["jobId"] for j in store.jobs()]
    assert 0 in ids and ids[0] == 5 and len(ids) <= 3


def test_cleanup_drops_the_jobs_that_finished_first_not_the_lowest_ids() -> None:
    store = AppStatusStore(SparkConf().set("spark.ui.retainedJobs", "2"))
    store.on_event(ev.SparkListenerJobStart(0, 1, [], {}))
    store.on_event(ev.SparkListenerJobStart(1, 2, [], {}))
    store.on_event(ev.SparkListenerJobEnd(1, 3, {"Result": "JobSucceeded"}))
    store.on_event(ev.SparkListenerJobEnd(0, 4, {"Result": "JobSucceeded"}))  # the older job ends last
    store.on_event(ev.SparkListenerJobStart(2, 5, [], {}))  # 3 jobs for 2 places: one goes
    assert [j["jobId"] for j in store.jobs()] == [2, 0]


def test_cleanup_drops_finished_stage_attempts_in_finishing_order_and_never_a_resubmitted_one() -> None:
    store = AppStatusStore(SparkConf().set("spark.ui.retainedStages", "2"))

    def submit(stage: int, at: int) -> None:
        store.on_event(ev.SparkListenerStageSubmitted(ev.StageInfo(stage, 0, f"s{stage}", 1, submissionTime=at), {}))

    def complete(stage: int, at: int) -> None:
        store.on_event(ev.SparkListenerStageCompleted(
            ev.StageInfo(stage, 0, f"s{stage}", 1, submissionTime=0, completionTime=at)))

    submit(0, 1)
    submit(1, 2)
    complete(1, 3)
    complete(0, 4)
    submit(2, 5)  # three attempts for two places: stage 1 finished first and goes
    assert sorted(s["stageId"] for s in store.stages()) == [0, 2]
    submit(0, 6)  # attempt (0, 0) runs again: it is no longer among the finished
    submit(3, 7)  # three again, only stage 0 finished earlier and it is active now: nothing to drop
    assert sorted(s["stageId"] for s in store.stages()) == [0, 2, 3]
    complete(2, 8)
    submit(4, 9)  # four for two: max(2 // 10, 4 - 2) = 2 to drop, and stage 2 is the only finished one
    assert sorted(s["stageId"] for s in store.stages()) == [0, 3, 4]


def test_dead_executors_are_retained_up_to_the_limit() -> None:
    store = AppStatusStore(SparkConf().set("spark.ui.retainedDeadExecutors", "2"))
    for n in range(5):
        store.on_event(ev.SparkListenerExecutorAdded(n, str(n), {"Total Cores": 1}))
        store.on_event(ev.SparkListenerExecutorRemoved(n + 10, str(n), "died"))
    dead = [x["id"] for x in store.executors(active_only=False)]
    assert len(dead) == 2 and "4" in dead
    assert store.executors(active_only=True) == []


def test_job_and_stage_counters_on_local_2(make_sc: Any) -> None:
    sc = make_sc("local[2]")
    words = sc.parallelize(["a b", "b c", "c a", "a"], 4).flatMap(str.split).map(lambda w: (w, 1))
    counts = words.reduceByKey(lambda a, b: a + b, 2)
    assert dict(counts.collect()) == {"a": 3, "b": 2, "c": 2}
    counts.count()
    settle(sc)
    store = sc._status_store
    first, second = store.job(0), store.job(1)
    assert first is not None and second is not None
    assert first["status"] == second["status"] == "SUCCEEDED"
    assert first["numTasks"] == 6 and first["numCompletedTasks"] == 6 and first["numCompletedStages"] == 2
    assert second["numSkippedStages"] == 1 and second["numSkippedTasks"] == 4
    assert second["numCompletedTasks"] == 2
    executors = {x["id"]: x for x in store.executors(active_only=True)}
    assert sum(x["completedTasks"] for x in executors.values()) == 8
    assert sum(x["totalShuffleWrite"] for x in executors.values()) > 0


def test_a_killed_worker_shows_as_a_dead_executor_and_a_failed_task(make_sc: Any, tmp_path: Any) -> None:
    sc = make_sc("local[2]")
    marker = tmp_path / "died-once"

    def die_once(x: int) -> int:
        import os
        if not marker.exists():
            marker.write_text("x")
            os._exit(3)
        return x

    assert sc.parallelize([1], 1).map(die_once).collect() == [1]
    settle(sc)
    store = sc._status_store
    dead = [x for x in store.executors(active_only=False) if not x["isActive"]]
    assert len(dead) == 1 and "exited with code" in dead[0]["removeReason"]
    (stage,) = store.stage_attempts(0)
    assert stage["numFailedTasks"] == 1 and stage["numCompleteTasks"] == 1
    active = {x["id"] for x in store.executors(active_only=True)}
    assert len(active) == 3 and "driver" in active and dead[0]["id"] not in active


def test_reads_while_jobs_run_see_consistent_copies(sc: SparkContext) -> None:
    store = sc._status_store
    errors: list[BaseException] = []
    stop = threading.Event()

    def reader() -> None:
        try:
            while not stop.is_set():
                for job in store.jobs():
                    assert job["numCompletedTasks"] <= job["numTasks"]
                store.stages()
                store.executors(active_only=False)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        for _ in range(100):
            sc.parallelize(range(10), 3).map(lambda x: (x, x)).groupByKey().count()
    finally:
        stop.set()
        thread.join(WAIT)
    assert not thread.is_alive() and not errors
    settle(sc)
    assert len(store.jobs()) == 100


@pytest.mark.parametrize("bad", ["0", "-3"])
def test_a_nonpositive_retention_is_clamped_to_one(bad: str) -> None:
    store = AppStatusStore(SparkConf().set("spark.ui.retainedJobs", bad))
    assert store.retained_jobs == 1


def test_a_long_run_leaves_bounded_tables(make_sc: Any) -> None:
    conf = SparkConf().set("spark.ui.retainedJobs", "20").set("spark.ui.retainedStages", "20")
    sc = make_sc("local", conf)
    for _ in range(60):
        cached = sc.parallelize(range(4), 2).map(lambda x: (x, x)).persist()
        cached.groupByKey().count()
        cached.unpersist()
    settle(sc)
    store, reporter = sc._status_store, sc._env.reporter
    assert len(store._jobs) <= 22 and len(store._stages) <= 22
    assert len(store._latest_attempt) <= 22 and len(store._tasks) <= 22 * 2
    assert store._rdds == {} and not store._running_jobs
    assert not reporter._attempts and not reporter._levels and not reporter._launched


def test_what_the_store_keeps_is_invisible_to_the_garbage_collector(make_sc: Any) -> None:
    # Nothing the store keeps is garbage, but each tracked container it keeps is walked by
    # every collection (and the store keeps a thousand jobs and stages, a hundred thousand
    # tasks): with the UI on, those collections were once most of what it cost a small job.
    # Besides the entities and a stage's StageInfo (with its RDDInfos), what an entity holds
    # must be untracked once a collection has run: dicts and tuples of numbers and strings,
    # not sets or lists.
    sc = make_sc("local")
    pairs = sc.parallelize(range(12), 3).map(lambda x: (x % 4, 1))
    pairs.reduceByKey(lambda a, b: a + b, 2).collect()
    pairs.persist().count()
    settle(sc)
    gc.collect()
    store = sc._status_store
    entities = [*store._jobs.values(), *store._stages.values(), *store._tasks.values()]
    assert len(store._jobs) == 2 and len(store._stages) == 3 and len(store._tasks) == 8
    def tracked(obj: Any, allowed: tuple[type, ...] = ()) -> list[str]:
        # An instance's referents include its class, which is not what it keeps.
        return [type(o).__name__ for o in gc.get_referents(obj)
                if gc.is_tracked(o) and not isinstance(o, (type, *allowed))]

    for entity in entities:
        assert tracked(entity, (ev.StageInfo,)) == [], f"a {type(entity).__name__} keeps tracked objects"
    for stage in store._stages.values():
        assert tracked(stage.info, (tuple,)) == []  # its RDDInfos, in a tuple
        assert all(tracked(r) == [] for r in stage.info.rddInfos)

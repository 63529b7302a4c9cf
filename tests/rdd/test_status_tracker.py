"""``sc.statusTracker()`` and job tags as the tracker and the REST API see them.

The tracker is weakly consistent (the listener thread delivers in batches), so each
check waits, with a deadline, for the store to catch up.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from rdd import SparkConf, SparkContext, SparkJobInfo, SparkStageInfo

from tests.rdd.processes import wait_until

DEADLINE_S = 10.0


def _eventually(check: Callable[[], Any], what: str) -> Any:
    """``check()``'s first truthy value, polled until the deadline."""
    seen: list[Any] = []
    wait_until(lambda: bool(seen.append(check()) or seen[-1]), DEADLINE_S, f"the status tracker shows {what}")
    return seen[-1]


@pytest.mark.parametrize("ui", [True, False])
def test_finished_jobs_and_their_stages(make_sc: Callable[..., SparkContext], ui: bool) -> None:
    sc = make_sc("local[2]", conf=SparkConf().set("spark.ui.enabled", str(ui).lower()).set("spark.ui.port", "0"))
    tracker = sc.statusTracker()  # without the UI the store is fed from here on
    sc.setJobGroup("counting", "a grouped job")
    sc.addJobTag("nightly")
    assert sc.getJobTags() == {"nightly"}
    assert sc.parallelize(range(10), 2).map(lambda x: (x % 3, 1)).reduceByKey(lambda a, b: a + b).count() == 3
    [job_id] = _eventually(lambda: tracker.getJobIdsForGroup("counting"), "the grouped job")
    assert tracker.getJobIdsForTag("nightly") == [job_id]
    info = _eventually(lambda: (i := tracker.getJobInfo(job_id)) and i.status == "SUCCEEDED" and i, "SUCCEEDED")
    assert isinstance(info, SparkJobInfo) and len(info.stageIds) == 2
    stage = tracker.getStageInfo(max(info.stageIds))
    assert isinstance(stage, SparkStageInfo)
    assert (stage.numTasks, stage.numCompletedTasks, stage.numActiveTasks, stage.numFailedTasks) == (2, 2, 0, 0)
    assert tracker.getActiveJobsIds() == [] and tracker.getActiveStageIds() == []
    assert tracker.getJobInfo(10_000) is None and tracker.getStageInfo(10_000) is None


def test_a_running_job_is_active(make_sc: Callable[..., SparkContext], tmp_path: Any) -> None:
    import os
    import threading

    sc = make_sc("local[2]")
    tracker = sc.statusTracker()
    release = tmp_path / "release"

    def wait_for_release(x: int) -> int:
        deadline = time.monotonic() + DEADLINE_S
        while not os.path.exists(release):
            assert time.monotonic() < deadline, "the test never released the task"
            time.sleep(0.01)
        return x

    runner = threading.Thread(target=lambda: sc.parallelize([1], 1).map(wait_for_release).collect(), daemon=True)
    runner.start()
    try:
        [job_id] = _eventually(tracker.getActiveJobsIds, "a running job")
        [stage_id] = _eventually(tracker.getActiveStageIds, "a running stage")
        assert tracker.getJobInfo(job_id).status == "RUNNING"
        assert _eventually(lambda: tracker.getStageInfo(stage_id).numActiveTasks == 1, "a running task")
    finally:
        release.touch()
        runner.join(DEADLINE_S)
    assert not runner.is_alive()


def test_job_tags_are_per_thread_and_checked(make_sc: Callable[..., SparkContext]) -> None:
    import threading

    sc = make_sc("local")
    sc.addJobTag("a")
    sc.addJobTag("b")
    sc.removeJobTag("a")
    assert sc.getJobTags() == {"b"}
    seen: list[set[str]] = []
    thread = threading.Thread(target=lambda: seen.append(sc.getJobTags()))
    thread.start()
    thread.join()
    assert seen == [set()], "another thread starts without this thread's tags"
    sc.clearJobTags()
    assert sc.getJobTags() == set()
    for bad in ("", "x,y", 3):
        with pytest.raises(ValueError, match="job tag"):
            sc.addJobTag(bad)  # type: ignore[arg-type]


def test_a_tight_loop_of_tiny_jobs_loses_no_event(make_sc: Callable[..., SparkContext]) -> None:
    # The job loop holds the interpreter lock; the listener thread that feeds the store got
    # it too rarely to keep up, the queue filled and the UI lost jobs (with a warning that
    # blamed a slow listener). Posts now wait for it to catch up when the queue runs full.
    conf = (SparkConf().set("spark.ui.enabled", "true").set("spark.ui.port", "0")
            .set("spark.scheduler.listenerbus.eventqueue.capacity", "64"))
    sc = make_sc("local", conf=conf)
    tracker = sc.statusTracker()
    sc.setJobGroup("loop", "tiny jobs")
    rdd = sc.parallelize([1], 1)
    for _ in range(600):
        assert rdd.count() == 1
    bus = sc._listener_bus
    assert bus.wait_until_empty(DEADLINE_S)
    assert bus.statistics().dropped == 0
    assert len(tracker.getJobIdsForGroup("loop")) == 600

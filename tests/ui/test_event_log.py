"""The event log and its replay: real applications write it, a fresh store reads it back."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from rdd import SparkConf, SparkContext, StorageLevel
from rdd.status import events as ev
from rdd.status.api import ApiV1
from rdd.status.replay import find_event_logs, read_events, replay, replay_store
from rdd.status.store import AppStatusStore


def logging_conf(directory: Path) -> SparkConf:
    return SparkConf().set("spark.eventLog.enabled", "true").set("spark.eventLog.dir", f"file:{directory}")


def run_app(sc: SparkContext) -> None:
    cached = sc.parallelize(range(100), 4).map(lambda x: (x % 3, x)).persist(StorageLevel.MEMORY_ONLY)
    cached.setName("logged")
    cached.reduceByKey(lambda a, b: a + b).collect()
    with pytest.raises(ZeroDivisionError):
        sc.parallelize([0], 1).map(lambda x: 1 // x).count()


@pytest.mark.parametrize("master", ["local", "local[2]"])
def test_a_finished_application_replays_into_the_same_rest_answers(
        no_active_context: None, tmp_path: Path, master: str) -> None:
    sc = SparkContext(master, "logged-app", conf=logging_conf(tmp_path))
    app_id = sc.applicationId
    try:
        run_app(sc)
        assert sc._listener_bus.wait_until_empty(10)
        assert os.path.exists(tmp_path / f"{app_id}.inprogress")
        live = ApiV1(lambda: {app_id: sc._status_store})
        paths = ["jobs", "stages", "stages/0/0", "storage/rdd", "environment", "allexecutors"]
        before = {p: live.get(f"applications/{app_id}/{p}", {}) for p in paths}
    finally:
        sc.stop()
    assert not os.path.exists(tmp_path / f"{app_id}.inprogress")
    (log_file,) = find_event_logs(str(tmp_path))
    assert log_file.app_id == app_id and log_file.completed
    lines = (tmp_path / app_id).read_text().splitlines()
    names = [json.loads(line)["Event"] for line in lines]
    assert names[0] in ("SparkListenerExecutorAdded", "SparkListenerApplicationStart")
    assert names[-1] == "SparkListenerApplicationEnd"
    assert {"SparkListenerJobStart", "SparkListenerTaskEnd", "SparkListenerBlockUpdated",
            "SparkListenerEnvironmentUpdate"} <= set(names)

    store = replay_store(log_file.path)
    replayed = ApiV1(lambda: {app_id: store})
    for path, answer in before.items():
        status, body = replayed.get(f"applications/{app_id}/{path}", {})
        assert status == 200
        if path == "allexecutors":  # a finished application: the same executors
            assert [x["id"] for x in body] == [x["id"] for x in answer[1]]
        else:
            assert body == answer[1], path
    (info,) = replayed.get("applications", {})[1]
    assert info["attempts"][0]["completed"] is True


def test_an_in_progress_log_with_a_cut_last_line_replays(no_active_context: None, tmp_path: Path) -> None:
    sc = SparkContext("local", "still-running", conf=logging_conf(tmp_path))
    try:
        sc.parallelize(range(10), 2).count()
        assert sc._listener_bus.wait_until_empty(10)
        assert sc._env.event_log is not None
        sc._env.event_log.flush()  # what the once-a-second flush does
        (log_file,) = find_event_logs(str(tmp_path))
        assert not log_file.completed and log_file.app_id == sc.applicationId
        copy = tmp_path / "copy" / f"{sc.applicationId}.inprogress"
        copy.parent.mkdir()
        copy.write_text(Path(log_file.path).read_text() + '{"Event":"SparkListenerJobSt')
        store = AppStatusStore()
        result = replay(str(copy), [store])
        assert result.truncated and result.events > 0
        (job,) = store.jobs()
        assert job["status"] == "SUCCEEDED"
        assert store.application_info()["attempts"][0]["completed"] is False
    finally:
        sc.stop()


def test_a_damaged_middle_line_is_an_error_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "local-1"
    good = json.dumps(ev.SparkListenerApplicationEnd(5).to_json())
    path.write_text(f"{good}\nnot json\n{good}\n")
    with pytest.raises(ValueError, match=r"local-1:2: not a JSON event"):
        list(read_events(str(path)))


def test_events_of_unregistered_types_are_skipped_and_counted(tmp_path: Path) -> None:
    path = tmp_path / "local-2"
    path.write_text('{"Event":"SomeLayerEvent","x":1}\n' + json.dumps(ev.SparkListenerApplicationEnd(5).to_json()))
    seen: list[Any] = []

    class Rec:
        def on_event(self, e: Any) -> None:
            seen.append(e)

    result = replay(str(path), [Rec()])
    assert (result.events, result.skipped, result.truncated) == (1, 1, False)
    assert seen == [ev.SparkListenerApplicationEnd(5)]


def test_a_registered_layer_event_is_logged_and_replayed(no_active_context: None, tmp_path: Path) -> None:
    @ev.register_event
    @dataclass(frozen=True)
    class BatchDone(ev.SparkListenerEvent):
        batchTime: int
        records: int

    sc = SparkContext("local", "layered", conf=logging_conf(tmp_path))
    sc._listener_bus.post(BatchDone(1000, 7))
    sc.stop()
    (log_file,) = find_event_logs(str(tmp_path))
    assert BatchDone(1000, 7) in list(read_events(log_file.path))


def test_a_remote_log_dir_is_refused_clearly(no_active_context: None, tmp_path: Path) -> None:
    conf = SparkConf().set("spark.eventLog.enabled", "true").set("spark.eventLog.dir", "hdfs://nn/logs")
    with pytest.raises(ValueError, match="only local directories"):
        SparkContext("local", "remote", conf=conf)
    SparkContext("local", "after").stop()  # the failed start left no context behind

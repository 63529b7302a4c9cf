"""Temporary checkpoints (queries started without ``checkpointLocation``) never outlive the process.

A clean stop removes the directory; a failed query keeps it while the process runs
(unless ``spark.sql.streaming.forceDeleteTempCheckpointLocation``); the process's exit
removes whatever is left, failed and still-running queries' alike.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from dstream.sql import SparkSession
from dstream.sql.errors import StreamingQueryException
from dstream.sql.streaming import MemoryStream

DEADLINE = 60.0
REPO = Path(__file__).resolve().parents[3]


def _checkpoint(query: Any) -> str:
    return str(query._execution.checkpoint)


def _boom(df: Any, batch_id: int) -> None:
    raise ValueError("bad batch")


def _failed_query(spark: SparkSession) -> Any:
    stream = MemoryStream("int", spark)
    query = stream.toDF().writeStream.foreachBatch(_boom).start()
    stream.addData([1])
    with pytest.raises(StreamingQueryException, match="bad batch"):
        query.awaitTermination(DEADLINE)
    return query


def test_a_clean_stop_removes_the_temporary_checkpoint(spark: SparkSession) -> None:
    stream = MemoryStream("int", spark)
    query = stream.toDF().writeStream.format("memory").queryName("temporary_clean").start()
    path = _checkpoint(query)
    assert os.path.basename(path).startswith("temporary-")
    stream.addData([1, 2])
    query.processAllAvailable(DEADLINE)
    assert os.path.isdir(os.path.join(path, "commits"))
    query.stop()
    assert not os.path.exists(path)
    # Its files go on the remover thread, soon after: the renamed tree does not stay.
    renamed = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".removing")
    deadline = time.monotonic() + DEADLINE
    while os.path.exists(renamed):
        assert time.monotonic() < deadline, f"{renamed} was not deleted within {DEADLINE} s"
        time.sleep(0.01)


def test_a_failed_query_keeps_its_temporary_checkpoint_to_look_at(spark: SparkSession) -> None:
    query = _failed_query(spark)
    path = _checkpoint(query)
    try:
        assert os.path.isfile(os.path.join(path, "offsets", "0"))  # the batch that failed
    finally:
        from dstream.sql.streaming import temporary_checkpoints

        temporary_checkpoints.remove(path)  # what the exit would do; not left for the rest of the run


def test_force_delete_removes_a_failed_querys_temporary_checkpoint(spark: SparkSession) -> None:
    spark.conf.set("spark.sql.streaming.forceDeleteTempCheckpointLocation", "true")
    try:
        query = _failed_query(spark)
    finally:
        spark.conf.unset("spark.sql.streaming.forceDeleteTempCheckpointLocation")
    assert not os.path.exists(_checkpoint(query))


_AT_EXIT = """
import json, sys
from dstream.sql import SparkSession
from dstream.sql.streaming import MemoryStream

def boom(df, batch_id):
    raise ValueError("bad batch")

spark = SparkSession.builder.master("local[1]").appName("temporary-at-exit").getOrCreate()
failing = MemoryStream("int", spark)
failed = failing.toDF().writeStream.foreachBatch(boom).start()
failing.addData([1])
try:
    failed.awaitTermination(60)
except Exception:
    pass
running = MemoryStream("int", spark).toDF().writeStream.format("memory").queryName("left_running").start()
stopped_stream = MemoryStream("int", spark)
stopped = stopped_stream.toDF().writeStream.format("memory").queryName("stopped_at_exit").start()
stopped_stream.addData(list(range(100)))
stopped.processAllAvailable(60)
stopped.stop()  # its files are deleted on a background thread; the exit must not outrun it
print(json.dumps([failed._execution.checkpoint, running._execution.checkpoint, running.isActive]))
sys.stdout.flush()
"""


def test_the_process_exit_removes_failed_running_and_stopped_queries_checkpoints(tmp_path: Path) -> None:
    env = dict(os.environ, TMPDIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", _AT_EXIT], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=DEADLINE * 2)
    assert done.returncode == 0, done.stderr
    failed, running, active = json.loads(done.stdout.strip().splitlines()[-1])
    assert active and failed.startswith(str(tmp_path)) and running.startswith(str(tmp_path))
    assert not os.path.exists(failed), "the failed query's temporary checkpoint outlived the process"
    assert not os.path.exists(running), "the running query's temporary checkpoint outlived the process"
    assert os.listdir(tmp_path) == [], "a temporary checkpoint (or a stopped one's renamed tree) outlived the process"


def test_the_exit_handler_deletes_renamed_trees_the_remover_has_not_reached(tmp_path: Path) -> None:
    from dstream.sql.streaming import temporary_checkpoints

    renamed = tmp_path / ".temporary-left.removing"  # what remove() renamed, still queued
    (renamed / "commits").mkdir(parents=True)
    for i in range(3):
        (renamed / "commits" / str(i)).write_text("v1")
    with temporary_checkpoints._LOCK:
        temporary_checkpoints._RENAMED.add(str(renamed))
    temporary_checkpoints._remove_all()
    assert not renamed.exists()
    assert str(renamed) not in temporary_checkpoints._RENAMED

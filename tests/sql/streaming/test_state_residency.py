"""A stopped query's state leaves the executors' memory; a running query's stays.

Each process that runs state tasks keeps the last version of the partitions it
committed (the next batch reads it from memory, not from the checkpoint). When a query
stops, Spark unloads its providers in the executors; so do we: a notebook that starts
and stops queries must not see its workers grow by every stopped query's state. The
tests run real ``local[2]`` workers and look inside both of them with a probe job whose
two tasks wait for each other (each worker runs one task at a time, so they run in
different workers), and the inline ``local`` master, where the driver holds the state.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dstream.sql import SparkSession
from dstream.sql.streaming import MemoryStream

DEADLINE = 60.0


def _held(root: str) -> dict[str, int]:
    """What this process caches of the state under ``root``: entries per cache."""
    from dstream.sql.streaming.state import aggregate, arrow_state, store

    return {"arrow": sum(1 for key in arrow_state.cached_tables() if key[0] == root),
            "python": sum(1 for store_id in list(store._cache) if store_id.root == root),
            "layouts": sum(1 for key in list(aggregate._LAYOUTS) if key[0] == root)}


def _probe_every_worker(spark: SparkSession, roots: list[str], meeting: Path) -> dict[int, dict[str, dict[str, int]]]:
    """``pid -> root -> _held(root)`` in both workers of ``local[2]``."""
    meeting.mkdir()

    def visit(_: int, rows: Iterator[Any]) -> Iterator[tuple[int, dict[str, dict[str, int]]]]:
        (meeting / str(os.getpid())).touch()
        deadline = time.monotonic() + DEADLINE
        while len(os.listdir(meeting)) < 2:  # both tasks running: one in each worker
            if time.monotonic() > deadline:
                raise TimeoutError(f"the other probe task never started: {os.listdir(meeting)}")
            time.sleep(0.005)
        yield os.getpid(), {root: _held(root) for root in roots}

    found = dict(spark.sparkContext.parallelize(range(2), 2).mapPartitionsWithIndex(visit).collect())
    assert len(found) == 2, found
    return found


def _start_counts(stream: MemoryStream, checkpoint: Path, name: str) -> Any:
    return (stream.toDF().groupBy("word").count().writeStream.outputMode("complete").format("memory")
            .queryName(name).option("checkpointLocation", str(checkpoint)).start())


def _start_dedup(stream: MemoryStream, checkpoint: Path, name: str) -> Any:
    return (stream.toDF().dropDuplicates(["word"]).writeStream.outputMode("append").format("memory")
            .queryName(name).option("checkpointLocation", str(checkpoint)).start())


@pytest.mark.timeout(180)
def test_a_stopped_query_leaves_no_state_in_the_workers_and_a_running_one_keeps_its(spark2: SparkSession,
                                                                                     tmp_path: Path) -> None:
    spark2.conf.set("spark.sql.shuffle.partitions", "2")  # two state partitions, whatever the default
    counts_stream = MemoryStream("word string", spark2)
    dedup_stream = MemoryStream("word string", spark2)
    counts = _start_counts(counts_stream, tmp_path / "counts", "residency_counts")
    dedup = _start_dedup(dedup_stream, tmp_path / "dedup", "residency_dedup")
    roots = [str(tmp_path / "counts" / "state"), str(tmp_path / "dedup" / "state")]
    try:
        for words in (["a", "b", "c", "d"], ["a", "e", "f", "b"]):
            counts_stream.addData(words)
            dedup_stream.addData(words)
            counts.processAllAvailable(timeout=DEADLINE)
            dedup.processAllAvailable(timeout=DEADLINE)
        before = _probe_every_worker(spark2, roots, tmp_path / "before")
        # Both queries' state is cached somewhere: the checks below can fail.
        assert sum(h[roots[0]]["arrow"] for h in before.values()) >= 2, before
        assert sum(h[roots[0]]["layouts"] for h in before.values()) >= 1, before
        assert sum(h[roots[1]]["python"] for h in before.values()) >= 2, before
        counts.stop()
        assert counts.exception() is None
        after = _probe_every_worker(spark2, roots, tmp_path / "after")
        assert all(h[roots[0]] == {"arrow": 0, "python": 0, "layouts": 0} for h in after.values()), after
        assert {pid: h[roots[1]] for pid, h in after.items()} == {pid: h[roots[1]] for pid, h in before.items()}
        # The running query still works from its cache, and its output is right.
        dedup_stream.addData(["a", "g"])
        dedup.processAllAvailable(timeout=DEADLINE)
        assert sorted(r.word for r in spark2.table("residency_dedup").collect()) == list("abcdefg")
        dedup.stop()  # its Python stores go too
        assert dedup.exception() is None
        last = _probe_every_worker(spark2, roots, tmp_path / "last")
        assert all(h[root] == {"arrow": 0, "python": 0, "layouts": 0} for h in last.values() for root in roots), last
    finally:
        counts.stop()
        dedup.stop()


@pytest.mark.timeout(180)
def test_a_restarted_query_rebuilds_what_the_stop_released(spark2: SparkSession, tmp_path: Path) -> None:
    stream = MemoryStream("word string", spark2)
    first = _start_counts(stream, tmp_path / "ckpt", "residency_restart")
    stream.addData(["a", "b", "a"])
    first.processAllAvailable(timeout=DEADLINE)
    first.stop()
    second = _start_counts(stream, tmp_path / "ckpt", "residency_restart")
    try:
        stream.addData(["a", "c"])
        second.processAllAvailable(timeout=DEADLINE)
        got = {r.word: r["count"] for r in spark2.table("residency_restart").collect()}
        assert got == {"a": 3, "b": 1, "c": 1}
    finally:
        second.stop()
    assert second.exception() is None


def test_on_the_inline_master_the_driver_releases_what_it_held(spark: SparkSession, tmp_path: Path) -> None:
    stream = MemoryStream("word string", spark)
    query = _start_counts(stream, tmp_path / "ckpt", "residency_inline")
    root = str(tmp_path / "ckpt" / "state")
    try:
        stream.addData(["a", "b", "a"])
        query.processAllAvailable(timeout=DEADLINE)
        assert _held(root)["arrow"] >= 1
    finally:
        query.stop()
    assert _held(root) == {"arrow": 0, "python": 0, "layouts": 0}

"""Recovery from damaged RDD checkpoints, and leftovers of crashed metadata checkpoint writers.

* A state RDD checkpoint with a missing or truncated part file: ``getOrCreate`` falls
  back to the newest metadata checkpoint whose RDD checkpoints are intact (logging the
  damaged file), and the recovered stream computes the right totals; when none is
  intact it fails naming the damaged file. It used to accept the checkpoint, and every
  batch then failed ("zipPartitions needs parents with equal partition counts",
  "pickle data was truncated").
* ``checkpoint-<t>.tmp-<pid>`` and ``graph-<digest>.tmp-<pid>`` files of a writer that
  was killed are removed by the next metadata checkpoint; a live writer's are kept.
"""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rdd import SparkConf, SparkContext
from rdd.errors import CheckpointError

from dstream import StreamingContext
from dstream.checkpoint.files import checkpoint_path, list_checkpoints, read_checkpoint
from dstream.testing import advance_batches, manual_clock

DATA = [[("a", i), ("b", 1)] for i in range(1, 17)]
#: Batches run before the "crash": enough that every kept metadata checkpoint refers
#: to some state RDD checkpoint.
RUN = 12


def running_sum(values: list[int], total: int | None) -> int:
    return (total or 0) + sum(values)


class Totals:
    """The latest state seen by the output (module-level: the graph is pickled)."""

    last: dict[str, int] = {}

    @staticmethod
    def record(rdd: Any) -> None:
        Totals.last = dict(rdd.collect())


def build(sc: SparkContext, directory: Path) -> StreamingContext:
    ssc = StreamingContext(sc, 1)
    ssc.checkpoint(str(directory))
    ssc.queueStream(DATA).updateStateByKey(running_sum).checkpoint(2).foreachRDD(Totals.record)
    return ssc


def not_called() -> StreamingContext:
    raise AssertionError("setupFunc must not be called when a usable checkpoint exists")


def expected(batches: int) -> dict[str, int]:
    return {"a": sum(range(1, batches + 1)), "b": batches}


def _rdd_dirs(directory: Path, time_ms: int) -> list[str]:
    data = read_checkpoint(checkpoint_path(str(directory), time_ms)).data
    return [d for files in data["nodes"].values() for d in files.values()]


def _damage(rdd_dir: str, how: str) -> Path:
    part = max(Path(rdd_dir).glob("part-*"), key=lambda p: p.stat().st_size)  # not an empty one
    if how == "missing":
        part.unlink()
    else:
        part.write_bytes(part.read_bytes()[:-5])
    return part


@pytest.fixture
def stopped_run(make_sc: Callable[..., SparkContext], tmp_path: Path) -> tuple[SparkContext, Path]:
    """``RUN`` batches checkpointed to ``tmp_path``, then stopped (the SparkContext stays)."""
    sc = make_sc("local[2]", SparkConf().set("spark.streaming.clock", "manual"))
    ssc = build(sc, tmp_path)
    ssc.start()
    try:
        advance_batches(ssc, RUN)
        assert ssc._engine.waiter.error is None, ssc._engine.waiter.error
    finally:
        ssc.stop(stopSparkContext=False)
    assert Totals.last == expected(RUN)
    return sc, tmp_path


@pytest.mark.parametrize("how", ["missing", "truncated"])
def test_recovery_falls_back_past_a_damaged_state_checkpoint(
    stopped_run: tuple[SparkContext, Path], how: str, caplog: pytest.LogCaptureFixture
) -> None:
    sc, directory = stopped_run
    newest = list_checkpoints(str(directory))[-1]
    older = {d for t in list_checkpoints(str(directory))[:-1] for d in _rdd_dirs(directory, t)}
    # A state checkpoint only the newest metadata checkpoint refers to:
    damaged_dir = sorted(set(_rdd_dirs(directory, newest)) - older)[-1]
    part = _damage(damaged_dir, how)
    with caplog.at_level(logging.WARNING, logger="dstream.checkpoint.files"):
        ssc = StreamingContext.getOrCreate(str(directory), not_called)
    assert any(str(part) in r.getMessage() for r in caplog.records), caplog.text
    ssc.start()
    try:
        advance_batches(ssc, 2)
        assert ssc._engine.waiter.error is None, ssc._engine.waiter.error
        now = manual_clock(ssc).now_ms() // 1000
    finally:
        ssc.stop(stopSparkContext=False)
    assert now > RUN and Totals.last == expected(now)


@pytest.mark.parametrize("how", ["missing", "truncated"])
def test_recovery_with_every_state_checkpoint_damaged_names_the_file(
    stopped_run: tuple[SparkContext, Path], how: str
) -> None:
    _, directory = stopped_run
    damaged = [_damage(d, how) for d in sorted({d for t in list_checkpoints(str(directory))
                                                 for d in _rdd_dirs(directory, t)})]
    with pytest.raises(CheckpointError, match="no usable checkpoint") as raised:
        StreamingContext.getOrCreate(str(directory), not_called)
    message = str(raised.value)
    assert any(str(part) in message for part in damaged), message
    assert ("is missing" if how == "missing" else "truncated") in message
    assert StreamingContext.getActive() is None


def test_the_next_metadata_checkpoint_removes_a_killed_writers_temporary_files(
    make_sc: Callable[..., SparkContext], tmp_path: Path
) -> None:
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    dead = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    dead.kill()
    dead.wait()
    try:
        tmp_path.mkdir(exist_ok=True)
        dead_files = [tmp_path / f"{n}.tmp-{dead.pid}" for n in ("checkpoint-3000", "graph-ab12")]
        live_files = [tmp_path / f"{n}.tmp-{live.pid}" for n in ("checkpoint-4000", "graph-cd34")]
        for path in dead_files + live_files:
            path.write_bytes(b"DSTRCKPT half written")
        sc = make_sc("local[2]", SparkConf().set("spark.streaming.clock", "manual"))
        ssc = build(sc, tmp_path)
        ssc.start()
        try:
            advance_batches(ssc, 1)
        finally:
            ssc.stop(stopSparkContext=False)
        assert [p.name for p in dead_files if p.exists()] == []
        assert all(p.exists() for p in live_files)
    finally:
        live.kill()
        live.wait()

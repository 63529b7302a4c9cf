"""State lives in the worker processes, and survives losing them: rebuilt from the checkpoint's files."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest

from dstream.sql import SparkSession
from dstream.sql.streaming import MemoryStream
from tests.rdd.processes import identify, is_running, worker_pids

DEADLINE = 60.0


@pytest.mark.timeout(180)
def test_killed_workers_are_replaced_and_their_state_is_rebuilt_from_the_checkpoint(spark2: SparkSession,
                                                                                     tmp_path: Path) -> None:
    stream = MemoryStream("word string", spark2)
    out: list[dict[str, int]] = []

    def collect(df: Any, batch_id: int) -> None:
        out.append({r.word: r["count"] for r in df.collect()})

    query = (stream.toDF().groupBy("word").count().writeStream.outputMode("complete").foreachBatch(collect)
             .option("checkpointLocation", str(tmp_path / "ckpt")).start())
    try:
        stream.addData(["a", "b", "a", "c"])
        query.processAllAvailable(timeout=DEADLINE)
        sc = spark2.sparkContext
        victims = [identify(pid) for pid in worker_pids(sc)]
        for victim in victims:
            assert victim is not None
            os.kill(victim.pid, signal.SIGKILL)
        stream.addData(["a", "d"])
        query.processAllAvailable(timeout=DEADLINE)
        stream.addData(["b"])
        query.processAllAvailable(timeout=DEADLINE)
    finally:
        query.stop()
    assert query.exception() is None
    assert out[-1] == {"a": 3, "b": 2, "c": 1, "d": 1}
    assert all(v is not None and not is_running(v) for v in victims)
    assert len(worker_pids(spark2.sparkContext)) == 2

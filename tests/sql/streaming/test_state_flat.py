"""State behind the watermark is removed: 10,000 micro-batches of moving event time keep it flat.

A ``rate-micro-batch`` source gives two rows a batch, each batch one second of event time
later than the last; a windowed count (10 s windows, 5 s delay) in append mode keeps at
most the windows the watermark has not passed. Every progress report is checked through
a listener: the state never holds more than those windows, and the checkpoint's files
stay bounded (old log entries and state files are deleted).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from dstream.sql import SparkSession
from dstream.sql import functions as F
from dstream.sql.streaming import StreamingQueryListener

BATCHES = 10_000


class Recorder(StreamingQueryListener):
    def __init__(self) -> None:
        self.state_rows: list[int] = []
        self.last_batch = -1
        self.done = threading.Event()

    def onQueryProgress(self, event: Any) -> None:  # noqa: N802
        progress = event.progress
        if progress["stateOperators"]:
            self.state_rows.append(progress["stateOperators"][0]["numRowsTotal"])
        self.last_batch = progress["batchId"]
        if self.last_batch >= BATCHES:
            self.done.set()


@pytest.mark.timeout(900)
def test_state_stays_flat_over_10000_micro_batches(spark: SparkSession, tmp_path: Path) -> None:
    recorder = Recorder()
    spark.streams.addListener(recorder)
    windows: list[tuple[int, int]] = []
    ckpt = tmp_path / "ckpt"
    try:
        events = (spark.readStream.format("rate-micro-batch").option("rowsPerBatch", 2)
                  .option("advanceMillisPerBatch", 1000).load())
        counts = events.withWatermark("timestamp", "5 seconds").groupBy(F.window("timestamp", "10 seconds")).count()

        def collect(df: Any, batch_id: int) -> None:
            windows.extend((int(r.window.start.timestamp()), r["count"]) for r in df.collect())

        query = (counts.writeStream.outputMode("append").foreachBatch(collect)
                 .option("checkpointLocation", str(ckpt)).start())
        started = time.monotonic()
        finished = recorder.done.wait(600)
        query.stop()
        elapsed = time.monotonic() - started
        assert finished, f"only {recorder.last_batch} batches in {elapsed:.0f} s: {query.exception()}"
    finally:
        spark.streams.removeListener(recorder)
    assert len(recorder.state_rows) >= BATCHES
    # The watermark trails the newest event by 5 s: at most two 10 s windows are open.
    assert max(recorder.state_rows) <= 2
    # Every window closed so far was emitted once, complete: 10 s of 2 rows a second.
    starts = [s for s, _ in windows]
    assert starts == sorted(set(starts)) and len(starts) >= BATCHES // 10 - 2
    assert all(n == 20 for _, n in windows)
    # Old log entries and state files are deleted: the checkpoint does not grow with the batches.
    assert len(list((ckpt / "offsets").iterdir())) <= 102
    state_files = [p for p in (ckpt / "state").rglob("*") if p.is_file()]
    assert len(state_files) <= 150, len(state_files)

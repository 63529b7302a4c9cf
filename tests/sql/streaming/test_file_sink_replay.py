"""A batch the file sink already holds, re-run after a crash, still moves the watermark on.

The crash: the driver dies after the file sink wrote ``_spark_metadata/N`` and before
``commits/N``. The restart re-runs batch ``N``; the sink must not write it twice. It used
to skip the batch without running it (as Spark does), so the batch's event times never
reached the watermark and its stateful operators were never planned: when ``N`` was the
batch that closed the last windows, the no-data batch that emits them never ran and
they were lost. The test reconstructs the checkpoint the kill leaves (the files later
steps wrote are removed) and restarts the query in-process; the end-to-end version, with
a real SIGKILL, is ``test_exactly_once.py``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from dstream.sql import SparkSession
from dstream.sql import functions as F


def write_events(directory: Path) -> None:
    """Two files, read one per batch: five events in the window [0, 10), then one at 100 s."""
    directory.mkdir()
    for i, times in enumerate([[1, 2, 3, 4, 5], [100]]):
        path = directory / f"events-{i}.json"
        path.write_text("".join(json.dumps({"t": t}) + "\n" for t in times))
        os.utime(path, (1_000_000 + i, 1_000_000 + i))


def run(spark: SparkSession, source: Path, output: Path, checkpoint: Path) -> list[str]:
    """Run the windowed count to the end of the files; the ``offsets/`` ids it wrote."""
    before = set(os.listdir(checkpoint / "offsets")) if (checkpoint / "offsets").exists() else set()
    counts = (spark.readStream.schema("t long").option("maxFilesPerTrigger", 1).json(str(source))
              .select(F.col("t").cast("timestamp").alias("ts")).withWatermark("ts", "5 seconds")
              .groupBy(F.window("ts", "10 seconds")).count()
              .select(F.col("window.start").cast("long").alias("start"), "count"))
    query = (counts.writeStream.format("parquet").option("path", str(output))
             .option("checkpointLocation", str(checkpoint)).trigger(availableNow=True).start())
    assert query.awaitTermination(60), "the query did not end within 60 s"
    assert query.exception() is None, query.exception()
    return sorted(set(os.listdir(checkpoint / "offsets")) - before)


def windows(spark: SparkSession, output: Path) -> list[tuple[int, int]]:
    return sorted((r["start"], r["count"]) for r in spark.read.parquet(str(output)).collect())


def test_a_replayed_batch_the_sink_holds_still_closes_its_windows(spark: SparkSession, tmp_path: Path) -> None:
    source, output, checkpoint = tmp_path / "in", tmp_path / "out", tmp_path / "checkpoint"
    write_events(source)
    # Batch 0 reads the first file, batch 1 the event at 100 s (watermark 95 s next), and the
    # no-data batch 2 emits the window [0, 10).
    assert run(spark, source, output, checkpoint) == ["0", "1", "2"]
    assert windows(spark, output) == [(0, 5)]

    # What a SIGKILL after _spark_metadata/1, before commits/1, leaves on disk.
    for path in [checkpoint / "commits" / "1", checkpoint / "commits" / "2", checkpoint / "offsets" / "2",
                 output / "_spark_metadata" / "2", *checkpoint.glob("state/*/*/3.*")]:
        path.unlink()

    assert run(spark, source, output, checkpoint) == ["2"]  # batch 1 re-run, then the no-data batch
    assert windows(spark, output) == [(0, 5)]
    assert sorted(os.listdir(checkpoint / "commits")) == ["0", "1", "2"]

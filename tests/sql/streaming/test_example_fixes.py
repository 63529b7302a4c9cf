"""Engine fixes the Structured Streaming examples (``examples/sql/streaming``) revealed.

* The console sink ran each micro-batch twice (``toArrow()`` for the row count, then
  ``show``'s own ``collect()``): the sources were read twice and stateful operators
  updated twice, so progress reported twice the input rows and twice the state rows.
* ``query.stop()`` while a batch was being prepared (its source read, its plan built)
  let that batch run to the sink after ``stop()`` was called: cancelling the job group
  cancels the running jobs only, not those submitted later. ``--batches N`` of the
  examples then printed a batch N+1.
* The expression parser refused a keyword after a dot: Spark's sessionization example
  selects ``CAST(session.end AS LONG)``, a syntax error at ``end``.

And what the examples' ``--batches N`` needs: ``stop_after_batches(query, n)`` ends the
run on the query's own thread right after its n-th micro-batch. Stopping from another
thread when the n-th progress arrives (a listener, polling ``recentProgress``) printed
a batch n+1 now and then: a short batch can end before the stop lands.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from dstream.sql import SparkSession
from dstream.sql.streaming import MemoryStream
from dstream.sql.streaming.sources.base import Source, SourceProvider, register_source
from dstream.sql.streaming.sources.rows import local_rows
from dstream.sql.streaming.testing import stop_after_batches
from dstream.sql.types import LongType, StructField, StructType

DEADLINE = 30.0


def test_the_console_sink_runs_each_batch_once(spark: SparkSession, capsys: pytest.CaptureFixture[str]) -> None:
    stream = MemoryStream("word string", spark)
    query = stream.toDF().groupBy("word").count().writeStream.outputMode("complete").format("console").start()
    try:
        stream.addData(["a", "b", "a"])
        query.processAllAvailable(timeout=DEADLINE)
        progress = query.lastProgress
    finally:
        query.stop()
    assert progress is not None and progress["numInputRows"] == 3
    state = progress["stateOperators"][0]
    assert (state["numRowsTotal"], state["numRowsUpdated"]) == (2, 2)
    assert progress["sink"]["numOutputRows"] == 2
    out = capsys.readouterr().out
    assert "|   a|    2|\n" in out and "|   b|    1|\n" in out


def test_the_console_sink_shows_num_rows_of_the_batch_as_show_does(
        spark: SparkSession, capsys: pytest.CaptureFixture[str]) -> None:
    stream = MemoryStream("n int", spark)
    query = stream.toDF().writeStream.format("console").option("numRows", 2).start()
    try:
        stream.addData([1, 2, 3])
        query.processAllAvailable(timeout=DEADLINE)
    finally:
        query.stop()
    out = capsys.readouterr().out
    assert "+---+\n|  n|\n+---+\n|  1|\n|  2|\n+---+\nonly showing top 2 rows\n" in out


class _StopWhileReading(Source):
    """One row at offset 1; reading it stops every active query, as a stop() from another
    thread would if it came while the batch's rows were being read."""

    description = "StopWhileReading"

    def __init__(self, session: SparkSession) -> None:
        self.session = session

    def latest_offset(self, start: Any, limited: bool) -> Any:
        return 1

    def get_batch(self, start: Any, end: Any, output: list[Any]) -> Any:
        for query in self.session.streams.active:
            query.stop()  # on the query's own thread: only asks the loop to stop
        return local_rows(output, [pa.array([7], pa.int64())])


class _StopWhileReadingProvider(SourceProvider):
    def schema(self, session: SparkSession, options: dict[str, str], user_schema: StructType | None) -> StructType:
        return StructType([StructField("n", LongType(), True)])

    def create(self, session: SparkSession, options: dict[str, str], schema: StructType,
               metadata_path: str) -> Source:
        return _StopWhileReading(session)


register_source("test-stop-while-reading", _StopWhileReadingProvider)


def test_a_batch_being_prepared_when_stop_is_called_never_reaches_the_sink(spark: SparkSession,
                                                                           tmp_path: Path) -> None:
    seen: list[int] = []
    checkpoint = tmp_path / "checkpoint"
    query = (spark.readStream.format("test-stop-while-reading").load().writeStream
             .foreachBatch(lambda df, batch_id: seen.append(batch_id))
             .option("checkpointLocation", str(checkpoint)).start())
    assert query.awaitTermination(DEADLINE), "the query did not stop"
    assert query.exception() is None
    assert seen == []
    # Logged before it ran, never committed: a restart would run it again.
    assert os.listdir(checkpoint / "offsets") == ["0"]
    assert not (checkpoint / "commits").exists() or os.listdir(checkpoint / "commits") == []


def test_a_keyword_after_a_dot_names_a_field(spark: SparkSession) -> None:
    df = spark.createDataFrame([((1, 5),)], "session struct<start: int, end: int>")
    row = df.selectExpr("session.end", "session.end - session.start AS duration", "CAST(session.END AS LONG)").first()
    assert row is not None and tuple(row) == (5, 4, 5)
    assert df.selectExpr("session.end").columns == ["end"]


def endless(spark: SparkSession, seen: list[int]) -> Any:
    """A query whose source has new rows at every trigger, from the start."""
    return (spark.readStream.format("rate-micro-batch").option("rowsPerBatch", 1).load().writeStream
            .foreachBatch(lambda df, batch_id: seen.append(batch_id)).start())


class _EndlessOnceOpen(Source):
    """No data until ``gate`` is set, then one new row at every trigger."""

    description = "EndlessOnceOpen"
    gate = threading.Event()

    def latest_offset(self, start: Any, limited: bool) -> Any:
        return (start or 0) + 1 if self.gate.is_set() else start

    def get_batch(self, start: Any, end: Any, output: list[Any]) -> Any:
        return local_rows(output, [pa.array([int(end)], pa.int64())])


class _EndlessOnceOpenProvider(_StopWhileReadingProvider):
    def create(self, session: SparkSession, options: dict[str, str], schema: StructType,
               metadata_path: str) -> Source:
        return _EndlessOnceOpen()


register_source("test-endless-once-open", _EndlessOnceOpenProvider)


@pytest.mark.parametrize("n", [1, 3])
def test_stop_after_batches_runs_exactly_n_micro_batches(spark: SparkSession, n: int) -> None:
    seen: list[int] = []
    _EndlessOnceOpen.gate.clear()
    query = (spark.readStream.format("test-endless-once-open").load().writeStream
             .foreachBatch(lambda df, batch_id: seen.append(batch_id)).start())
    try:
        stop_after_batches(query, n)  # before the first batch: the gate is closed
        _EndlessOnceOpen.gate.set()  # from now on every trigger has a new row
        assert query.awaitTermination(DEADLINE), f"the query did not stop after {n} batches"
        assert query.exception() is None and not query.isActive
        assert seen == list(range(n))
        assert [p["batchId"] for p in query.recentProgress if "addBatch" in p["durationMs"]] == list(range(n))
    finally:
        query.stop()


def test_stop_after_batches_stops_at_once_when_the_run_made_them_already(spark: SparkSession) -> None:
    seen: list[int] = []
    query = endless(spark, seen)
    try:
        deadline = time.monotonic() + DEADLINE
        while len(seen) < 2:
            assert time.monotonic() < deadline and query.isActive, f"no 2 batches within {DEADLINE} s"
            threading.Event().wait(0.01)
        stop_after_batches(query, 1)
        assert query.awaitTermination(DEADLINE)
        assert query.exception() is None
    finally:
        query.stop()


@pytest.mark.parametrize("batches", [0, -1, True, 1.5])
def test_stop_after_batches_wants_a_positive_count(spark: SparkSession, batches: Any) -> None:
    seen: list[int] = []
    query = endless(spark, seen)
    try:
        with pytest.raises(ValueError, match="batches must be a positive integer"):
            stop_after_batches(query, batches)
    finally:
        query.stop()

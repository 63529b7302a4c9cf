"""The micro-batch engine end to end: MemoryStream in, memory/console/foreachBatch out."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from dstream.sql import SparkSession
from dstream.sql import functions as F
from dstream.sql.errors import AnalysisException, PySparkNotImplementedError, StreamingQueryException
from dstream.sql.streaming import MemoryStream, StreamingQueryListener

DEADLINE = 30.0


def wait_for_batch(query: Any, batch_id: int) -> None:
    """Wait (with a deadline) until the query reported the progress of ``batch_id``."""
    deadline = time.monotonic() + DEADLINE
    while not any(p["batchId"] == batch_id and p["numInputRows"] for p in query.recentProgress):
        assert query.isActive, query.exception()
        assert time.monotonic() < deadline, f"batch {batch_id} never ran: {query.recentProgress}"
        time.sleep(0.01)


def rows(spark: SparkSession, name: str) -> list[tuple[Any, ...]]:
    return sorted(tuple(r) for r in spark.table(name).collect())


def test_stateless_query_appends_each_batch_and_logs_offsets_then_commits(spark: SparkSession,
                                                                          tmp_path: Path) -> None:
    stream = MemoryStream("value string", spark)
    ckpt = tmp_path / "ckpt"
    query = (stream.toDF().select(F.upper("value").alias("u")).writeStream.format("memory").queryName("upper")
             .option("checkpointLocation", str(ckpt)).start())
    stream.addData(["a", "b"])
    query.processAllAvailable(timeout=DEADLINE)
    stream.addData(["c"])
    query.processAllAvailable(timeout=DEADLINE)
    assert rows(spark, "upper") == [("A",), ("B",), ("C",)]
    query.stop()
    assert not query.isActive and query.exception() is None
    offsets = (ckpt / "offsets" / "1").read_text().split("\n")
    assert offsets[0] == "v1"
    meta = json.loads(offsets[1])
    assert set(meta) == {"batchWatermarkMs", "batchTimestampMs", "conf"}
    assert offsets[2] == "1"
    assert (ckpt / "commits" / "1").read_text() == 'v1\n{"nextBatchWatermarkMs":0}'
    assert json.loads((ckpt / "metadata").read_text())["id"] == query.id
    # Each log's next file is made ahead while a query runs; a stopped query leaves none.
    assert sorted(os.listdir(ckpt / "offsets")) == ["0", "1"]
    assert sorted(os.listdir(ckpt / "commits")) == ["0", "1"]
    assert not [t for t in threading.enumerate() if t.name.startswith("log file preparer")]


def test_restart_on_the_same_checkpoint_keeps_the_id_and_continues_the_batch_ids(spark: SparkSession,
                                                                                 tmp_path: Path) -> None:
    stream = MemoryStream("int", spark)
    ckpt = str(tmp_path / "ckpt")
    batches: list[tuple[int, list[int]]] = []

    def record(df: Any, batch_id: int) -> None:
        batches.append((batch_id, sorted(r.value for r in df.collect())))

    first = stream.toDF().writeStream.foreachBatch(record).option("checkpointLocation", ckpt).start()
    stream.addData([1, 2])
    first.processAllAvailable(timeout=DEADLINE)
    first.stop()
    stream.addData([3])
    second = stream.toDF().writeStream.foreachBatch(record).option("checkpointLocation", ckpt).start()
    second.processAllAvailable(timeout=DEADLINE)
    second.stop()
    assert second.id == first.id and second.runId != first.runId
    assert batches == [(0, [1, 2]), (1, [3])]


def test_a_batch_logged_but_not_committed_is_run_again_with_the_same_offsets(spark: SparkSession,
                                                                            tmp_path: Path) -> None:
    stream = MemoryStream("int", spark)
    ckpt = tmp_path / "ckpt"
    seen: list[tuple[int, list[int]]] = []

    def record(df: Any, batch_id: int) -> None:
        seen.append((batch_id, sorted(r.value for r in df.collect())))

    query = stream.toDF().writeStream.foreachBatch(record).option("checkpointLocation", str(ckpt)).start()
    stream.addData([1])
    query.processAllAvailable(timeout=DEADLINE)
    stream.addData([2])
    query.processAllAvailable(timeout=DEADLINE)
    query.stop()
    # A crash between the sink and the commit of batch 1: the commit file never made it.
    os.unlink(ckpt / "commits" / "1")
    stream.addData([3])
    again = stream.toDF().writeStream.foreachBatch(record).option("checkpointLocation", str(ckpt)).start()
    again.processAllAvailable(timeout=DEADLINE)
    again.stop()
    assert seen == [(0, [1]), (1, [2]), (1, [2]), (2, [3])]


def test_complete_mode_word_count(spark: SparkSession) -> None:
    stream = MemoryStream("value string", spark)
    words = stream.toDF().select(F.explode(F.split("value", " ")).alias("word"))
    query = words.groupBy("word").count().writeStream.outputMode("complete").format("memory") \
        .queryName("wc").start()
    stream.addData(["a b a"])
    query.processAllAvailable(timeout=DEADLINE)
    assert rows(spark, "wc") == [("a", 2), ("b", 1)]
    stream.addData(["b c"])
    query.processAllAvailable(timeout=DEADLINE)
    assert rows(spark, "wc") == [("a", 2), ("b", 2), ("c", 1)]
    ops = query.lastProgress["stateOperators"]
    assert ops[0]["operatorName"] == "stateStoreSave" and ops[0]["numRowsTotal"] == 3
    assert ops[0]["numRowsUpdated"] == 2


def test_update_mode_emits_only_the_keys_a_batch_changed(spark: SparkSession) -> None:
    stream = MemoryStream("k string, v long", spark)
    out: list[tuple[int, list[tuple[Any, ...]]]] = []
    query = (stream.toDF().groupBy("k").agg(F.sum("v").alias("s"), F.avg("v").alias("a")).writeStream
             .outputMode("update").foreachBatch(lambda df, i: out.append((i, sorted(map(tuple, df.collect())))))
             .start())
    stream.addData([("x", 1), ("y", 2)])
    query.processAllAvailable(timeout=DEADLINE)
    stream.addData([("x", 3)])
    query.processAllAvailable(timeout=DEADLINE)
    assert out == [(0, [("x", 1, 1.0), ("y", 2, 2.0)]), (1, [("x", 4, 2.0)])]


def test_global_aggregation_in_complete_mode(spark: SparkSession) -> None:
    stream = MemoryStream("int", spark)
    query = stream.toDF().agg(F.count("*").alias("n"), F.max("value").alias("m")).writeStream \
        .outputMode("complete").format("memory").queryName("glob").start()
    stream.addData([1, 5])
    query.processAllAvailable(timeout=DEADLINE)
    stream.addData([3])
    query.processAllAvailable(timeout=DEADLINE)
    assert rows(spark, "glob") == [(3, 5)]


def test_trigger_once_runs_one_batch_and_stops(spark: SparkSession) -> None:
    stream = MemoryStream("int", spark)
    stream.addData([1])
    stream.addData([2])
    query = stream.toDF().writeStream.format("memory").queryName("once").trigger(once=True).start()
    assert query.awaitTermination(DEADLINE) is True
    assert rows(spark, "once") == [(1,), (2,)]
    assert [p["batchId"] for p in query.recentProgress] == [0]


def test_processing_time_trigger_runs_on_the_manual_clock(spark: SparkSession) -> None:
    from dstream.sql.streaming.clock import streaming_clock

    spark.conf.set("spark.sql.streaming.clock", "manual")
    try:
        clock = streaming_clock(spark)
        stream = MemoryStream("int", spark)
        query = stream.toDF().writeStream.format("memory").queryName("pt").trigger(processingTime="1 second").start()
        stream.addData([7])
        clock.advance(1000)
        wait_for_batch(query, 0)
        assert rows(spark, "pt") == [(7,)]
        stream.addData([8])
        clock.advance(1000)
        wait_for_batch(query, 1)
        assert rows(spark, "pt") == [(7,), (8,)]
        assert query.lastProgress["timestamp"].startswith("1970-01-01T00:00:0")
    finally:
        for q in spark.streams.active:
            q.stop()
        spark.conf.set("spark.sql.streaming.clock", "system")


def test_an_idle_query_reports_progress_before_any_data(spark: SparkSession) -> None:
    stream = MemoryStream("int", spark)
    query = stream.toDF().writeStream.format("memory").queryName("idle").start()
    query.processAllAvailable(timeout=DEADLINE)
    progress = query.lastProgress
    assert progress is not None and progress["numInputRows"] == 0 and progress["batchId"] == 0
    assert query.status["message"] == "Waiting for data to arrive"


def test_refused_at_start_with_sparks_reasons(spark: SparkSession) -> None:
    stream = MemoryStream("k string, t timestamp", spark)
    df = stream.toDF()
    with pytest.raises(AnalysisException, match="Invalid streaming output mode: complete. This output mode is not "
                                                "supported for no streaming aggregations"):
        df.writeStream.outputMode("complete").format("memory").queryName("x").start()
    with pytest.raises(AnalysisException, match="Invalid streaming output mode: append. This output mode is not "
                                                "supported for streaming aggregations without watermark"):
        df.groupBy("k").count().writeStream.format("memory").queryName("x").start()
    with pytest.raises(AnalysisException, match="Sorting is not supported"):
        df.orderBy("k").writeStream.format("memory").queryName("x").start()
    with pytest.raises(AnalysisException, match="Limits are not supported .* in Update output mode"):
        df.limit(2).writeStream.outputMode("update").format("memory").queryName("x").start()
    with pytest.raises(AnalysisException, match="Distinct aggregations are not supported"):
        df.groupBy("k").agg(F.countDistinct("t")).writeStream.outputMode("update").format("memory").queryName(
            "x").start()
    from dstream.sql import Window

    numbered = df.withColumn("n", F.row_number().over(Window.partitionBy("k").orderBy("t")))
    with pytest.raises(AnalysisException, match="Window function is not supported") as caught:
        numbered.writeStream.format("memory").queryName("x").start()
    assert caught.value.getCondition() == "NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING"
    with pytest.raises(AnalysisException, match="writeStream.start"):
        df.count()
    with pytest.raises(PySparkNotImplementedError, match="not supported"):
        df.writeStream.trigger(continuous="1 second")
    first = df.writeStream.format("memory").queryName("dup").start()
    with pytest.raises(Exception, match="already active"):
        df.writeStream.format("memory").queryName("dup").start()
    first.stop()


def test_the_memory_sinks_table_exists_from_the_start(spark: SparkSession) -> None:
    # A program may poll spark.table(name) before the first batch (it raised TABLE_OR_VIEW_NOT_FOUND).
    stream = MemoryStream("k string, v int", spark)
    query = stream.toDF().writeStream.format("memory").queryName("from_the_start").start()
    try:
        early = spark.table("from_the_start")
        assert early.collect() == [] and early.columns == ["k", "v"] and early.count() == 0
        stream.addData([("a", 1)])
        query.processAllAvailable(DEADLINE)
        assert rows(spark, "from_the_start") == [("a", 1)]
    finally:
        query.stop()


def test_explain_prints_a_streaming_dataframes_plan(spark: SparkSession, capsys: pytest.CaptureFixture[str]) -> None:
    df = MemoryStream("v long", spark).toDF().groupBy("v").count()
    df.explain()
    out = capsys.readouterr().out
    assert out.startswith("== Physical Plan ==\nHashAggregate(keys=[v#") and "+- StreamingRelation memory" in out
    with pytest.raises(AnalysisException, match="writeStream.start"):
        df.collect()


def test_the_wrong_writer_is_refused_when_asked_for(spark: SparkSession) -> None:
    with pytest.raises(AnalysisException) as caught:
        _ = spark.range(1).writeStream
    assert caught.value.getCondition() == "WRITE_STREAM_NOT_ALLOWED"
    with pytest.raises(AnalysisException) as caught:
        _ = MemoryStream("int", spark).toDF().write
    assert caught.value.getCondition() == "CALL_ON_STREAMING_DATASET_UNSUPPORTED"


def test_approx_count_distinct_is_allowed_in_a_streaming_aggregation(spark: SparkSession) -> None:
    # The error for count(DISTINCT) advises it; it was refused as a distinct aggregate too.
    stream = MemoryStream("k string, v int", spark)
    query = (stream.toDF().groupBy("k").agg(F.approx_count_distinct("v").alias("n")).writeStream
             .outputMode("complete").format("memory").queryName("approx_distinct").start())
    try:
        stream.addData([("a", 1), ("a", 1), ("b", 2)])
        query.processAllAvailable(DEADLINE)
        stream.addData([("a", 2), ("b", 2), ("c", None)])
        query.processAllAvailable(DEADLINE)
        assert rows(spark, "approx_distinct") == [("a", 2), ("b", 1), ("c", 0)]
    finally:
        query.stop()


def test_a_failing_batch_stops_the_query_with_the_cause(spark: SparkSession) -> None:
    stream = MemoryStream("int", spark)

    def boom(df: Any, batch_id: int) -> None:
        raise ValueError("bad batch")

    query = stream.toDF().writeStream.foreachBatch(boom).start()
    stream.addData([1])
    with pytest.raises(StreamingQueryException, match="bad batch"):
        query.awaitTermination(DEADLINE)
    assert not query.isActive and "bad batch" in str(query.exception())
    # As Spark wraps it: FOREACH_BATCH_USER_FUNCTION_ERROR, with the function's own error as its cause.
    assert "terminated with exception: [FOREACH_BATCH_USER_FUNCTION_ERROR] An error occurred in the user provided " \
           "function in foreach batch sink. Reason: ValueError: bad batch" in str(query.exception())
    wrapped = query.exception().__cause__
    assert wrapped.getCondition() == "FOREACH_BATCH_USER_FUNCTION_ERROR"
    assert isinstance(wrapped.__cause__, ValueError)


def test_listener_gets_started_progress_and_terminated_events(spark: SparkSession) -> None:
    events: list[str] = []
    done = threading.Event()

    class Listener(StreamingQueryListener):
        def onQueryStarted(self, event: Any) -> None:  # noqa: N802
            events.append(f"started {event.name}")

        def onQueryProgress(self, event: Any) -> None:  # noqa: N802
            events.append(f"progress {event.progress['batchId']}")

        def onQueryIdle(self, event: Any) -> None:  # noqa: N802
            events.append("idle")

        def onQueryTerminated(self, event: Any) -> None:  # noqa: N802
            events.append(f"terminated {event.exception}")
            done.set()

    listener = Listener()
    assert listener.spark is None
    spark.streams.addListener(listener)
    assert listener.spark is spark  # PySpark 4's attribute, set as Spark Connect sets it
    try:
        stream = MemoryStream("int", spark)
        query = stream.toDF().writeStream.format("memory").queryName("events").start()
        stream.addData([1])
        query.processAllAvailable(timeout=DEADLINE)
        query.stop()
        assert done.wait(DEADLINE)
    finally:
        spark.streams.removeListener(listener)
    assert events[0] == "started events" and events[-1] == "terminated None"
    assert "progress 0" in events


def test_console_sink_prints_batches_as_pyspark(spark: SparkSession, capsys: pytest.CaptureFixture[str]) -> None:
    stream = MemoryStream("value string", spark)
    query = stream.toDF().writeStream.format("console").start()
    stream.addData(["hello"])
    query.processAllAvailable(timeout=DEADLINE)
    query.stop()
    out = capsys.readouterr().out
    assert ("-------------------------------------------\nBatch: 0\n-------------------------------------------\n"
            "+-----+\n|value|\n+-----+\n|hello|\n+-----+\n") in out


def test_foreach_sink_calls_open_process_close_in_the_tasks(spark: SparkSession, tmp_path: Path) -> None:
    class Writer:
        def open(self, partition_id: int, epoch_id: int) -> bool:
            self.file = open(tmp_path / f"p{partition_id}-e{epoch_id}", "w")  # noqa: SIM115
            return True

        def process(self, row: Any) -> None:
            self.file.write(f"{row.value}\n")

        def close(self, error: Any) -> None:
            self.file.close()

    stream = MemoryStream("int", spark)
    query = stream.toDF().writeStream.foreach(Writer()).start()
    stream.addData([4, 5])
    query.processAllAvailable(timeout=DEADLINE)
    query.stop()
    written = sorted(line for f in tmp_path.iterdir() for line in f.read_text().split())
    assert written == ["4", "5"]


def test_limit_counts_rows_across_batches_in_append_mode(spark: SparkSession) -> None:
    stream = MemoryStream("int", spark)
    query = stream.toDF().limit(3).writeStream.format("memory").queryName("lim").start()
    stream.addData([1, 2])
    query.processAllAvailable(timeout=DEADLINE)
    stream.addData([3, 4])
    query.processAllAvailable(timeout=DEADLINE)
    stream.addData([5])
    query.processAllAvailable(timeout=DEADLINE)
    assert rows(spark, "lim") == [(1,), (2,), (3,)]


def test_a_compatible_change_restarts_from_the_checkpoint(spark: SparkSession, tmp_path: Path) -> None:
    stream = MemoryStream("k string", spark)
    ckpt = str(tmp_path / "ckpt")
    out: list[list[tuple[Any, ...]]] = []

    def start(df: Any) -> Any:
        return (df.groupBy("k").count().writeStream.outputMode("update").option("checkpointLocation", ckpt)
                .foreachBatch(lambda b, i: out.append(sorted(map(tuple, b.collect())))).start())

    query = start(stream.toDF())
    stream.addData(["a", "b", "a"])
    query.processAllAvailable(timeout=DEADLINE)
    query.stop()
    # The new code adds a filter before the aggregation: the state is still the aggregation's.
    query = start(stream.toDF().where("k != 'z'"))
    stream.addData(["a", "z"])
    query.processAllAvailable(timeout=DEADLINE)
    query.stop()
    assert out == [[("a", 2), ("b", 1)], [("a", 3)]]


def test_starting_on_the_checkpoint_of_an_active_run_stops_that_run(spark: SparkSession, tmp_path: Path) -> None:
    stream = MemoryStream("int", spark)
    ckpt = str(tmp_path / "ckpt")
    first = stream.toDF().writeStream.format("console").option("checkpointLocation", ckpt).start()
    second = stream.toDF().writeStream.format("console").option("checkpointLocation", ckpt).start()
    assert not first.isActive and second.isActive and second.id == first.id
    second.stop()


def test_progress_prints_and_reads_as_pysparks(spark: SparkSession) -> None:
    import uuid

    stream = MemoryStream("v long", spark)
    query = stream.toDF().writeStream.format("memory").queryName("progress_shape").start()
    try:
        stream.addData([1, 2])
        query.processAllAvailable(DEADLINE)
        p = query.lastProgress
        source = p.sources[0]
        assert source.numInputRows == 2 and source["startOffset"] == "None" and source.endOffset == "0"
        assert p.sink.description == "MemorySink" and p.sink.numOutputRows == 2
        assert isinstance(p["id"], str) and p.id == uuid.UUID(p["id"]) and p.runId == uuid.UUID(query.runId)
        text = str(p)
        assert text == repr(p) and text.startswith('{\n  "id" : "') and text.endswith("\n}")
        # Jackson's layout: arrays on one line, offsets as JSON (null for none), empty maps left out.
        assert '  "sources" : [ {\n    "description" : "MemoryStream[v]",\n    "startOffset" : null,' in text
        assert '"endOffset" : 0,' in text and '"eventTime"' not in text and '"metrics"' not in text
        assert '  "stateOperators" : [ ],\n' in text
        assert json.loads(p.json) == json.loads(text)
        assert repr(query.status) == repr(dict(query.status))  # a plain dict's repr, as PySpark's
    finally:
        query.stop()


def test_progress_json_object_is_its_json_read_back(spark: SparkSession, tmp_path: Path) -> None:
    # The listener bus and the UI take json_object() instead of parsing the JSON text.
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.json").write_text('{"t": "2024-01-01 00:00:03", "v": 1}\n'
                                            '{"t": "2024-01-01 00:00:31", "v": 2}\n')
    events = spark.readStream.schema("t timestamp, v long").json(str(tmp_path / "in"))
    counts = (events.withWatermark("t", "5 seconds").groupBy(F.window("t", "10 seconds")).count()
              .observe("seen", F.count(F.lit(1)).alias("rows")))
    query = counts.writeStream.format("memory").queryName("progress_json_object").outputMode("append").start()
    try:
        query.processAllAvailable(DEADLINE)
        assert query.recentProgress
        for p in query.recentProgress:
            built = p.json_object()
            assert built == json.loads(p.json)
            built["sources"][0]["endOffset"]["logOffset"] = -5  # a copy: the progress is unchanged
            assert json.loads(p.json)["sources"][0]["endOffset"] == {"logOffset": 0}
        assert json.loads(query.recentProgress[0].json)["stateOperators"][0]["numRowsTotal"] == 2
    finally:
        query.stop()


def test_an_unnamed_failed_querys_message_names_its_ids(spark: SparkSession) -> None:
    def boom(df: Any, batch_id: int) -> None:
        raise ValueError("bad batch")

    stream = MemoryStream("int", spark)
    query = stream.toDF().writeStream.foreachBatch(boom).start()
    stream.addData([1])
    with pytest.raises(StreamingQueryException) as caught:
        query.awaitTermination(DEADLINE)
    assert str(caught.value).startswith(f"[STREAM_FAILED] Query [id = {query.id}, runId = {query.runId}] terminated")

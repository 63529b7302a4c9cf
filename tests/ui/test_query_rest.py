"""The Structured Streaming store and its JSON endpoints (``sql/streaming/queries...``).

A real query (a MemoryStream counted by key, with a watermark) runs three batches on a
context whose UI is on; the list, the run and its progress are read over HTTP. Spark has
no REST for Structured Streaming: the fields are the tab's columns (dstreams' addition),
and the progress entries are the dicts ``lastProgress`` gives.
"""

from __future__ import annotations

import datetime as dt
import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from rdd import SparkConf, SparkContext

from dstream.sql import SparkSession
from dstream.sql import functions as F
from dstream.sql.streaming import MemoryStream

WAIT_S = 30.0
SUMMARY = {"name": (str,), "id": (str,), "runId": (str,), "status": (str,), "startTimestamp": (str,),
           "duration": (int,), "avgInputRate": (float,), "avgProcessRate": (float,), "latestBatchId": (int,),
           "exception": (str, type(None))}


def get(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=WAIT_S) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


@pytest.fixture
def spark(no_active_context: None) -> Iterator[SparkSession]:
    sc = SparkContext("local", "query-rest", conf=SparkConf().set("spark.ui.port", "0")
                      .set("spark.sql.streaming.ui.retainedProgressUpdates", "2"))
    session = SparkSession.builder.getOrCreate()
    try:
        yield session
    finally:
        for query in session.streams.active:
            query.stop()
        session.stop()
        sc.stop()


def test_query_list_run_and_progress(spark: SparkSession) -> None:
    sc = spark.sparkContext
    base = f"{sc.uiWebUrl}/api/v1/applications/{sc.applicationId}/sql/streaming/queries"
    stream = MemoryStream("k string, t timestamp", spark)
    counts = stream.toDF().withWatermark("t", "10 seconds").groupBy("k").agg(F.count("*").alias("n"))
    query = counts.writeStream.outputMode("update").queryName("counts<script>").foreachBatch(
        lambda df, _: df.collect()).start()
    try:
        for i in range(3):
            stream.addData([("a", dt.datetime(2026, 1, 1, 0, 0, i)), ("b", dt.datetime(2026, 1, 1, 0, 0, i))])
            query.processAllAvailable(timeout=WAIT_S)
        end = time.monotonic() + WAIT_S
        while time.monotonic() < end:
            status, runs = get(base)
            if status == 200 and runs and runs[0]["latestBatchId"] is not None and runs[0]["latestBatchId"] >= 2:
                break
            time.sleep(0.05)
        else:
            pytest.fail(f"the query's third batch did not reach {base} within {WAIT_S} s: {get(base)}")
        (run,) = runs
        assert set(run) == set(SUMMARY)
        for key, types in SUMMARY.items():
            assert isinstance(run[key], types), f"{key}={run[key]!r}"
        assert (run["name"], run["id"], run["runId"], run["status"]) == ("counts<script>", query.id, query.runId,
                                                                         "RUNNING")
        assert run["startTimestamp"].endswith("GMT")
        status, progress = get(f"{base}/{query.runId}/progress")
        assert status == 200 and len(progress) == 2  # spark.sql.streaming.ui.retainedProgressUpdates
        assert [p["batchId"] for p in progress] == [run["latestBatchId"] - 1, run["latestBatchId"]]
        assert progress[-1]["runId"] == query.runId and "durationMs" in progress[-1]
        assert progress[-1]["stateOperators"] and progress[-1]["eventTime"]["watermark"]
        assert run["avgInputRate"] == pytest.approx(sum(p["inputRowsPerSecond"] for p in progress) / 2)
        status, one = get(f"{base}/{query.runId}")
        assert status == 200 and {k: v for k, v in one.items() if k != "duration"} == \
            {k: v for k, v in run.items() if k != "duration"}
        assert get(f"{base}/no-such-run")[0] == 404
    finally:
        query.stop()
    end = time.monotonic() + WAIT_S
    while time.monotonic() < end and get(base)[1][0]["status"] == "RUNNING":
        time.sleep(0.05)
    assert get(base)[1][0]["status"] == "FINISHED"

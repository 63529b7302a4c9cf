"""The history server: an application's event log, replayed, serves the same UI and REST answers.

An application with ``spark.eventLog.enabled`` runs a DStream (manual clock, three
batches) and a Structured Streaming query (two batches), then stops. The history server
over its log directory must list it and answer the streaming endpoints exactly as the
live UI did; its pages open in the browser; ``python -m dstream.history`` serves the
directory from the command line.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from rdd import SparkConf, SparkContext

from dstream import StreamingContext
from dstream.history.server import HistoryServer
from dstream.testing import advance_batches, manual_clock
from tests.ui.conftest import open_page, rows, screenshot

WAIT_S = 30.0
ROOT = Path(__file__).resolve().parents[2]


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=WAIT_S) as resp:
        return json.loads(resp.read())


def run_application(log_dir: Path) -> dict[str, Any]:
    """Run the application; return what its live UI answered, before it stopped."""
    conf = (SparkConf().set("spark.ui.port", "0").set("spark.eventLog.enabled", "true")
            .set("spark.eventLog.dir", str(log_dir)))
    sc = SparkContext("local", "history-app", conf=conf)
    try:
        ssc = StreamingContext(sc, 1)
        clock = manual_clock(ssc)
        stream = ssc.queueStream([[1, 2], [3], [4, 5, 6]])
        stream.foreachRDD(lambda rdd: (rdd.count(), clock.advance(100)))
        stream.map(lambda x: x * 2).foreachRDD(lambda rdd: rdd.collect())
        ssc.start()
        advance_batches(ssc, 3)
        assert ssc._engine.bus.wait_until_empty(WAIT_S) and sc._listener_bus.wait_until_empty(WAIT_S)
        base = f"{sc.uiWebUrl}/api/v1/applications/{sc.applicationId}"
        live = {"id": sc.applicationId, "statistics": get(f"{base}/streaming/statistics")}
        ssc.stop(stopSparkContext=False)
        live["queries"] = _query(sc, base)
        return live
    finally:
        sc.stop()


def _query(sc: SparkContext, base: str) -> Any:
    from dstream.sql import SparkSession
    from dstream.sql.streaming import MemoryStream

    spark = SparkSession.builder.getOrCreate()
    stream = MemoryStream("value int", spark)
    query = stream.toDF().writeStream.queryName("doubler").foreachBatch(lambda df, _: df.collect()).start()
    try:
        for rows_ in ([1, 2], [3]):
            stream.addData(rows_)
            query.processAllAvailable(timeout=WAIT_S)
    finally:
        query.stop()
        spark.streams._wait_for_listeners(WAIT_S)
        assert sc._listener_bus.wait_until_empty(WAIT_S)
        queries = get(f"{base}/sql/streaming/queries")
        spark.stop()  # no session outlives its context into the next test
    return queries


@pytest.fixture
def history(no_active_context: None, tmp_path: Path) -> Any:
    log_dir = tmp_path / "events"
    log_dir.mkdir()
    live = run_application(log_dir)
    server = HistoryServer(str(log_dir), port=0).start()
    try:
        yield server, live, log_dir
    finally:
        server.stop()


def test_replayed_application_answers_as_the_live_one(history: Any) -> None:
    server, live, log_dir = history
    assert [p.name for p in log_dir.iterdir()] == [live["id"]]  # finished: no .inprogress
    (app,) = get(f"{server.url}/api/v1/applications")
    assert app["id"] == live["id"] and app["name"] == "history-app" and app["attempts"][0]["completed"]
    base = f"{server.url}/api/v1/applications/{live['id']}"
    stats = get(f"{base}/streaming/statistics")
    assert stats == live["statistics"]
    assert stats["numTotalCompletedBatches"] == 3 and stats["avgProcessingTime"] == 100
    batches = get(f"{base}/streaming/batches")
    assert [b["numCompletedOutputOps"] for b in batches] == [2, 2, 2]
    ops = get(f"{base}/streaming/batches/{batches[0]['batchId']}/operations")
    assert all(op["jobIds"] for op in ops)
    assert get(f"{base}/jobs/{ops[0]['jobIds'][0]}")["status"] == "SUCCEEDED"
    (query,) = get(f"{base}/sql/streaming/queries")
    (live_query,) = live["queries"]
    assert (query["name"], query["runId"], query["status"], query["latestBatchId"]) == \
        ("doubler", live_query["runId"], "FINISHED", live_query["latestBatchId"])
    progress = get(f"{base}/sql/streaming/queries/{query['runId']}/progress")
    assert sum(p["numInputRows"] for p in progress) == 3


def test_history_pages_in_a_browser(history: Any, browser: Any, tmp_path: Path) -> None:
    server, live, _ = history
    open_page(browser, f"{server.url}/", lambda d: rows_in(d) == 1, "the application list")
    browser.find_element("css selector", "#applications a").click()
    open_page(browser, browser.current_url, lambda d: d.find_element("id", "page-heading").text, "the Jobs tab")
    app_url = browser.current_url.rsplit("/jobs/", 1)[0]
    open_page(browser, f"{app_url}/streaming/", lambda d: rows(d, "completed-batches") == 3, "the replayed batches")
    screenshot(browser, tmp_path, "history-streaming")
    open_page(browser, f"{app_url}/StreamingQuery/", lambda d: rows(d, "completed-queries") == 1,
              "the replayed query")


def rows_in(driver: Any) -> int:
    return int(driver.execute_script("return document.querySelectorAll('#applications tbody a').length"))


def test_command_line(history: Any) -> None:
    _, live, log_dir = history
    child = subprocess.Popen([sys.executable, "-m", "dstream.history", str(log_dir), "--port", "0"], cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line: list[str] = []
        reader = threading.Thread(target=lambda: line.append(child.stdout.readline()), daemon=True)  # type: ignore[union-attr]
        reader.start()
        reader.join(WAIT_S)
        assert line and " at http://" in line[0], f"no address printed within {WAIT_S} s: {line}"
        url = line[0].split(" at ", 1)[1].split()[0]
        assert [a["id"] for a in get(f"{url}/api/v1/applications")] == [live["id"]]
    finally:
        child.terminate()
        child.wait(WAIT_S)


def test_a_running_application_is_read_again_as_its_log_grows(no_active_context: None, tmp_path: Path) -> None:
    from rdd.status.event_log import EventLoggingListener

    conf = (SparkConf().set("spark.ui.enabled", "false").set("spark.eventLog.enabled", "true")
            .set("spark.eventLog.dir", str(tmp_path)))
    sc = SparkContext("local", "running-app", conf=conf)
    server = HistoryServer(str(tmp_path), port=0)  # not started: its reads need no HTTP
    try:
        (writer,) = [lst for lst in sc._listener_bus.listeners if isinstance(lst, EventLoggingListener)]
        ssc = StreamingContext(sc, 1)
        manual_clock(ssc)
        ssc.queueStream([[1], [2], [3], [4]]).foreachRDD(lambda rdd: rdd.count())
        ssc.start()
        try:
            for done in (2, 4):
                advance_batches(ssc, 2)
                assert ssc._engine.bus.wait_until_empty(WAIT_S) and sc._listener_bus.wait_until_empty(WAIT_S)
                writer.flush()
                (app,) = server.applications()
                assert app["id"] == sc.applicationId and not app["attempts"][0]["completed"]
                status, stats = server.api_get(f"applications/{sc.applicationId}/streaming/statistics", {})
                assert status == 200 and stats["numTotalCompletedBatches"] == done
        finally:
            ssc.stop(stopSparkContext=False)
    finally:
        sc.stop()
    (app,) = server.applications()
    assert app["attempts"][0]["completed"]

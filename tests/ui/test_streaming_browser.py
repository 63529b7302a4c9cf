"""Acceptance: the web UI in a real browser while a stream and a query run.

A StreamingContext on a manual clock (a queue input and a socket receiver fed by a server
on 127.0.0.1) and a Structured Streaming query run in one application whose name and
whose failing output operation carry ``<script>`` markup. The test drives the batches
itself (every wait has a deadline), opens every tab, and checks that the completed-batch
table gains rows while the page is open, that the four Streaming charts draw points,
that the batch page links its Spark jobs, that the Structured Streaming pages show the
query and its charts, that no injected script ran and that the console stays clean.
Screenshots go to the test's ``tmp_path``.

``test_readme_screenshot_of_make_run`` runs ``make run``'s job
(``examples/network_wordcount.py``) in a child process and photographs its Streaming
tab: into ``docs/images/streaming-tab.png`` when ``DSTREAMS_UPDATE_SCREENSHOT=1``, into
``tmp_path`` otherwise.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from rdd import SparkConf, SparkContext

from dstream import StreamingContext
from dstream.testing import advance_batches, manual_clock
from tests.ui.conftest import assert_no_console_errors, open_page, rows, screenshot, wait_for
from tests.ui.test_streaming_rest import LineServer

ROOT = Path(__file__).resolve().parents[2]
XSS = "<script>window.__xss = 1</script><img src=x onerror='window.__xss = 2'>"
CHARTS = ("input-rate-timeline", "scheduling-delay-timeline", "processing-time-timeline", "total-delay-timeline")
CORE_TABS = ("jobs", "stages", "storage", "environment", "executors")
WAIT_S = 30.0


def points(driver: Any, element_id: str) -> int:
    """The data points drawn in a chart (``<circle class="point">`` elements)."""
    return int(driver.execute_script(
        "var el = document.getElementById(arguments[0]);"
        "return el ? el.querySelectorAll('circle.point').length : 0;", element_id))


def drawn(element_id: str, at_least: int) -> Callable[[Any], bool]:
    """A wait condition: the chart in ``element_id`` draws at least ``at_least`` points."""
    return lambda driver: points(driver, element_id) >= at_least


def no_script_ran(driver: Any) -> None:
    assert driver.execute_script("return window.__xss === undefined"), "markup from the application executed"


@pytest.fixture
def app(no_active_context: None) -> Iterator[SparkContext]:
    sc = SparkContext("local", f"stream {XSS}", conf=SparkConf().set("spark.ui.port", "0"))
    try:
        yield sc
    finally:
        sc.stop()


def test_streaming_and_structured_streaming_tabs_in_a_browser(app: SparkContext, browser: Any,
                                                             tmp_path: Path) -> None:
    server = LineServer([f"word{i} other{i % 3}" for i in range(40)])
    ssc = StreamingContext(app, 1)
    clock = manual_clock(ssc)

    def work(rdd: Any) -> None:
        rdd.count()
        clock.advance(120 + 40 * (clock.now_ms() // 1000 % 3))  # varied processing times

    def fail_on_third(rdd: Any) -> None:
        if rdd.collect() == [3]:
            raise ValueError(f"bad record {XSS}")

    queue = ssc.queueStream([[1], [2], [3], [4], [5], [6], [7], [8]])
    queue.foreachRDD(work)
    queue.foreachRDD(fail_on_third)
    ssc.socketTextStream("127.0.0.1", server.port).flatMap(str.split).countByValue().foreachRDD(
        lambda rdd: rdd.collect())
    url = app.uiWebUrl
    ssc.start()
    try:
        assert ssc._engine.receiver_tracker.wait_received(40, WAIT_S), "the receiver did not store the lines"
        advance_batches(ssc, 3)
        open_page(browser, f"{url}/streaming/", lambda d: rows(d, "completed-batches") >= 3,
                  "the completed batches table")
        before = rows(browser, "completed-batches")
        advance_batches(ssc, 3)
        wait_for(browser, lambda d: rows(d, "completed-batches") >= before + 3,
                 "new batches in the completed batches table (without a reload)")
        for chart in CHARTS:
            wait_for(browser, drawn(chart, 6), f"points in {chart}")
            assert int(browser.execute_script(
                "return document.querySelectorAll('#' + arguments[0].replace('timeline', 'histogram') + "
                "' rect.bar').length", chart)) > 0, f"no histogram beside {chart}"
        assert "Streaming Statistics" in browser.find_element("id", "page-heading").text
        for label in ("Input Rate", "Scheduling Delay", "Processing Time", "Total Delay"):
            assert label in browser.find_element("id", "streaming-stats-table").text
        assert points(browser, "stream-1-timeline") >= 6, "no input rate row for the receiver"
        # The processing-time chart marks the batch interval, as Spark's does.
        assert browser.execute_script(
            "return document.querySelectorAll('#processing-time-timeline line.ref-line').length") == 1
        nav = [a.text for a in browser.find_elements("css selector", "nav .tabs a")]
        assert nav == ["Jobs", "Stages", "Storage", "Environment", "Executors", "Streaming"]
        no_script_ran(browser)
        assert_no_console_errors(browser)
        screenshot(browser, tmp_path, "streaming")

        # The failed batch's detail page: its output operations and their jobs.
        failed = browser.execute_script(
            "var rows = document.querySelectorAll('#completed-batches tbody tr');"
            "for (var i = 0; i < rows.length; i++) { if (rows[i].textContent.indexOf('ValueError') >= 0)"
            " { return rows[i].querySelector('a').getAttribute('href'); } } return null;")
        assert failed, "the failed batch is not shown with its error"
        open_page(browser, url + failed, lambda d: rows(d, "batch-operations") == 3, "the batch's output operations")
        links = browser.find_elements("css selector", "#batch-operations a.job-link")
        assert links and all(re.fullmatch(r".*/jobs/job/\?id=\d+", a.get_attribute("href")) for a in links)
        assert "ValueError" in browser.find_element("id", "batch-operations").text
        no_script_ran(browser)
        screenshot(browser, tmp_path, "streaming-batch")
        open_page(browser, links[0].get_attribute("href"), lambda d: d.find_element("id", "page-heading").text,
                  "the job page of an output operation's job")

        for tab in CORE_TABS:
            open_page(browser, f"{url}/{tab}/", lambda d: d.find_element("id", "page-heading").text, f"the {tab} tab")
            no_script_ran(browser)
            screenshot(browser, tmp_path, tab)
    finally:
        ssc.stop(stopSparkContext=False)
        server.close()
    _structured_streaming(app, browser, tmp_path)


def _structured_streaming(app: SparkContext, browser: Any, tmp_path: Path) -> None:
    from dstream.sql import SparkSession
    from dstream.sql import functions as F
    from dstream.sql.streaming import MemoryStream

    spark = SparkSession.builder.getOrCreate()
    stream = MemoryStream("k string, t timestamp", spark)
    counts = stream.toDF().withWatermark("t", "5 seconds").groupBy("k").agg(F.count("*").alias("n"))
    query = counts.writeStream.outputMode("update").queryName(f"counts {XSS}").foreachBatch(
        lambda df, _: df.collect()).start()
    url = app.uiWebUrl
    try:
        for i in range(4):
            stream.addData([(f"k{j}", dt.datetime(2026, 1, 1, 0, 0, i * 3 + j)) for j in range(i + 2)])
            query.processAllAvailable(timeout=WAIT_S)
        open_page(browser, f"{url}/StreamingQuery/", lambda d: rows(d, "active-queries") == 1, "the active query")
        assert query.runId in browser.find_element("id", "active-queries").text
        assert "Structured Streaming" in [a.text for a in browser.find_elements("css selector", "nav .tabs a")]
        no_script_ran(browser)
        screenshot(browser, tmp_path, "structured-streaming")
        open_page(browser, f"{url}/StreamingQuery/statistics/?id={query.runId}",
                  lambda d: points(d, "batch-duration") >= 3, "the query's batch duration chart")
        for chart in ("input-rate", "process-rate", "input-rows", "state-rows-total", "watermark-gap"):
            wait_for(browser, drawn(chart, 3), f"points in the query's {chart} chart")
        assert browser.execute_script("return document.querySelectorAll('#operation-duration path.area').length") > 0
        no_script_ran(browser)
        assert_no_console_errors(browser)
        screenshot(browser, tmp_path, "structured-streaming-query")
        query.stop()
        open_page(browser, f"{url}/StreamingQuery/", lambda d: rows(d, "completed-queries") == 1,
                  "the completed query")
    finally:
        query.stop()
        spark.stop()  # no session outlives its context into the next test


def test_readme_screenshot_of_make_run(browser: Any, tmp_path: Path) -> None:
    """The Streaming tab of ``make run`` (``examples/network_wordcount.py``), for the README."""
    command = [sys.executable, str(ROOT / "examples" / "network_wordcount.py"), "--batches", "40"]
    child = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    found = threading.Event()

    def read() -> None:
        assert child.stderr is not None
        for line in child.stderr:
            lines.append(line)
            if "Streaming tab: " in line:
                found.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert found.wait(WAIT_S), f"`make run`'s job printed no UI address within {WAIT_S} s:\n{''.join(lines)}"
        tab = next(re.search(r"Streaming tab: (http\S+/streaming/)", line).group(1) for line in lines  # type: ignore[union-attr]
                   if "Streaming tab: " in line)
        browser.set_window_size(1400, 1300)
        open_page(browser, tab, lambda d: rows(d, "completed-batches") >= 8 and points(d, CHARTS[0]) >= 8,
                  "ten completed batches of the word count")
        saved = screenshot(browser, tmp_path, "streaming-tab")
        if os.environ.get("DSTREAMS_UPDATE_SCREENSHOT") == "1":
            target = ROOT / "docs" / "images" / "streaming-tab.png"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(saved, target)
    finally:
        browser.set_window_size(1400, 1000)
        child.terminate()
        try:
            child.wait(WAIT_S)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait(WAIT_S)
        reader.join(WAIT_S)

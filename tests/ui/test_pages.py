"""The core tabs in a real browser, after real jobs ran: tables filled, charts drawn, no console error.

One context (``local``, UI on a free port) runs a shuffle job, a cached and named RDD and
a failing job; headless Chromium then opens every core page, waits (with a deadline) for
its tables to fill from the REST API, checks what is drawn, fails on any SEVERE console
entry and saves a screenshot under the test's ``tmp_path``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rdd import SparkConf, SparkContext

from tests.ui.conftest import open_page, rows, screenshot, wait_for

pytestmark = pytest.mark.timeout(120)


def boom(x: int) -> int:
    raise ValueError(f"bad record {x}")


@pytest.fixture(scope="module")
def app(no_active_context_module: None) -> Iterator[SparkContext]:
    """A context whose UI has something on every core tab."""
    conf = SparkConf().set("spark.ui.enabled", "true").set("spark.ui.port", "0")
    sc = SparkContext("local", "ui-pages-test", conf=conf)
    try:
        pairs = sc.parallelize(range(100), 4).map(lambda x: (x % 5, x))
        assert sorted(pairs.reduceByKey(lambda a, b: a + b).collect())[0] == (0, 950)
        cached = sc.parallelize(range(1000), 2).map(lambda x: x * x).setName("squares").cache()
        assert cached.count() == 1000
        with pytest.raises(Exception, match="bad record"):
            sc.parallelize(range(4), 2).map(boom).collect()
        assert sc._listener_bus.wait_until_empty(10), "the listener bus did not deliver the jobs' events in 10 s"
        yield sc
    finally:
        sc.stop()


@pytest.fixture(scope="module")
def no_active_context_module() -> Iterator[None]:
    from tests.conftest import stop_active_context

    stop_active_context()
    yield
    stop_active_context()


def text_of(driver: Any, element_id: str) -> str:
    return driver.execute_script("return document.getElementById(arguments[0]).textContent", element_id)


def count(driver: Any, selector: str) -> int:
    return driver.execute_script("return document.querySelectorAll(arguments[0]).length", selector)


def test_jobs_page(app: SparkContext, browser: Any, tmp_path: Path) -> None:
    open_page(browser, f"{app.uiWebUrl}/jobs/",
              lambda d: rows(d, "completed-jobs") >= 2 and rows(d, "failed-jobs") == 1,
              "two completed jobs and one failed job")
    assert "ui-pages-test - Jobs" == browser.title
    assert count(browser, "#jobs-timeline rect.event") >= 3, "the event timeline draws no job"
    assert "collect" in text_of(browser, "completed-jobs")
    wait_for(browser, lambda d: "last 1000 finished jobs (spark.ui.retainedJobs)" in text_of(d, "failed-jobs-section"),
             "the note saying how many jobs the UI keeps")
    screenshot(browser, tmp_path, "jobs")


def test_job_page_draws_the_stage_dag(app: SparkContext, browser: Any, tmp_path: Path) -> None:
    jobs = app._ui.api.get(f"applications/{app.applicationId}/jobs", {})[1]
    shuffle_job = min(j["jobId"] for j in jobs if len(j["stageIds"]) == 2)
    open_page(browser, f"{app.uiWebUrl}/jobs/job/?id={shuffle_job}", lambda d: rows(d, "job-stages") == 2,
              "the job's two stages")
    assert count(browser, "#job-dag g.node") == 2
    assert count(browser, "#job-dag line.edge") == 1
    screenshot(browser, tmp_path, "job")


def test_stages_pages(app: SparkContext, browser: Any, tmp_path: Path) -> None:
    open_page(browser, f"{app.uiWebUrl}/stages/",
              lambda d: rows(d, "completed-stages") >= 3 and rows(d, "failed-stages") >= 1,
              "completed and failed stages")
    assert "bad record" in text_of(browser, "failed-stages")
    screenshot(browser, tmp_path, "stages")
    open_page(browser, f"{app.uiWebUrl}/stages/stage/?id=0&attempt=0", lambda d: rows(d, "stage-tasks") == 4,
              "the four tasks of stage 0")
    assert count(browser, "#stage-durations rect.bar") == 10
    assert rows(browser, "stage-metrics") >= 1
    screenshot(browser, tmp_path, "stage")


def test_storage_pages(app: SparkContext, browser: Any, tmp_path: Path) -> None:
    open_page(browser, f"{app.uiWebUrl}/storage/", lambda d: rows(d, "storage-rdds") == 1, "the cached RDD")
    assert "squares" in text_of(browser, "storage-rdds")
    screenshot(browser, tmp_path, "storage")
    browser.find_element("link text", "squares").click()
    wait_for(browser, lambda d: rows(d, "rdd-partitions") == 2, "the RDD's two cached partitions")
    screenshot(browser, tmp_path, "rdd")


def test_environment_page(app: SparkContext, browser: Any, tmp_path: Path) -> None:
    open_page(browser, f"{app.uiWebUrl}/environment/", lambda d: rows(d, "env-sparkProperties") >= 3,
              "Spark properties")
    assert "spark.app.name" in text_of(browser, "env-sparkProperties")
    screenshot(browser, tmp_path, "environment")


def test_executors_page(app: SparkContext, browser: Any, tmp_path: Path) -> None:
    open_page(browser, f"{app.uiWebUrl}/executors/", lambda d: rows(d, "executors-table") >= 1, "the driver's row")
    assert "driver" in text_of(browser, "executors-table")
    screenshot(browser, tmp_path, "executors")


def test_pages_refresh_without_reload(app: SparkContext, browser: Any) -> None:
    open_page(browser, f"{app.uiWebUrl}/jobs/", lambda d: rows(d, "completed-jobs") >= 2, "the completed jobs")
    before = rows(browser, "completed-jobs")
    browser.execute_script("window.__same_page = true")
    assert app.parallelize(range(10)).count() == 10
    wait_for(browser, lambda d: rows(d, "completed-jobs") == before + 1, "the new job's row (polling)")
    assert browser.execute_script("return window.__same_page") is True, "the page was reloaded"


def test_chart_library_draws_one_shape_per_datum(app: SparkContext, browser: Any, tmp_path: Path) -> None:
    """The public drawing functions the streaming tabs use: points, bars, areas, formatters."""
    open_page(browser, f"{app.uiWebUrl}/jobs/", lambda d: rows(d, "completed-jobs") >= 2, "the jobs page")
    drawn = browser.execute_script("""
        var host = document.getElementById('content'), out = {};
        function box() { var el = document.createElement('div'); host.appendChild(el); return el; }
        var t = box();
        UI.timeline(t, [{x: 1, y: 5}, {x: 2, y: null}, {x: 3, y: 7}, {x: 4, y: 0}], {yLabel: 'records/s'});
        out.points = t.querySelectorAll('circle.point').length;
        var h = box();
        UI.histogram(h, [1, 2, 2, 3, 9], {bins: 4});
        out.bars = h.querySelectorAll('rect.bar').length;
        var s = box();
        UI.stacked(s, [{name: 'a', points: [{x: 1, y: 1}, {x: 2, y: 2}]}, {name: 'b', points: [{x: 1, y: 3}]}]);
        out.areas = s.querySelectorAll('path.area').length;
        var e = box();
        UI.eventTimeline(e, [{label: 'job', start: 1000, end: 2000, status: 'SUCCEEDED'},
                             {label: 'x', lane: 'Executors', start: 1500, instant: true, status: 'added'}]);
        out.events = e.querySelectorAll('rect.event').length + e.querySelectorAll('circle.event-marker').length;
        var g = box();
        UI.dag(g, [{id: 1, label: '1'}, {id: 2, label: '2'}, {id: 3, label: '3'}], [[1, 2], [1, 3], [2, 3]]);
        out.nodes = g.querySelectorAll('g.node').length;
        out.edges = g.querySelectorAll('line.edge').length;
        out.layers = Array.from(g.querySelectorAll('g.node')).map(function (n) {
          return n.getAttribute('transform'); });
        out.formats = [UI.formatDuration(12), UI.formatDuration(1500), UI.formatDuration(90000),
                       UI.formatBytes(512), UI.formatBytes(1536), UI.formatDate('2026-12-01T10:00:00.000GMT').length,
                       UI.parseDate('2026-12-01T10:00:00.000GMT')];
        return out;
    """)
    assert drawn["points"] == 3 and drawn["bars"] == 4 and drawn["areas"] == 2 and drawn["events"] == 2
    assert drawn["nodes"] == 3 and drawn["edges"] == 3
    assert len(set(drawn["layers"])) == 3, "nodes 1 -> 2 -> 3 must sit in three layers"
    assert drawn["formats"] == ["12 ms", "1.5 s", "1.5 min", "512.0 B", "1.5 KiB", 19, 1796119200000]
    screenshot(browser, tmp_path, "charts")

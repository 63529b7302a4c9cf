"""Text from the application is shown as text, never run: an app name and an exception with ``<script>``.

Each payload would set ``window.__xss`` if the browser ran it (as a script element, or an
image's ``onerror``); the test opens every page that shows them, checks the payload is
visible as text and that ``window.__xss`` is still undefined.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rdd import SparkConf, SparkContext

from tests.ui.conftest import open_page, rows, screenshot

pytestmark = pytest.mark.timeout(120)

APP_NAME = "<script>window.__xss = 'app name'</script>"
ERROR = "<img src=x onerror=\"window.__xss='exception'\"><script>window.__xss = 'exception'</script>"


def fail(x: int) -> int:
    raise RuntimeError(ERROR)


@pytest.fixture
def hostile_app(no_active_context: None) -> Iterator[SparkContext]:
    conf = SparkConf().set("spark.ui.enabled", "true").set("spark.ui.port", "0")
    sc = SparkContext("local", APP_NAME, conf=conf)
    try:
        with pytest.raises(Exception, match="onerror"):
            sc.parallelize(range(2), 1).setName(APP_NAME).map(fail).collect()
        assert sc._listener_bus.wait_until_empty(10), "the listener bus did not deliver the job's events in 10 s"
        yield sc
    finally:
        sc.stop()


def assert_nothing_ran(driver: Any) -> None:
    assert driver.execute_script("return typeof window.__xss") == "undefined", (
        f"{driver.current_url} ran injected code: window.__xss = {driver.execute_script('return window.__xss')!r}")


def test_app_name_and_exception_render_as_text(hostile_app: SparkContext, browser: Any, tmp_path: Path) -> None:
    url = hostile_app.uiWebUrl
    open_page(browser, f"{url}/jobs/", lambda d: rows(d, "failed-jobs") == 1, "the failed job")
    assert browser.title == f"{APP_NAME} - Jobs"
    assert APP_NAME in browser.find_element("id", "app-name").text
    assert_nothing_ran(browser)
    open_page(browser, f"{url}/stages/", lambda d: rows(d, "failed-stages") == 1, "the failed stage")
    assert ERROR in browser.find_element("id", "failed-stages").text
    assert_nothing_ran(browser)
    open_page(browser, f"{url}/stages/stage/?id=0&attempt=0", lambda d: rows(d, "stage-tasks") >= 1, "the failed task")
    assert ERROR in browser.find_element("id", "stage-tasks").text
    assert_nothing_ran(browser)
    open_page(browser, f"{url}/environment/", lambda d: rows(d, "env-sparkProperties") >= 1, "Spark properties")
    assert APP_NAME in browser.find_element("id", "env-sparkProperties").text
    assert_nothing_ran(browser)
    assert not browser.find_elements("css selector", "#content script, #content img")
    screenshot(browser, tmp_path, "xss")

"""Browser fixtures of the web UI tests: one headless Chromium per session, driven by Selenium.

The browser is Debian's ``chromium`` with its ``chromedriver`` (``make test`` installs both
through ``scripts/ensure-chromium.sh``); Selenium is handed the driver's path so it never
downloads one. A missing browser fails the browser tests with the command to run, it does
not skip them.

:func:`open_page` loads a page, waits (with a deadline) for a condition on it, and fails
on any SEVERE entry of the browser console; :func:`screenshot` saves the window under the
test's ``tmp_path``. :func:`ui_context` makes contexts with their UI on.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from rdd import SparkContext

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1400,1000"]

#: How long a page may take to show what a test waits for.
PAGE_DEADLINE_S = 20.0


UI_CONF_DIR = str(Path(__file__).resolve().parent / "conf")


@pytest.fixture(scope="package", autouse=True)
def ui_on_by_default() -> Iterator[None]:
    """The UI is on in this package's contexts (and the programs they start), as outside tests.

    The rest of the suite runs with tests/conf/spark-defaults.conf, which turns it off.
    """
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SPARK_CONF_DIR", UI_CONF_DIR)
        yield


@pytest.fixture
def ui_context(no_active_context: None) -> Iterator[Callable[..., SparkContext]]:
    """A factory of ``local`` contexts with their UI enabled: ``ui_context(app_name, spark_ui_port="0")``
    (settings as keywords, ``_`` for ``.``); all stopped after the test."""
    from rdd import SparkConf, SparkContext

    made: list[SparkContext] = []

    def make(app_name: str = "ui-server-test", **settings: str) -> SparkContext:
        conf = SparkConf().set("spark.ui.enabled", "true")
        for key, value in settings.items():
            conf.set(key.replace("_", "."), value)
        context = SparkContext("local", app_name, conf=conf)
        made.append(context)
        return context

    yield make
    for context in made:
        context.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """A headless Chromium (a Selenium WebDriver) shared by the session's UI tests."""
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.access(p, os.X_OK)]
    if missing:
        pytest.fail(f"the web UI browser tests need {' and '.join(missing)}; run `bash scripts/ensure-chromium.sh` "
                    "as root (or `sudo apt-get install chromium chromium-driver`)", pytrace=False)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="dstreams-ui-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(PAGE_DEADLINE_S)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def console_errors(driver: Any) -> list[dict[str, Any]]:
    """The SEVERE entries of the browser console since the last call (reading empties the log)."""
    return [entry for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"]


def wait_for(driver: Any, condition: Callable[[Any], Any], what: str, deadline_s: float = PAGE_DEADLINE_S) -> Any:
    """Poll ``condition(driver)`` until it is truthy; fail naming ``what`` after ``deadline_s``."""
    end = time.monotonic() + deadline_s
    last: Exception | None = None
    while time.monotonic() < end:
        try:
            value = condition(driver)
            if value:
                return value
        except Exception as exc:  # noqa: BLE001 - the page may still be loading; retried until the deadline
            last = exc
        time.sleep(0.1)
    errors = console_errors(driver)
    pytest.fail(f"{driver.current_url}: {what} did not happen within {deadline_s:.0f} s"
                f"{f' (last error: {last})' if last else ''}; console errors: {errors}", pytrace=False)


def open_page(driver: Any, url: str, condition: Callable[[Any], Any], what: str) -> Any:
    """Load ``url``, wait for ``condition``, and fail on console errors. Returns the condition's value."""
    # The previous page may belong to a context a finished test stopped: until it is unloaded
    # its refresh timers fetch from a closed port and log errors that are not this page's.
    driver.get("about:blank")
    console_errors(driver)
    driver.get(url)
    value = wait_for(driver, condition, what)
    assert_no_console_errors(driver)
    return value


def assert_no_console_errors(driver: Any) -> None:
    errors = console_errors(driver)
    assert not errors, f"{driver.current_url} logged console errors: {errors}"


def screenshot(driver: Any, tmp_path: Path, name: str) -> Path:
    """Save the window as ``tmp_path/name.png`` and return the path."""
    path = tmp_path / f"{name}.png"
    assert driver.save_screenshot(str(path)), f"could not save a screenshot to {path}"
    return path


def rows(driver: Any, element_id: str) -> int:
    """The data rows of the table drawn in the element of ``element_id`` (``UI.table`` records them)."""
    value = driver.execute_script(
        "var el = document.getElementById(arguments[0]); return el && el.dataset.rows;", element_id)
    return int(value) if value is not None else 0

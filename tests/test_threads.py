"""``InheritableThread``, ``inheritable_thread_target`` and the system properties, on a real context."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from rdd import InheritableThread, SparkConf, SparkContext, inheritable_thread_target


def _join(thread: threading.Thread) -> None:
    thread.join(30)
    assert not thread.is_alive(), "the thread did not finish within 30 s"


def test_a_thread_started_inherits_the_job_settings_of_its_starter(make_sc: Callable[..., SparkContext]) -> None:
    sc = make_sc("local")
    sc.setJobGroup("nightly", "nightly report")
    sc.setLocalProperty("spark.scheduler.pool", "reports")
    seen: dict[str, Any] = {}

    def work() -> None:
        seen["group"] = sc.getLocalProperty("spark.jobGroup.id")
        seen["pool"] = sc.getLocalProperty("spark.scheduler.pool")
        sc.setLocalProperty("spark.scheduler.pool", "child")  # the parent's stays
        seen["count"] = sc.parallelize(range(10), 2).count()

    tracker = sc.statusTracker()  # tracks the jobs from here on
    plain = threading.Thread(target=lambda: seen.setdefault("plain", sc.getLocalProperty("spark.jobGroup.id")))
    plain.start()
    _join(plain)
    thread = InheritableThread(target=work)
    sc.setLocalProperty("spark.scheduler.pool", "reports-2")  # taken when the thread starts
    thread.start()
    _join(thread)
    assert seen == {"plain": None, "group": "nightly", "pool": "reports-2", "count": 10}
    assert sc.getLocalProperty("spark.scheduler.pool") == "reports-2"
    deadline = time.monotonic() + 10
    while not tracker.getJobIdsForGroup("nightly") and time.monotonic() < deadline:
        time.sleep(0.02)  # the status store hears of the job from the listener bus
    assert tracker.getJobIdsForGroup("nightly"), "the thread's job was not in the inherited job group within 10 s"


def test_a_wrapped_target_keeps_the_settings_of_when_it_was_wrapped(make_sc: Callable[..., SparkContext]) -> None:
    sc = make_sc("local")
    sc.setLocalProperty("spark.job.description", "at wrapping")
    seen: list[str | None] = []

    @inheritable_thread_target
    def work(suffix: str) -> None:
        seen.append(f"{sc.getLocalProperty('spark.job.description')}{suffix}")

    sc.setLocalProperty("spark.job.description", "later")
    thread = threading.Thread(target=work, args=("!",))
    thread.start()
    _join(thread)
    assert seen == ["at wrapping!"]


def test_system_properties_seed_later_confs() -> None:
    SparkContext.setSystemProperty("spark.dstreams.test.prop", "7")
    try:
        assert SparkContext.getSystemProperty("spark.dstreams.test.prop") == "7"
        assert SparkConf().get("spark.dstreams.test.prop") == "7"
        assert SparkConf(loadDefaults=False).get("spark.dstreams.test.prop", None) is None
        assert SparkContext.getSystemProperty("java.home") is None
        assert SparkContext.PACKAGE_EXTENSIONS == (".zip", ".egg", ".jar")
    finally:
        from rdd import conf_defaults

        conf_defaults._system_properties.pop("spark.dstreams.test.prop", None)

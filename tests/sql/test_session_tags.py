"""``spark.addTag``/``getTags``/``interruptTag``/``interruptAll``/``interruptOperation`` (PySpark 4 on
Spark Classic), with real jobs cancelled in worker processes while another thread waits on them."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom
from dstream.sql.errors import IllegalArgumentException

DEADLINE = 60.0


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local[2]").appName("session-tags").getOrCreate()
    yield session
    session.stop()


def test_tags_are_per_thread_and_checked(spark: SparkSession) -> None:
    spark.addTag("a")
    spark.addTag("b")
    spark.removeTag("zz")  # not added: nothing happens, as PySpark
    assert spark.getTags() == {"a", "b"}
    seen: list[set[str]] = []
    other = threading.Thread(target=lambda: seen.append(spark.getTags()))
    other.start()
    other.join(DEADLINE)
    assert seen == [set()]
    spark.removeTag("a")
    assert spark.getTags() == {"b"}
    spark.clearTags()
    assert spark.getTags() == set()
    with pytest.raises(IllegalArgumentException, match="Spark job tag cannot contain ','."):
        spark.addTag("a,b")
    with pytest.raises(IllegalArgumentException, match="Spark job tag cannot be an empty string."):
        spark.addTag("")
    with pytest.raises(IllegalArgumentException, match="executionId must be a number in string form."):
        spark.interruptOperation("x")
    assert (spark.interruptAll(), spark.interruptTag("a"), spark.interruptOperation("7")) == ([], [], [])


def _start_slow_query(spark: SparkSession, tag: str | None,
                      started: threading.Event) -> tuple[threading.Thread, dict[str, Any]]:
    outcome: dict[str, Any] = {}

    def slow(x: int) -> int:
        time.sleep(0.05)
        return x

    def run() -> None:
        if tag is not None:
            spark.addTag(tag)
        started.set()
        try:
            outcome["rows"] = spark.range(2000, numPartitions=4).select(F.udf(slow, "long")("id")).collect()
        except Exception as exc:  # noqa: BLE001 - the cancellation is what the test looks at
            outcome["error"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


def _interrupt_until_found(interrupt: Any) -> list[str]:
    # The job starts a moment after the thread does: ask until an operation is interrupted.
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        found = interrupt()
        if found:
            return list(found)
        time.sleep(0.05)
    raise AssertionError(f"no operation was interrupted within {DEADLINE} s")


@pytest.mark.parametrize("how", ["tag", "all", "operation"])
def test_interrupts_cancel_the_running_operation(spark: SparkSession, how: str) -> None:
    started = threading.Event()
    thread, outcome = _start_slow_query(spark, "slow" if how == "tag" else None, started)
    assert started.wait(DEADLINE)
    if how == "tag":
        assert spark.interruptTag("other") == []
        ids = _interrupt_until_found(lambda: spark.interruptTag("slow"))
    elif how == "all":
        ids = _interrupt_until_found(spark.interruptAll)
    else:
        # Learn the id of one operation (interruptAll reports it), then interrupt the next
        # slow query by id: ids count up, and nothing else runs meanwhile.
        first = int(_interrupt_until_found(spark.interruptAll)[0])
        thread.join(DEADLINE)
        started.clear()
        thread, outcome = _start_slow_query(spark, None, started)
        assert started.wait(DEADLINE)
        ids = _interrupt_until_found(lambda: [i for n in range(first + 1, first + 4)
                                               for i in spark.interruptOperation(str(n))])
        assert int(ids[0]) > first
    thread.join(DEADLINE)
    assert not thread.is_alive()
    assert len(ids) == 1 and ids[0].isdigit()
    assert "rows" not in outcome and "cancelled" in str(outcome["error"])
    assert spark.range(5).count() == 5  # the session goes on

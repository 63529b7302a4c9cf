"""``groupBy(...).applyInPandasWithState``: PySpark's stateful function over pandas frames.

Its state, timeout and mode rules are flatMapGroupsWithState's (tested in
test_group_state.py); these tests cover what differs: the frames ``func`` gets (one per
call with data, none for a timeout, the grouped DataFrame's columns and types, times in
the session time zone) and the frames it returns, against a plain-Python model.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql.errors import PySparkTypeError, PySparkValueError
from dstream.sql.streaming import GroupState, GroupStateTimeout, MemoryStream
from tests.sql.streaming.test_group_state import capped_model  # the same model as flatMapGroupsWithState's

DEADLINE = 30.0


def capped_count(key: tuple[Any, ...], frames: Iterator[Any], state: GroupState) -> Iterator[Any]:
    """A key's running count, emitted each batch; the key closes (state removed) at 5."""
    import pandas as pd

    seen = sum(len(frame) for frame in frames)
    count = (state.get[0] if state.exists else 0) + seen
    if count >= 5:
        state.remove()
    else:
        state.update((count,))
    yield pd.DataFrame({"k": [key[0]], "n": [count], "closed": [count >= 5]})


@settings(max_examples=15, deadline=None)
@given(st.lists(st.lists(st.sampled_from("abcd"), min_size=1, max_size=8), min_size=1, max_size=6))
def test_counts_match_a_plain_python_model(spark: SparkSession, batches: list[list[str]]) -> None:
    stream = MemoryStream("k string", spark)
    got: dict[int, list[tuple[Any, ...]]] = {}
    query = (stream.toDF().groupBy("k")
             .applyInPandasWithState(capped_count, "k string, n long, closed boolean", "n long", "update",
                                     GroupStateTimeout.NoTimeout)
             .writeStream.outputMode("update")
             .foreachBatch(lambda df, i: got.__setitem__(i, sorted(map(tuple, df.collect())))).start())
    try:
        for batch in batches:
            stream.addData(batch)
            query.processAllAvailable(timeout=DEADLINE)
    finally:
        query.stop()
    assert [got[i] for i in sorted(got)] == capped_model(batches)


def wait_for_batch(query: Any, batch_id: int) -> None:
    deadline = time.monotonic() + DEADLINE
    while not [p for p in query.recentProgress if p["batchId"] == batch_id and "addBatch" in p["durationMs"]]:
        assert query.isActive, query.exception()
        assert time.monotonic() < deadline, f"batch {batch_id} never ran: {query.recentProgress}"
        time.sleep(0.01)


def sessions(key: tuple[Any, ...], frames: Iterator[Any], state: GroupState) -> Iterator[Any]:
    import pandas as pd

    if state.hasTimedOut:
        assert list(frames) == []  # a timeout call gets no frame
        count = state.get[0]
        state.remove()
        yield pd.DataFrame({"user": [key[0]], "events": [count], "expired": [True]})
        return
    batch = list(frames)
    assert len(batch) == 1 and list(batch[0].columns) == ["user", "v"] and str(batch[0].v.dtype) == "int64"
    count = (state.get[0] if state.exists else 0) + len(batch[0])
    state.update((count,))
    state.setTimeoutDuration("10 seconds")
    yield pd.DataFrame({"user": [key[0]], "events": [count], "expired": [False]})


def test_a_timeout_call_gets_no_frames_on_the_manual_clock(spark: SparkSession) -> None:
    from dstream.sql.streaming.clock import streaming_clock

    spark.conf.set("spark.sql.streaming.clock", "manual")
    try:
        clock: Any = streaming_clock(spark)  # the manual clock (advance)
        stream = MemoryStream("user string, v long", spark)
        stream.addData([("u1", 1), ("u1", 2), ("u2", 3)])
        query = (stream.toDF().groupBy("user")
                 .applyInPandasWithState(sessions, "user string, events long, expired boolean", "n long",
                                         "update", GroupStateTimeout.ProcessingTimeTimeout)
                 .writeStream.outputMode("update").format("memory").queryName("pandas_sessions")
                 .trigger(processingTime="1 second").start())
        try:
            wait_for_batch(query, 0)
            stream.addData([("u2", 4)])
            clock.advance(5000)
            wait_for_batch(query, 1)
            clock.advance(6000)
            wait_for_batch(query, 2)  # 11 000: u1 timed out; u2 (touched at 5 000) not yet
            assert query.lastProgress["stateOperators"][0]["operatorName"] == "flatMapGroupsWithState"
        finally:
            query.stop()
    finally:
        spark.conf.set("spark.sql.streaming.clock", "system")
    assert [tuple(r) for r in spark.table("pandas_sessions").collect()] == [
        ("u1", 2, False), ("u2", 1, False), ("u2", 2, False), ("u1", 2, True)]


def test_frames_show_wall_times_of_the_session_time_zone_the_query_runs_in(spark: SparkSession) -> None:
    import pandas as pd

    zone = "spark.sql.session.timeZone"
    spark.conf.set(zone, "America/Los_Angeles")
    try:
        df = spark.createDataFrame([("a", dt.datetime(2024, 1, 1, 8, 0)), ("a", dt.datetime(2024, 1, 1, 9, 30)),
                                    ("b", dt.datetime(2024, 6, 1, 12, 0))], "k string, t timestamp")

        def newest(key: tuple[Any, ...], frames: Iterator[pd.DataFrame], state: GroupState) -> Iterator[Any]:
            frame = next(frames)
            assert frame.t.dt.tz is None  # naive wall times, as PySpark gives them
            last = frame.sort_values("t").tail(1)
            yield last.assign(n=len(frame), hour=last.t.dt.hour)[["n", "t", "k", "hour"]]

        spark.conf.set(zone, "UTC")  # planned in UTC, run in Los Angeles time
        got = df.groupBy("k").applyInPandasWithState(newest, "k string, t timestamp, n long, hour int", "x long",
                                                     "append", "NoTimeout")
        spark.conf.set(zone, "America/Los_Angeles")
        assert sorted(tuple(r) for r in got.collect()) == [
            ("a", dt.datetime(2024, 1, 1, 9, 30), 2, 9), ("b", dt.datetime(2024, 6, 1, 12, 0), 1, 12)]
    finally:
        spark.conf.set(zone, "UTC")


def test_arguments_and_results_are_checked(spark: SparkSession) -> None:
    import pandas as pd

    grouped = spark.createDataFrame([("a", 1)], "k string, v long").groupBy("k")
    with pytest.raises(PySparkTypeError, match="`func` of applyInPandasWithState should be a function"):
        grouped.applyInPandasWithState(3, "k string", "n long", "append", "NoTimeout")
    with pytest.raises(PySparkValueError, match="outputMode of applyInPandasWithState must be 'append' or 'update'"):
        grouped.applyInPandasWithState(capped_count, "k string", "n long", "complete", "NoTimeout")
    with pytest.raises(PySparkTypeError, match="`outputStructType` should be a StructType"):
        grouped.applyInPandasWithState(capped_count, 4, "n long", "append", "NoTimeout")
    with pytest.raises(Exception, match="returned DataFrame for the key \\('a',\\): it must return an iterator"):
        grouped.applyInPandasWithState(lambda k, f, s: pd.DataFrame({"k": ["a"]}), "k string", "n long",
                                       "append", "NoTimeout").collect()
    with pytest.raises(Exception, match="without the column\\(s\\) \\['n'\\]"):
        grouped.applyInPandasWithState(lambda k, f, s: iter([pd.DataFrame({"k": ["a"]})]), "k string, n long",
                                       "n long", "append", "NoTimeout").collect()
    with pytest.raises(Exception, match="applyInPandasWithState returned a list, not a pandas.DataFrame"):
        grouped.applyInPandasWithState(lambda k, f, s: [[1]], "k string", "n long", "append",
                                       "NoTimeout").collect()

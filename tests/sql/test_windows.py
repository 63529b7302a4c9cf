"""Event-time windows in ``groupBy``: tumbling, sliding and session windows against plain-Python models.

The models follow Spark's definitions directly: a row at time ``t`` is in the window
starting at ``s`` for ``s = last - i * slide`` (``last = t - (t - startTime) mod slide``,
``i < ceil(window / slide)``) whenever ``s <= t < s + window``; a key's rows ordered by
time form one session while each is at most ``gap`` after the previous one (windows
that touch merge: PySpark 4.0.1 makes rows exactly one gap apart one session), the
session being ``[first, last + gap)``. Rows without a time are in no window.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rdd import SparkContext

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import AnalysisException

EPOCH = dt.datetime(1970, 1, 1)
BASE_US = int((dt.datetime(2024, 3, 10, 6, 0) - EPOCH).total_seconds()) * 1_000_000
MINUTE = 60_000_000

Event = tuple[dt.datetime | None, str | None, int]


def _session(sc: SparkContext, zone: str = "UTC") -> SparkSession:
    return SparkSession(sc, [("spark.sql.session.timeZone", zone), ("spark.sql.shuffle.partitions", "3")])


@pytest.fixture
def spark(sc: SparkContext) -> Iterator[SparkSession]:
    session = _session(sc)
    try:
        yield session
    finally:
        session.stop()


def _naive(us: int) -> dt.datetime:
    return EPOCH + dt.timedelta(microseconds=us)


def _micros(ts: dt.datetime) -> int:
    delta = ts - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


# -- models -------------------------------------------------------------------------------


def model_windows(events: list[Event], window: int, slide: int, start: int) -> dict[tuple[Any, ...], list[int]]:
    """``{(start, end, k): [count, sum]}`` of Spark's (sliding or tumbling) windows."""
    out: dict[tuple[Any, ...], list[int]] = defaultdict(lambda: [0, 0])
    for ts, k, v in events:
        if ts is None:
            continue
        t = _micros(ts)
        last = t - (t - start) % slide
        for i in range(math.ceil(window / slide)):
            s = last - i * slide
            if s <= t < s + window:
                cell = out[(_naive(s), _naive(s + window), k)]
                cell[0] += 1
                cell[1] += v
    return dict(out)


def model_sessions(events: list[Event], gap: int) -> dict[tuple[Any, ...], int]:
    """``{(start, end, k): count}`` of the sessions of each key."""
    by_key: dict[Any, list[int]] = defaultdict(list)
    for ts, k, _ in events:
        if ts is not None:
            by_key[k].append(_micros(ts))
    out: dict[tuple[Any, ...], int] = {}
    for k, times in by_key.items():
        times.sort()
        first = prev = times[0]
        count = 0
        for t in times:
            if t - prev > gap:
                out[(_naive(first), _naive(prev + gap), k)] = count
                first, count = t, 0
            prev, count = t, count + 1
        out[(_naive(first), _naive(prev + gap), k)] = count
    return out


# -- strategies ---------------------------------------------------------------------------

# Offsets on the minute grid, and just beside it, so rows fall on window edges and rows of a
# key lie exactly one gap apart; one row in ten has no time.
_offsets = st.builds(lambda m, d: m * MINUTE + d, st.integers(0, 30), st.sampled_from([0, 0, 0, 1, -1, 30_000_000]))
_times = st.builds(lambda none, o: None if none == 0 else _naive(BASE_US + o), st.integers(0, 9), _offsets)
_events = st.lists(st.tuples(_times, st.sampled_from(["a", "b", None]), st.integers(-5, 100)), min_size=3, max_size=60)


@st.composite
def _window_spec(draw: Callable[..., Any]) -> tuple[int, int, int]:
    """(window, slide, start) in minutes: slide divides the window or not, start below the slide."""
    window = draw(st.sampled_from([1, 5, 10, 15, 60]))
    slide = draw(st.integers(1, window))
    start = draw(st.integers(0, slide - 1))
    return window, slide, start


def _frame(spark: SparkSession, events: list[Event]) -> Any:
    return spark.createDataFrame(events, "ts timestamp, k string, v int")


def _window_rows(df: Any, column: str) -> list[tuple[Any, ...]]:
    return [(r[column].start, r[column].end, *r[1:]) for r in df.collect()]


# -- properties ---------------------------------------------------------------------------


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(events=_events, spec=_window_spec())
def test_sliding_and_tumbling_windows_match_spark_formula(spark: SparkSession, events: list[Event],
                                                          spec: tuple[int, int, int]) -> None:
    window, slide, start = spec
    col = F.window("ts", f"{window} minutes", f"{slide} minutes", f"{start} minutes")
    got = _window_rows(_frame(spark, events).groupBy(col, "k").agg(F.count("*"), F.sum("v")), "window")
    expected = model_windows(events, window * MINUTE, slide * MINUTE, start * MINUTE)
    assert {(s, e, k): [c, v] for s, e, k, c, v in got} == expected
    assert len(got) == len(expected)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(events=_events, gap=st.sampled_from([1, 2, 5, 12]))
def test_session_windows_match_model(spark: SparkSession, events: list[Event], gap: int) -> None:
    df = _frame(spark, events).groupBy(F.session_window("ts", f"{gap} minutes"), "k").count()
    got = _window_rows(df, "session_window")
    expected = model_sessions(events, gap * MINUTE)
    assert {(s, e, k): c for s, e, k, c in got} == expected
    assert len(got) == len(expected)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(events=_events, gap=st.sampled_from([3, 20]))
def test_session_windows_without_other_keys(spark: SparkSession, events: list[Event], gap: int) -> None:
    df = _frame(spark, events).groupBy(F.session_window("ts", f"{gap} minutes")).agg(F.sum("v"))
    got = {(r[0].start, r[0].end): r[1] for r in df.collect()}
    sums: dict[tuple[Any, ...], int] = defaultdict(int)
    one_key = [(ts, None, v) for ts, _, v in events]
    sessions = model_sessions(one_key, gap * MINUTE)
    for ts, _, v in one_key:
        if ts is not None:
            for s, e, _ in sessions:
                if s <= ts < e:
                    sums[(s, e)] += v
    assert got == dict(sums)


# -- examples -----------------------------------------------------------------------------


def test_tumbling_window_drops_null_times_and_keeps_alias(spark: SparkSession) -> None:
    events: list[Event] = [(_naive(BASE_US + m * MINUTE), "a", m) for m in (0, 3, 9, 10, 25)] + [(None, "a", 7)]
    df = _frame(spark, events).groupBy(F.window("ts", "10 minutes").alias("w")).agg(F.sum("v").alias("s"))
    assert df.columns == ["w", "s"]
    got = sorted((r.w.start, r.w.end, r.s) for r in df.collect())
    t0 = _naive(BASE_US)
    assert got == [(t0, t0 + dt.timedelta(minutes=10), 12),
                   (t0 + dt.timedelta(minutes=10), t0 + dt.timedelta(minutes=20), 10),
                   (t0 + dt.timedelta(minutes=20), t0 + dt.timedelta(minutes=30), 25)]


def test_window_bounds_exact_for_far_future_times(spark: SparkSession) -> None:
    # Beyond 2**52 microseconds a float quotient would put these rows in the next window.
    slide = 7 * MINUTE
    edge = (10**17 // slide) * slide
    events: list[Event] = [(_naive(edge - 1), "a", 1), (_naive(edge), "a", 2), (_naive(edge + 1), "a", 4)]
    for spec in ("7 minutes", "14 minutes"):
        df = _frame(spark, events).groupBy(F.window("ts", spec, "7 minutes"), "k").agg(F.count("*"), F.sum("v"))
        got = {(s, e, k): [c, v] for s, e, k, c, v in _window_rows(df, "window")}
        assert got == model_windows(events, int(spec.split()[0]) * MINUTE, slide, 0)


def test_windows_before_1970_floor_towards_the_past(spark: SparkSession) -> None:
    # Negative microseconds: the last start at or before t is below t, never above it (a
    # quotient truncated towards zero would start these windows after their rows).
    minus = -10 * MINUTE
    events: list[Event] = [(_naive(minus + d), "a", 1) for d in (-1, 0, 1, 3 * MINUTE - 1, 3 * MINUTE)]
    for window, slide, start in ((7, 7, 0), (7, 7, 3), (10, 4, 1)):
        col = F.window("ts", f"{window} minutes", f"{slide} minutes", f"{start} minutes")
        got = {(s, e, k): [c, v] for s, e, k, c, v in
               _window_rows(_frame(spark, events).groupBy(col, "k").agg(F.count("*"), F.sum("v")), "window")}
        assert got == model_windows(events, window * MINUTE, slide * MINUTE, start * MINUTE), (window, slide, start)


def test_day_windows_align_to_utc_whatever_the_session_zone(sc: SparkContext) -> None:
    spark = _session(sc, "America/New_York")
    try:
        # 23:30 and 00:30 UTC (the machine's wall times: the suite pins TZ=UTC) lie on either side
        # of UTC midnight, where day windows start; New York shows those starts at 19:00.
        events: list[Event] = [(dt.datetime(2024, 1, 15, 23, 30), "a", 1), (dt.datetime(2024, 1, 16, 0, 30), "a", 2)]
        df = _frame(spark, events).groupBy(F.window("ts", "1 day")).agg(F.sum("v"))
        got = sorted((r[0].start, r[0].end, r[1]) for r in df.collect())
        assert got == [(dt.datetime(2024, 1, 15), dt.datetime(2024, 1, 16), 1),
                       (dt.datetime(2024, 1, 16), dt.datetime(2024, 1, 17), 2)]
        shown = sorted(r[0] for r in df.selectExpr("CAST(window.start AS STRING)").collect())
        assert shown == ["2024-01-14 19:00:00", "2024-01-15 19:00:00"]
    finally:
        spark.stop()


def test_explain_shows_the_window_nodes(spark: SparkSession, capsys: pytest.CaptureFixture[str]) -> None:
    df = _frame(spark, [(_naive(BASE_US), "a", 1)])
    df.groupBy(F.window("ts", "10 minutes", "5 minutes"), "k").count().explain(True)
    sliding = capsys.readouterr().out
    assert "Generate window(ts#" in sliding and "600000000, 300000000, 0)" in sliding
    df.groupBy(F.session_window("ts", "5 minutes"), "k").count().explain(True)
    session = capsys.readouterr().out
    assert "SessionWindowAssign session_window(ts#" in session and "UpdatingSessions [k#" in session
    assert "Exchange hashpartitioning(k#" in session


def test_two_window_expressions_are_refused(spark: SparkSession) -> None:
    df = _frame(spark, [(_naive(BASE_US), "a", 1)])
    with pytest.raises(AnalysisException, match="Multiple time/session window expressions"):
        df.groupBy(F.window("ts", "10 minutes", "5 minutes"), F.session_window("ts", "5 minutes")).count()


def test_windows_on_worker_processes(make_sc: Callable[..., SparkContext]) -> None:
    spark = _session(make_sc("local[2]"))
    try:
        keys = ["a", "b", "c", "d", None]
        events: list[Event] = [(_naive(BASE_US + ((i * 7919) % 500) * 20_000_000), keys[i % 5], i % 13)
                               for i in range(400)] + [(None, "a", 5)]
        df = spark.createDataFrame(events, "ts timestamp, k string, v int").repartition(4)
        sliding = df.groupBy(F.window("ts", "10 minutes", "3 minutes"), "k").agg(F.count("*"), F.sum("v"))
        got = {(s, e, k): [c, v] for s, e, k, c, v in _window_rows(sliding, "window")}
        assert got == model_windows(events, 10 * MINUTE, 3 * MINUTE, 0)
        sessions = df.groupBy(F.session_window("ts", "90 seconds"), "k").count()
        got_sessions = {(s, e, k): c for s, e, k, c in _window_rows(sessions, "session_window")}
        assert got_sessions == model_sessions(events, 90_000_000)
    finally:
        spark.stop()


"""Time conversions, durations and the clocks: no SparkContext, no sleeping."""

from __future__ import annotations

import threading
from datetime import datetime

import pytest

from dstream import Duration, DurationError, Milliseconds, Minutes, Seconds
from dstream.clock import ManualClock, SystemClock, clock_from_conf
from dstream.time import Time, datetime_to_ms, duration_ms, format_ms, ms_to_datetime

WAIT = 10.0  # seconds; every wait in this module has this deadline


@pytest.mark.parametrize(
    ("value", "expected"),
    [(1, 1000), (0.5, 500), (0.1 * 3, 300), (2.25, 2250), (Seconds(3), 3000), (Milliseconds(7), 7),
     (Minutes(1), 60000)],
)
def test_duration_ms_converts_seconds_once(value: object, expected: int) -> None:
    assert duration_ms(value, "batchDuration") == expected  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [0, -1, -0.5, Milliseconds(0)])
def test_duration_must_be_positive(value: object) -> None:
    with pytest.raises(DurationError, match="batchDuration must be positive") as info:
        duration_ms(value, "batchDuration")  # type: ignore[arg-type]
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("value", ["1", None, True, float("nan"), float("inf"), 0.0005])
def test_duration_rejects_non_numbers_and_sub_millisecond(value: object) -> None:
    with pytest.raises(DurationError, match="windowDuration"):
        duration_ms(value, "windowDuration")  # type: ignore[arg-type]


def test_duration_arithmetic_and_helpers() -> None:
    assert Seconds(1) + Milliseconds(500) == Milliseconds(1500)
    assert Seconds(2) - Seconds(1) == Seconds(1)
    assert Seconds(1) * 3 == Seconds(3)
    assert Seconds(3) / Seconds(2) == 1.5
    assert Seconds(1).milliseconds() == 1000
    assert str(Duration(5)) == "5 ms"
    assert Seconds(1) < Seconds(2)
    with pytest.raises(DurationError):
        Milliseconds(1.5)  # type: ignore[arg-type]


def test_time_value() -> None:
    assert Time(1000).milliseconds() == 1000
    assert Time(1000) + Seconds(1) == Time(2000)
    assert Time(1000) - Seconds(1) == Time(0)


@pytest.mark.parametrize(("ms", "text"), [(2000, "2 s"), (2500, "2.5 s"), (1, "1 ms"), (999, "999 ms")])
def test_format_ms(ms: int, text: str) -> None:
    assert format_ms(ms) == text


def test_datetime_round_trip_is_naive_local() -> None:
    ms = 1_795_000_123_456
    dt = ms_to_datetime(ms)
    assert dt.tzinfo is None
    assert dt == datetime.fromtimestamp(ms / 1000)
    assert datetime_to_ms(dt) == ms
    assert datetime_to_ms(ms / 1000) == ms
    with pytest.raises(TypeError):
        datetime_to_ms("yesterday")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- clocks


def test_manual_clock_starts_at_zero_and_moves_only_when_told() -> None:
    clock = ManualClock()
    assert clock.now_ms() == 0
    assert clock.advance(1500) == 1500
    clock.set_time(100)
    assert clock.now_ms() == 100
    with pytest.raises(ValueError, match="non-negative"):
        clock.advance(-1)
    with pytest.raises(TypeError):
        clock.advance(1.5)  # type: ignore[arg-type]


def test_manual_clock_wait_returns_at_once_when_time_reached() -> None:
    clock = ManualClock(5000)
    assert clock.wait_till_time(4000) == 5000


def _waiter(clock: ManualClock, target: int, cancel: threading.Event | None, result: list[object]) -> threading.Thread:
    thread = threading.Thread(target=lambda: result.append(clock.wait_till_time(target, cancel)), daemon=True)
    thread.start()
    return thread


def test_manual_clock_wakes_waiter_on_advance() -> None:
    clock = ManualClock()
    result: list[object] = []
    thread = _waiter(clock, 2000, None, result)
    clock.advance(1000)  # not enough: the waiter keeps waiting
    clock.advance(1500)
    thread.join(WAIT)
    assert not thread.is_alive()
    assert result == [2500]


def test_manual_clock_wait_is_cancellable() -> None:
    clock = ManualClock()
    cancel = threading.Event()
    result: list[object] = []
    thread = _waiter(clock, 10_000, cancel, result)
    cancel.set()
    clock.interrupt()
    thread.join(WAIT)
    assert not thread.is_alive()
    assert result == [None]


def test_system_clock_waits_and_cancels() -> None:
    clock = SystemClock()
    now = clock.now_ms()
    assert abs(now - datetime.now().timestamp() * 1000) < 5000
    assert clock.wait_till_time(now - 1) is not None  # already past: no wait
    cancel = threading.Event()
    cancel.set()
    assert clock.wait_till_time(now + 3_600_000, cancel) is None  # cancelled: returns at once


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        (None, SystemClock),
        ("system", SystemClock),
        ("org.apache.spark.util.SystemClock", SystemClock),
        ("manual", ManualClock),
        ("org.apache.spark.util.ManualClock", ManualClock),
        ("org.apache.spark.streaming.util.ManualClock", ManualClock),
        ("dstream.clock.ManualClock", ManualClock),
    ],
)
def test_clock_from_conf(name: str | None, kind: type) -> None:
    assert isinstance(clock_from_conf(name), kind)


@pytest.mark.parametrize("name", ["sundial", "collections.OrderedDict", "no.such.module.Clock"])
def test_clock_from_conf_rejects_unknown_names(name: str) -> None:
    with pytest.raises(ValueError, match="spark.streaming.clock"):
        clock_from_conf(name)

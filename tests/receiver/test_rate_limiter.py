"""RateLimiter: exact schedules on a fake monotonic time, no sleeping."""

from __future__ import annotations

import pytest

from dstream.receiver.rate_limiter import RateLimiter


class FakeTime:
    """A monotonic time source that moves only when told to (or when 'slept' on)."""

    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def make(
    rate: float | None, max_rate: float | None = None, burst: float = 0.0
) -> tuple[RateLimiter, FakeTime]:
    t = FakeTime()
    return RateLimiter(rate, max_rate, max_burst_s=burst, monotonic=t, sleep=t.sleep), t


def test_unlimited_never_waits() -> None:
    limiter, t = make(None)
    assert limiter.rate is None
    assert [limiter.acquire(1000) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert t.slept == []


def test_each_request_pays_the_previous_debt() -> None:
    limiter, t = make(10)
    # Guava semantics: the first request passes, the next one waits for its cost.
    assert limiter.reserve(1) == 0.0
    assert limiter.reserve(1) == pytest.approx(0.1)
    assert limiter.reserve(5) == pytest.approx(0.2)
    assert limiter.reserve(1) == pytest.approx(0.7)


def test_idle_time_is_saved_up_to_the_burst() -> None:
    limiter, t = make(10, burst=1.0)
    t.now += 5.0  # idle: 50 permits earned, 10 kept (1 s of burst)
    assert limiter.reserve(10) == 0.0
    assert limiter.reserve(1) == 0.0  # stored permits exhausted exactly; this one goes into debt
    assert limiter.reserve(1) == pytest.approx(0.1)


def test_a_flood_settles_at_the_rate() -> None:
    limiter, t = make(200, burst=0.2)
    start = t.now
    for _ in range(1000):
        limiter.acquire(1)
    # 1000 records at 200/s take 5 s, minus at most the (empty at start) burst.
    assert t.now - start == pytest.approx(999 / 200, rel=1e-9)


def test_records_per_interval_stay_under_the_limit() -> None:
    rate, interval = 100.0, 0.2
    limiter, t = make(rate, burst=interval)
    t.now += 10  # a long idle period fills the burst
    per_interval: dict[int, int] = {}
    start = t.now
    for _ in range(2000):
        limiter.acquire(1)
        bucket = int((t.now - start) / interval)
        per_interval[bucket] = per_interval.get(bucket, 0) + 1
    # Burst + refill bounds one interval to about twice its share; later ones to its share.
    assert max(per_interval.values()) <= 2 * rate * interval + 1
    steady = [n for b, n in per_interval.items() if 0 < b < max(per_interval)]
    assert steady and all(n <= rate * interval + 1 for n in steady)


def test_update_rate_ignores_non_positive_and_caps_at_max_rate() -> None:
    limiter, _ = make(50, max_rate=80)
    assert limiter.rate == 50
    limiter.update_rate(0)
    limiter.update_rate(-3)
    assert limiter.rate == 50
    limiter.update_rate(500)
    assert limiter.rate == 80
    limiter.update_rate(20)
    assert limiter.rate == 20


def test_initial_rate_is_capped_by_max_rate() -> None:
    assert make(1000, max_rate=100)[0].rate == 100
    assert make(None, max_rate=100)[0].rate == 100


def test_update_from_unlimited_starts_limiting() -> None:
    limiter, _ = make(None)
    limiter.update_rate(10)
    assert limiter.rate == 10
    assert limiter.reserve(1) == 0.0
    assert limiter.reserve(1) == pytest.approx(0.1)

"""PIDRateEstimator against values computed by hand from Spark's formula."""

from __future__ import annotations

import pytest

from dstream.rate.pid import PIDRateEstimator
from dstream.receiver.errors import ReceiverConfigError


def test_first_batch_only_measures() -> None:
    pid = PIDRateEstimator(1000)
    assert pid.compute(1000, 1000, 500, 0) is None
    assert pid.latest_rate == 2000.0
    assert pid.latest_error == 0.0


def test_second_batch_with_defaults() -> None:
    pid = PIDRateEstimator(1000)
    pid.compute(1000, 1000, 500, 0)  # measures 2000 records/s
    # processing rate 1000/s: error = 2000 - 1000 = 1000; historical = 300*1000/1000 = 300
    # new = 2000 - 1.0*1000 - 0.2*300 - 0.0*... = 940
    assert pid.compute(2000, 1000, 1000, 300) == pytest.approx(940.0)
    assert pid.latest_rate == pytest.approx(940.0)
    assert pid.latest_error == pytest.approx(1000.0)


def test_all_three_terms() -> None:
    pid = PIDRateEstimator(500, proportional=0.5, integral=0.1, derived=0.25, min_rate=1)
    assert pid.compute(10_000, 4000, 2000, 0) is None  # 2000 records/s measured
    # t=12000: dt=2 s; rate 3000/1000*1000 = 3000/s; error = 2000-3000 = -1000
    # historical = 100*3000/500 = 600; dError = (-1000 - 0)/2 = -500
    # new = 2000 - 0.5*(-1000) - 0.1*600 - 0.25*(-500) = 2000 + 500 - 60 + 125 = 2565
    assert pid.compute(12_000, 3000, 1000, 100) == pytest.approx(2565.0)
    # t=13000: dt=1; rate 1000/2000*1000 = 500/s; error = 2565-500 = 2065
    # historical = 0; dError = (2065 - (-1000))/1 = 3065
    # new = 2565 - 0.5*2065 - 0 - 0.25*3065 = 2565 - 1032.5 - 766.25 = 766.25
    assert pid.compute(13_000, 1000, 2000, 0) == pytest.approx(766.25)


def test_min_rate_is_the_floor() -> None:
    pid = PIDRateEstimator(1000)
    pid.compute(1000, 100, 1000, 0)  # 100/s
    # error = 100 - 100 = 0; historical = 50000*100/1000 = 5000 -> 100 - 1000 < 100
    assert pid.compute(2000, 100, 1000, 50_000) == 100.0


@pytest.mark.parametrize(
    ("time", "elements", "processing"),
    [(1000, 10, 100), (500, 10, 100), (3000, 0, 100), (3000, 10, 0)],
    ids=["same time", "older time", "no records", "no processing delay"],
)
def test_skips_leave_state_unchanged(time: int, elements: int, processing: int) -> None:
    pid = PIDRateEstimator(1000)
    pid.compute(1000, 1000, 1000, 0)
    before = (pid.latest_time, pid.latest_rate, pid.latest_error)
    assert pid.compute(time, elements, processing, 0) is None
    assert (pid.latest_time, pid.latest_rate, pid.latest_error) == before


@pytest.mark.parametrize(
    "kwargs",
    [{"proportional": -1}, {"integral": -0.1}, {"derived": -2}, {"min_rate": 0}],
)
def test_invalid_parameters_name_the_key(kwargs: dict) -> None:
    with pytest.raises(ReceiverConfigError, match="spark.streaming.backpressure.pid"):
        PIDRateEstimator(1000, **kwargs)


def test_batch_interval_must_be_positive() -> None:
    with pytest.raises(ValueError, match="batch interval"):
        PIDRateEstimator(0)

"""ReceiverSettings: Spark's keys, defaults, time strings and clear errors."""

from __future__ import annotations

import pytest

from rdd import ConfigError, SparkConf

from dstream.receiver.errors import ReceiverConfigError
from dstream.receiver.settings import ReceiverSettings


def test_defaults_are_sparks() -> None:
    s = ReceiverSettings.from_conf(None)
    assert (s.block_interval_ms, s.block_queue_size, s.restart_delay_ms) == (200, 10, 2000)
    assert s.max_rate is None and s.first_rate is None
    assert not s.wal_enabled and s.wal_rolling_interval_ms == 60_000
    assert not s.backpressure_enabled
    assert (s.pid_proportional, s.pid_integral, s.pid_derived, s.pid_min_rate) == (
        1.0,
        0.2,
        0.0,
        100.0,
    )
    assert s.file_min_remember_ms == 60_000
    assert (s.wal_max_failures, s.driver_wal_max_failures) == (3, 3)
    assert s.driver_wal_rolling_interval_ms == 60_000


def test_write_ahead_log_keys_are_read() -> None:
    s = ReceiverSettings.from_conf(
        {
            "spark.streaming.receiver.writeAheadLog.maxFailures": "5",
            "spark.streaming.driver.writeAheadLog.maxFailures": "2",
            "spark.streaming.driver.writeAheadLog.rollingIntervalSecs": "7",
        }
    )
    assert (s.wal_max_failures, s.driver_wal_max_failures) == (5, 2)
    assert s.driver_wal_rolling_interval_ms == 7000


def test_keys_are_read() -> None:
    s = ReceiverSettings.from_conf(
        {
            "spark.streaming.blockInterval": "1s",
            "spark.streaming.blockQueueSize": "3",
            "spark.streaming.receiverRestartDelay": "500",
            "spark.streaming.receiver.maxRate": "1000",
            "spark.streaming.receiver.writeAheadLog.enable": "true",
            "spark.streaming.receiver.writeAheadLog.rollingIntervalSecs": "5",
            "spark.streaming.backpressure.enabled": "true",
            "spark.streaming.backpressure.initialRate": "5000",
            "spark.streaming.backpressure.pid.proportional": "0.5",
            "spark.streaming.backpressure.pid.integral": "0.1",
            "spark.streaming.backpressure.pid.derived": "0.3",
            "spark.streaming.backpressure.pid.minRate": "10",
            "spark.streaming.minRememberDuration": "90",
        }
    )
    assert s.block_interval_ms == 1000 and s.block_queue_size == 3 and s.restart_delay_ms == 500
    assert s.max_rate == 1000 and s.wal_enabled and s.wal_rolling_interval_ms == 5000
    assert s.backpressure_enabled and s.initial_rate == 5000
    assert s.first_rate == 1000  # initialRate is capped by maxRate
    assert (s.pid_proportional, s.pid_integral, s.pid_derived, s.pid_min_rate) == (
        0.5,
        0.1,
        0.3,
        10,
    )
    assert s.file_min_remember_ms == 90_000  # the legacy key, in seconds


def test_max_rate_zero_or_negative_means_unlimited() -> None:
    assert ReceiverSettings.from_conf({"spark.streaming.receiver.maxRate": "0"}).max_rate is None
    assert ReceiverSettings.from_conf({"spark.streaming.receiver.maxRate": "-5"}).max_rate is None


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("200ms", 200),
        ("2s", 2000),
        ("1min", 60_000),
        ("1500", 1500),
        ("0.5s", 500),
        ("3m", 180_000),
        ("1h", 3_600_000),
    ],
)
def test_block_interval_is_a_time_string_in_ms(text: str, ms: int) -> None:
    settings = ReceiverSettings.from_conf({"spark.streaming.blockInterval": text})
    assert settings.block_interval_ms == ms


@pytest.mark.parametrize(
    ("conf", "match"),
    [
        (
            {"spark.streaming.blockInterval": "fast"},
            "spark.streaming.blockInterval='fast' is not a time",
        ),
        ({"spark.streaming.blockInterval": "0ms"}, "blockInterval must be positive"),
        ({"spark.streaming.blockQueueSize": "0"}, "blockQueueSize must be at least 1"),
        ({"spark.streaming.receiver.maxRate": "lots"}, "maxRate='lots' must be a number"),
        ({"spark.streaming.backpressure.enabled": "maybe"}, "must be 'true' or 'false'"),
        (
            {"spark.streaming.backpressure.rateEstimator": "ewma"},
            "the only rate estimator is 'pid'",
        ),
        ({"spark.streaming.backpressure.pid.integral": "-1"}, "pid.integral must be >= 0"),
        ({"spark.streaming.backpressure.pid.minRate": "0"}, "minRate must be > 0"),
        (
            {"spark.streaming.receiver.writeAheadLog.maxFailures": "0"},
            "writeAheadLog.maxFailures must be at least 1",
        ),
        (
            {"spark.streaming.driver.writeAheadLog.rollingIntervalSecs": "0"},
            "driver.writeAheadLog.rollingIntervalSecs must be at least 1",
        ),
    ],
)
def test_bad_values_name_the_key(conf: dict, match: str) -> None:
    with pytest.raises(ReceiverConfigError, match=match):
        ReceiverSettings.from_conf(conf)


def test_a_spark_conf_is_read_with_sparks_units() -> None:
    # blockInterval is getTimeAsMs (a bare number is ms), the remember duration
    # getTimeAsSeconds (a bare number is s), as Spark reads them
    conf = SparkConf().set("spark.streaming.blockInterval", "10").set(
        "spark.streaming.fileStream.minRememberDuration", "2min")
    settings = ReceiverSettings.from_conf(conf)
    assert (settings.block_interval_ms, settings.file_min_remember_ms) == (10, 120_000)
    with pytest.raises(ReceiverConfigError, match="minRememberDuration='soon' is not a time"):
        ReceiverSettings.from_conf({"spark.streaming.minRememberDuration": "soon"})


@pytest.mark.parametrize(
    "key", ["spark.streaming.receiver.writeAheadLog.enable", "spark.streaming.backpressure.enabled"]
)
def test_booleans_are_true_or_false_only(key: str) -> None:
    with pytest.raises(ReceiverConfigError, match=f"{key}='yes' must be 'true' or 'false'") as info:
        ReceiverSettings.from_conf({key: "yes"})
    assert isinstance(info.value, ConfigError), "one error type for every bad setting"
    assert ReceiverSettings.from_conf({key: "TRUE"}) != ReceiverSettings.from_conf({key: "False"})

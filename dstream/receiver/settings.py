"""Receiver, rate and write-ahead-log settings read from the SparkConf, with Spark's keys.

What this module owns
---------------------
One frozen record, :class:`ReceiverSettings`, built once per StreamingContext by
:func:`ReceiverSettings.from_conf` and handed to every receiver part, so that no engine
class reads the configuration itself and tests can build settings directly.

Keys and defaults (SPARK-INTERNALS Appendix A, API.md section 2.4)::

    spark.streaming.blockInterval                         200ms  (time string; > 0)
    spark.streaming.blockQueueSize                        10     (blocks per generator)
    spark.streaming.receiverRestartDelay                  2000   (ms)
    spark.streaming.receiver.maxRate                      unlimited (<= 0 means none)
    spark.streaming.receiver.writeAheadLog.enable         false
    spark.streaming.receiver.writeAheadLog.rollingIntervalSecs   60
    spark.streaming.driver.writeAheadLog.rollingIntervalSecs     60
    spark.streaming.receiver.writeAheadLog.maxFailures    3      (write attempts, >= 1)
    spark.streaming.driver.writeAheadLog.maxFailures      3
    spark.streaming.backpressure.enabled                  false
    spark.streaming.backpressure.initialRate              = receiver.maxRate
    spark.streaming.backpressure.rateEstimator            pid (the only one)
    spark.streaming.backpressure.pid.proportional         1.0
    spark.streaming.backpressure.pid.integral             0.2
    spark.streaming.backpressure.pid.derived              0.0
    spark.streaming.backpressure.pid.minRate              100
    spark.streaming.fileStream.minRememberDuration        60s (legacy key
                                                          spark.streaming.minRememberDuration)

Time strings follow Spark's ``getTimeAsMs``: a number with an optional unit ``us``,
``ms``, ``s``, ``m``/``min``, ``h``, ``d``; a bare number means milliseconds. Invalid
values raise :class:`~dstream.receiver.errors.ReceiverConfigError` naming the key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from dstream.receiver.errors import ReceiverConfigError

__all__ = ["ReceiverSettings", "conf_value", "parse_time_ms"]

_TIME_UNITS_MS = {
    "us": 0.001,
    "ms": 1.0,
    "s": 1000.0,
    "m": 60_000.0,
    "min": 60_000.0,
    "h": 3_600_000.0,
    "d": 86_400_000.0,
}
_TIME_RE = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*([a-z]*)\s*$")


def parse_time_ms(value: str, key: str, default_unit: str = "ms") -> int:
    """Parse a Spark time string (``"200ms"``, ``"2s"``, ``"1500"``) into milliseconds.

    Raises
    ------
    ReceiverConfigError
        If ``value`` is not a number with a known unit.
    """
    match = _TIME_RE.match(str(value).lower())
    unit = match.group(2) if match else None
    if match is None or (unit and unit not in _TIME_UNITS_MS):
        raise ReceiverConfigError(
            f"{key}={value!r} is not a time: use a number with a unit, for example "
            f"'200ms', '2s' or '1min' (a bare number means {default_unit})"
        )
    factor = _TIME_UNITS_MS[unit or default_unit]
    return int(round(float(match.group(1)) * factor))


def conf_value(conf: Any, key: str) -> str | None:
    """Return the string value of ``key`` in a SparkConf (or a plain dict), or ``None``."""
    if conf is None:
        return None
    value = conf.get(key, None)
    return None if value is None else str(value)


def _float(conf: Any, key: str, default: float) -> float:
    raw = conf_value(conf, key)
    if raw is None:
        return default
    try:
        return float(raw)
    except ValueError:
        raise ReceiverConfigError(f"{key}={raw!r} must be a number") from None


def _int(conf: Any, key: str, default: int) -> int:
    raw = conf_value(conf, key)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError:
        raise ReceiverConfigError(f"{key}={raw!r} must be an integer") from None


def _bool(conf: Any, key: str, default: bool) -> bool:
    raw = conf_value(conf, key)
    if raw is None:
        return default
    lowered = raw.strip().lower()
    if lowered in ("true", "1", "yes"):
        return True
    if lowered in ("false", "0", "no"):
        return False
    raise ReceiverConfigError(f"{key}={raw!r} must be 'true' or 'false'")


@dataclass(frozen=True, slots=True)
class ReceiverSettings:
    """Every receiver-side setting, already validated (times in ms, rates in records/s)."""

    block_interval_ms: int = 200
    block_queue_size: int = 10
    restart_delay_ms: int = 2000
    #: Records per second per receiver; ``None`` means no limit.
    max_rate: float | None = None
    wal_enabled: bool = False
    wal_rolling_interval_ms: int = 60_000
    driver_wal_rolling_interval_ms: int = 60_000
    wal_max_failures: int = 3
    driver_wal_max_failures: int = 3
    backpressure_enabled: bool = False
    #: Rate of the first batch when backpressure is on; ``None``: start at ``max_rate``.
    initial_rate: float | None = None
    pid_proportional: float = 1.0
    pid_integral: float = 0.2
    pid_derived: float = 0.0
    pid_min_rate: float = 100.0
    file_min_remember_ms: int = 60_000

    def __post_init__(self) -> None:
        if self.block_interval_ms <= 0:
            raise ReceiverConfigError(
                f"spark.streaming.blockInterval must be positive, got {self.block_interval_ms} ms; "
                "the default is 200ms"
            )
        if self.block_queue_size < 1:
            raise ReceiverConfigError(
                f"spark.streaming.blockQueueSize must be at least 1, got {self.block_queue_size}"
            )
        if self.restart_delay_ms < 0:
            raise ReceiverConfigError(
                f"spark.streaming.receiverRestartDelay must be >= 0 ms, got {self.restart_delay_ms}"
            )
        for key, value in (
            ("spark.streaming.receiver.writeAheadLog.rollingIntervalSecs", self.wal_rolling_interval_ms),
            ("spark.streaming.driver.writeAheadLog.rollingIntervalSecs", self.driver_wal_rolling_interval_ms),
        ):
            if value <= 0:
                raise ReceiverConfigError(f"{key} must be at least 1 (seconds), got {value / 1000:g}")
        for key, value in (
            ("spark.streaming.receiver.writeAheadLog.maxFailures", self.wal_max_failures),
            ("spark.streaming.driver.writeAheadLog.maxFailures", self.driver_wal_max_failures),
        ):
            if value < 1:
                raise ReceiverConfigError(f"{key} must be at least 1, got {value}")
        for name in ("pid_proportional", "pid_integral", "pid_derived"):
            if getattr(self, name) < 0:
                key = "spark.streaming.backpressure.pid." + name.split("_", 1)[1]
                raise ReceiverConfigError(f"{key} must be >= 0, got {getattr(self, name)}")
        if self.pid_min_rate <= 0:
            raise ReceiverConfigError(
                f"spark.streaming.backpressure.pid.minRate must be > 0, got {self.pid_min_rate}"
            )

    @property
    def first_rate(self) -> float | None:
        """The limit a receiver starts with: ``min(initialRate, maxRate)`` under backpressure."""
        if self.backpressure_enabled and self.initial_rate is not None:
            if self.max_rate is None:
                return self.initial_rate
            return min(self.initial_rate, self.max_rate)
        return self.max_rate

    @classmethod
    def from_conf(cls, conf: Any) -> ReceiverSettings:
        """Read the settings from a SparkConf (``None`` gives the defaults).

        Raises
        ------
        ReceiverConfigError
            If a value does not parse or breaks its rule; the message names the key.
        """
        block_raw = conf_value(conf, "spark.streaming.blockInterval")
        block_ms = (
            200 if block_raw is None else parse_time_ms(block_raw, "spark.streaming.blockInterval")
        )
        max_rate = _float(conf, "spark.streaming.receiver.maxRate", 0.0)
        initial = conf_value(conf, "spark.streaming.backpressure.initialRate")
        estimator = conf_value(conf, "spark.streaming.backpressure.rateEstimator")
        if estimator is not None and estimator.strip().lower() != "pid":
            raise ReceiverConfigError(
                f"spark.streaming.backpressure.rateEstimator={estimator!r} is not supported: "
                "the only rate estimator is 'pid'"
            )
        remember_key = "spark.streaming.fileStream.minRememberDuration"
        remember_raw = conf_value(conf, remember_key)
        if remember_raw is None:
            remember_key = "spark.streaming.minRememberDuration"
            remember_raw = conf_value(conf, remember_key)
        remember_ms = (
            60_000 if remember_raw is None else parse_time_ms(remember_raw, remember_key, "s")
        )
        initial_rate = None
        if initial is not None:
            initial_rate = _float(conf, "spark.streaming.backpressure.initialRate", 0.0)
            if initial_rate <= 0:
                initial_rate = None
        return cls(
            block_interval_ms=block_ms,
            block_queue_size=_int(conf, "spark.streaming.blockQueueSize", 10),
            restart_delay_ms=_int(conf, "spark.streaming.receiverRestartDelay", 2000),
            max_rate=max_rate if max_rate > 0 else None,
            wal_enabled=_bool(conf, "spark.streaming.receiver.writeAheadLog.enable", False),
            wal_rolling_interval_ms=1000
            * _int(conf, "spark.streaming.receiver.writeAheadLog.rollingIntervalSecs", 60),
            driver_wal_rolling_interval_ms=1000
            * _int(conf, "spark.streaming.driver.writeAheadLog.rollingIntervalSecs", 60),
            wal_max_failures=_int(conf, "spark.streaming.receiver.writeAheadLog.maxFailures", 3),
            driver_wal_max_failures=_int(conf, "spark.streaming.driver.writeAheadLog.maxFailures", 3),
            backpressure_enabled=_bool(conf, "spark.streaming.backpressure.enabled", False),
            initial_rate=initial_rate,
            pid_proportional=_float(conf, "spark.streaming.backpressure.pid.proportional", 1.0),
            pid_integral=_float(conf, "spark.streaming.backpressure.pid.integral", 0.2),
            pid_derived=_float(conf, "spark.streaming.backpressure.pid.derived", 0.0),
            pid_min_rate=_float(conf, "spark.streaming.backpressure.pid.minRate", 100.0),
            file_min_remember_ms=remember_ms,
        )

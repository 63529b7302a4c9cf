"""Receiver, rate and write-ahead-log settings read from the SparkConf, with Spark's keys.

What this module owns
---------------------
One frozen record, :class:`ReceiverSettings`, built once per StreamingContext by
:func:`ReceiverSettings.from_conf` and handed to every receiver part, so that no engine
class reads the configuration itself and tests can build settings directly.

Keys and defaults (Spark's)::

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

Every value is read with the SparkConf's typed getters, as Spark reads it
(``getTimeAsMs`` for ``blockInterval``: a bare number is milliseconds;
``getTimeAsSeconds`` for the remember duration: a bare number is seconds; ``getInt``,
``getDouble``, ``getBoolean`` for the rest). Invalid values raise
:class:`~dstream.receiver.errors.ReceiverConfigError` naming the key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rdd import ConfigError, SparkConf

from dstream.receiver.errors import ReceiverConfigError

__all__ = ["ReceiverSettings"]


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
    def from_conf(cls, conf: SparkConf | Mapping[str, str] | None) -> ReceiverSettings:
        """Read the settings from a SparkConf (a plain mapping is read as one; ``None``
        gives the defaults).

        Raises
        ------
        ReceiverConfigError
            If a value does not parse or breaks its rule; the message names the key.
        """
        if not isinstance(conf, SparkConf):
            conf = SparkConf().setAll((conf or {}).items())
        try:
            return cls._read(conf)
        except ReceiverConfigError:
            raise
        except ConfigError as exc:
            raise ReceiverConfigError(str(exc)) from None

    @classmethod
    def _read(cls, conf: SparkConf) -> ReceiverSettings:
        estimator = conf.get("spark.streaming.backpressure.rateEstimator")
        if estimator is not None and estimator.strip().lower() != "pid":
            raise ReceiverConfigError(
                f"spark.streaming.backpressure.rateEstimator={estimator!r} is not supported: "
                "the only rate estimator is 'pid'"
            )
        remember_key = "spark.streaming.fileStream.minRememberDuration"
        if not conf.contains(remember_key):
            remember_key = "spark.streaming.minRememberDuration"  # Spark's legacy name
        max_rate = conf.getDouble("spark.streaming.receiver.maxRate", 0.0)
        initial_rate = conf.getDouble("spark.streaming.backpressure.initialRate", 0.0)
        return cls(
            block_interval_ms=conf.getTimeAsMs("spark.streaming.blockInterval", "200ms"),
            block_queue_size=conf.getInt("spark.streaming.blockQueueSize", 10),
            restart_delay_ms=conf.getInt("spark.streaming.receiverRestartDelay", 2000),
            max_rate=max_rate if max_rate > 0 else None,
            wal_enabled=conf.getBoolean("spark.streaming.receiver.writeAheadLog.enable", False),
            wal_rolling_interval_ms=1000
            * conf.getInt("spark.streaming.receiver.writeAheadLog.rollingIntervalSecs", 60),
            driver_wal_rolling_interval_ms=1000
            * conf.getInt("spark.streaming.driver.writeAheadLog.rollingIntervalSecs", 60),
            wal_max_failures=conf.getInt("spark.streaming.receiver.writeAheadLog.maxFailures", 3),
            driver_wal_max_failures=conf.getInt(
                "spark.streaming.driver.writeAheadLog.maxFailures", 3
            ),
            backpressure_enabled=conf.getBoolean("spark.streaming.backpressure.enabled", False),
            initial_rate=initial_rate if initial_rate > 0 else None,
            pid_proportional=conf.getDouble("spark.streaming.backpressure.pid.proportional", 1.0),
            pid_integral=conf.getDouble("spark.streaming.backpressure.pid.integral", 0.2),
            pid_derived=conf.getDouble("spark.streaming.backpressure.pid.derived", 0.0),
            pid_min_rate=conf.getDouble("spark.streaming.backpressure.pid.minRate", 100.0),
            file_min_remember_ms=1000 * conf.getTimeAsSeconds(remember_key, "60s"),
        )

"""PIDRateEstimator: Spark's backpressure formula, term for term.

What this module owns
---------------------
The arithmetic that turns one completed batch (its size and delays) into the rate, in
records per second, that an input stream should be held to. It keeps Spark's formula,
defaults and skip rules (``PIDRateEstimator``) so tuning carries over::

    dt              = (time - latest_time) / 1000                    seconds
    processing_rate = elements / processing_delay * 1000             records/s
    error           = latest_rate - processing_rate
    historical      = scheduling_delay * processing_rate / batch_ms  (the backlog as a rate)
    d_error         = (error - latest_error) / dt
    new_rate        = max(latest_rate - kp*error - ki*historical - kd*d_error, min_rate)

A call is skipped (returns ``None``, state unchanged) unless ``time > latest_time``,
``elements > 0`` and ``processing_delay > 0``. The first eligible batch only measures:
it sets ``latest_rate = processing_rate``, ``latest_error = 0`` and returns ``None``.

Pure arithmetic, no clock, no threads: callers pass every input.
"""

from __future__ import annotations

from dstream.receiver.errors import ReceiverConfigError

__all__ = ["PIDRateEstimator"]


class PIDRateEstimator:
    """Estimate a stream's sustainable rate from each completed batch.

    Parameters
    ----------
    batch_interval_ms
        The batch interval (> 0).
    proportional, integral, derived
        ``spark.streaming.backpressure.pid.{proportional,integral,derived}``
        (1.0, 0.2, 0.0; each >= 0).
    min_rate
        ``spark.streaming.backpressure.pid.minRate`` (100; > 0): the floor of the estimate.

    Examples
    --------
    >>> pid = PIDRateEstimator(1000)
    >>> pid.compute(1000, 1000, 500, 0) is None   # first batch: measure only (2000/s)
    True
    >>> pid.compute(2000, 1000, 1000, 0)          # 1000/s now: error 1000 -> 2000 - 1000
    1000.0
    """

    def __init__(
        self,
        batch_interval_ms: int,
        proportional: float = 1.0,
        integral: float = 0.2,
        derived: float = 0.0,
        min_rate: float = 100.0,
    ) -> None:
        if batch_interval_ms <= 0:
            raise ReceiverConfigError(f"the batch interval must be > 0 ms, got {batch_interval_ms}")
        for key, value in (
            ("proportional", proportional),
            ("integral", integral),
            ("derived", derived),
        ):
            if value < 0:
                raise ReceiverConfigError(
                    f"spark.streaming.backpressure.pid.{key} must be >= 0, got {value}"
                )
        if min_rate <= 0:
            raise ReceiverConfigError(
                f"spark.streaming.backpressure.pid.minRate must be > 0, got {min_rate}"
            )
        self.batch_interval_ms = batch_interval_ms
        self.proportional = proportional
        self.integral = integral
        self.derived = derived
        self.min_rate = min_rate
        self.latest_time = -1
        self.latest_rate = -1.0
        self.latest_error = -1.0
        self.first_run = True

    def compute(
        self, time: int, elements: int, processing_delay: int, scheduling_delay: int
    ) -> float | None:
        """Return the new rate (records/s) after a batch, or ``None`` when there is none.

        Parameters
        ----------
        time
            The batch's processing end time (ms).
        elements
            Records the stream put into the batch.
        processing_delay, scheduling_delay
            The batch's delays (ms).
        """
        if not (time > self.latest_time and elements > 0 and processing_delay > 0):
            return None
        dt = (time - self.latest_time) / 1000.0
        processing_rate = elements / processing_delay * 1000.0
        error = self.latest_rate - processing_rate
        historical_error = scheduling_delay * processing_rate / self.batch_interval_ms
        d_error = (error - self.latest_error) / dt
        new_rate = max(
            self.latest_rate
            - self.proportional * error
            - self.integral * historical_error
            - self.derived * d_error,
            self.min_rate,
        )
        self.latest_time = time
        if self.first_run:
            self.latest_rate = processing_rate
            self.latest_error = 0.0
            self.first_run = False
            return None
        self.latest_rate = new_rate
        self.latest_error = error
        return new_rate

    def __repr__(self) -> str:
        return (
            f"PIDRateEstimator(kp={self.proportional}, ki={self.integral}, kd={self.derived}, "
            f"min_rate={self.min_rate}, latest_rate={self.latest_rate})"
        )

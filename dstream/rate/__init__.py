"""Backpressure: the PID rate estimator and the listener that applies it to a stream."""

from __future__ import annotations

from dstream.rate.controller import RateController
from dstream.rate.pid import PIDRateEstimator

__all__ = ["PIDRateEstimator", "RateController"]

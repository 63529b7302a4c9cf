"""Batch time and durations: integer milliseconds inside, PySpark's float seconds outside.

What this module owns
---------------------
* The one place where the public API's durations (seconds as ``int``/``float``, as in
  PySpark, or a :class:`Duration` built with :func:`Seconds`, :func:`Milliseconds`,
  :func:`Minutes`) become integer milliseconds: :func:`duration_ms`.
* Conversions between a batch time (epoch milliseconds) and the naive *local*
  ``datetime`` that PySpark hands to ``transform``/``foreachRDD`` functions and prints in
  ``pprint`` (``datetime.fromtimestamp(ms / 1000)``).
* :class:`Time`, the value returned by ``BatchInfo.batchTime()`` (PySpark call style:
  ``info.batchTime().milliseconds()``).

Invariants
----------
* Inside the engine every time and duration is an ``int`` of milliseconds; there is no
  sub-millisecond precision and no timezone (Spark's ``Time``/``Duration`` are the same).
* A float number of seconds is accepted only if it is a whole number of milliseconds
  (``0.1`` is 100 ms; ``0.0005`` is rejected rather than silently rounded).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from numbers import Real

from dstream.errors import DurationError

__all__ = [
    "Duration",
    "Milliseconds",
    "Minutes",
    "Seconds",
    "Time",
    "datetime_to_ms",
    "describe_time",
    "duration_ms",
    "format_ms",
    "ms_to_datetime",
]

# Tolerance for "is this float a whole number of milliseconds": 0.1 * 3 * 1000 is
# 300.00000000000006, which must be accepted as 300 ms.
_MS_TOLERANCE = 1e-6


@dataclass(frozen=True, slots=True, order=True)
class Duration:
    """A length of time in whole milliseconds.

    Accepted wherever the API takes a duration in seconds. Build one with
    :func:`Seconds`, :func:`Milliseconds` or :func:`Minutes`.

    Examples
    --------
    >>> Seconds(2) == Milliseconds(2000)
    True
    >>> (Minutes(1) + Seconds(30)).milliseconds()
    90000
    """

    ms: int

    def milliseconds(self) -> int:
        """Return the length in milliseconds."""
        return self.ms

    def __add__(self, other: Duration) -> Duration:
        return Duration(self.ms + other.ms)

    def __sub__(self, other: Duration) -> Duration:
        return Duration(self.ms - other.ms)

    def __mul__(self, times: int) -> Duration:
        return Duration(self.ms * times)

    def __truediv__(self, other: Duration) -> float:
        return self.ms / other.ms

    def __str__(self) -> str:
        return f"{self.ms} ms"


def Milliseconds(milliseconds: int) -> Duration:  # noqa: N802 - Spark's name
    """Return a :class:`Duration` of ``milliseconds`` milliseconds."""
    if isinstance(milliseconds, bool) or not isinstance(milliseconds, int):
        raise DurationError(
            f"Milliseconds() takes a whole number of milliseconds, got {milliseconds!r}; "
            "use Seconds() for fractional seconds"
        )
    return Duration(milliseconds)


def Seconds(seconds: float) -> Duration:  # noqa: N802 - Spark's name
    """Return a :class:`Duration` of ``seconds`` seconds (a whole number of ms)."""
    return Duration(_seconds_to_ms(seconds, "Seconds()"))


def Minutes(minutes: float) -> Duration:  # noqa: N802 - Spark's name
    """Return a :class:`Duration` of ``minutes`` minutes (a whole number of ms)."""
    return Duration(_seconds_to_ms(minutes * 60, "Minutes()"))


@dataclass(frozen=True, slots=True, order=True)
class Time:
    """A batch time: epoch milliseconds (Spark's ``Time``).

    Examples
    --------
    >>> Time(1_000).milliseconds()
    1000
    """

    ms: int

    def milliseconds(self) -> int:
        """Return the time as epoch milliseconds."""
        return self.ms

    def __add__(self, other: Duration) -> Time:
        return Time(self.ms + other.ms)

    def __sub__(self, other: Duration) -> Time:
        return Time(self.ms - other.ms)

    def __str__(self) -> str:
        return f"{self.ms} ms"


def _seconds_to_ms(seconds: object, name: str) -> int:
    if isinstance(seconds, bool) or not isinstance(seconds, Real):
        raise DurationError(
            f"{name} must be a number of seconds (int or float) or a Duration, "
            f"got {seconds!r} of type {type(seconds).__name__}"
        )
    value = float(seconds)
    if not math.isfinite(value):
        raise DurationError(f"{name} must be a finite number of seconds, got {seconds!r}")
    ms = value * 1000.0
    rounded = round(ms)
    if abs(ms - rounded) > _MS_TOLERANCE * max(1.0, abs(ms)):
        raise DurationError(
            f"{name} ({seconds!r} s) is not a whole number of milliseconds; "
            "durations have millisecond precision, so round it to 0.001 s"
        )
    return int(rounded)


def duration_ms(value: float | Duration, name: str, *, positive: bool = True) -> int:
    """Convert a public duration (seconds or :class:`Duration`) to milliseconds.

    Parameters
    ----------
    value
        Seconds as ``int``/``float`` (PySpark's convention) or a :class:`Duration`.
    name
        The parameter's public name, used in the error message.
    positive
        Require the duration to be greater than zero.

    Raises
    ------
    DurationError
        If ``value`` is not a number, not a whole number of milliseconds, or not
        positive when ``positive`` is set.
    """
    ms = value.ms if isinstance(value, Duration) else _seconds_to_ms(value, name)
    if positive and ms <= 0:
        raise DurationError(
            f"{name} must be positive, got {format_ms(ms)}; pass a duration in seconds "
            "greater than zero, for example 1 or 0.5"
        )
    return ms


def format_ms(ms: int) -> str:
    """Format milliseconds for messages: ``'2 s'``, ``'2.5 s'``, ``'1 ms'``."""
    if ms % 1000 == 0:
        return f"{ms // 1000} s"
    if abs(ms) < 1000:
        return f"{ms} ms"
    return f"{ms / 1000:g} s"


def describe_time(ms: int) -> str:
    """A batch time for messages and logs: ``'2026-12-01 15:20:03.150 [1764602403150 ms]'``.

    Local time, readable, then Spark's own form (epoch milliseconds) in brackets, so a
    message can be matched with ``BatchInfo.batchTime()`` and the checkpoint files.
    """
    return f"{ms_to_datetime(ms):%Y-%m-%d %H:%M:%S}.{ms % 1000:03d} [{ms} ms]"


def ms_to_datetime(ms: int) -> datetime:
    """Return the naive local ``datetime`` of epoch milliseconds (PySpark's batch time)."""
    return datetime.fromtimestamp(ms / 1000.0)


def datetime_to_ms(value: datetime | float | int) -> int:
    """Return epoch milliseconds of a naive local ``datetime`` or a unix timestamp (s).

    This is the inverse of :func:`ms_to_datetime`; ``slice`` accepts both forms.
    """
    if isinstance(value, datetime):
        return round(value.timestamp() * 1000.0)
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(
            f"expected a datetime or a unix timestamp in seconds, got {value!r} "
            f"of type {type(value).__name__}"
        )
    return round(float(value) * 1000.0)

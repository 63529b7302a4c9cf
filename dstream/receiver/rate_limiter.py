"""RateLimiter: the token bucket that caps how fast a receiver stores records.

What this module owns
---------------------
One limiter per receiver (inside its :class:`~dstream.receiver.block_generator.BlockGenerator`).
``acquire(n)`` blocks the storing thread until ``n`` more records fit under the rate;
``update_rate(r)`` is how backpressure changes the rate while the stream runs.

The algorithm (Guava's ``SmoothBursty``, which Spark's limiter wraps)
---------------------------------------------------------------------
Permits are records. The limiter keeps ``next_free`` (the earliest time at which a new
request is served without waiting) and ``stored`` (unused permits that accrued while
nobody asked, capped at ``rate * max_burst_s``). A request for ``n`` permits:

1. refills: if ``now > next_free``, ``stored += (now - next_free) * rate`` (capped) and
   ``next_free = now``;
2. waits ``next_free - now`` (zero unless an earlier request went into debt);
3. spends ``min(n, stored)`` stored permits and pays for the rest by pushing
   ``next_free`` forward by ``rest / rate``.

So a request is never refused or split: a large one passes and the *next* caller pays
its debt. Over any interval ``w`` at most ``rate * w + rate * max_burst_s + n_last``
records pass, and a flood settles at exactly ``rate``.

Invariants
----------
* ``rate is None`` means unlimited: ``acquire`` returns at once and costs no lock.
* ``update_rate(r)`` ignores ``r <= 0`` (Spark) and caps ``r`` at ``max_rate``.
* Time comes from an injected monotonic function (seconds) and the waits go through an
  injected ``sleep``, so tests compute exact schedules without sleeping.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

__all__ = ["RateLimiter"]


class RateLimiter:
    """Token bucket of ``rate`` records per second, bursting at most ``max_burst_s`` seconds.

    Parameters
    ----------
    rate
        Records per second to start with; ``None`` for no limit.
    max_rate
        Upper bound for :meth:`update_rate` (``spark.streaming.receiver.maxRate``);
        ``None`` for none.
    max_burst_s
        Seconds of unused permits that may be saved up for a burst (Guava's default is
        1 s). Receivers use 0: then no block holds more than its interval's share, even
        right after an idle period.
    monotonic, sleep
        Time source (seconds) and sleeper; injected by tests.
    """

    def __init__(
        self,
        rate: float | None,
        max_rate: float | None = None,
        max_burst_s: float = 1.0,
        monotonic: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._max_rate = max_rate if max_rate is not None and max_rate > 0 else None
        self._max_burst_s = max_burst_s
        self._monotonic = monotonic
        self._sleep = sleep
        self._lock = threading.Lock()
        self._rate: float | None = None
        self._stored = 0.0
        self._next_free = monotonic()
        if rate is not None and rate > 0:
            self._rate = min(rate, self._max_rate) if self._max_rate else rate
        elif self._max_rate is not None:
            self._rate = self._max_rate

    @property
    def rate(self) -> float | None:
        """The current limit in records per second, ``None`` if unlimited."""
        return self._rate

    @property
    def max_rate(self) -> float | None:
        return self._max_rate

    def update_rate(self, rate: float) -> None:
        """Change the limit (backpressure); ``rate <= 0`` is ignored, ``maxRate`` caps it."""
        if rate <= 0:
            return
        if self._max_rate is not None:
            rate = min(rate, self._max_rate)
        with self._lock:
            self._refill(self._monotonic())
            # Stored permits were earned at the old rate; keep them within the new cap.
            self._stored = min(self._stored, rate * self._max_burst_s)
            self._rate = rate

    def reserve(self, permits: int = 1) -> float:
        """Take ``permits`` and return how many seconds the caller must wait first."""
        if self._rate is None or permits <= 0:
            return 0.0
        with self._lock:
            rate = self._rate
            if rate is None:
                return 0.0
            now = self._monotonic()
            self._refill(now)
            wait = max(0.0, self._next_free - now)
            spent = min(float(permits), self._stored)
            self._stored -= spent
            self._next_free = max(self._next_free, now) + (permits - spent) / rate
            return wait

    def acquire(self, permits: int = 1) -> float:
        """Block until ``permits`` records may pass; return the seconds waited."""
        wait = self.reserve(permits)
        if wait > 0:
            self._sleep(wait)
        return wait

    def _refill(self, now: float) -> None:
        if now > self._next_free and self._rate is not None:
            cap = self._rate * self._max_burst_s
            self._stored = min(cap, self._stored + (now - self._next_free) * self._rate)
            self._next_free = now

    def __repr__(self) -> str:
        return f"RateLimiter(rate={self._rate}, max_rate={self._max_rate})"

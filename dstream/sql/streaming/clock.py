"""The clock of a session's streaming queries: triggers, batch timestamps, time-based sources.

What this module owns
---------------------
:func:`streaming_clock`: one clock per SparkSession, chosen by the dstreams setting
``spark.sql.streaming.clock`` (``system``, the default, or ``manual`` for tests; Spark's
``org.apache.spark.util.ManualClock`` names work too). Every query of the session, and
every source that reads time (the rate source), uses it, so a test that advances the
manual clock moves all of them together and never sleeps.
"""

from __future__ import annotations

import threading
import weakref
from typing import TYPE_CHECKING, Any

from dstream.clock import Clock, ManualClock, clock_from_conf

if TYPE_CHECKING:
    from ..session import SparkSession

__all__ = ["CLOCK_KEY", "ManualClock", "streaming_clock"]

#: The setting naming the clock of a session's streaming queries.
CLOCK_KEY = "spark.sql.streaming.clock"

_lock = threading.Lock()
_clocks: weakref.WeakKeyDictionary[Any, tuple[str, Clock]] = weakref.WeakKeyDictionary()


def streaming_clock(session: SparkSession) -> Clock:
    """The clock of ``session``'s streaming queries (the same object until the setting changes)."""
    name = session.conf.get(CLOCK_KEY, "system") or "system"
    with _lock:
        held = _clocks.get(session)
        if held is None or held[0] != name:
            held = (name, clock_from_conf(name))
            _clocks[session] = held
        return held[1]

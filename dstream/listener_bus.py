"""Ordered, asynchronous delivery of streaming listener events on one thread.

What this module owns
---------------------
The streaming bus's name and logger. The queue, the thread and their invariants are
the engine's generic :class:`ListenerBus` (one daemon thread, in-order delivery,
bounded queue with counted drops, failing listeners logged and counted, ``stop``
drains); an event names the listener method that receives it in ``_callback``.

Like the SparkContext's bus, it lingers: a post does not wake the delivery thread, which
looks every 50 ms and delivers what accumulated. A batch posts five events or more (and
builds none of them: the scheduler posts snapshots, the thread builds the events); woken
per post, the thread would switch in and out five times a batch, each time taking the
interpreter from the batch's own threads. ``wait_until_empty`` and ``stop`` still
deliver at once.
"""

from __future__ import annotations

import logging

from rdd.engine_api import LISTENER_BUS_LINGER_S, ListenerBusStatistics
from rdd.engine_api import ListenerBus as _EngineListenerBus

__all__ = ["ListenerBus", "ListenerBusStatistics"]

logger = logging.getLogger(__name__)

# Large enough for minutes of batches with several output operations each; bounded so
# a stuck listener costs memory proportional to this, not to the stream's lifetime.
DEFAULT_CAPACITY = 10_000


class ListenerBus(_EngineListenerBus):
    """The bus of a StreamingContext's listeners (see the module docstring)."""

    def __init__(self, name: str = "StreamingListenerBus", capacity: int = DEFAULT_CAPACITY) -> None:
        super().__init__(name, capacity, logger, linger=LISTENER_BUS_LINGER_S)

"""Receivers: custom live sources, supervised in the driver, cut into blocks, tracked per batch.

Only :class:`Receiver` is public API (``from dstream import Receiver`` once exported);
the rest is the engine: :class:`~dstream.receiver.supervisor.ReceiverSupervisor`,
:class:`~dstream.receiver.block_generator.BlockGenerator`,
:class:`~dstream.receiver.rate_limiter.RateLimiter`,
:class:`~dstream.receiver.block_tracker.ReceivedBlockTracker` and
:class:`~dstream.receiver.tracker.ReceiverTracker`.
"""

from __future__ import annotations

from dstream.receiver.receiver import Receiver

__all__ = ["Receiver"]

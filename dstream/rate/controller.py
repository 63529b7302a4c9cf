"""RateController: backpressure as a streaming listener.

What this module owns
---------------------
The wiring between completed batches and an input stream's rate limit (Spark's
``RateController``)::

    JobScheduler --BatchCompleted--> listener bus --> RateController.onBatchCompleted
        --> PIDRateEstimator.compute(end time, records of *this* stream, delays)
        --> publish(rate)   (receivers: ReceiverTracker.send_rate_update(stream_id, rate))

One controller per input stream that can be throttled (receiver streams; Kafka's direct
stream, which pulls :attr:`RateController.latest_rate` instead of being pushed to), all
built by ``StreamingEngine.rate_controller``. A batch
is used only if it has a processing end time, processing and scheduling delays and an
input-info entry for this stream (Spark's conditions); the estimator adds its own skip
rules. The estimate runs synchronously on the listener thread: it is a few float
operations, so Spark's per-controller executor is not needed.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from dstream.listener import StreamingListener
from dstream.rate.pid import PIDRateEstimator

__all__ = ["RateController"]

logger = logging.getLogger(__name__)


class RateController(StreamingListener):
    """Feed one stream's completed batches to a rate estimator and publish new rates.

    Parameters
    ----------
    stream_id
        The input stream's id (its key in ``BatchInfo.streamIdToInputInfo()``).
    estimator
        A :class:`PIDRateEstimator` (anything with the same ``compute``).
    publish
        Called with each new rate (records per second); for receivers it forwards the
        rate to the receiver's limiter.
    """

    def __init__(
        self,
        stream_id: int,
        estimator: PIDRateEstimator,
        publish: Callable[[float], None] | None = None,
    ) -> None:
        self.stream_id = stream_id
        self.estimator = estimator
        self._publish = publish
        self._latest_rate = -1.0
        self._lock = threading.Lock()
        self.updates = 0

    @property
    def latest_rate(self) -> float:
        """The last published rate (records/s), ``-1.0`` before the first one (Spark)."""
        return self._latest_rate

    def publish(self, rate: float) -> None:
        """Hand a new rate to the source (override or pass ``publish``)."""
        if self._publish is not None:
            self._publish(rate)

    def onBatchCompleted(self, batchCompleted: Any) -> None:  # noqa: N802, N803 - listener API
        info = batchCompleted.batchInfo()
        end = info.processingEndTime()
        processing = info.processingDelay()
        scheduling = info.schedulingDelay()
        input_info = info.streamIdToInputInfo().get(self.stream_id)
        if end < 0 or processing < 0 or scheduling < 0 or input_info is None:
            return
        self.compute_and_publish(end, input_info.numRecords(), processing, scheduling)

    def compute_and_publish(
        self, time: int, elements: int, processing_delay: int, scheduling_delay: int
    ) -> float | None:
        """Run the estimator on one batch; publish and return the new rate, if any."""
        with self._lock:
            rate = self.estimator.compute(time, elements, processing_delay, scheduling_delay)
            if rate is None:
                return None
            self._latest_rate = rate
            self.updates += 1
        logger.debug("stream %d: new rate limit %.1f records/s", self.stream_id, rate)
        self.publish(rate)
        return rate

    def __repr__(self) -> str:
        return f"RateController(stream_id={self.stream_id}, latest_rate={self._latest_rate})"

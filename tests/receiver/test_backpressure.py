"""Backpressure: RateController + PID estimator + receiver limiter, wired through a context."""

from __future__ import annotations

import queue
import threading
from typing import Any

import pytest

from dstream.listener import BatchInfo, StreamingListenerBatchCompleted, StreamInputInfo
from dstream.rate import PIDRateEstimator, RateController
from dstream.receiver import Receiver
from dstream.testing import advance_batches, manual_clock
from tests.receiver.contexts import SSC, receiver_conf
from tests.receiver.helpers import WAIT


def completed(
    time: int, records: dict[int, int], start: int, end: int, submitted: int | None = None
) -> Any:
    infos = {sid: StreamInputInfo(sid, n) for sid, n in records.items()}
    return StreamingListenerBatchCompleted(
        BatchInfo(time, infos, start if submitted is None else submitted, start, end)
    )


def test_controller_uses_only_its_own_stream_and_complete_batches() -> None:
    published: list[float] = []
    controller = RateController(1, PIDRateEstimator(1000), published.append)
    controller.onBatchCompleted(completed(1000, {1: 1000}, 1000, 1500))  # measures 2000/s
    controller.onBatchCompleted(completed(2000, {0: 5000}, 2000, 2500))  # other stream only
    controller.onBatchCompleted(
        StreamingListenerBatchCompleted(BatchInfo(3000, {1: StreamInputInfo(1, 9)}, 3000))
    )
    assert published == [] and controller.latest_rate == -1.0
    # error = 2000 - 1000 = 1000; historical = 200 * 1000 / 1000 = 200 -> 2000 - 1000 - 40
    controller.onBatchCompleted(completed(4000, {1: 1000}, 4200, 5200, submitted=4000))
    assert published == [pytest.approx(960.0)]
    assert controller.latest_rate == pytest.approx(960.0)


class QueueReceiver(Receiver):
    """Stores, as one block each, the lists a test puts in its queue."""

    def __init__(self) -> None:
        super().__init__()
        self.inbox: queue.SimpleQueue[list[int] | None] = queue.SimpleQueue()

    def onStart(self) -> None:
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        while not self.isStopped():
            item = self.inbox.get()
            if item is None:
                return
            self.store(item)

    def onStop(self) -> None:
        self.inbox.put(None)


def test_rate_goes_down_when_batches_are_slow_and_up_when_fast(make_sc: Any) -> None:
    sc = make_sc(
        "local",
        receiver_conf(
            **{
                "spark.streaming.backpressure.enabled": "true",
                "spark.streaming.backpressure.initialRate": "100000",
            }
        ),
    )
    ssc = SSC(sc, 1)
    clock = manual_clock(ssc)
    receiver = QueueReceiver()
    stream = ssc.receiverStream(receiver)
    # Each batch "takes" the next processing time on the manual clock.
    durations = iter([100, 500, 50])
    counts: list[int] = []

    def process(rdd: Any) -> None:
        counts.append(rdd.count())
        clock.advance(next(durations))

    stream.foreachRDD(process)
    ssc.start()
    tracker = ssc._engine.receiver_tracker
    rates = []
    try:
        assert tracker.rate_limit(0) == 100_000
        for batch in range(3):
            receiver.inbox.put(list(range(1000)))
            assert tracker.wait_received(1000 * (batch + 1), WAIT)
            advance_batches(ssc, 1)
            assert ssc._engine.bus.wait_until_empty(WAIT)
            rates.append(tracker.rate_limit(0))
    finally:
        ssc.stop(stopSparkContext=False)
    assert counts == [1000, 1000, 1000]
    # 1: 1000 records in 100 ms -> measures 10000/s, no change yet.
    # 2: 1000 in 500 ms = 2000/s: error 8000 -> 10000 - 8000 = 2000 (lowered).
    # 3: 1000 in 50 ms = 20000/s: error -18000 -> 2000 + 18000 = 20000 (raised).
    assert rates == [100_000, pytest.approx(2000.0), pytest.approx(20000.0)]
    (controller,) = ssc._engine.rate_controllers
    assert controller.updates == 2


def test_backpressure_respects_max_rate(make_sc: Any) -> None:
    sc = make_sc(
        "local",
        receiver_conf(
            **{
                "spark.streaming.backpressure.enabled": "true",
                "spark.streaming.receiver.maxRate": "5000",
                "spark.streaming.backpressure.initialRate": "100000",
            }
        ),
    )
    ssc = SSC(sc, 1)
    ssc.receiverStream(QueueReceiver()).foreachRDD(lambda rdd: None)
    manual_clock(ssc)
    ssc.start()
    try:
        tracker = ssc._engine.receiver_tracker
        assert tracker.rate_limit(0) == 5000  # initialRate capped by maxRate
        tracker.send_rate_update(0, 50_000)
        assert tracker.rate_limit(0) == 5000
    finally:
        ssc.stop(stopSparkContext=False)


def test_no_controllers_without_backpressure(make_sc: Any) -> None:
    ssc = SSC(make_sc("local", receiver_conf()), 1)
    ssc.receiverStream(QueueReceiver())
    assert ssc._engine.rate_controllers == []
    ssc.stop(stopSparkContext=False)

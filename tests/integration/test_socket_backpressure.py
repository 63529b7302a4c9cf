"""Backpressure on the wall clock: slow batches lower a socket receiver's rate, fast ones raise it.

A server floods the socket; the receiver is held to the backpressure rate. Processing
costs a fixed time per record (the output operation sleeps: that *is* the workload),
first 1 ms per record, so that at the initial rate every batch takes several batch
intervals, then nothing. The test waits, with deadlines, for a batch slower than the
interval to complete, for the rate to fall below half the initial rate, then, once
processing is free, for it to rise above twice its lowest value. Only the order of
the rates is asserted, never how long anything took.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import pytest

from dstream.listener import StreamingListener
from tests.receiver.contexts import SSC, receiver_conf
from tests.receiver.helpers import wait_until

pytestmark = [pytest.mark.integration, pytest.mark.slow]


class Flood:
    """Accepts one client and sends numbered lines as fast as it reads them."""

    def __init__(self) -> None:
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(4)
        self.port = self._listener.getsockname()[1]
        self._stop = threading.Event()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        chunk = "".join(f"record {i}\n" for i in range(1000)).encode()
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            with conn:
                try:
                    while not self._stop.is_set():
                        conn.sendall(chunk)
                except OSError:
                    continue

    def close(self) -> None:
        self._stop.set()
        self._listener.close()


class Batches(StreamingListener):
    """Completed batches as (records, processing delay ms), and every rate the controller set."""

    def __init__(self) -> None:
        self.done: list[tuple[int, int]] = []

    def onBatchCompleted(self, batchCompleted: Any) -> None:  # noqa: N802, N803
        info = batchCompleted.batchInfo()
        self.done.append((info.numRecords(), info.processingDelay()))


def test_rate_falls_when_batches_are_slow_and_rises_when_fast(make_sc: Any) -> None:
    initial = 4000.0
    batch_ms = 200
    sc = make_sc(
        "local",
        receiver_conf(
            **{
                "spark.streaming.backpressure.enabled": "true",
                "spark.streaming.backpressure.initialRate": str(int(initial)),
                "spark.streaming.blockInterval": "50ms",
            }
        ),
    )
    flood = Flood()
    ssc = SSC(sc, batch_ms / 1000)
    cost = {"per_record": 0.001}
    batches = Batches()
    ssc.addStreamingListener(batches)
    rates: list[float] = []  # every rate the receiver was given, in order

    def process(rdd: Any) -> None:
        n = rdd.count()
        time.sleep(n * cost["per_record"])  # the batch's work: 1 ms per record, then none

    ssc.socketTextStream("127.0.0.1", flood.port).foreachRDD(process)
    ssc.start()
    tracker = ssc._engine.receiver_tracker
    (controller,) = ssc._engine.rate_controllers
    publish = controller._publish

    def record(rate: float) -> None:
        rates.append(rate)
        assert publish is not None
        publish(rate)

    controller._publish = record
    try:
        assert tracker.rate_limit(0) == initial
        # Slow phase. 4000 records/s arrive and 1000/s can be processed: batches take
        # longer than the interval (sleep gives a lower bound: a batch of more than
        # 200 records sleeps more than 200 ms), and the estimate must fall.
        wait_until(
            lambda: any(n > batch_ms and delay > batch_ms for n, delay in batches.done),
            "a batch slower than the batch interval",
            40,
        )
        wait_until(lambda: bool(rates) and min(rates) < initial / 2, "the rate to fall", 40)
        low = min(rates)
        slow_updates = len(rates)
        # Fast phase: the same records cost nothing; the estimate must rise again.
        cost["per_record"] = 0.0
        wait_until(
            lambda: len(rates) > slow_updates and max(rates[slow_updates:]) > 2 * low,
            "the rate to rise again",
            40,
        )
        high = max(rates[slow_updates:])
    finally:
        ssc.stop(stopSparkContext=False, stopGraceFully=False)
        flood.close()
    # Ordering only: down from the initial rate while batches were slow, then up again.
    assert low < initial / 2 < initial
    assert high > 2 * low
    assert rates.index(low) < slow_updates <= rates.index(high, slow_updates)
    assert controller.updates >= 2

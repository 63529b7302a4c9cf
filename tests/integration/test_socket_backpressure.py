"""Backpressure on the wall clock: slow batches lower a socket receiver's rate, fast ones raise it.

A server floods the socket; the receiver is held to the backpressure rate. Processing
costs a fixed time per record (the output operation sleeps: that *is* the workload),
first 1 ms per record (slower than the data arrives), then nothing. The test waits, with
deadlines, for the rate limit to fall below the slow capacity and then to rise again.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import pytest

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


def test_rate_falls_when_batches_are_slow_and_rises_when_fast(make_sc: Any) -> None:
    sc = make_sc(
        "local",
        receiver_conf(
            **{
                "spark.streaming.backpressure.enabled": "true",
                "spark.streaming.backpressure.initialRate": "4000",
                "spark.streaming.blockInterval": "50ms",
            }
        ),
    )
    flood = Flood()
    ssc = SSC(sc, 0.2)
    cost = {"per_record": 0.001}
    rates: list[float] = []

    def process(rdd: Any) -> None:
        n = rdd.count()
        time.sleep(n * cost["per_record"])  # the batch's work
        rates.append(ssc._receiver_tracker.rate_limit(0) or -1.0)

    ssc.socketTextStream("127.0.0.1", flood.port).foreachRDD(process)
    ssc.start()
    tracker = ssc._receiver_tracker
    try:
        assert tracker.rate_limit(0) == 4000
        # 4000 records/s arrive, 1000 records/s can be processed: the estimate must fall.
        wait_until(
            lambda: (tracker.rate_limit(0) or 1e9) < 1000, "the rate to fall below 1000/s", 40
        )
        low = tracker.rate_limit(0)
        cost["per_record"] = 0.0
        wait_until(lambda: (tracker.rate_limit(0) or 0) > 2000, "the rate to rise above 2000/s", 40)
        high = tracker.rate_limit(0)
    finally:
        ssc.stop(stopSparkContext=False, stopGraceFully=False)
        flood.close()
    assert low is not None and high is not None and high > 2 * low
    (controller,) = ssc._rate_controllers
    assert controller.updates >= 2

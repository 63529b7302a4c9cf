"""Graceful stop drains received data; a non-graceful stop is prompt.

A receiver stores numbered records (one ``store(record)`` at a time, the block
generator's path) from its own thread for as long as it runs, and remembers how many
``store`` calls returned: those records were *accepted*. The stream runs on the system
clock with 100 ms batches and writes every batch's records to a list.

* ``stop(stopGraceFully=True)``, with batches faster than the interval and with batches
  slower than it (so that at the stop several batches are queued and blocks are
  waiting for a batch): afterwards the output holds exactly the accepted records, each
  once — nothing buffered in the block generator, queued in the tracker or queued in
  the job scheduler is lost.
* the same, called from inside the output operation (the queued batches then run on the
  thread that called ``stop``, which returns at once and finishes on its own thread);
* ``stop(stopGraceFully=False)`` with slow batches queued: it returns after at most the
  running batch, the queued ones are dropped, the receiver is stopped.

Every wait has a deadline; the only duration asserted is an upper bound far above what
a prompt stop needs.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from dstream.receiver import Receiver
from tests.receiver.contexts import SSC, receiver_conf
from tests.receiver.helpers import wait_until

pytestmark = [pytest.mark.integration, pytest.mark.slow]

BATCH_S = 0.1
DEADLINE = 30.0


class CountingReceiver(Receiver):
    """Stores 0, 1, 2, ... one record per ``store`` call until it is stopped."""

    def __init__(self, pause_every: int = 50, pause_s: float = 0.002) -> None:
        super().__init__()
        self.accepted = 0
        self._pause_every = pause_every
        self._pause_s = pause_s
        self.thread: threading.Thread | None = None

    def onStart(self) -> None:
        self.thread = threading.Thread(target=self._run, name="CountingReceiver", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        i = 0
        while not self.isStopped():
            try:
                self.store(i)
            except Exception:  # noqa: BLE001 - the generator stopped: this record was refused
                return
            i += 1
            self.accepted = i
            if i % self._pause_every == 0:
                time.sleep(self._pause_s)

    def onStop(self) -> None:
        pass  # the thread sees isStopped() (or a refused store) and ends


def start_stream(
    make_sc: Any, batch_cost_s: float, stop_inside_after: int | None = None
) -> tuple[Any, CountingReceiver, list[list[int]]]:
    # The default spark.streaming.gracefulStopTimeout (10 batches, 1 s) is shorter than
    # the queued batches take: it bounds only the wait for blocks to go into batches.
    ssc = SSC(make_sc("local", receiver_conf()), BATCH_S)
    receiver = CountingReceiver()
    batches: list[list[int]] = []

    def output(rdd: Any) -> None:
        batches.append(rdd.collect())
        if batch_cost_s:
            time.sleep(batch_cost_s)
        if stop_inside_after is not None and len(batches) == stop_inside_after:
            ssc.stop(stopSparkContext=False, stopGraceFully=True)

    ssc.receiverStream(receiver).foreachRDD(output)
    ssc.start()
    return ssc, receiver, batches


def join_receiver(receiver: CountingReceiver) -> None:
    assert receiver.thread is not None
    receiver.thread.join(DEADLINE)
    assert not receiver.thread.is_alive(), "the receiver's thread outlived the stop"


def check_every_accepted_record_counted_once(receiver: CountingReceiver, batches: list[list[int]]) -> None:
    counted = [x for batch in batches for x in batch]
    assert receiver.accepted > 0
    assert len(counted) == len(set(counted)), "a record was counted twice"
    missing = sorted(set(range(receiver.accepted)) - set(counted))
    assert not missing, f"{len(missing)} accepted records were never processed, first {missing[:5]}"
    assert sorted(counted) == list(range(receiver.accepted))


@pytest.mark.parametrize("batch_cost_s", [0.0, 0.35], ids=["fast-batches", "slow-batches"])
def test_graceful_stop_processes_every_accepted_record_once(make_sc: Any, batch_cost_s: float) -> None:
    ssc, receiver, batches = start_stream(make_sc, batch_cost_s)
    tracker = ssc._engine.receiver_tracker
    scheduler = ssc._engine.scheduler
    try:
        wait_until(lambda: len(batches) >= 2 and tracker.wait_received(1, 0), "two batches", DEADLINE)
        if batch_cost_s:
            # Batches take longer than the interval: wait until some are queued behind
            # the running one, so the stop has queued batches to finish.
            wait_until(lambda: scheduler.pending_batches() >= 2, "queued batches", DEADLINE)
        else:
            wait_until(lambda: tracker.block_tracker.received_records() > 5000, "records", DEADLINE)
    except BaseException:
        ssc.stop(stopSparkContext=False)
        raise
    queued_at_stop = scheduler.pending_batches()
    ssc.stop(stopSparkContext=False, stopGraceFully=True)
    join_receiver(receiver)
    check_every_accepted_record_counted_once(receiver, batches)
    if batch_cost_s:
        assert queued_at_stop >= 1
    assert ssc._engine.receiver_tracker.state.value == "stopped"


def test_graceful_stop_called_inside_an_output_operation(make_sc: Any) -> None:
    # Slow batches: when the third batch's output operation calls stop, later batches
    # are queued behind it, on the job thread that is running the call.
    ssc, receiver, batches = start_stream(make_sc, 0.3, stop_inside_after=3)
    try:
        assert ssc.awaitTerminationOrTimeout(DEADLINE), "the stop never completed"
    finally:
        ssc.stop(stopSparkContext=False)
    join_receiver(receiver)
    assert len(batches) > 3
    check_every_accepted_record_counted_once(receiver, batches)
    assert ssc._engine.receiver_tracker.state.value == "stopped"


def test_non_graceful_stop_is_prompt_and_drops_queued_batches(make_sc: Any) -> None:
    cost = 1.0
    ssc, receiver, batches = start_stream(make_sc, cost)
    scheduler = ssc._engine.scheduler
    try:
        wait_until(lambda: len(batches) >= 1, "a first batch", DEADLINE)
        wait_until(lambda: scheduler.pending_batches() >= 5, "five queued batches", DEADLINE)
    except BaseException:
        ssc.stop(stopSparkContext=False)
        raise
    started_before_stop = len(batches)
    queued = scheduler.pending_batches()
    began = time.monotonic()
    ssc.stop(stopSparkContext=False, stopGraceFully=False)
    took = time.monotonic() - began
    join_receiver(receiver)
    # At most the batch that was running when stop() was called finishes.
    assert len(batches) <= started_before_stop + 1
    # A graceful stop would have needed queued x cost seconds; this one only the
    # running batch's remaining second plus the receiver's stop.
    assert queued * cost >= 5.0
    assert took < queued * cost / 2, f"stop took {took:.1f} s with {queued} batches queued"
    assert ssc._engine.receiver_tracker.state.value == "stopped"

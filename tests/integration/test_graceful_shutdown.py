"""``spark.streaming.stopGracefullyOnShutdown=true``: a real SIGTERM stops a driver gracefully.

A driver process (``wal_driver``: socketTextStream from a real 127.0.0.1 server,
per-batch output files, ``local[2]`` so it has worker processes) receives lines while
its batches are slower than the interval, so at the signal some batches are queued and
some stored lines are in no batch yet. After one SIGTERM it must: process every line it
had stored, exit by itself with status 143 (128 + SIGTERM) and no traceback, and leave
no worker process behind.

The in-process half checks the handler's bookkeeping: installed by ``start()`` on the
main thread only when the option is on, the previous handler restored by ``stop()``.
"""

from __future__ import annotations

import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from dstream.testing import manual_clock
from tests.integration.wal_driver import DEADLINE, Driver, alive, outputs
from tests.receiver.contexts import SSC, receiver_conf
from tests.receiver.servers import LineServer

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def test_sigterm_stops_the_driver_gracefully(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    total = 2000
    with LineServer() as server:
        driver = Driver("--port", str(server.port), "--out", str(out), "--batch", "0.3",
                        batch_cost=0.7)
        try:
            driver.wait_line(lambda x: x.startswith("started"), "started")
            server.wait_connections(1, DEADLINE)
            for start in range(0, total, 250):
                server.send("".join(f"line-{i}\n" for i in range(start, start + 250)))
                time.sleep(0.1)  # several blocks and batches
            driver.wait_received(total)
            workers = driver.children()
            assert workers, "local[2] should have started worker processes"
            before = len(outputs(out))
            driver.signal(signal.SIGTERM)
            rc = driver.wait()
        finally:
            driver.kill()
    stderr = driver.stderr
    assert rc == 128 + signal.SIGTERM, stderr[-3000:]
    assert "SIGTERM received: stopping the StreamingContext gracefully" in stderr
    assert "Traceback" not in stderr, stderr[-3000:]
    assert before < total, "every line was processed before the signal: the test proves nothing"
    after = outputs(out)
    assert sorted(after) == sorted(f"line-{i}" for i in range(total)), (
        f"{len(after)} lines out, {len(set(after))} distinct, {total} expected"
    )
    deadline = time.monotonic() + DEADLINE
    while any(alive(pid) for pid in workers):
        assert time.monotonic() < deadline, f"worker processes {workers} outlived the driver"
        threading.Event().wait(0.05)


def _sigterm_conf(value: str) -> Any:
    return receiver_conf(**{"spark.streaming.stopGracefullyOnShutdown": value})


def test_start_installs_the_handler_and_stop_restores_the_previous_one(make_sc: Any) -> None:
    def mine(signum: int, frame: Any) -> None:
        raise AssertionError("not expected to run")

    previous = signal.signal(signal.SIGTERM, mine)
    try:
        ssc = SSC(make_sc("local", _sigterm_conf("true")), 1)
        manual_clock(ssc)
        ssc.queueStream([[1]]).pprint()
        ssc.start()
        try:
            assert signal.getsignal(signal.SIGTERM) == ssc._engine.shutdown.on_sigterm
        finally:
            ssc.stop(stopSparkContext=False)
        assert signal.getsignal(signal.SIGTERM) is mine
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_the_handler_chains_to_the_previous_python_handler(make_sc: Any) -> None:
    calls: list[int] = []
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: calls.append(signum))
    try:
        ssc = SSC(make_sc("local", _sigterm_conf("true")), 1)
        manual_clock(ssc)
        ssc.queueStream([[1]]).pprint()
        ssc.start()
        ssc._engine.shutdown.on_sigterm(signal.SIGTERM, None)  # what the signal does, minus the signal
        assert ssc._engine.state.value == "stopped"
        assert calls == [signal.SIGTERM]
        assert signal.getsignal(signal.SIGTERM) is not ssc._engine.shutdown.on_sigterm
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_no_handler_without_the_option_or_off_the_main_thread(make_sc: Any) -> None:
    sc = make_sc("local", _sigterm_conf("false"))
    before = signal.getsignal(signal.SIGTERM)
    ssc = SSC(sc, 1)
    manual_clock(ssc)
    ssc.queueStream([[1]]).pprint()
    ssc.start()
    assert signal.getsignal(signal.SIGTERM) is before
    ssc.stop(stopSparkContext=False)

    sc._conf.set("spark.streaming.stopGracefullyOnShutdown", "true")
    ssc = SSC(sc, 1)
    manual_clock(ssc)
    ssc.queueStream([[1]]).pprint()
    errors: list[BaseException] = []

    def start() -> None:
        try:
            ssc.start()
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    thread = threading.Thread(target=start)
    thread.start()
    thread.join(DEADLINE)
    try:
        assert not errors and signal.getsignal(signal.SIGTERM) is before
    finally:
        ssc.stop(stopSparkContext=False)

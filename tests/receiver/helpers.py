"""Receivers written the way users write them, and waiting helpers with deadlines."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from dstream.receiver import Receiver
from dstream.receiver.settings import ReceiverSettings

WAIT = 10.0  # seconds: every wait in these tests fails loudly after this


def fast_settings(**overrides: Any) -> ReceiverSettings:
    """Settings with short intervals so tests take milliseconds."""
    values: dict[str, Any] = {"block_interval_ms": 20, "restart_delay_ms": 50}
    values.update(overrides)
    return ReceiverSettings(**values)


def wait_until(predicate: Callable[[], bool], what: str, timeout: float = WAIT) -> None:
    """Wait for ``predicate`` with a deadline, on a condition polled at 5 ms."""
    deadline = time.monotonic() + timeout
    event = threading.Event()
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        event.wait(0.005)


class ListReceiver(Receiver):
    """Stores a list of records from its own thread, then idles until stopped."""

    def __init__(self, records: list[Any], batch: bool = False) -> None:
        super().__init__()
        self.records = records
        self.batch = batch
        self.starts = 0
        self.stops = 0
        self.done = threading.Event()

    def onStart(self) -> None:
        self.starts += 1
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        if self.batch:
            self.store(list(self.records), {"count": len(self.records)})
        else:
            for r in self.records:
                self.store(r)
        self.done.set()

    def onStop(self) -> None:
        self.stops += 1


class FlakyReceiver(Receiver):
    """onStart raises the first ``failures`` times, then stores one record per start."""

    def __init__(self, failures: int) -> None:
        super().__init__()
        self.failures = failures
        self.starts = 0
        self.stops = 0

    def onStart(self) -> None:
        self.starts += 1
        if self.starts <= self.failures:
            raise ConnectionRefusedError(f"attempt {self.starts} refused")
        self.store(f"started-{self.starts}")

    def onStop(self) -> None:
        self.stops += 1

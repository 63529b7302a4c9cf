"""A stateful driver killed with SIGKILL and restarted with getOrCreate: the same output.

The driver (:mod:`tests.integration.stateful_app`) is a real process on ``local[2]``
with the manual clock: running totals (``updateStateByKey``), an incremental window
(``reduceByKeyAndWindow`` with an inverse, 5 slides), ``mapWithState`` with a timeout,
all checkpointed, written with ``saveAsTextFiles``. An uncrashed run is the reference.

Each scenario kills the driver at seeded random points — after a batch completed, or in
the middle of a batch (before any output, or after some of its outputs were written) —
with ``os.kill(pid, SIGKILL)`` from this process, checks that none of its worker
processes outlives it, restarts it on the same checkpoint directory until it finishes,
and compares the ``saveAsTextFiles`` output of every batch, part file by part file,
with the reference: equal. Some scenarios kill twice, once while the restarted driver
replays the batch it was killed in.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.integration.stateful_app import BATCH_S, BATCHES
from tests.rdd.processes import (
    ProcessId,
    descendants,
    identify,
    is_running,
    kill_survivors,
    wait_until,
)

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
#: Seconds any one step of a driver may take (start, a batch, exit) before the test fails.
DEADLINE = 30.0
BATCH_MS = BATCH_S * 1000
OUTPUTS = ("totals", "window", "mapped", "snapshots")


class Driver:
    """One run of the driver process; its stdout lines are read on a thread."""

    def __init__(self, checkpoint: Path, out: Path, *args: str, hang: str | None = None) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        env.pop("STATEFUL_APP_HANG", None)
        if hang is not None:
            env["STATEFUL_APP_HANG"] = hang
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.integration.stateful_app",
             "--checkpoint", str(checkpoint), "--out", str(out), *args],
            cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        self.lines: list[str] = []
        self.stderr: list[str] = []
        self.eof = False  # stdout closed: no line will come any more
        self._cond = threading.Condition()
        self._readers = [threading.Thread(target=self._read, args=(self.proc.stdout, self.lines), daemon=True),
                         threading.Thread(target=self._read, args=(self.proc.stderr, self.stderr), daemon=True)]
        for reader in self._readers:
            reader.start()

    def _read(self, stream: Any, sink: list[str]) -> None:
        for line in stream:
            with self._cond:
                sink.append(line.rstrip("\n"))
                self._cond.notify_all()
        with self._cond:
            if sink is self.lines:
                self.eof = True
            self._cond.notify_all()

    def describe(self) -> str:
        with self._cond:
            return f"stdout {self.lines[-8:]}; stderr {' | '.join(self.stderr[-25:])}"

    def wait_line(self, predicate: Callable[[str], bool], what: str) -> str:
        """The first stdout line that satisfies ``predicate``; fails after DEADLINE."""

        def found() -> str | None:
            return next((x for x in self.lines if predicate(x)), None)

        with self._cond:
            ok = self._cond.wait_for(lambda: found() is not None or self.eof, DEADLINE)
            line = found()
        if line is None:
            raise AssertionError(f"the driver never printed {what} ({'its output ended' if ok else 'timed out'}, "
                                 f"exit status {self.proc.poll()}); {self.describe()}")
        return line

    def processes(self) -> list[ProcessId]:
        """The driver and every process below it (its workers), identified by start time."""
        me = identify(self.proc.pid)
        return ([me] if me is not None else []) + descendants(self.proc.pid)

    def kill(self) -> list[ProcessId]:
        """SIGKILL the driver; return the processes it had, driver first."""
        family = self.processes()
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(DEADLINE)
        self._close()
        return family

    def finish(self) -> None:
        try:
            code = self.proc.wait(DEADLINE)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise AssertionError(f"the driver did not finish within {DEADLINE} s; {self.describe()}") from None
        for reader in self._readers:
            reader.join(DEADLINE)
        self._close()
        assert code == 0 and "finished" in self.lines, f"the driver failed (exit {code}); {self.describe()}"

    def _close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()


def read_outputs(out: Path) -> dict[str, list[str]]:
    """``{"<output>-<time>/<part>": sorted lines}`` for every complete batch directory."""
    found: dict[str, list[str]] = {}
    for directory in sorted(out.iterdir()):
        if directory.name.startswith("."):
            continue  # a temporary directory of a write the kill interrupted
        assert (directory / "_SUCCESS").exists(), f"{directory} has no _SUCCESS marker"
        for part in sorted(directory.glob("part-*")):
            found[f"{directory.name}/{part.name}"] = sorted(part.read_text().splitlines())
    return found


def expected_directories() -> set[str]:
    return {f"{name}-{t * BATCH_MS}" for name in OUTPUTS for t in range(1, BATCHES + 1)}


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """The output of an uncrashed run."""
    root = tmp_path_factory.mktemp("reference")
    driver = Driver(root / "checkpoint", root / "out")
    driver.finish()
    started = driver.wait_line(lambda x: x.startswith("started"), "started")
    assert "recovered=0" in started and "master=local[2]" in started and "clock=ManualClock" in started, started
    done = [int(x.split()[1]) for x in driver.lines if x.startswith("done ")]
    assert done == [t * BATCH_MS for t in range(1, BATCHES + 1)], driver.lines
    outputs = read_outputs(root / "out")
    assert {key.split("/")[0] for key in outputs} == expected_directories()
    # The run is not trivial: every output has records, keys are removed and time out.
    assert all(any(lines for key, lines in outputs.items() if key.startswith(name + "-")) for name in OUTPUTS)
    mapped = [line for key, lines in outputs.items() if key.startswith("mapped-") for line in lines]
    assert any("'timeout'" in line for line in mapped) and any("'reset'" in line for line in mapped)
    return outputs


@dataclass(frozen=True)
class Kill:
    """Where to kill: after batch ``batch`` completed (``phase`` None) or inside it."""

    batch: int
    phase: int | None

    def __str__(self) -> str:
        return f"after{self.batch}" if self.phase is None else f"in{self.batch}.{self.phase}"

    def driver_args(self) -> tuple[tuple[str, ...], str | None]:
        if self.phase is None:
            return ("--pause-after", str(self.batch)), None
        return (), f"{self.batch * BATCH_MS}:{self.phase}"

    def reached(self, line: str) -> bool:
        if self.phase is None:
            return line == f"paused {self.batch * BATCH_MS}"
        return line == f"hanging {self.batch * BATCH_MS} {self.phase}"


def _scenarios() -> list[list[Kill]]:
    """Seeded random kill points: 12 scenarios (distinct batches, every phase), 16 kills."""
    rng = random.Random(20240604)
    batches = rng.sample(range(1, BATCHES), 12)
    phases: list[int | None] = [None, 0, 1, 2, 3, None, 0, 1, 2, 3, None, 1]
    rng.shuffle(phases)
    scenarios: list[list[Kill]] = []
    for i, (batch, phase) in enumerate(zip(batches, phases)):
        kills = [Kill(batch, phase)]
        if i % 3 == 2:
            # Kill the restarted driver again: inside the batch it replays, or later.
            if phase is not None and i % 2 == 0:
                kills.append(Kill(batch, rng.choice([p for p in (0, 1, 2, 3) if p != phase])))
            else:
                kills.append(Kill(rng.randint(batch + 1, BATCHES), rng.choice([None, 0, 1, 2, 3])))
        scenarios.append(kills)
    return scenarios


SCENARIOS = _scenarios()


def _check_no_survivors(family: list[ProcessId]) -> None:
    try:
        wait_until(lambda: not any(is_running(p) for p in family), DEADLINE,
                   f"every process of the killed driver is gone: {family}")
    finally:
        kill_survivors(family)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("kills", SCENARIOS, ids=lambda kills: "-".join(map(str, kills)))
def test_output_after_sigkill_and_restart_equals_an_uncrashed_run(
    kills: list[Kill], reference: dict[str, list[str]], tmp_path: Path
) -> None:
    checkpoint, out = tmp_path / "checkpoint", tmp_path / "out"
    drivers: list[Driver] = []
    try:
        for n, kill in enumerate(kills):
            args, hang = kill.driver_args()
            driver = Driver(checkpoint, out, *args, hang=hang)
            drivers.append(driver)
            started = driver.wait_line(lambda x: x.startswith("started"), "started")
            assert f"recovered={int(n > 0)}" in started, started
            driver.wait_line(kill.reached, f"that it reached the kill point {kill}")
            family = driver.kill()
            assert len(family) >= 3, f"expected the driver and its two workers, found {family}"
            _check_no_survivors(family)
        driver = Driver(checkpoint, out)
        drivers.append(driver)
        started = driver.wait_line(lambda x: x.startswith("started"), "started")
        assert "recovered=1" in started and "master=local[2]" in started and "clock=ManualClock" in started, started
        driver.finish()
    finally:
        for leftover in drivers:  # a failed check must not leave a driver behind
            if leftover.proc.poll() is None:
                family = leftover.processes()
                leftover.proc.kill()
                leftover.proc.wait(DEADLINE)
                kill_survivors(family)
    outputs = read_outputs(out)
    assert {key.split("/")[0] for key in outputs} == expected_directories()
    differing = sorted(key for key in set(outputs) | set(reference) if outputs.get(key) != reference.get(key))
    assert not differing, "\n".join(
        f"{key}: got {outputs.get(key)}, expected {reference.get(key)}" for key in differing[:10])

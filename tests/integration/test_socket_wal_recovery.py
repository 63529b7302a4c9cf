"""A driver killed with SIGKILL, restarted with the write-ahead log: every line once.

Lines go from a real server socket to a real driver process (socketTextStream, WAL on,
per-batch output files). Once the driver reports it stored every line, it is killed
with SIGKILL mid-stream (batches are slow, so some are pending and some blocks are not
yet in any batch). A new driver on the same checkpoint directory replays the logs;
afterwards the output files hold every line exactly once.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.receiver.servers import LineServer

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
DEADLINE = 60.0


class Driver:
    def __init__(self, *args: str) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.integration.wal_driver", *args],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: list[str] = []
        self._cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._cond:
                self.lines.append(line.strip())
                self._cond.notify_all()

    def wait_line(self, predicate: Any, what: str) -> None:
        with self._cond:
            if not self._cond.wait_for(lambda: any(predicate(x) for x in self.lines), DEADLINE):
                err = (
                    self.proc.stderr.read()
                    if self.proc.poll() is not None and self.proc.stderr
                    else ""
                )
                raise AssertionError(
                    f"driver never printed {what}; stdout {self.lines[-5:]}; stderr {err[-3000:]}"
                )

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(DEADLINE)


def outputs(out: Path) -> list[str]:
    lines: list[str] = []
    for path in sorted(out.glob("batch-*.json")):
        lines.extend(json.loads(path.read_text()))
    return lines


def test_every_line_stored_before_a_sigkill_is_counted_exactly_once(tmp_path: Path) -> None:
    checkpoint, out = tmp_path / "checkpoint", tmp_path / "out"
    out.mkdir()
    total = 3000
    with LineServer() as server:
        first = Driver(
            "--port",
            str(server.port),
            "--checkpoint",
            str(checkpoint),
            "--out",
            str(out),
            "--slow",
            "0.8",
        )
        try:
            server.wait_connections(1, DEADLINE)
            for start in range(0, total, 500):
                server.send("".join(f"line-{i}\n" for i in range(start, start + 500)))
                time.sleep(0.15)  # spread the lines over several blocks and batches
            first.wait_line(lambda x: x == f"received {total}", f"received {total}")
        finally:
            first.kill()
        assert first.proc.returncode == -signal.SIGKILL
        before = outputs(out)
        assert len(before) < total, "every batch finished before the kill: the test proves nothing"
        server.drop()

        second = Driver(
            "--port",
            str(server.port),
            "--checkpoint",
            str(checkpoint),
            "--out",
            str(out),
            "--recover",
            "--master",
            "local[2]",
        )
        try:
            second.wait_line(lambda x: x.startswith("recovered"), "recovered")
            (summary,) = [x for x in second.lines if x.startswith("recovered")]
            pending = int(summary.split("pending=")[1].split()[0])
            unallocated = int(summary.split("unallocated=")[1])
            assert pending + unallocated > 0, summary
            deadline = time.monotonic() + DEADLINE
            while len(outputs(out)) < total and time.monotonic() < deadline:
                time.sleep(0.05)
            (out / "STOP").write_text("")
            second.wait_line(lambda x: x == "stopped", "stopped")
        finally:
            if second.proc.poll() is None:
                second.kill()
    after = outputs(out)
    assert sorted(after) == sorted(f"line-{i}" for i in range(total)), (
        f"{len(after)} lines out, {len(set(after))} distinct, {total} expected"
    )

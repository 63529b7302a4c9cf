"""Run an example in a subprocess (through :mod:`tests.integration.run_example`) and watch it."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DEADLINE = 60.0


class Example:
    """A running example: its stdout lines as they come, its children, its exit."""

    def __init__(self, script: str, *args: str) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.integration.run_example",
                str(ROOT / "examples" / script),
                *args,
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.out: list[str] = []
        self.err: list[str] = []
        self._cond = threading.Condition()
        threading.Thread(target=self._pump, args=(self.proc.stdout, self.out), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.proc.stderr, self.err), daemon=True).start()

    def _pump(self, stream: Any, into: list[str]) -> None:
        for line in stream:
            with self._cond:
                into.append(line.rstrip("\n"))
                self._cond.notify_all()

    def wait_output(self, predicate: Any, what: str, timeout: float = DEADLINE) -> None:
        with self._cond:
            ok = self._cond.wait_for(
                lambda: any(predicate(x) for x in self.out) or self.proc.poll() is not None, timeout
            )
            if not ok or not any(predicate(x) for x in self.out):
                raise AssertionError(
                    f"the example never printed {what}; stdout tail {self.out[-10:]}, "
                    f"stderr tail {self.err[-20:]}"
                )

    def wait(self, timeout: float = DEADLINE) -> int:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise AssertionError(
                f"the example did not exit within {timeout} s; stderr tail {self.err[-20:]}"
            ) from None

    def children(self) -> list[int]:
        """PIDs of the example's child processes (its worker pool)."""
        found = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == self.proc.pid:
                found.append(int(entry))
        return found

    @property
    def stderr(self) -> str:
        with self._cond:
            return "\n".join(self.err)

    @property
    def stdout(self) -> str:
        with self._cond:
            return "\n".join(self.out)


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        return state != "Z"
    except OSError:
        return False

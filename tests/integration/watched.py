"""A program of the integration tests run in a subprocess and watched: its stdout and
stderr lines as they come, its child processes (the worker pool), its exit.

``examples_runner.Example`` (the examples) and ``wal_driver.Driver`` (the crash and
shutdown driver) are both this, with their own command line and environment.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DEADLINE = 60.0


class WatchedProcess:
    """``python -m <module> <args>`` from the repository root, its output pumped into lists."""

    def __init__(self, module: str, args: list[str], env: dict[str, str], what: str,
                 own_group: bool = False) -> None:
        self.what = what  # for messages: "the example", "the driver"
        # own_group: a process group of its own (pgid = pid), to signal it as a terminal does
        self.proc = subprocess.Popen(
            [sys.executable, "-m", module, *args],
            cwd=ROOT,
            env=dict(os.environ, PYTHONPATH=str(ROOT), **env),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=own_group,
        )
        self.lines: list[str] = []
        self.err: list[str] = []
        self._cond = threading.Condition()
        threading.Thread(target=self._pump, args=(self.proc.stdout, self.lines), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.proc.stderr, self.err), daemon=True).start()

    def _pump(self, stream: Any, into: list[str]) -> None:
        for line in stream:
            with self._cond:
                into.append(line.rstrip("\n"))
                self._cond.notify_all()

    @property
    def stdout(self) -> str:
        with self._cond:
            return "\n".join(self.lines)

    @property
    def stderr(self) -> str:
        with self._cond:
            return "\n".join(self.err)

    def wait_line(self, predicate: Callable[[str], bool], what: str, timeout: float = DEADLINE,
                  stderr: bool = False) -> str:
        """Wait for a stdout (or stderr) line matching ``predicate`` (or the exit); return it."""
        lines = self.err if stderr else self.lines

        def found() -> str | None:
            return next((x for x in lines if predicate(x)), None)

        with self._cond:
            self._cond.wait_for(lambda: found() is not None or self.proc.poll() is not None, timeout)
            line = found()
        if line is None:
            raise AssertionError(f"{self.what} never printed {what}; stdout tail {self.lines[-10:]}; "
                                 f"stderr tail {self.stderr[-3000:]}")
        return line

    def children(self) -> list[int]:
        """PIDs of the process's children (its worker pool)."""
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

    def signal(self, signum: int) -> None:
        self.proc.send_signal(signum)

    def signal_group(self, signum: int) -> None:
        """Signal the whole process group (``own_group``), as a terminal's Ctrl-C does."""
        os.killpg(self.proc.pid, signum)

    def group_members(self) -> list[int]:
        """PIDs of the live processes of its process group (``own_group``), itself included."""
        found = []
        for entry in os.listdir("/proc"):
            if entry.isdigit() and alive(int(entry)):
                try:
                    if os.getpgid(int(entry)) == self.proc.pid:
                        found.append(int(entry))
                except ProcessLookupError:
                    pass
        return found

    def wait(self, timeout: float = DEADLINE) -> int:
        """The exit status; killed, and an AssertionError, if it does not exit in time."""
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout)
            raise AssertionError(f"{self.what} did not exit within {timeout} s; stderr tail "
                                 f"{self.stderr[-3000:]}") from None

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(DEADLINE)


def alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (not gone, not a zombie)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        return state != "Z"
    except OSError:
        return False

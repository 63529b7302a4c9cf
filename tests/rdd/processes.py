"""Helpers for tests that watch real processes through ``/proc`` (Linux).

A pid alone can be reused by the kernel, so a process is identified by its pid *and*
its start time (field 22 of ``/proc/<pid>/stat``). A zombie (state ``Z``) or dead
(``X``) process counts as gone: it runs no code, and when its parent was killed it is
waiting for an init process to reap it.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ProcessId:
    pid: int
    start_time: int


def _stat_fields(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read().decode("utf-8", "replace")
    except (FileNotFoundError, ProcessLookupError):
        return None
    # The command name (field 2) is in parentheses and may contain spaces.
    after_name = raw[raw.rindex(")") + 2:]
    return after_name.split()  # fields 3.. : state is [0], ppid [1], starttime [19]


def identify(pid: int) -> ProcessId | None:
    """The pid with its start time, or None if no such process exists."""
    fields = _stat_fields(pid)
    return None if fields is None else ProcessId(pid, int(fields[19]))


def is_running(process: ProcessId) -> bool:
    """True while this very process (not a reused pid) exists and is not a zombie."""
    fields = _stat_fields(process.pid)
    if fields is None or int(fields[19]) != process.start_time:
        return False
    return fields[0] not in ("Z", "X")


def parent_of(pid: int) -> int | None:
    fields = _stat_fields(pid)
    return None if fields is None else int(fields[1])


def descendants(root: int) -> list[ProcessId]:
    """Every live process whose chain of parents leads to ``root``."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            ppid = parent_of(int(name))
            if ppid is not None:
                children.setdefault(ppid, []).append(int(name))
    found: list[ProcessId] = []
    stack = list(children.get(root, []))
    while stack:
        pid = stack.pop()
        ident = identify(pid)
        if ident is not None:
            found.append(ident)
        stack.extend(children.get(pid, []))
    return found


def wait_until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    """Poll ``condition`` until it holds; fail with ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting until {what}")
        time.sleep(0.02)


def kill_survivors(processes: list[ProcessId]) -> list[ProcessId]:
    """SIGKILL the listed processes that still run (cleanup after a failed check)."""
    survivors = [p for p in processes if is_running(p)]
    for process in survivors:
        try:
            os.kill(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return survivors


def worker_pids(sc: Any) -> list[int]:
    """The pids of a context's worker processes (``local[N]``)."""
    return list(sc._env.backend.worker_pids())

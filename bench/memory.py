"""Memory figures for the benchmarks: proportional set size (PSS) from ``/proc``.

This module owns how a benchmark measures memory: :func:`pss_bytes` of one process
(PSS splits shared pages between the processes that map them, so a driver and its
workers add up without counting shared libraries twice; RSS where PSS is missing),
:func:`descendants` of a process, and :class:`PeakSampler`, which samples the summed
PSS of a process tree in a background thread while a measured call runs.
"""

from __future__ import annotations

import os
import threading
from types import TracebackType

__all__ = ["PeakSampler", "descendants", "pss_bytes", "tree_pss_bytes"]


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (children, their children...), from ``/proc``."""
    found: list[int] = []
    stack = [pid]
    while stack:
        current = stack.pop()
        try:
            for tid in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{tid}/children", encoding="ascii") as f:
                    children = [int(c) for c in f.read().split()]
                found.extend(children)
                stack.extend(children)
        except OSError:
            continue
    return found


def pss_bytes(pid: int) -> int:
    """Proportional set size of ``pid`` (RSS where PSS is not available), in bytes."""
    for path, field in ((f"/proc/{pid}/smaps_rollup", "Pss:"), (f"/proc/{pid}/status", "VmRSS:")):
        try:
            with open(path, encoding="ascii") as f:
                for line in f:
                    if line.startswith(field):
                        return int(line.split()[1]) * 1024
        except OSError:
            continue
    return 0


def tree_pss_bytes(pid: int | None = None) -> int:
    """Summed PSS of ``pid`` (default: this process) and all its descendants."""
    root = os.getpid() if pid is None else pid
    return sum(pss_bytes(p) for p in [root, *descendants(root)])


class PeakSampler:
    """Samples the PSS of a process tree every ``interval`` seconds; ``peak`` is the maximum.

    Use as ``with PeakSampler() as s: work()`` then read ``s.peak`` (bytes). The tree is
    this process's, or ``pid``'s (a child running the measured program). With
    ``tree=False`` only the process itself is measured (a baseline that starts no process
    should not be billed for the idle workers of an engine started earlier).
    """

    def __init__(self, interval: float = 0.02, tree: bool = True, pid: int | None = None) -> None:
        self.interval = interval
        root = os.getpid() if pid is None else pid
        self._measure = (lambda: tree_pss_bytes(root)) if tree else (lambda: pss_bytes(root))
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="pss-sampler", daemon=True)

    def _run(self) -> None:
        while True:
            self.peak = max(self.peak, self._measure())
            if self._stop.wait(self.interval):
                return

    def __enter__(self) -> PeakSampler:
        self.peak = self._measure()
        self._thread.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._measure())

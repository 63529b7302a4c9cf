"""SIGTERM and SIGHUP end a driver through its exit hooks, so its SparkContext still stops.

Their default action kills the process at once: no ``finally`` block, no exit hook,
so the workers are left to notice on their own and the local directory stays (the
next context removes it, see ``local_dir.py``). While a SparkContext created on the
main thread is active, these signals, if their handler is still the default one,
raise ``SystemExit(128 + signum)`` on the main thread instead: the status a shell
reports for a death by that signal (143, 129), which is also what a JVM driver exits
with. Exit hooks then run and the context's hook stops it (running jobs cancelled,
workers stopped, directory deleted). A handler the application installed is left
alone; ``restore`` puts the default back if ours is still there.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType

_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def _exit_through_hooks(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


def install() -> list[signal.Signals]:
    """Install the handler for each signal still at its default; return those signals."""
    if threading.current_thread() is not threading.main_thread():
        return []  # Python runs signal handlers on the main thread only
    installed = []
    for sig in _SIGNALS:
        if signal.getsignal(sig) is signal.SIG_DFL:
            signal.signal(sig, _exit_through_hooks)
            installed.append(sig)
    return installed


def restore(installed: list[signal.Signals]) -> None:
    """Put the default action back for ``installed`` signals whose handler is still ours."""
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in installed:
        if signal.getsignal(sig) is _exit_through_hooks:
            signal.signal(sig, signal.SIG_DFL)

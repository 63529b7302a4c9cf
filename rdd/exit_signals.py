"""SIGTERM and SIGHUP end a driver through its exit hooks, so its SparkContext still stops.

Their default action kills the process at once: no ``finally`` block, no exit hook,
so the workers are left to notice on their own and the local directory stays (the
next context removes it, see ``local_dir.py``). While a SparkContext created on the
main thread is active, these signals, if their handler is still the default one,
raise ``SystemExit(128 + signum)`` on the main thread instead: the status a shell
reports for a death by that signal (143, 129), which is also what a JVM driver exits
with. Exit hooks then run and the context's hook stops it (running jobs cancelled,
workers stopped, directory deleted). When the signal is handled inside a finalizer
(the garbage collector ran one just then), where Python drops exceptions, the handler
sends the signal again a moment later instead of raising. A handler the application
installed is left alone; ``restore`` puts the default back if ours is still there.
"""

from __future__ import annotations

import os
import signal
import threading
import weakref
from types import FrameType

_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def _inside_finalizer(frame: FrameType | None) -> bool:
    """Whether ``frame`` runs in a ``weakref.finalize`` callback or a ``__del__``, where Python
    prints an exception as "ignored" and drops it."""
    while frame is not None:
        code = frame.f_code
        if code.co_name == "__del__" or (code.co_name == "__call__" and code.co_filename == weakref.__file__):
            return True
        frame = frame.f_back
    return False


def _exit_through_hooks(signum: int, frame: FrameType | None) -> None:
    if _inside_finalizer(frame):
        # The signal arrived while the garbage collector ran a finalizer (the context
        # cleaner's, for instance): a SystemExit raised here would be dropped and the
        # driver would carry on. Send the signal again from another thread, a moment later,
        # to be handled once the finalizer has returned.
        threading.Timer(0.01, os.kill, (os.getpid(), signum)).start()
        return
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

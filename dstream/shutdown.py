"""ShutdownHooks: how an active streaming engine stops when the process ends.

What this module owns
---------------------
The exit hook and the SIGTERM handler of one :class:`~dstream.engine.StreamingEngine`,
installed by ``start()`` once the engine is ACTIVE and removed by ``stop()``.

Exit hook: registered with :mod:`atexit` so that the engine stops before the
SparkContext's own exit hook (atexit runs hooks last in, first out) and no batch runs on
a stopped SparkContext at interpreter exit. It stops gracefully when
``spark.streaming.stopGracefullyOnShutdown`` is ``true``.

SIGTERM (``spark.streaming.stopGracefullyOnShutdown=true``)
-----------------------------------------------------------
Spark stops the context gracefully from a JVM shutdown hook, which a SIGTERM triggers.
Here ``start()`` (on the main thread only: Python runs signal handlers there) installs a
SIGTERM handler, remembering the previous one; ``stop()`` puts the previous one back
(when called on the main thread; otherwise the handler forwards to it once the context
is stopped). On SIGTERM the handler, on the main thread, stops the context gracefully
(receivers stop, everything received is processed: see ``StreamingContext.stop``), then
hands the signal to the previous handler: a Python handler is called; the default action
becomes ``SystemExit(143)`` (128 + SIGTERM, what a JVM reports), so ``finally`` blocks
and exit hooks still run and the SparkContext's hook stops the worker processes. A
SIGTERM that was ignored (``SIG_IGN``) before ``start()`` stays ignored.
"""

from __future__ import annotations

import atexit
import logging
import signal
import threading
from typing import TYPE_CHECKING, Any

from dstream.lifecycle import State

if TYPE_CHECKING:
    from dstream.engine import StreamingEngine

__all__ = ["ShutdownHooks"]

# Users see these messages as StreamingContext's: see dstream.engine.
logger = logging.getLogger("dstream.context")


class ShutdownHooks:
    """The exit hook and the SIGTERM handler of one engine."""

    def __init__(self, engine: StreamingEngine) -> None:
        self._engine = engine
        # The SIGTERM handler that install() replaced, if it did.
        self._sigterm_previous: Any = None
        self._sigterm_installed = False

    def install(self, sigterm: bool) -> None:
        """Register the exit hook, and with ``sigterm`` the SIGTERM handler (at start)."""
        atexit.register(self.stop_at_exit)
        if sigterm:
            self._install_sigterm_handler()

    def remove(self) -> None:
        """Unregister the exit hook and put the previous SIGTERM handler back (at stop)."""
        atexit.unregister(self.stop_at_exit)
        self._restore_sigterm_handler()

    def stop_at_exit(self) -> None:
        graceful = self._engine.stop_gracefully_on_shutdown()
        try:
            self._engine.stop(stop_spark_context=False, graceful=graceful)
        except Exception:  # noqa: BLE001 - never fail interpreter exit
            logger.exception("error while stopping the StreamingContext at exit")

    def _install_sigterm_handler(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            logger.warning(
                "spark.streaming.stopGracefullyOnShutdown is true but start() was called from "
                "thread %r: Python handles signals only on the main thread, so SIGTERM is not "
                "handled (the exit hook still stops the context gracefully)",
                threading.current_thread().name,
            )
            return
        previous = signal.getsignal(signal.SIGTERM)
        if previous is signal.SIG_IGN:
            logger.info("SIGTERM is ignored in this process; leaving it ignored")
            return
        signal.signal(signal.SIGTERM, self.on_sigterm)
        self._sigterm_previous = previous
        self._sigterm_installed = True

    def _restore_sigterm_handler(self) -> None:
        """Put back the handler install() replaced (main thread only; else the handler forwards)."""
        if not self._sigterm_installed or threading.current_thread() is not threading.main_thread():
            return
        self._sigterm_installed = False
        # A handler installed after ours (by the application) stays.
        if signal.getsignal(signal.SIGTERM) == self.on_sigterm:
            previous = self._sigterm_previous
            signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)

    def on_sigterm(self, signum: int, frame: Any) -> None:
        """The SIGTERM handler: stop gracefully, then hand the signal to the previous one."""
        engine = self._engine
        if engine.state is State.ACTIVE:
            if engine.stopping:
                logger.warning("SIGTERM received while the StreamingContext is already stopping; "
                               "the stop in progress continues")
                return
            logger.warning("SIGTERM received: stopping the StreamingContext gracefully, processing "
                           "the data received so far (spark.streaming.stopGracefullyOnShutdown)")
            engine.stop(stop_spark_context=False, graceful=True)
        # Stopped (here, or earlier on another thread, which could not restore the
        # handler): put the previous handler back and hand it the signal.
        self._restore_sigterm_handler()
        previous = self._sigterm_previous
        if callable(previous):
            previous(signum, frame)
        elif previous is not signal.SIG_IGN:
            # The default action would kill the process without running exit hooks; exit
            # with the status a SIGTERM-ed JVM reports instead, so the SparkContext's exit
            # hook still stops the workers.
            raise SystemExit(128 + signum)

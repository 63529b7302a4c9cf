"""Helpers shared by the streaming examples: a sample line server and a clean run loop.

This module owns two things the examples need beyond Spark's originals, so that each
example runs with no setup and stops cleanly:

* :class:`SampleLineServer` — a TCP server on 127.0.0.1 (a free port) that sends lines
  of sample text to each client at a steady pace, standing in for ``nc -lk 9999``.
* :func:`run` — start a StreamingContext and run it until ``--batches`` batches have
  completed, a timeout, Ctrl-C or SIGTERM; then stop it gracefully (received data is
  processed first) and the SparkContext with it, so no worker process is left behind.
  Ctrl-C prints one line, never a traceback, then how many batches the stop waits for;
  a second Ctrl-C stops at once (queued batches dropped, exit status 130). An error
  raised by a batch is printed with its traceback and gives exit status 1.

An example imports this module before the engine, and the import installs the Ctrl-C
and SIGTERM handlers (:func:`install_stop_handlers`) when the program running is a
script of this directory: a signal that comes while the example is still starting stops
it the same quiet way. Imported by anything else (tests), it changes no handler until
:func:`run`.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import threading
import traceback
from typing import Any

_stop_requested = threading.Event()
_signal_names: list[str] = []
_previous_handlers: dict[int, Any] = {}


def _request_stop(signum: int, frame: Any) -> None:
    # Only set a flag: stopping from inside a signal handler could interrupt the engine.
    _signal_names.append(signal.Signals(signum).name)
    _stop_requested.set()


def install_stop_handlers() -> None:
    """Make Ctrl-C and SIGTERM request a stop that :func:`run` performs (once is enough)."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(signum) is not _request_stop:
            _previous_handlers.setdefault(signum, signal.signal(signum, _request_stop))


def _running_an_example() -> bool:
    main_file = getattr(sys.modules.get("__main__"), "__file__", None)
    here = os.path.dirname(os.path.abspath(__file__))
    return main_file is not None and os.path.dirname(os.path.abspath(main_file)) == here


if _running_an_example():
    install_stop_handlers()

from dstream import StreamingContext, StreamingListener  # noqa: E402 - after the handlers

SAMPLE_TEXT = """\
the quick brown fox jumps over the lazy dog
a stream is a sequence of small batches
every batch is an rdd and every rdd has partitions
the dog sleeps while the fox counts the words
words come in lines and lines come in batches
count the words and print the counts
the lazy dog and the quick fox are friends
small batches make a stream look continuous
""".splitlines()


class SampleLineServer:
    """Serve :data:`SAMPLE_TEXT` lines forever to every client, ``lines_per_second`` each.

    Parameters
    ----------
    lines_per_second
        Pace of each client's stream.
    """

    def __init__(self, lines_per_second: float = 40.0) -> None:
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(4)
        self.host, self.port = self._listener.getsockname()[:2]
        self._pause = 1.0 / lines_per_second
        self._stopped = threading.Event()
        threading.Thread(target=self._accept, name="SampleLineServer", daemon=True).start()

    def _accept(self) -> None:
        while not self._stopped.is_set():
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        index = 0
        with conn:
            while not self._stopped.is_set():
                line = SAMPLE_TEXT[index % len(SAMPLE_TEXT)] + "\n"
                index += 1
                try:
                    conn.sendall(line.encode("utf-8"))
                except OSError:
                    return  # the client went away
                self._stopped.wait(self._pause)

    def stop(self) -> None:
        self._stopped.set()
        try:
            self._listener.close()
        except OSError:
            pass


class _BatchCounter(StreamingListener):
    def __init__(self, limit: int | None, done: threading.Event) -> None:
        self.submitted = 0
        self.completed = 0
        self._limit = limit
        self._done = done

    def onBatchSubmitted(self, batchSubmitted: Any) -> None:  # noqa: N802, N803
        self.submitted += 1

    def onBatchCompleted(self, batchCompleted: Any) -> None:  # noqa: N802, N803
        self.completed += 1
        if self._limit is not None and self.completed >= self._limit:
            self._done.set()


def run(ssc: StreamingContext, batches: int | None = None, timeout: float | None = None) -> int:
    """Run ``ssc`` until ``batches`` batches completed, ``timeout`` seconds, Ctrl-C or SIGTERM.

    Returns the exit status: 0, 1 if a batch raised an error, 130 if a second Ctrl-C
    cut the graceful stop short.
    """
    install_stop_handlers()
    done = _stop_requested
    counter = _BatchCounter(batches, done)
    ssc.addStreamingListener(counter)
    status = 0
    try:
        if not done.is_set():  # not stopped while starting
            ssc.start()
        waited = 0.0
        while not done.is_set():
            if ssc.awaitTerminationOrTimeout(0.1):
                break
            waited += 0.1
            if timeout is not None and waited >= timeout:
                break
    except Exception:  # noqa: BLE001 - a batch failed: report it like Spark's driver would
        traceback.print_exc()
        status = 1
    finally:
        if _signal_names:
            print(f"\n{_signal_names[0]} received: stopping gracefully "
                  "(processing what was received)...", file=sys.stderr, flush=True)
        queued = max(0, counter.submitted - counter.completed)
        again = " again" if _signal_names[:1] == ["SIGINT"] else ""
        try:
            # From here a Ctrl-C raises KeyboardInterrupt, which cuts the graceful stop short.
            signal.signal(signal.SIGINT, signal.default_int_handler)
            print(f"stopping: waiting for {queued} queued batches (Ctrl-C{again} to stop now)",
                  file=sys.stderr, flush=True)
            ssc.stop(stopSparkContext=True, stopGraceFully=True)
        except KeyboardInterrupt:
            ssc.stop(stopSparkContext=True, stopGraceFully=False)  # if it had not begun yet
            print("stopped now: the batches still queued were dropped", file=sys.stderr, flush=True)
            status = 130
        finally:
            for signum, handler in _previous_handlers.items():
                signal.signal(signum, handler)
            _previous_handlers.clear()
    return status

"""Helpers shared by the streaming examples: a sample line server and a clean run loop.

This module owns two things the examples need beyond Spark's originals, so that each
example runs with no setup and stops cleanly:

* :class:`SampleLineServer` — a TCP server on 127.0.0.1 (a free port) that sends lines
  of sample text to each client at a steady pace, standing in for ``nc -lk 9999``.
* :func:`run` — start a StreamingContext and run it until ``--batches`` batches have
  completed, a timeout, Ctrl-C or SIGTERM; then stop it gracefully (received data is
  processed first) and the SparkContext with it, so no worker process is left behind.
  Ctrl-C prints one line, never a traceback. An error raised by a batch is printed with
  its traceback and gives exit status 1.
"""

from __future__ import annotations

import signal
import socket
import sys
import threading
import traceback
from typing import Any

from dstream import StreamingContext, StreamingListener

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
        self.completed = 0
        self._limit = limit
        self._done = done

    def onBatchCompleted(self, batchCompleted: Any) -> None:  # noqa: N802, N803
        self.completed += 1
        if self._limit is not None and self.completed >= self._limit:
            self._done.set()


def run(ssc: StreamingContext, batches: int | None = None, timeout: float | None = None) -> int:
    """Run ``ssc`` until ``batches`` batches completed, ``timeout`` seconds, Ctrl-C or SIGTERM.

    Returns the exit status: 0, or 1 if a batch raised an error.
    """
    done = threading.Event()
    reason: list[str] = []

    def request_stop(signum: int, frame: Any) -> None:
        # Only set a flag: stopping from inside a signal handler could interrupt the engine.
        reason.append(signal.Signals(signum).name)
        done.set()

    previous = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    ssc.addStreamingListener(_BatchCounter(batches, done))
    status = 0
    try:
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
        if reason:
            print(
                f"\n{reason[0]} received: stopping gracefully (processing what was received)...",
                file=sys.stderr,
                flush=True,
            )
        # A second Ctrl-C during the graceful stop is ignored: leaving now would strand
        # the worker processes.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            ssc.stop(stopSparkContext=True, stopGraceFully=True)
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
    return status

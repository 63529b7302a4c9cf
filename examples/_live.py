"""Helpers shared by the streaming examples: options, a sample line server, a clean run loop.

This module owns what the examples need beyond Spark's originals, so that each example
runs with no setup, takes the same options and stops cleanly:

* :func:`add_run_options` — ``--batches``, ``--batch-interval`` and ``--master``, the
  same in every example (each with its help text); :func:`add_query_options` — the
  Structured Streaming examples' ``--batches`` and ``--master``.

* :class:`SampleLineServer` — a TCP server on 127.0.0.1 (a free port) that sends lines
  of sample text to each client at a steady pace, standing in for ``nc -lk 9999``.
* :func:`run` — start a StreamingContext and run it for exactly ``--batches`` batches,
  or until a timeout, Ctrl-C or SIGTERM (a graceful stop: received data is processed
  first); then stop the SparkContext with it, so no worker process is left behind.
  Ctrl-C prints one line, never a traceback, then how many batches the stop waits for;
  a second Ctrl-C stops at once (queued batches dropped, exit status 130). An error
  raised by a batch is printed with its traceback and gives exit status 1.
* :func:`run_query` — the same for a started Structured Streaming query (the examples
  of ``sql/streaming/``): exactly ``--batches`` micro-batches, or until Ctrl-C, SIGTERM
  or the query's failure; then the query and its SparkSession stop.

An example imports this module before the engine, and the import installs the Ctrl-C
and SIGTERM handlers (:func:`install_stop_handlers`) when the program running is a
script of this directory or of a folder below it: a signal that comes while the example
is still starting stops it the same quiet way. Imported by anything else (tests), it
changes no handler until :func:`run` or :func:`run_query`.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import sys
import threading
import time
import traceback
from typing import TYPE_CHECKING, Any

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
    return main_file is not None and os.path.abspath(main_file).startswith(here + os.sep)


if _running_an_example():
    install_stop_handlers()

from dstream import StreamingContext, StreamingListener  # noqa: E402 - after the handlers
from dstream.testing import stop_after_batches  # noqa: E402
from dstream.ui.status_line import enable_status_line  # noqa: E402

if TYPE_CHECKING:
    from dstream.sql import SparkSession
    from dstream.sql.streaming import StreamingQuery

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


def positive_int(text: str) -> int:
    """argparse type: an integer of at least 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive integer")
    return value


def positive_float(text: str) -> float:
    """argparse type: a number of seconds greater than 0."""
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number of seconds")
    return value


def add_run_options(parser: argparse.ArgumentParser, batches: int | None = None,
                    master: str = "local[2]") -> None:
    """Add ``--batches N``, ``--batch-interval S`` and ``--master`` to ``parser``.

    ``--batch-duration`` is accepted as a hidden alias of ``--batch-interval`` (an earlier
    name in ``queue_stream.py``).
    """
    until = "run until Ctrl-C" if batches is None else str(batches)
    parser.add_argument("--batches", type=positive_int, default=batches, metavar="N",
                        help=f"run exactly N batches, then stop (default: {until}); "
                             "what arrives after the last one is not processed")
    parser.add_argument("--batch-interval", type=positive_float, default=1.0, metavar="S",
                        help="seconds per batch (default: %(default)s)")
    parser.add_argument("--batch-duration", type=positive_float, dest="batch_interval",
                        default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    parser.add_argument("--master", default=master,
                        help="local, local[N] or local[*] (default: %(default)s)")


def add_query_options(parser: argparse.ArgumentParser, master: str = "local[2]") -> None:
    """Add ``--batches N`` and ``--master`` (the Structured Streaming examples' run options).

    A query has no batch interval: Spark's default trigger starts a micro-batch as soon
    as the previous one ended and there is new data.
    """
    parser.add_argument("--batches", type=positive_int, metavar="N",
                        help="stop right after the N-th micro-batch (default: run until Ctrl-C), "
                             "so exactly N are printed")
    parser.add_argument("--master", default=master,
                        help="local, local[N] or local[*] (default: %(default)s)")


def add_server_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the optional ``<hostname> <port>`` of the socket examples."""
    parser.add_argument("hostname", nargs="?",
                        help="server to connect to "
                             "(default: a built-in sample server on 127.0.0.1)")
    parser.add_argument("port", nargs="?", type=int, help="its TCP port")


def server_address(parser: argparse.ArgumentParser,
                   args: argparse.Namespace) -> tuple[str, int, SampleLineServer | None]:
    """``(host, port, server)``: the given server, or a started :class:`SampleLineServer`."""
    if (args.hostname is None) != (args.port is None):
        parser.error("give both <hostname> and <port>, "
                     "or neither to use the built-in sample server")
    if args.hostname is not None:
        return args.hostname, args.port, None
    server = SampleLineServer()
    print(f"No <hostname> <port> given: sending sample text from {server.host}:{server.port}",
          file=sys.stderr)
    return server.host, server.port, server


def sample_server_for_checkpoint(checkpoint: str) -> SampleLineServer:
    """A :class:`SampleLineServer` on the port the earlier runs with ``checkpoint`` used.

    A stream recovered from a checkpoint connects where the first run's stream did (the
    address is part of the checkpointed graph), so the sample server of a rerun must
    listen there again; its port is kept in the checkpoint directory.
    """
    path = os.path.join(checkpoint, "sample-server-port")
    try:
        with open(path, encoding="ascii") as f:
            port = int(f.read())
    except (OSError, ValueError):
        port = 0
    try:
        server = SampleLineServer(port=port)
    except OSError as exc:
        raise SystemExit(f"cannot serve sample text on 127.0.0.1:{port} again, where the stream of "
                         f"checkpoint {checkpoint} connects: {exc}. Free the port, or remove "
                         f"{checkpoint} to start from scratch.") from None
    os.makedirs(checkpoint, exist_ok=True)
    with open(path, "w", encoding="ascii") as f:
        f.write(str(server.port))
    return server


class SampleLineServer:
    """Serve :data:`SAMPLE_TEXT` lines forever to every client, ``lines_per_second`` each.

    Parameters
    ----------
    lines_per_second
        Pace of each client's stream.
    port
        Port to listen on (default: a free one).
    """

    def __init__(self, lines_per_second: float = 40.0, port: int = 0) -> None:
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self._listener.bind(("127.0.0.1", port))
            self._listener.listen(4)
        except OSError:
            self._listener.close()
            raise
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
    """Counts batches submitted and completed, to say how many a graceful stop waits for."""

    def __init__(self) -> None:
        self.submitted = 0
        self.completed = 0

    def onBatchSubmitted(self, batchSubmitted: Any) -> None:  # noqa: N802, N803
        self.submitted += 1

    def onBatchCompleted(self, batchCompleted: Any) -> None:  # noqa: N802, N803
        self.completed += 1


def run(ssc: StreamingContext, batches: int | None = None, timeout: float | None = None) -> int:
    """Run ``ssc`` until ``batches`` batches ran, ``timeout`` seconds, Ctrl-C or SIGTERM.

    ``batches``: exactly that many batches run (see
    :func:`dstream.testing.stop_after_batches`); what arrives after the last one is not
    processed. Ctrl-C and SIGTERM stop gracefully instead: what was received is processed,
    and a second Ctrl-C stops at once. Returns the exit status: 0; 1 if a batch raised an
    error or ``timeout`` passed; 130 if a second Ctrl-C cut the graceful stop short.
    """
    install_stop_handlers()
    done = _stop_requested
    counter = _BatchCounter()
    ssc.addStreamingListener(counter)
    enable_status_line(ssc)  # one INFO line per batch on stderr, and where the UI is
    if batches is not None:
        stop_after_batches(ssc, batches)
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
                print(f"stopping: {batches} batches did not run within {timeout} s",
                      file=sys.stderr)
                status = 1
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
            if StreamingContext.getActive() is ssc:  # not already stopped after --batches
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


def run_query(spark: SparkSession, query: StreamingQuery, batches: int | None = None,
              timeout: float | None = None) -> int:
    """Run a started query until ``batches`` micro-batches ran, ``timeout`` s, Ctrl-C or SIGTERM.

    Then stop the query and ``spark`` (its SparkContext and worker processes): what the
    examples of ``sql/streaming/`` do instead of PySpark's ``query.awaitTermination()``.
    With ``batches`` the query's own thread ends it right after its N-th micro-batch
    (:func:`dstream.sql.streaming.testing.stop_after_batches`), so exactly N are printed.
    Ctrl-C and SIGTERM print one line and stop the query (its running batch is
    cancelled, as ``query.stop()`` does). Returns the exit status: 0; 1 if the query
    failed (its error is printed) or ``timeout`` passed; 130 if a second Ctrl-C cut the
    stop short.
    """
    from dstream.sql.streaming.testing import stop_after_batches

    install_stop_handlers()
    if batches is not None:
        stop_after_batches(query, batches)
    deadline = None if timeout is None else time.monotonic() + timeout
    status = 0
    try:
        # Short waits: a signal only sets a flag, looked at between them.
        while not _stop_requested.is_set() and not query.awaitTermination(0.1):
            if deadline is not None and time.monotonic() >= deadline:
                print(f"stopping: {batches} micro-batches did not run within {timeout} s", file=sys.stderr)
                status = 1
                break
    except Exception as exc:  # noqa: BLE001 - the query failed: its traceback was logged already
        print(f"the query failed: {exc}", file=sys.stderr, flush=True)
        status = 1
    finally:
        if _signal_names:
            print(f"\n{_signal_names[0]} received: stopping the query", file=sys.stderr, flush=True)
        try:
            signal.signal(signal.SIGINT, signal.default_int_handler)
            query.stop()
            spark.stop()
        except KeyboardInterrupt:
            spark.sparkContext.stop()  # the worker processes go in any case
            print("stopped now", file=sys.stderr, flush=True)
            status = 130
        finally:
            for signum, handler in _previous_handlers.items():
                signal.signal(signum, handler)
            _previous_handlers.clear()
    return status

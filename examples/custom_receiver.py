r"""A custom receiver: a Receiver subclass that reads lines from a TCP server.

Spark's ``JavaCustomReceiver``/``CustomReceiver`` example written in Python: how to
implement :class:`dstream.Receiver` — ``onStart`` starts a thread and returns, the thread
calls ``store()`` for every line and ``restart()`` when the connection fails, ``onStop``
closes what ``onStart`` opened — and how to use it with ``ssc.receiverStream``.

Usage::

    custom_receiver.py [<hostname> <port>] [--batches N] [--batch-interval S] [--master local[2]]

Without a host and port it starts a line server with sample text on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import socket
import sys
import threading

from _live import add_run_options, add_server_arguments, run, server_address  # beside this script

from rdd import SparkContext, StorageLevel

from dstream import StreamingContext
from dstream.receiver import Receiver


class LineReceiver(Receiver):
    """Receive UTF-8 lines from ``host:port``; reconnect (restart) whenever the connection fails."""

    def __init__(self, host: str, port: int) -> None:
        super().__init__(StorageLevel.MEMORY_AND_DISK_2)
        self.host = host
        self.port = port
        self._socket: socket.socket | None = None
        self._thread: threading.Thread | None = None

    def onStart(self) -> None:
        # Must not block: the reading happens on a thread of our own.
        self._thread = threading.Thread(target=self.receive, name="LineReceiver", daemon=True)
        self._thread.start()

    def onStop(self) -> None:
        # The reading thread sees isStopped() and exits; closing the socket wakes it.
        sock, self._socket = self._socket, None
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()
        # Return only once the thread is done: after onStop no store() may come (a
        # graceful stop then knows that everything stored is in its last blocks).
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(5)

    def receive(self) -> None:
        try:
            self._socket = socket.create_connection((self.host, self.port))
            with self._socket.makefile("r", encoding="utf-8", errors="replace") as lines:
                for line in lines:
                    if self.isStopped():
                        return
                    self.store(line.rstrip("\r\n"))
            if not self.isStopped():
                self.restart("Trying to connect again")
        except OSError as e:
            if not self.isStopped():
                self.restart(f"Error receiving data from {self.host}:{self.port}", e)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="Word count over a custom line receiver.")
    add_server_arguments(parser)
    add_run_options(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    host, port, server = server_address(parser, args)

    sc = SparkContext(args.master, appName="CustomReceiver")
    ssc = StreamingContext(sc, args.batch_interval)
    lines = ssc.receiverStream(LineReceiver(host, port))
    words = lines.flatMap(lambda line: line.split(" "))
    word_counts = words.map(lambda word: (word, 1)).reduceByKey(lambda a, b: a + b)
    word_counts.pprint()
    try:
        return run(ssc, args.batches)
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    sys.exit(main())

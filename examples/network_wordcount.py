r"""Counts words in UTF-8 text received from the network every second.

Spark's ``examples/src/main/python/streaming/network_wordcount.py`` on dstreams: the
pipeline is PySpark's with the imports changed.

Usage::

    network_wordcount.py [<hostname> <port>] [--batches N] [--master local[2]]

``<hostname>`` and ``<port>`` describe the TCP server the stream connects to. To run it
against your own server, start Netcat first and type words into it::

    $ nc -lk 9999
    $ python examples/network_wordcount.py localhost 9999

Without a host and port the example starts its own line server on 127.0.0.1 that sends
sample text, so counts appear within seconds. Ctrl-C stops it gracefully.
"""

from __future__ import annotations

import argparse
import sys

from _live import SampleLineServer, run  # beside this script, which is on sys.path[0]

from dstream import StreamingContext
from rdd import SparkContext


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Count words received from a TCP server, per second.")
    parser.add_argument("hostname", nargs="?", help="server to connect to (default: a built-in sample server)")
    parser.add_argument("port", nargs="?", type=int, help="its TCP port")
    parser.add_argument("--host", dest="host_option", help="same as <hostname>")
    parser.add_argument("--port", dest="port_option", type=int, help="same as <port>")
    parser.add_argument("--batches", type=int, default=None, help="stop after N batches (default: run until Ctrl-C)")
    parser.add_argument("--batch-interval", type=float, default=1.0, help="seconds per batch (default: 1)")
    parser.add_argument("--master", default="local[2]", help="local, local[N] or local[*] (default: %(default)s)")
    args = parser.parse_args(argv)
    args.hostname = args.hostname or args.host_option
    args.port = args.port if args.port is not None else args.port_option
    if (args.hostname is None) != (args.port is None):
        parser.error("give both <hostname> and <port>, or neither to use the built-in sample server")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    server = None
    host, port = args.hostname, args.port
    if host is None:
        server = SampleLineServer()
        host, port = server.host, server.port
        print(f"No <hostname> <port> given: sending sample text from {host}:{port}", file=sys.stderr)
    sc = SparkContext(args.master, appName="PythonStreamingNetworkWordCount")
    ssc = StreamingContext(sc, args.batch_interval)

    lines = ssc.socketTextStream(host, port)
    counts = lines.flatMap(lambda line: line.split(" "))\
                  .map(lambda word: (word, 1))\
                  .reduceByKey(lambda a, b: a + b)
    counts.pprint()

    try:
        return run(ssc, args.batches)
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    sys.exit(main())

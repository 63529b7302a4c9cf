r"""Counts words in UTF-8 text received from the network every second.

Spark's ``examples/src/main/python/streaming/network_wordcount.py`` on dstreams: the
pipeline is PySpark's with the imports changed.

Usage::

    network_wordcount.py [<hostname> <port>] [--batches N] [--batch-interval S] [--master local[2]]

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

from _live import add_run_options, add_server_arguments, run, server_address  # beside this script

from rdd import SparkContext

from dstream import StreamingContext


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Count words received from a TCP server, per batch.")
    add_server_arguments(parser)
    parser.add_argument("--host", dest="host_option", help="same as <hostname>")
    parser.add_argument("--port", dest="port_option", type=int, help="same as <port>")
    add_run_options(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    args.hostname = args.hostname or args.host_option
    args.port = args.port if args.port is not None else args.port_option
    host, port, server = server_address(parser, args)
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

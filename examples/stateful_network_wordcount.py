r"""Counts words received from the network, keeping running totals across batches.

Spark's ``examples/src/main/python/streaming/stateful_network_wordcount.py`` on dstreams:
``updateStateByKey`` adds each batch's counts to the totals so far, starting from an
initial state of ``hello: 1, world: 1``. Stateful streams need a checkpoint directory.

Usage::

    stateful_network_wordcount.py [<hostname> <port>] [--checkpoint DIR] [--batches N]

To run it against Netcat::

    $ nc -lk 9999
    $ python examples/stateful_network_wordcount.py localhost 9999

Without a host and port it starts its own line server with sample text on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import sys
import tempfile

from _live import SampleLineServer, run  # beside this script, which is on sys.path[0]

from dstream import StreamingContext
from rdd import SparkContext


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Running word counts over a TCP text stream.")
    parser.add_argument("hostname", nargs="?")
    parser.add_argument("port", nargs="?", type=int)
    parser.add_argument("--checkpoint", help="checkpoint directory (default: a temporary one)")
    parser.add_argument("--batches", type=int, default=None)
    parser.add_argument("--master", default="local[2]")
    args = parser.parse_args(argv)
    server = None
    host, port = args.hostname, args.port
    if host is None or port is None:
        server = SampleLineServer()
        host, port = server.host, server.port
        print(f"No <hostname> <port> given: sending sample text from {host}:{port}", file=sys.stderr)
    scratch = tempfile.TemporaryDirectory(prefix="stateful-wordcount-") if args.checkpoint is None else None

    sc = SparkContext(args.master, appName="PythonStreamingStatefulNetworkWordCount")
    ssc = StreamingContext(sc, 1)
    ssc.checkpoint(args.checkpoint or scratch.name)  # type: ignore[union-attr]

    # RDD with initial state (key, value) pairs
    initialStateRDD = sc.parallelize([("hello", 1), ("world", 1)])

    def updateFunc(new_values, last_sum):  # noqa: N802 - Spark's example's name
        return sum(new_values) + (last_sum or 0)

    lines = ssc.socketTextStream(host, port)
    running_counts = lines.flatMap(lambda line: line.split(" "))\
                          .map(lambda word: (word, 1))\
                          .updateStateByKey(updateFunc, initialRDD=initialStateRDD)
    running_counts.pprint()

    try:
        return run(ssc, args.batches)
    finally:
        if server is not None:
            server.stop()
        if scratch is not None:
            scratch.cleanup()


if __name__ == "__main__":
    sys.exit(main())

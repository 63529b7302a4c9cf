r"""Counts words received from the network, keeping running totals across batches.

Spark's ``examples/src/main/python/streaming/stateful_network_wordcount.py`` on dstreams:
``updateStateByKey`` adds each batch's counts to the totals so far, starting from an
initial state of ``hello: 1, world: 1``. Stateful streams need a checkpoint directory.

Usage::

    stateful_network_wordcount.py [<hostname> <port>] [--checkpoint DIR] [--batches N]
                                  [--batch-interval S] [--master local[2]]

To run it against Netcat::

    $ nc -lk 9999
    $ python examples/stateful_network_wordcount.py localhost 9999 --checkpoint /tmp/totals

Without a host and port it starts its own line server with sample text on 127.0.0.1.

With ``--checkpoint DIR`` the context comes from ``StreamingContext.getOrCreate``: run
the same command again after a stop or a crash (``kill -9``) and the totals continue
from the last checkpoint instead of starting from zero. Without it the checkpoint is a
temporary directory and every run starts afresh.
"""

from __future__ import annotations

import argparse
import sys
import tempfile

from _live import (  # beside this script, which is on sys.path[0]
    add_run_options,
    add_server_arguments,
    run,
    sample_server_for_checkpoint,
    server_address,
)

from rdd import SparkContext

from dstream import StreamingContext


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="Running word counts over a TCP text stream.")
    add_server_arguments(parser)
    parser.add_argument("--checkpoint", metavar="DIR",
                        help="checkpoint directory; a rerun with the same one continues the totals "
                             "(default: a temporary one, deleted at exit)")
    add_run_options(parser)
    return parser


def createContext(host: str, port: int, checkpoint: str, master: str,  # noqa: N802
                  interval: float) -> StreamingContext:
    sc = SparkContext(master, appName="PythonStreamingStatefulNetworkWordCount")
    ssc = StreamingContext(sc, interval)
    ssc.checkpoint(checkpoint)

    # RDD with initial state (key, value) pairs
    initialStateRDD = sc.parallelize([("hello", 1), ("world", 1)])  # noqa: N806 - Spark's name

    def updateFunc(new_values, last_sum):  # noqa: N802 - Spark's example's name
        return sum(new_values) + (last_sum or 0)

    lines = ssc.socketTextStream(host, port)
    running_counts = lines.flatMap(lambda line: line.split(" "))\
                          .map(lambda word: (word, 1))\
                          .updateStateByKey(updateFunc, initialRDD=initialStateRDD)
    running_counts.pprint()
    return ssc


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    scratch = None
    checkpoint = args.checkpoint
    if checkpoint is None:
        scratch = tempfile.TemporaryDirectory(prefix="stateful-wordcount-")
        checkpoint = scratch.name
    if args.hostname is None and args.port is None and args.checkpoint is not None:
        server = sample_server_for_checkpoint(checkpoint)
        host, port = server.host, server.port
        print(f"No <hostname> <port> given: sending sample text from {host}:{port}",
              file=sys.stderr)
    else:
        host, port, server = server_address(parser, args)

    ssc = StreamingContext.getOrCreate(
        checkpoint, lambda: createContext(host, port, checkpoint, args.master, args.batch_interval)
    )
    try:
        return run(ssc, args.batches)
    finally:
        if server is not None:
            server.stop()
        if scratch is not None:
            scratch.cleanup()


if __name__ == "__main__":
    sys.exit(main())

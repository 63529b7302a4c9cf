r"""Counts words in UTF-8 encoded, '\n' delimited text received from the network.

Spark's ``examples/src/main/python/sql/streaming/structured_network_wordcount.py`` on
dstreams: the query is PySpark's with the imports changed.

Usage::

    structured_network_wordcount.py [<hostname> <port>] [--batches N] [--master local[2]]

``<hostname>`` and ``<port>`` describe the TCP server that Structured Streaming would
connect to receive data. To run it against your own server, start Netcat first and
type words into it::

    $ nc -lk 9999
    $ python examples/sql/streaming/structured_network_wordcount.py localhost 9999

Without a host and port the example starts its own line server on 127.0.0.1 that
sends sample text. Each micro-batch prints the running counts of every word (complete
mode, console sink). Ctrl-C stops it; ``--batches N`` stops it after N micro-batches.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # examples/, for _live

from _live import add_query_options, add_server_arguments, run_query, server_address  # noqa: E402

from dstream.sql import SparkSession  # noqa: E402
from dstream.sql.functions import explode, split  # noqa: E402


def build_parser() -> argparse.ArgumentParser:
    """The example's command line."""
    parser = argparse.ArgumentParser(
        description="Count the words received from a TCP server: running totals per micro-batch.")
    add_server_arguments(parser)
    add_query_options(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    host, port, server = server_address(parser, args)

    spark = SparkSession\
        .builder\
        .master(args.master)\
        .appName("StructuredNetworkWordCount")\
        .getOrCreate()

    # Create DataFrame representing the stream of input lines from connection to host:port
    lines = spark\
        .readStream\
        .format('socket')\
        .option('host', host)\
        .option('port', port)\
        .load()

    # Split the lines into words
    words = lines.select(
        # explode turns each item in an array into a separate row
        explode(
            split(lines.value, ' ')
        ).alias('word')
    )

    # Generate running word count
    wordCounts = words.groupBy('word').count()

    # Start running the query that prints the running counts to the console
    query = wordCounts\
        .writeStream\
        .outputMode('complete')\
        .format('console')\
        .start()

    try:
        return run_query(spark, query, args.batches)
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    sys.exit(main())

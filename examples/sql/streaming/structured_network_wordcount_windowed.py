r"""Counts words in UTF-8 encoded, '\n' delimited text received from the network over a
sliding window of configurable duration. Each line from the network is tagged with a
timestamp that is used to determine the windows into which it falls.

Spark's ``examples/src/main/python/sql/streaming/structured_network_wordcount_windowed.py``
on dstreams: the query is PySpark's with the imports changed.

Usage::

    structured_network_wordcount_windowed.py [<hostname> <port>] <window duration in seconds>
                                             [<slide duration in seconds>] [--batches N] [--master local[2]]

``<hostname>`` and ``<port>`` describe the TCP server that Structured Streaming would
connect to receive data. ``<window duration>`` gives the size of window, specified as
integer number of seconds; ``<slide duration>`` gives the amount of time successive
windows are offset from one another, in the same units. ``<slide duration>`` should be
less than or equal to ``<window duration>``; if the two are equal, successive windows
have no overlap; if ``<slide duration>`` is not provided, it defaults to ``<window
duration>``. One recommended pair is 10, 5. To run it against your own server::

    $ nc -lk 9999
    $ python examples/sql/streaming/structured_network_wordcount_windowed.py localhost 9999 10 5

Without a host and port the example starts its own line server on 127.0.0.1 that
sends sample text. Each micro-batch prints the counts of every (window, word), ordered
by window (complete mode, console sink, cells not truncated). Ctrl-C stops it;
``--batches N`` stops it after N micro-batches.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # examples/, for _live

from _live import add_query_options, run_query, server_address  # noqa: E402

from dstream.sql import SparkSession  # noqa: E402
from dstream.sql.functions import explode, split, window  # noqa: E402

USAGE = "[<hostname> <port>] <window duration in seconds> [<slide duration in seconds>]"


def build_parser() -> argparse.ArgumentParser:
    """The example's command line."""
    parser = argparse.ArgumentParser(
        usage=f"%(prog)s {USAGE} [--batches N] [--master MASTER]",
        description="Count the words received from a TCP server per sliding window of their arrival time.")
    parser.add_argument("arguments", nargs="*", metavar="ARG",
                        help=f"{USAGE}: the server to connect to (default: a built-in sample server on "
                             "127.0.0.1), then the window length and the slide in whole seconds (default "
                             "slide: the window length, i.e. windows that do not overlap)")
    add_query_options(parser)
    return parser


def parse_args(argv: list[str] | None = None) -> tuple[argparse.ArgumentParser, argparse.Namespace]:
    """The options, with ``hostname``, ``port``, ``window_size`` and ``slide_size`` read from the arguments."""
    parser = build_parser()
    args = parser.parse_args(argv)
    given = args.arguments
    if len(given) not in (1, 2, 3, 4):
        parser.error(f"expected {USAGE}; got {len(given)} arguments" + (f": {' '.join(given)}" if given else ""))
    server, durations = (given[:2], given[2:]) if len(given) > 2 else ([], given)
    args.hostname, args.port = (server[0], _integer(parser, "<port>", server[1])) if server else (None, None)
    args.window_size = _integer(parser, "<window duration in seconds>", durations[0])
    args.slide_size = _integer(parser, "<slide duration in seconds>", durations[1]) if len(durations) == 2 \
        else args.window_size
    if args.slide_size > args.window_size:
        parser.error("<slide duration> must be less than or equal to <window duration>")
    return parser, args


def _integer(parser: argparse.ArgumentParser, name: str, text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        parser.error(f"{name} must be a whole number, got {text!r} (usage: {USAGE})")
    if value < 1:
        parser.error(f"{name} must be at least 1, got {value}")
    return value


def main(argv: list[str] | None = None) -> int:
    parser, args = parse_args(argv)
    host, port, server = server_address(parser, args)
    windowDuration = '{} seconds'.format(args.window_size)  # noqa: UP032 - Spark's code
    slideDuration = '{} seconds'.format(args.slide_size)  # noqa: UP032 - Spark's code

    spark = SparkSession\
        .builder\
        .master(args.master)\
        .appName("StructuredNetworkWordCountWindowed")\
        .getOrCreate()

    # Create DataFrame representing the stream of input lines from connection to host:port
    lines = spark\
        .readStream\
        .format('socket')\
        .option('host', host)\
        .option('port', port)\
        .option('includeTimestamp', 'true')\
        .load()

    # Split the lines into words, retaining timestamps
    # split() splits each line into an array, and explode() turns the array into multiple rows
    words = lines.select(
        explode(split(lines.value, ' ')).alias('word'),
        lines.timestamp
    )

    # Group the data by window and word and compute the count of each group
    windowedCounts = words.groupBy(
        window(words.timestamp, windowDuration, slideDuration),
        words.word
    ).count().orderBy('window')

    # Start running the query that prints the windowed word counts to the console
    query = windowedCounts\
        .writeStream\
        .outputMode('complete')\
        .format('console')\
        .option('truncate', 'false')\
        .start()

    try:
        return run_query(spark, query, args.batches)
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    sys.exit(main())

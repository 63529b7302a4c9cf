r"""Sessionizes events from UTF-8 encoded, '\n' delimited text received from the network.

Each line is tagged with the time it arrived; each word of a line is an event whose
session id is the word. A session of an id lasts while its events come less than 10
seconds apart (a session window with a 10-second gap). Each micro-batch prints the
sessions it changed: their id, start and end (in seconds since the epoch), the
duration and the number of events (update mode, console sink).

Spark's ``examples/src/main/python/sql/streaming/structured_sessionization.py`` on
dstreams: the query is PySpark's with the imports changed. As in Spark's, the column
named ``durationMs`` holds the difference of the start and end cast to seconds.

Usage::

    structured_sessionization.py [<hostname> <port>] [--batches N] [--master local[2]]

``<hostname>`` and ``<port>`` describe the TCP server that Structured Streaming would
connect to receive data. To run it against your own server::

    $ nc -lk 9999
    $ python examples/sql/streaming/structured_sessionization.py localhost 9999

Without a host and port the example starts its own line server on 127.0.0.1 that
sends sample text. Ctrl-C stops it; ``--batches N`` stops it after N micro-batches.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # examples/, for _live

from _live import add_query_options, add_server_arguments, run_query, server_address  # noqa: E402

from dstream.sql import SparkSession  # noqa: E402
from dstream.sql.functions import count, explode, session_window, split  # noqa: E402


def build_parser() -> argparse.ArgumentParser:
    """The example's command line."""
    parser = argparse.ArgumentParser(
        description="Sessions of the words received from a TCP server (a 10-second gap ends a session).")
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
        .appName("StructuredSessionization")\
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
    # treat words as sessionId of events
    events = lines.select(
        explode(split(lines.value, ' ')).alias('sessionId'),
        lines.timestamp.alias('eventTime')
    )

    # Group the data by window and word and compute the count of each group
    windowedCounts = events \
        .groupBy(session_window(events.eventTime, "10 seconds").alias('session'),
                 events.sessionId) \
        .agg(count("*").alias("numEvents")) \
        .selectExpr("sessionId", "CAST(session.start AS LONG)", "CAST(session.end AS LONG)",
                    "CAST(session.end AS LONG) - CAST(session.start AS LONG) AS durationMs",
                    "numEvents")

    # Start running the query that prints the session updates to the console
    query = windowedCounts\
        .writeStream\
        .outputMode('update')\
        .format('console')\
        .start()

    try:
        return run_query(spark, query, args.batches)
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    sys.exit(main())

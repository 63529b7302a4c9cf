r"""Counts words in new text files created in a directory.

Spark's ``examples/src/main/python/streaming/hdfs_wordcount.py`` on dstreams (a local
directory instead of HDFS).

Usage::

    hdfs_wordcount.py [<directory>] [--batches N] [--batch-interval S] [--master local[2]]

``<directory>`` is the directory the stream monitors. Create text files in it by
**moving** them in (write elsewhere, then ``mv``): a file written in place may be read
half-written. To try it::

    $ mkdir -p /tmp/words
    $ python examples/hdfs_wordcount.py /tmp/words
    $ echo "hello world hello" > /tmp/w.txt && mv /tmp/w.txt /tmp/words/

Without ``<directory>`` it watches a temporary directory into which it moves a small
sample file every second, so counts appear at once. Ctrl-C stops it gracefully.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading

from _live import SAMPLE_TEXT, add_run_options, run  # beside this script, which is on sys.path[0]

from rdd import SparkContext

from dstream import StreamingContext


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="Count the words of new files in a directory, per batch.")
    parser.add_argument("directory", nargs="?", help="directory to monitor (default: a temporary one fed with samples)")
    add_run_options(parser)
    return parser


def feed_samples(directory: str, stop: threading.Event, every: float) -> None:
    """Move a new sample file into ``directory`` every ``every`` seconds (atomically)."""
    n = 0
    while not stop.wait(every if n else 0.2):
        staging = os.path.join(os.path.dirname(directory), f".sample-{n}.txt")
        with open(staging, "w", encoding="utf-8") as f:
            start = n % len(SAMPLE_TEXT)
            f.write("\n".join(SAMPLE_TEXT[start:] + SAMPLE_TEXT[:start][:2]) + "\n")
        os.replace(staging, os.path.join(directory, f"sample-{n}.txt"))
        n += 1


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    stop_feeding = threading.Event()
    scratch = None
    directory = args.directory
    if directory is None:
        scratch = tempfile.TemporaryDirectory(prefix="hdfs-wordcount-")
        directory = os.path.join(scratch.name, "incoming")
        os.mkdir(directory)
        print(f"No <directory> given: watching {directory}, fed with sample files", file=sys.stderr)
    sc = SparkContext(args.master, appName="PythonStreamingHDFSWordCount")
    ssc = StreamingContext(sc, args.batch_interval)

    lines = ssc.textFileStream(directory)
    counts = lines.flatMap(lambda line: line.split(" "))\
                  .map(lambda x: (x, 1))\
                  .reduceByKey(lambda a, b: a + b)
    counts.pprint()

    if scratch is not None:
        threading.Thread(target=feed_samples, args=(directory, stop_feeding, args.batch_interval),
                         daemon=True).start()
    try:
        return run(ssc, args.batches)
    finally:
        stop_feeding.set()
        if scratch is not None:
            scratch.cleanup()


if __name__ == "__main__":
    sys.exit(main())

"""Count the words of a text file and print the most frequent ones.

The batch word count of Spark's ``examples/src/main/python/wordcount.py``, on dstreams'
``rdd`` engine: the pipeline is the PySpark one with ``pyspark`` replaced by ``rdd``.

Usage::

    python examples/batch/wordcount.py [FILE] [--master local[*]] [--lines N] [--top 20]

Without FILE it writes a sample text of ``--lines`` lines to a temporary directory first
and counts that. Output: one ``word: count`` line per word, most frequent first.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from operator import add
from pathlib import Path

from _corpus import write_corpus  # beside this script, which is on sys.path[0]

from rdd import SparkContext


def build_parser() -> argparse.ArgumentParser:
    """The command line's options."""
    parser = argparse.ArgumentParser(description="Count the words of a text file.")
    parser.add_argument("file", nargs="?", type=Path,
                        help="text file to count (default: a generated sample)")
    parser.add_argument("--master", default="local[*]",
                        help="local, local[N] or local[*] (default: %(default)s)")
    parser.add_argument("--lines", type=int, default=10_000,
                        help="lines of generated sample text when no FILE is given "
                             "(default: %(default)s)")
    parser.add_argument("--top", type=int, default=20,
                        help="how many words to print (default: %(default)s)")
    return parser


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.file is not None and not args.file.is_file():
        parser.error(f"{args.file} is not a file")
    return args


def count_words(sc: SparkContext, path: Path, top: int) -> list[tuple[str, int]]:
    """Return the ``top`` most frequent words of ``path`` with their counts."""
    lines = sc.textFile(str(path))
    counts = (lines.flatMap(lambda line: line.split())
              .map(lambda word: (word, 1))
              .reduceByKey(add))
    return counts.takeOrdered(top, key=lambda pair: (-pair[1], pair[0]))


def main(argv: list[str] | None = None) -> int:
    """Run the word count; return the exit status."""
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="wordcount-") as tmp:
        path = args.file
        if path is None:
            path = write_corpus(Path(tmp) / "sample.txt", args.lines)
            print(f"counting {args.lines} generated lines ({path})", file=sys.stderr)
        sc = SparkContext(master=args.master, appName="PythonWordCount")
        try:
            output = count_words(sc, path, args.top)
        finally:
            sc.stop()
    for word, count in output:
        print("%s: %i" % (word, count))
    return 0


if __name__ == "__main__":
    sys.exit(main())

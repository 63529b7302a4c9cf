"""DataFrame word count: ``read.text -> split -> explode -> groupBy -> count``.

PySpark's DataFrame word count with the imports changed. Without a FILE it writes a
sample text file first.

Usage: wordcount.py [FILE] [--master local[2]] [--lines 10000] [--top 10]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from batch._corpus import write_corpus  # noqa: E402 - examples run as scripts

from dstream.sql import SparkSession  # noqa: E402
from dstream.sql import functions as F  # noqa: E402, N812 - PySpark's idiom


def build_parser() -> argparse.ArgumentParser:
    """The example's command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", help="text file to count (default: a generated sample)")
    parser.add_argument("--master", default="local[2]", help="local, local[N] or local[*]")
    parser.add_argument("--lines", type=int, default=10_000, help="lines of the generated sample")
    parser.add_argument("--top", type=int, default=10, help="how many of the most frequent words to show")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)

    spark = SparkSession.builder.master(args.master).appName("PythonSQLWordCount").getOrCreate()
    with tempfile.TemporaryDirectory() as scratch:
        path = args.file or str(write_corpus(Path(scratch) / "sample.txt", args.lines))
        lines = spark.read.text(path)
        words = lines.select(F.explode(F.split(F.col("value"), " ")).alias("word")).where(F.col("word") != "")
        counts = words.groupBy("word").count()
        counts.orderBy(F.desc("count"), "word").show(args.top)
        print(f"{counts.count()} distinct words")
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

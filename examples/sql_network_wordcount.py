r"""Counts words received from the network every second with DataFrames and SQL on each batch.

Spark's ``examples/src/main/python/streaming/sql_network_wordcount.py`` on dstreams: a
DStream's ``foreachRDD`` turns each batch's words into a DataFrame of ``Row(word=...)``,
makes it the view ``words`` and prints ``select word, count(*) as total from words group
by word`` with ``show``. The SparkSession is one lazily made singleton, made from the
batch RDD's context's configuration. The pipeline is PySpark's with the imports changed.

Usage::

    sql_network_wordcount.py [<hostname> <port>] [--batches N] [--batch-interval S] [--master local[2]]

``<hostname>`` and ``<port>`` describe the TCP server the stream connects to
(``nc -lk 9999``); without them the example starts its own line server on 127.0.0.1
that sends sample text. Ctrl-C stops it gracefully.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from _live import add_run_options, add_server_arguments, run, server_address  # beside this script

from rdd import SparkContext

from dstream import StreamingContext
from dstream.sql import Row, SparkSession


def getSparkSessionInstance(sparkConf: Any) -> SparkSession:  # noqa: N802,N803 - Spark example's names
    """The program's one SparkSession, made on first use (a batch's job runs this)."""
    if "sparkSessionSingletonInstance" not in globals():
        globals()["sparkSessionSingletonInstance"] = SparkSession.builder.config(conf=sparkConf).getOrCreate()
    return globals()["sparkSessionSingletonInstance"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="Count each batch's words with a SQL query on a DataFrame.")
    add_server_arguments(parser)
    add_run_options(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    host, port, server = server_address(parser, args)
    sc = SparkContext(args.master, appName="PythonSqlNetworkWordCount")
    ssc = StreamingContext(sc, args.batch_interval)

    lines = ssc.socketTextStream(host, port)
    words = lines.flatMap(lambda line: line.split(" "))

    def process(time: Any, rdd: Any) -> None:
        print(f"========= {time} =========")
        if rdd.isEmpty():
            return  # nothing to make a DataFrame of (Spark's example lets the error pass)
        spark = getSparkSessionInstance(rdd.context.getConf())
        rowRdd = rdd.map(lambda w: Row(word=w))  # noqa: N806 - the Spark example's names
        wordsDataFrame = spark.createDataFrame(rowRdd)  # noqa: N806
        wordsDataFrame.createOrReplaceTempView("words")
        wordCountsDataFrame = spark.sql("select word, count(*) as total from words group by word")  # noqa: N806
        wordCountsDataFrame.show()

    words.foreachRDD(process)

    try:
        return run(ssc, args.batches)
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    sys.exit(main())

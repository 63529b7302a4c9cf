r"""Counts words in UTF-8 text read from a Kafka topic every second.

Spark's ``examples/src/main/python/streaming/direct_kafka_wordcount.py`` (shipped as
``kafka_wordcount.py``) on dstreams: a direct stream, no receivers, the pipeline is
PySpark's with the imports changed.

Usage::

    kafka_wordcount.py <bootstrap-servers> <topic> [--batches N] [--from-beginning]
                       [--sample-lines N] [--batch-interval S] [--master local[2]]

To run it against your broker, write lines to the topic with any producer, e.g.::

    $ bin/kafka-console-producer.sh --bootstrap-server localhost:9092 --topic words
    $ python examples/kafka_wordcount.py localhost:9092 words

Without a broker of your own, start the project's test broker first::

    $ bash scripts/kafka/kafka-maven.sh run -- \
          python examples/kafka_wordcount.py '$KAFKA_BOOTSTRAP' words --sample-lines 40 --batches 3

(the script sets ``KAFKA_BOOTSTRAP``; a literal ``$KAFKA_BOOTSTRAP`` argument is read from
the environment). ``--sample-lines N`` first writes N lines of sample text to the topic
with ``KafkaUtils.writeToKafka`` (created if missing) and starts the stream at the
topic's earliest offsets, so the first batch counts them; ``--from-beginning`` does the
latter alone. Otherwise only records written after the start are counted. Ctrl-C stops
it gracefully.
"""

from __future__ import annotations

import argparse
import os
import sys

from _live import SAMPLE_TEXT, add_run_options, run  # beside this script, which is on sys.path[0]

from rdd import SparkContext

from dstream import StreamingContext
from dstream.kafka import KafkaUtils


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="Count the words of a Kafka topic, per batch.")
    parser.add_argument("bootstrap", help="Kafka bootstrap servers, host:port[,host:port] "
                                          "('$KAFKA_BOOTSTRAP': read from the environment)")
    parser.add_argument("topic", help="topic to read")
    parser.add_argument("--from-beginning", action="store_true",
                        help="start at the earliest offsets (default: only records written "
                             "from now on, or from the earliest with --sample-lines)")
    parser.add_argument("--sample-lines", type=int, default=0, metavar="N",
                        help="first write N lines of sample text to the topic and count from the "
                             "earliest offsets, so they are counted (default: 0)")
    add_run_options(parser)
    return parser


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.bootstrap == "$KAFKA_BOOTSTRAP":
        args.bootstrap = os.environ.get("KAFKA_BOOTSTRAP", "")
        if not args.bootstrap:
            parser.error("$KAFKA_BOOTSTRAP was given but the variable is not set")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    sc = SparkContext(args.master, appName="PythonStreamingDirectKafkaWordCount")
    kafka_params = {"metadata.broker.list": args.bootstrap}
    try:
        if args.sample_lines > 0:
            sample = [(None, SAMPLE_TEXT[i % len(SAMPLE_TEXT)]) for i in range(args.sample_lines)]
            written = KafkaUtils.writeToKafka(sc.parallelize(sample), args.topic, kafka_params)
            print(f"wrote {written} sample lines to {args.topic}", file=sys.stderr)
        if args.from_beginning or args.sample_lines > 0:
            # The sample was written before the stream starts: from the latest offsets
            # it would not be counted at all.
            kafka_params["auto.offset.reset"] = "smallest"
        ssc = StreamingContext(sc, args.batch_interval)
    except BaseException:
        sc.stop()
        raise

    kvs = KafkaUtils.createDirectStream(ssc, [args.topic], kafka_params)
    lines = kvs.map(lambda x: x[1])
    counts = lines.flatMap(lambda line: line.split(" ")) \
        .map(lambda word: (word, 1)) \
        .reduceByKey(lambda a, b: a + b)
    counts.pprint()

    return run(ssc, args.batches)


if __name__ == "__main__":
    sys.exit(main())

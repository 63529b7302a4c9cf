r"""Consumes messages from one or more topics in Kafka and does wordcount.

Spark's ``examples/src/main/python/sql/streaming/structured_kafka_wordcount.py`` on
dstreams: the query is PySpark's with the imports changed.

Usage::

    structured_kafka_wordcount.py <bootstrap-servers> <subscribe-type> <topics>
                                  [--sample-lines N] [--from-beginning] [--batches N] [--master local[2]]

``<bootstrap-servers>``
    The Kafka "bootstrap.servers" configuration: a comma-separated list of host:port
    (``'$KAFKA_BOOTSTRAP'``: read from the environment).
``<subscribe-type>``
    ``assign`` (specific TopicPartitions to consume, a JSON string
    ``{"topicA":[0,1],"topicB":[2,4]}``), ``subscribe`` (a comma-separated list of
    topics) or ``subscribePattern`` (a regular expression on topic names).
``<topics>``
    The topics in the form ``<subscribe-type>`` asks for.

Each micro-batch prints the running counts of every word (complete mode, console
sink). By default only records written after the start are counted (Spark's
``startingOffsets`` of a stream: latest). ``--sample-lines N`` first writes N lines of
sample text to each topic named (created if missing; with ``assign``, spread over the
partitions given) and reads from the earliest offsets, so the first micro-batch counts
them; ``--from-beginning`` does the latter alone. With the project's test broker::

    $ bash scripts/kafka/kafka-maven.sh run -- python examples/sql/streaming/structured_kafka_wordcount.py \
          '$KAFKA_BOOTSTRAP' subscribe words --sample-lines 40 --batches 1

Ctrl-C stops it; ``--batches N`` stops it after N micro-batches.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # examples/, for _live

from _live import SAMPLE_TEXT, add_query_options, run_query  # noqa: E402

from dstream.sql import SparkSession  # noqa: E402
from dstream.sql.functions import explode, split  # noqa: E402

SUBSCRIBE_TYPES = ("assign", "subscribe", "subscribePattern")


def build_parser() -> argparse.ArgumentParser:
    """The example's command line."""
    parser = argparse.ArgumentParser(description="Count the words of Kafka topics: running totals per micro-batch.")
    parser.add_argument("bootstrap", metavar="bootstrap-servers",
                        help="Kafka bootstrap servers, host:port[,host:port] ('$KAFKA_BOOTSTRAP': read from "
                             "the environment)")
    parser.add_argument("subscribe_type", metavar="subscribe-type", choices=SUBSCRIBE_TYPES,
                        help="how <topics> names what to read: assign, subscribe or subscribePattern")
    parser.add_argument("topics",
                        help='assign: JSON like {"topicA":[0,1]}; subscribe: topic1,topic2; '
                             "subscribePattern: a regular expression")
    parser.add_argument("--sample-lines", type=int, default=0, metavar="N",
                        help="first write N lines of sample text to each topic named and count from the "
                             "earliest offsets, so they are counted (default: 0; not with subscribePattern)")
    parser.add_argument("--from-beginning", action="store_true",
                        help="start at the earliest offsets (default: only records written from now on, or "
                             "from the earliest with --sample-lines)")
    add_query_options(parser)
    return parser


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.bootstrap == "$KAFKA_BOOTSTRAP":
        args.bootstrap = os.environ.get("KAFKA_BOOTSTRAP", "")
        if not args.bootstrap:
            parser.error("$KAFKA_BOOTSTRAP was given but the variable is not set")
    if args.sample_lines < 0:
        parser.error(f"--sample-lines must be 0 or more, got {args.sample_lines}")
    if args.sample_lines and args.subscribe_type == "subscribePattern":
        parser.error("--sample-lines writes to the topics named by subscribe or assign; a subscribePattern "
                     "names none: write the lines yourself and use --from-beginning")
    return args


def sample_rows(subscribe_type: str, topics: str, count: int) -> list[tuple[str, str, int | None]]:
    """``(value, topic, partition)`` of ``count`` sample lines for each topic of ``topics``."""
    lines = [SAMPLE_TEXT[i % len(SAMPLE_TEXT)] for i in range(count)]
    if subscribe_type == "subscribe":
        return [(line, topic.strip(), None) for topic in topics.split(",") if topic.strip() for line in lines]
    try:
        assigned = {str(topic): [int(p) for p in partitions] for topic, partitions in json.loads(topics).items()}
    except (ValueError, TypeError, AttributeError):
        raise SystemExit(f'assign expects JSON like {{"topicA":[0,1]}}, got {topics!r}') from None
    return [(line, topic, partitions[i % len(partitions)])
            for topic, partitions in assigned.items() if partitions for i, line in enumerate(lines)]


def write_sample_lines(spark: SparkSession, bootstrap: str, subscribe_type: str, topics: str, count: int) -> int:
    """Write the sample lines with the Kafka sink of a batch DataFrame; the number written."""
    rows = sample_rows(subscribe_type, topics, count)
    spark.createDataFrame(rows, "value string, topic string, partition int")\
        .write\
        .format("kafka")\
        .option("kafka.bootstrap.servers", bootstrap)\
        .save()
    return len(rows)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    bootstrapServers, subscribeType, topics = args.bootstrap, args.subscribe_type, args.topics

    spark = SparkSession\
        .builder\
        .master(args.master)\
        .appName("StructuredKafkaWordCount")\
        .getOrCreate()

    if args.sample_lines > 0:
        written = write_sample_lines(spark, bootstrapServers, subscribeType, topics, args.sample_lines)
        print(f"wrote {written} sample lines to {topics}", file=sys.stderr)
    # The sample was written before the query starts: from the latest offsets it would
    # not be counted at all.
    startingOffsets = "earliest" if args.from_beginning or args.sample_lines > 0 else "latest"

    # Create DataSet representing the stream of input lines from kafka
    lines = spark\
        .readStream\
        .format("kafka")\
        .option("kafka.bootstrap.servers", bootstrapServers)\
        .option(subscribeType, topics)\
        .option("startingOffsets", startingOffsets)\
        .load()\
        .selectExpr("CAST(value AS STRING)")

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

    return run_query(spark, query, args.batches)


if __name__ == "__main__":
    sys.exit(main())

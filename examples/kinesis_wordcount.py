r"""Counts words in UTF-8 text read from an Amazon Kinesis stream every second.

Spark's ``examples/src/main/python/streaming/kinesis_wordcount_asl.py`` on dstreams: one
receiver of application ``<app-name>`` reads every shard of the stream, checkpointing
every 2 s in the DynamoDB table named after the application. The pipeline is PySpark's
with the imports changed; it needs boto3 (``pip install 'dstreams[kinesis]'``).

Usage::

    kinesis_wordcount.py <app-name> <stream-name> <endpoint-url> <region-name>
                         [--sample-lines N] [--from-beginning] [--batches N]
                         [--batch-interval S] [--master local[2]]

For example, against AWS (credentials from the environment, as for any boto3 program)::

    $ python examples/kinesis_wordcount.py wordcount-app words \
          https://kinesis.us-east-1.amazonaws.com us-east-1

``--sample-lines N`` first writes N lines of sample text to the stream (made, with one
shard, if missing) and reads it from its oldest records, so the first batch counts them;
``--from-beginning`` does the latter alone. Otherwise, as Spark's example, only records
written after the start are counted (when the application has no checkpoint yet).
Ctrl-C stops it gracefully.
"""

from __future__ import annotations

import argparse
import sys

from _live import SAMPLE_TEXT, add_run_options, run  # beside this script, which is on sys.path[0]

from rdd import SparkContext

from dstream import StreamingContext
from dstream.kinesis import InitialPositionInStream, KinesisUtils

#: Seconds before a stream made by --sample-lines is ACTIVE.
STREAM_READY_S = 60


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="Count the words of a Kinesis stream, per batch.")
    parser.add_argument("app_name", metavar="app-name", help="the Kinesis application (its DynamoDB lease table)")
    parser.add_argument("stream_name", metavar="stream-name", help="the Kinesis stream to read")
    parser.add_argument("endpoint_url", metavar="endpoint-url",
                        help="the Kinesis endpoint, e.g. https://kinesis.us-east-1.amazonaws.com")
    parser.add_argument("region_name", metavar="region-name", help="the AWS region, e.g. us-east-1")
    parser.add_argument("--from-beginning", action="store_true",
                        help="start at the oldest records (default: only records written from now on, "
                             "or the oldest with --sample-lines)")
    parser.add_argument("--sample-lines", type=int, default=0, metavar="N",
                        help="first write N lines of sample text to the stream (made if missing) and "
                             "read from the oldest records, so they are counted (default: 0)")
    add_run_options(parser)
    return parser


def write_sample(args: argparse.Namespace) -> None:
    """Make the stream if it is missing, then put ``--sample-lines`` lines of sample text into it."""
    import boto3  # noqa: PLC0415 - dstream.kinesis needs it too; here only for the sample

    kinesis = boto3.client("kinesis", endpoint_url=args.endpoint_url, region_name=args.region_name)
    try:
        kinesis.create_stream(StreamName=args.stream_name, ShardCount=1)
    except kinesis.exceptions.ResourceInUseException:
        pass  # it exists
    kinesis.get_waiter("stream_exists").wait(StreamName=args.stream_name,
                                             WaiterConfig={"Delay": 1, "MaxAttempts": STREAM_READY_S})
    for i in range(args.sample_lines):
        line = SAMPLE_TEXT[i % len(SAMPLE_TEXT)]
        kinesis.put_record(StreamName=args.stream_name, Data=line.encode("utf-8"), PartitionKey=str(i))
    print(f"wrote {args.sample_lines} sample lines to {args.stream_name}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.sample_lines > 0:
        write_sample(args)
    position = (InitialPositionInStream.TRIM_HORIZON if args.from_beginning or args.sample_lines > 0
                else InitialPositionInStream.LATEST)
    sc = SparkContext(args.master, appName="PythonStreamingKinesisWordCountAsl")
    ssc = StreamingContext(sc, args.batch_interval)
    lines = KinesisUtils.createStream(ssc, args.app_name, args.stream_name, args.endpoint_url, args.region_name,
                                      position, 2)
    counts = lines.flatMap(lambda line: line.split(" ")) \
        .map(lambda word: (word, 1)) \
        .reduceByKey(lambda a, b: a + b)
    counts.pprint()

    return run(ssc, args.batches)


if __name__ == "__main__":
    sys.exit(main())

"""Count numbers by last digit over a queue of RDDs: Spark's ``queue_stream.py`` on dstreams.

Each batch takes the next RDD of the queue (the numbers 1..1000), counts them by
``x % 10`` and prints the counts with ``pprint``. No network, no files: a queue stream
is the simplest way to feed known data through a streaming job.

Run::

    python examples/queue_stream.py                     # 5 one-second batches on local[2]
    python examples/queue_stream.py --batches 3 --batch-interval 0.2 --master local

The only change from the PySpark program is the imports; instead of ``time.sleep(6)``
the run stops after ``--batches`` batches, one per RDD of the queue.
"""

from __future__ import annotations

import argparse
import sys

from _live import add_run_options, run  # beside this script, which is on sys.path[0]

from rdd import SparkContext

from dstream import StreamingContext


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_run_options(parser, batches=5)
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="give up after this many seconds (default: %(default)s)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)

    sc = SparkContext(args.master, "PythonStreamingQueueStream")
    ssc = StreamingContext(sc, args.batch_interval)

    # Create the queue through which RDDs can be pushed to a QueueInputDStream.
    rdd_queue = [sc.parallelize(range(1, 1001), 10) for _ in range(args.batches)]

    # Create the QueueInputDStream and use it to do some processing.
    input_stream = ssc.queueStream(rdd_queue)
    mapped_stream = input_stream.map(lambda x: (x % 10, 1))
    reduced_stream = mapped_stream.reduceByKey(lambda a, b: a + b)
    reduced_stream.pprint()

    return run(ssc, args.batches, timeout=args.timeout)


if __name__ == "__main__":
    sys.exit(main())

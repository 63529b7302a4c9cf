"""Count numbers by last digit over a queue of RDDs: Spark's ``queue_stream.py`` on dstreams.

Each batch takes the next RDD of the queue (the numbers 1..1000), counts them by
``x % 10`` and prints the counts with ``pprint``. No network, no files: a queue stream
is the simplest way to feed known data through a streaming job.

Run::

    python examples/queue_stream.py                     # 5 one-second batches on local[2]
    python examples/queue_stream.py --batches 3 --batch-duration 0.2 --master local

The only change from the PySpark program is the imports; the stop condition uses a
StreamingListener instead of ``time.sleep`` so the run ends as soon as the queue is
drained.
"""

from __future__ import annotations

import argparse
import threading
from typing import Any

from dstream import StreamingContext, StreamingListener
from rdd import SparkContext


class StopAfter(StreamingListener):
    """Sets ``done`` once ``batches`` batches have completed."""

    def __init__(self, batches: int) -> None:
        self.remaining = batches
        self.done = threading.Event()

    def onBatchCompleted(self, batchCompleted: Any) -> None:  # noqa: N802, N803 - PySpark's names
        self.remaining -= 1
        if self.remaining <= 0:
            self.done.set()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=5, help="number of RDDs in the queue (default 5)")
    parser.add_argument("--batch-duration", type=float, default=1.0, help="seconds per batch (default 1)")
    parser.add_argument("--master", default="local[2]", help="SparkContext master (default local[2])")
    parser.add_argument("--timeout", type=float, default=60.0, help="give up after this many seconds")
    args = parser.parse_args(argv)

    sc = SparkContext(args.master, "PythonStreamingQueueStream")
    ssc = StreamingContext(sc, args.batch_duration)

    # Create the queue through which RDDs can be pushed to a QueueInputDStream.
    rdd_queue = [sc.parallelize(range(1, 1001), 10) for _ in range(args.batches)]

    # Create the QueueInputDStream and use it to do some processing.
    input_stream = ssc.queueStream(rdd_queue)
    mapped_stream = input_stream.map(lambda x: (x % 10, 1))
    reduced_stream = mapped_stream.reduceByKey(lambda a, b: a + b)
    reduced_stream.pprint()

    stopper = StopAfter(args.batches)
    ssc.addStreamingListener(stopper)
    ssc.start()
    try:
        if not stopper.done.wait(args.timeout):
            raise SystemExit(f"queue_stream: {args.batches} batches did not finish within {args.timeout} s")
        ssc.awaitTerminationOrTimeout(0)  # re-raises an error of any batch
    finally:
        ssc.stop(stopSparkContext=True, stopGraceFully=True)


if __name__ == "__main__":
    main()

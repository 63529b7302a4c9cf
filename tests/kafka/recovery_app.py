"""A streaming driver for the Kafka crash test: a direct stream -> per-batch word counts.

Run by ``test_recovery.py`` as a separate process, killed with SIGKILL at random
batches, and started again on the same checkpoint directory: the program is the same
every time, recovery is ``StreamingContext.getOrCreate``'s job (PySpark's recipe).

Output: for every batch time ``t``, ``<out>/batch-<t>.json`` holding the batch's offset
ranges and its word counts, written atomically (temp file + ``os.replace``). A batch
replayed after a crash rewrites its own file, so the output is idempotent per batch:
with the offsets of every batch in the checkpoint, each record is counted exactly once.

Usage::

    python -m tests.kafka.recovery_app BOOTSTRAP TOPIC CHECKPOINT OUT [--batch-interval 0.25]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import threading
from operator import add

from rdd import SparkConf, SparkContext

from dstream import StreamingContext
from dstream.kafka import KafkaUtils


def write_batch(out: str, time_ms: int, ranges: list, counts: dict, master: str) -> None:
    target = os.path.join(out, f"batch-{time_ms}.json")
    temp = f"{target}.{os.getpid()}.tmp"
    with open(temp, "w") as f:
        json.dump({"ranges": ranges, "counts": counts, "master": master}, f, sort_keys=True)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temp, target)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("bootstrap")
    parser.add_argument("topic")
    parser.add_argument("checkpoint")
    parser.add_argument("out")
    parser.add_argument("--batch-interval", type=float, default=0.25)
    parser.add_argument("--rate", type=int, default=40, help="maxRatePerPartition (records/s)")
    parser.add_argument("--master", default="local[2]", help="local[2], or ray (joins RAY_ADDRESS)")
    args = parser.parse_args()

    def create() -> StreamingContext:
        conf = SparkConf().set("spark.streaming.kafka.maxRatePerPartition", str(args.rate))
        sc = SparkContext.getOrCreate(conf.setMaster(args.master).setAppName("kafka-recovery"))
        ssc = StreamingContext(sc, args.batch_interval)
        ssc.checkpoint(args.checkpoint)
        stream = KafkaUtils.createDirectStream(
            ssc, [args.topic], {"bootstrap.servers": args.bootstrap, "auto.offset.reset": "earliest"})

        def output(time, rdd):  # noqa: A002 - PySpark's foreachRDD(time, rdd) form
            ranges = [[r.topic, r.partition, r.fromOffset, r.untilOffset] for r in rdd.offsetRanges()]
            counts = dict(rdd.flatMap(lambda kv: kv[1].split()).map(lambda w: (w, 1)).reduceByKey(add).collect())
            write_batch(args.out, int(time.timestamp() * 1000), ranges, counts, rdd.context.master)

        stream.foreachRDD(output)
        return ssc

    ssc = StreamingContext.getOrCreate(args.checkpoint, create)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    ssc.start()
    print("started", flush=True)
    while not stop.is_set() and not ssc.awaitTerminationOrTimeout(0.1):
        pass
    ssc.stop(stopSparkContext=True, stopGraceFully=True)


if __name__ == "__main__":
    main()

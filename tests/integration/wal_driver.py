"""A streaming driver process for the crash and shutdown tests: socket lines -> per-batch files.

Run by ``test_socket_wal_recovery.py`` (killed with SIGKILL, then started again) and by
``test_graceful_shutdown.py`` (stopped with SIGTERM)::

    python -m tests.integration.wal_driver --port P --out DIR [--checkpoint DIR]
        [--master local[2]] [--batch 0.5]

It is an ordinary application, written as a user would write one:

* ``spark.streaming.stopGracefullyOnShutdown=true``: SIGTERM stops it gracefully;
* with ``--checkpoint``: ``spark.streaming.receiver.writeAheadLog.enable=true``, the
  context comes from ``StreamingContext.getOrCreate(checkpoint, create)``; a restart on
  the same directory recovers (``create`` is then not called);
* the stream is ``socketTextStream("127.0.0.1", P)`` and its output operation writes
  ``<out>/batch-<t>.json`` (the batch's lines, sorted) for every batch ``t`` with lines,
  atomically (temporary file + rename). A batch run again after a recovery rewrites its
  file with the same content: idempotent per-batch output, which is what makes Spark's
  at-least-once batch replay count every line exactly once.

Each batch sleeps ``WAL_DRIVER_BATCH_COST`` seconds (environment, read per batch, so a
recovered driver, whose output function comes from the checkpoint, can run fast).

On stdout: ``started pending=<p> unallocated=<u>`` once running (batches recovered from
the block log and blocks recovered but not yet in a batch), then ``received <n>``
whenever the number of lines stored (logged and reported to the driver) changes.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

from rdd import SparkConf, SparkContext

from dstream import StreamingContext
from tests.integration.watched import DEADLINE, WatchedProcess, alive

__all__ = ["DEADLINE", "Driver", "alive", "outputs"]


def write_batch(out: str, time_ms: int, lines: list[str]) -> None:
    if not lines:
        return
    target = os.path.join(out, f"batch-{time_ms}.json")
    temp = f"{target}.{os.getpid()}.tmp"
    with open(temp, "w") as f:
        json.dump(sorted(lines), f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temp, target)


class BatchWriter:
    """The output operation (saved in the checkpoint with the graph)."""

    def __init__(self, out: str) -> None:
        self.out = out

    def __call__(self, time_value: Any, rdd: Any) -> None:
        time_ms = round(time_value.timestamp() * 1000)
        write_batch(self.out, time_ms, rdd.collect())
        cost = float(os.environ.get("WAL_DRIVER_BATCH_COST", "0") or 0)
        if cost:
            time.sleep(cost)


def create(args: argparse.Namespace) -> StreamingContext:
    conf = SparkConf()
    conf.set("spark.streaming.stopGracefullyOnShutdown", "true")
    conf.set("spark.streaming.gracefulStopTimeout", "60000")
    conf.set("spark.streaming.blockInterval", "50ms")
    conf.set("spark.streaming.receiverRestartDelay", "100")
    if args.checkpoint:
        conf.set("spark.streaming.receiver.writeAheadLog.enable", "true")
        # Short segments, so the test sees processed ones deleted.
        conf.set("spark.streaming.receiver.writeAheadLog.rollingIntervalSecs", "1")
        conf.set("spark.streaming.driver.writeAheadLog.rollingIntervalSecs", "1")
    sc = SparkContext(args.master, "wal-driver", conf=conf)
    ssc = StreamingContext(sc, args.batch)
    if args.checkpoint:
        ssc.checkpoint(args.checkpoint)
    ssc.socketTextStream("127.0.0.1", args.port).foreachRDD(BatchWriter(args.out))
    print("created", flush=True)
    return ssc


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--checkpoint")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--batch", type=float, default=0.5)
    args = parser.parse_args()

    if args.checkpoint:
        ssc = StreamingContext.getOrCreate(args.checkpoint, lambda: create(args))
    else:
        ssc = create(args)
    ssc.start()
    tracker = ssc._engine.receiver_tracker  # test instrumentation: what was stored so far
    unallocated = sum(len(tracker.block_tracker.get_unallocated_blocks(s)) for s in tracker.stream_ids)
    print(f"started pending={len(tracker.pending_batch_times())} unallocated={unallocated}", flush=True)
    last = -1
    while not ssc.awaitTerminationOrTimeout(0.02):
        n = tracker.block_tracker.received_records()
        if n != last:
            print(f"received {n}", flush=True)
            last = n


# -- the test side -------------------------------------------------------------------------


class Driver(WatchedProcess):
    """``wal_driver`` in a subprocess: its stdout lines as they come, its workers, its exit."""

    def __init__(self, *args: str, batch_cost: float = 0.0) -> None:
        super().__init__("tests.integration.wal_driver", list(args), {"WAL_DRIVER_BATCH_COST": str(batch_cost)},
                         "the driver")

    def received(self) -> int:
        with self._cond:
            counts = [int(x.split()[1]) for x in self.lines if x.startswith("received ")]
        return counts[-1] if counts else 0

    def wait_received(self, n: int, timeout: float = DEADLINE) -> None:
        self.wait_line(lambda x: x.startswith("received ") and int(x.split()[1]) >= n,
                       f"received {n}", timeout)


def outputs(out: Path) -> list[str]:
    """Every line of every batch file (a line in two batches appears twice)."""
    lines: list[str] = []
    for path in sorted(out.glob("batch-*.json")):
        lines.extend(json.loads(path.read_text()))
    return lines


if __name__ == "__main__":
    main()

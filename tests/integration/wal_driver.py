"""A streaming driver for the crash test: socket lines -> per-batch files, WAL on.

Run by ``test_socket_wal_recovery.py`` as a separate process, killed with SIGKILL, then
run again with ``--recover``.

Output: for every batch time ``t`` with lines, ``<out>/batch-<t>.json`` (a sorted list of
the batch's lines), written atomically (temp file + rename), so a batch replayed after
recovery replaces its file with the same content: per-batch idempotent output, as
Spark's recovery requires. On stdout: ``received <n>`` whenever the count of stored
lines changes.

With ``--recover`` the received-block log is replayed. Until the job generator re-runs
pending batches itself (the checkpoint issue), this driver does that step by hand:
each batch allocated before the crash and not cleaned up is recomputed from its logged
blocks at its own batch time.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time

from dstream.inputs.block_rdd import BlockNode
from rdd import SparkConf, SparkContext
from tests.receiver.contexts import SSC


def write_batch(out: str, time_ms: int, lines: list[str]) -> None:
    if not lines:
        return
    target = os.path.join(out, f"batch-{time_ms}.json")
    temp = target + ".tmp"
    with open(temp, "w") as f:
        json.dump(sorted(lines), f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temp, target)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--checkpoint", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--master", default="local")
    parser.add_argument("--recover", action="store_true")
    parser.add_argument("--slow", type=float, default=0.0, help="seconds each batch takes")
    args = parser.parse_args()

    conf = SparkConf()
    conf.set("spark.streaming.receiver.writeAheadLog.enable", "true")
    conf.set("spark.streaming.blockInterval", "50ms")
    conf.set("spark.streaming.receiverRestartDelay", "100")
    sc = SparkContext(args.master, "wal-driver", conf=conf)
    ssc = SSC(sc, 0.5)
    ssc.checkpoint(args.checkpoint)
    if args.recover:
        ssc._recover_received_blocks()
    lines = ssc.socketTextStream("127.0.0.1", args.port)

    def output(time_value: object, rdd: object) -> None:
        time_ms = round(time_value.timestamp() * 1000)  # type: ignore[attr-defined]
        write_batch(args.out, time_ms, rdd.collect())  # type: ignore[attr-defined]
        if args.slow:
            time.sleep(args.slow)

    lines.foreachRDD(output)
    ssc.start()
    tracker = ssc._receiver_tracker
    if args.recover:
        pending = tracker.pending_batch_times()
        unallocated = len(tracker.block_tracker.get_unallocated_blocks(0))
        for t in pending:
            infos = tracker.get_blocks_of_batch_and_stream(t, 0)
            write_batch(args.out, t, sc._wrap(BlockNode(infos)).collect())
        print(f"recovered pending={len(pending)} unallocated={unallocated}", flush=True)

    last = -1
    stop = threading.Event()
    while not stop.wait(0.01):
        n = tracker.block_tracker.received_records()
        if n != last:
            print(f"received {n}", flush=True)
            last = n
        if sys.stdin.readable() and args.recover and os.path.exists(os.path.join(args.out, "STOP")):
            break
    ssc.stop(stopSparkContext=True, stopGraceFully=True)
    print("stopped", flush=True)


if __name__ == "__main__":
    main()

"""Benchmarks of live input: a socket word count against plain Python, receiver cost, latency.

This module owns three measurements, each beside a plain-Python baseline timed in the
same run:

(a) **throughput**: lines per second from a local socket server through
    ``socketTextStream -> flatMap(split) -> map((w, 1)) -> reduceByKey(add)`` to the
    output operation (``foreachRDD`` merging each batch's counts) on ``local[2]``, vs a
    plain-Python program that reads the same socket and counts with a ``Counter``.
    Target: at least 0.7x. The server is a separate process that sends the corpus as
    fast as the client reads and then closes; the time runs from connecting to the last
    word counted (for the engine: to the batch that brings the total to the expected
    number of words, so up to one batch interval of waiting is billed to it).
(b) **receiver overhead per record**: the same socket into a receiver only (records
    stored as blocks, no batches), per record, vs reading and splitting the lines in
    plain Python; the difference is what the receiver adds (buffering, blocks, block
    manager).
(c) **end-to-end latency** at a 100 ms batch interval (50 ms blocks): a line carrying
    its send time goes through the server's socket; the output operation records when it
    sees it. Baseline: the same line read by a plain socket client.

The engine's correctness is checked once before timing: its counts must equal the
baseline's.
"""

from __future__ import annotations

import logging
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from operator import add
from pathlib import Path
from typing import Any

from bench.corpus import ensure_corpus
from bench.harness import Benchmark, Options, Result, Target, Timing

TITLE = "live input (socket receiver) against plain Python"
WORKERS = 2
BATCH_S = 0.5
BLOCK_MS = 50
DEADLINE_S = 300.0


# -- the server process ----------------------------------------------------------------
def serve(path: str, connections: int) -> None:
    """Listen on 127.0.0.1, print the port, send ``path`` to each of ``connections`` clients."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        print(listener.getsockname()[1], flush=True)
        for _ in range(connections):
            conn, _ = listener.accept()
            with conn, open(path, "rb") as f:
                conn.sendfile(f)
                conn.shutdown(socket.SHUT_WR)
                # Wait for the client to close, so the data is never cut short.
                while conn.recv(65536):
                    pass


class Server:
    """The corpus server as a separate process (it must not compete for our GIL)."""

    def __init__(self, path: Path, connections: int) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bench.bench_socket", "serve", str(path), str(connections)],
            stdout=subprocess.PIPE,
            text=True,
            cwd=Path(__file__).resolve().parents[1],
        )
        assert self.proc.stdout is not None
        self.port = int(self.proc.stdout.readline())

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)


# -- (a), (b) baselines -----------------------------------------------------------------
def plain_count(port: int) -> Counter[str]:
    """The plain-Python program: read the socket's lines, count words with a Counter."""
    counter: Counter[str] = Counter()
    with socket.create_connection(("127.0.0.1", port)) as sock:
        with sock.makefile("r", encoding="utf-8", errors="replace", newline="\n") as lines:
            for line in lines:
                counter.update(line.split())
    return counter


def plain_read(port: int) -> int:
    """Read and split the socket's lines without counting (the receiver's baseline)."""
    n = 0
    with socket.create_connection(("127.0.0.1", port)) as sock:
        with sock.makefile("r", encoding="utf-8", errors="replace", newline="\n") as lines:
            for line in lines:
                line.rstrip("\n")
                n += 1
    return n


# -- (a) engine -------------------------------------------------------------------------
def _quiet() -> None:
    # The receiver warns and reconnects when the server closes after the corpus.
    logging.getLogger("dstream.receiver").setLevel(logging.ERROR)
    logging.getLogger("dstream.receiver.supervisor").setLevel(logging.ERROR)


def _streaming_context(sc: Any, batch_s: float) -> Any:
    from dstream.context import StreamingContext
    from dstream.context_inputs import InputMethods

    if issubclass(StreamingContext, InputMethods):
        return StreamingContext(sc, batch_s)

    class WithInputs(InputMethods, StreamingContext):  # until the context lists the mixin
        pass

    return WithInputs(sc, batch_s)


def engine_count(sc: Any, port: int, expected_words: int) -> Counter[str]:
    """Run the streaming word count until it has counted ``expected_words`` words."""
    ssc = _streaming_context(sc, BATCH_S)
    total: Counter[str] = Counter()
    done = threading.Event()

    def merge(rdd: Any) -> None:
        total.update(dict(rdd.collect()))
        if sum(total.values()) >= expected_words:
            done.set()

    lines = ssc.socketTextStream("127.0.0.1", port)
    lines.flatMap(lambda line: line.split()).map(lambda w: (w, 1)).reduceByKey(add).foreachRDD(
        merge
    )
    ssc.start()
    try:
        if not done.wait(DEADLINE_S):
            raise AssertionError(f"the streaming word count did not finish within {DEADLINE_S} s")
    finally:
        ssc.stop(stopSparkContext=False)
    return total


def receiver_only(sc: Any, port: int, lines: int) -> None:
    """Store the socket's lines through a receiver (no batches run) until all are stored."""
    from rdd import StorageLevel

    from dstream.inputs.socket import SocketReceiver
    from dstream.receiver.settings import ReceiverSettings
    from dstream.receiver.tracker import ReceiverTracker

    tracker = ReceiverTracker(ReceiverSettings.from_conf(sc._conf))
    tracker.add_receiver(0, SocketReceiver("127.0.0.1", port, StorageLevel.MEMORY_AND_DISK_2))
    tracker.start()
    try:
        if not tracker.wait_received(lines, DEADLINE_S):
            raise AssertionError(f"the receiver did not store {lines} lines within {DEADLINE_S} s")
    finally:
        tracker.stop(timeout=30)
        from rdd.storage import block_manager

        tracker.remove_blocks(tracker.block_tracker.get_unallocated_blocks(0))
        del block_manager


def _timed(fn: Any, server_path: Path, repeat: int) -> tuple[Timing, Any]:
    samples, result = [], None
    for _ in range(repeat):
        server = Server(server_path, 1)
        try:
            started = time.perf_counter()
            result = fn(server.port)
            samples.append(time.perf_counter() - started)
        finally:
            server.close()
    return Timing(tuple(samples)), result


# -- (c) latency ------------------------------------------------------------------------
def latency(sc: Any, samples: int) -> tuple[Timing, Timing]:
    """Median/p99 of line-sent to line-seen, engine at 100 ms batches vs a plain client."""
    from dstream.testing import collect_batches  # noqa: F401 - engine loaded

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(2)
    port = listener.getsockname()[1]
    sent: dict[int, float] = {}
    seen: dict[int, float] = {}
    lock = threading.Lock()

    def record(rdd: Any) -> None:
        ids = [int(line) for line in rdd.collect()]
        now = time.perf_counter()
        with lock:
            for i in ids:
                seen.setdefault(i, now)

    ssc = _streaming_context(sc, 0.1)
    ssc.socketTextStream("127.0.0.1", port).foreachRDD(record)
    ssc.start()
    conn, _ = listener.accept()
    try:
        for i in range(samples):
            sent[i] = time.perf_counter()
            conn.sendall(f"{i}\n".encode())
            time.sleep(0.013)  # a steady trickle, off the batch grid
        deadline = time.monotonic() + 30
        while len(seen) < samples and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        conn.close()
        ssc.stop(stopSparkContext=False)
        listener.close()
    engine = Timing(tuple(seen[i] - sent[i] for i in sorted(seen)))

    # Baseline: a plain client reading the same kind of trickle.
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    plain: list[float] = []

    def read() -> None:
        with socket.create_connection(("127.0.0.1", port)) as sock, sock.makefile("r") as lines:
            for line in lines:
                plain.append(time.perf_counter() - sent[int(line)])

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    conn, _ = listener.accept()
    with conn:
        for i in range(min(samples, 100)):
            sent[i] = time.perf_counter()
            conn.sendall(f"{i}\n".encode())
            time.sleep(0.005)
    reader.join(10)
    listener.close()
    return engine, Timing(tuple(plain))


# -- the module entry point ----------------------------------------------------------------
def run(options: Options) -> list[Benchmark]:
    """Run (a), (b) and (c); return one table each."""
    from rdd import SparkConf, SparkContext

    _quiet()
    path = ensure_corpus(options.lines)
    with open(path, "rb") as f:
        line_count = sum(1 for _ in f)
    repeat = max(1, options.repeat)

    baseline, expected = _timed(plain_count, path, repeat)
    words = sum(expected.values())
    # 50 ms blocks: a fast socket fills a 200 ms block with most of the corpus, and a
    # batch then has one big partition for two workers (Spark's advice: tune the block
    # interval so that each batch has a few blocks per core).
    conf = (
        SparkConf()
        .set("spark.streaming.receiverRestartDelay", "60000")
        .set("spark.streaming.blockInterval", f"{BLOCK_MS}ms")
    )
    sc = SparkContext(f"local[{WORKERS}]", "bench-socket", conf=conf)
    try:
        got = engine_count(sc, Server(path, 1).port, words)  # warm-up and correctness
        if got != expected:
            raise AssertionError("the streaming word count differs from the Counter's")
        engine, _ = _timed(lambda port: engine_count(sc, port, words), path, repeat)
        receiver, _ = _timed(lambda port: receiver_only(sc, port, line_count), path, repeat)
        read_baseline, _ = _timed(plain_read, path, repeat)
        engine_latency, plain_latency = latency(sc, 20 if options.quick else 200)
    finally:
        sc.stop()

    size = f"{options.lines:,} lines, {path.stat().st_size / 1e6:.1f} MB"
    per_record_engine = Timing(tuple(s / line_count for s in receiver.samples))
    per_record_plain = Timing(tuple(s / line_count for s in read_baseline.samples))
    overhead_us = (per_record_engine.median - per_record_plain.median) * 1e6
    return [
        Benchmark(
            title="(a) socket word count, lines per second",
            description=(
                f"A server process sends the corpus over 127.0.0.1. Engine: "
                f"`socketTextStream` with {BATCH_S:g} s batches and {BLOCK_MS} ms blocks, `flatMap(split) -> "
                "map((w, 1)) -> reduceByKey(add) -> foreachRDD(merge)` on `local[2]`, "
                "until every word is counted. Baseline: one process reading the "
                "socket's lines into a `Counter`. Engine rate: "
                f"{line_count / engine.median:,.0f} lines/s; baseline "
                f"{line_count / baseline.median:,.0f} lines/s."
            ),
            engine_label="local[2] stream",
            baseline_label="Counter",
            results=(Result(f"socket, {size}", engine, baseline, Target(min_ratio=0.7)),),
        ),
        Benchmark(
            title="(b) receiver cost per record",
            description=(
                "Time per line to store the corpus through a `SocketReceiver` into "
                "blocks (no batches), vs reading and stripping the lines in plain "
                f"Python. Receiver overhead: {overhead_us:.2f} us per record."
            ),
            engine_label="receiver",
            baseline_label="plain read",
            results=(Result("per record", per_record_engine, per_record_plain),),
        ),
        Benchmark(
            title="(c) end-to-end latency at a 100 ms batch interval",
            description=(
                "A line is sent every 13 ms; the time from `sendall` to the output "
                "operation seeing it (`foreachRDD` after `collect()`), 50 ms blocks, "
                f"`local[2]`. Engine p99 {engine_latency.p99 * 1e3:.0f} ms. Baseline: "
                "a plain client reading the same socket."
            ),
            engine_label="stream",
            baseline_label="plain client",
            results=(
                Result(
                    "line sent -> seen by the output operation",
                    engine_latency,
                    plain_latency,
                    Target(max_median=0.25),
                ),
            ),
        ),
    ]


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "serve":
        serve(sys.argv[2], int(sys.argv[3]))
    else:
        from bench.__main__ import main

        sys.exit(main(["socket", *sys.argv[1:]]))

"""A Structured Streaming program for the exactly-once crash test (``test_exactly_once.py``).

Run as a separate process, killed with SIGKILL and started again, unchanged, on the
same checkpoint location::

    python -m tests.sql.streaming.crash_app COMBO --checkpoint DIR --output DIR \
        [--input DIR] [--bootstrap HOST:PORT --in-topic T --out-topic T]

A PySpark program on ``dstream.sql`` and ``local[2]``. ``COMBO`` names a source, a
query and a sink (:data:`COMBOS`):

``file-parquet``
    JSON files (:func:`write_file_input`, read with ``maxFilesPerTrigger=1``) -> a
    watermark, a count per 10-second window and word (STATEFUL, append) -> the parquet
    file sink. ``Trigger.AvailableNow``; the last file's far-away event time closes
    every other window, and the no-data batch after it emits them.
``kafka-foreachbatch``
    A Kafka topic (``maxOffsetsPerTrigger`` 4) -> a running word count (STATEFUL,
    update) -> ``foreachBatch`` writing each batch to a Kafka topic idempotently (see
    :func:`idempotent_writer`). ``Trigger.AvailableNow``.
``kafka-json``
    The same topic -> its lines with their partition and offset (stateless) -> the
    json file sink. ``Trigger.AvailableNow``.
``rate-json``
    ``rate-micro-batch`` (:data:`RATE_ROWS` rows a batch, one second apart) -> a
    watermark, count and sum of the values below ``RATE_TARGET`` per 3-second window,
    windows without any left out (STATEFUL, append) -> the json file sink. The source
    never ends: the program stops the query once a batch ending at :data:`RATE_STOP`
    rows or later is committed, when every window of the kept values has been emitted;
    later batches add nothing.

Crash points
------------
The program prints each checkpoint write as it happens (``offsets N`` after
``offsets/N``, ``manifest N`` after the file sink's ``_spark_metadata/N``, ``commit N``
after ``commits/N``) by wrapping, in this process only, the engine's log writers (the
writes themselves are untouched). With ``CRASH_APP_PAUSE=<phase>:<N>`` it also stops at
one point of batch ``N``, prints ``paused <phase> <N>`` and waits to be killed:

* ``before-offsets``: before ``offsets/N`` (the file source has logged its file);
* ``after-offsets``: ``offsets/N`` written, the batch not run;
* ``in-sink``: the sink half done: the file sink's part files written but not its
  manifest; ``foreachBatch``: half of the batch's records sent to Kafka;
* ``before-commit``: the sink done (the manifest written), ``commits/N`` not;
* ``after-commit``: ``commits/N`` written.

A pause ends when the parent process (the test) is gone or after :data:`PAUSE_S`
seconds, with exit status 3: the program never outlives the test.

Stdout protocol (one line each, flushed): ``started offsets=<L|-> commits=<C|->
master=<m>`` (the latest ``offsets/`` and ``commits/`` ids found at start), the events
above, ``sink N <n>`` when ``foreachBatch`` receives batch ``N`` with ``n`` rows, and
``finished`` after a clean stop (exit 0) or ``error <message>`` (exit 2).

The data and the expected outputs (plain-Python models) are defined here too, so the
test and the program agree on them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

COMBOS = ("file-parquet", "kafka-foreachbatch", "kafka-json", "rate-json")
PHASES = ("before-offsets", "after-offsets", "in-sink", "before-commit", "after-commit")
#: Longest a paused program waits to be killed, and longest a query may run, in seconds.
PAUSE_S = 60.0
RUN_S = 60.0

FILE_COUNT = 8
FILE_WINDOW_S = 10
FILE_DELAY = "5 seconds"
SENTINEL_T = 10_000
WORDS = ("ash", "birch", "cedar", "elm", "fir")

KAFKA_PARTITIONS = 2
KAFKA_LINES = 24
KAFKA_MAX_OFFSETS = 4

RATE_ROWS = 10
RATE_WINDOW_S = 3
RATE_TARGET = 100
RATE_STOP = 150


# ------------------------------------------------------------------ data and expected outputs


def file_events() -> list[list[tuple[int, str]]]:
    """``(t seconds, word)`` per input file: file ``i`` holds times in ``[10 i, 10 i + 12)``.

    With a 5 s delay no event is late (the watermark before file ``i`` is at most
    ``10 i - 4``); the last file is a single far-away event that closes every window.
    """
    rng = random.Random(1307)
    files = [[(FILE_WINDOW_S * i + rng.randrange(12), rng.choice(WORDS)) for _ in range(6)]
             for i in range(FILE_COUNT)]
    return [*files, [(SENTINEL_T, "sentinel")]]


def write_file_input(directory: str) -> None:
    """Write the input files, their modification times one second apart (the read order)."""
    os.makedirs(directory, exist_ok=True)
    base = time.time() - 3600
    for i, events in enumerate(file_events()):
        path = os.path.join(directory, f"events-{i:02d}.json")
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(json.dumps({"t": t, "word": w}) + "\n" for t, w in events)
        os.utime(path, (base + i, base + i))


def expected_file_windows() -> Counter[tuple[int, str]]:
    """``(window start s, word) -> count`` of every window the sentinel closes."""
    return Counter((t // FILE_WINDOW_S * FILE_WINDOW_S, w) for events in file_events()[:-1] for t, w in events)


def kafka_lines() -> dict[int, list[str]]:
    """The input topic's lines per partition."""
    rng = random.Random(4111)
    return {p: [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4))) for _ in range(KAFKA_LINES)]
            for p in range(KAFKA_PARTITIONS)}


def expected_word_counts() -> Counter[str]:
    return Counter(w for lines in kafka_lines().values() for line in lines for w in line.split())


def expected_rate_windows() -> dict[int, tuple[int, int]]:
    """``window start s -> (count, sum)`` of the values below RATE_TARGET (value ``v`` is at ``v // RATE_ROWS`` s)."""
    out: dict[int, tuple[int, int]] = {}
    for v in range(RATE_TARGET):
        start = v // RATE_ROWS // RATE_WINDOW_S * RATE_WINDOW_S
        count, total = out.get(start, (0, 0))
        out[start] = (count + 1, total + v)
    return out


# ------------------------------------------------------------------ crash points


def say(line: str) -> None:
    print(line, flush=True)


def pause_point(pause: tuple[str, int] | None) -> Callable[[str, int], None]:
    """A function ``at(phase, batch)`` that blocks when ``(phase, batch)`` is ``pause`` (see the module docstring)."""
    parent = os.getppid()

    def at(phase: str, batch: int) -> None:
        if pause != (phase, batch):
            return
        say(f"paused {phase} {batch}")
        deadline = time.monotonic() + PAUSE_S
        while os.getppid() == parent and time.monotonic() < deadline:
            time.sleep(0.05)
        os._exit(3)

    return at


def install_crash_points(at: Callable[[str, int], None]) -> None:
    """Report (and pause at) the engine's checkpoint writes; the writes themselves are unchanged."""
    from dstream.sql.streaming.logs import CommitLog, CompactibleFileLog, OffsetSeqLog

    add_offsets, add_commit = OffsetSeqLog.add_offsets, CommitLog.add_commit
    add_entries = CompactibleFileLog.add_entries

    def offsets(self: Any, batch_id: int, seq: Any) -> bool:
        at("before-offsets", batch_id)
        written = add_offsets(self, batch_id, seq)
        say(f"offsets {batch_id}")
        at("after-offsets", batch_id)
        return written

    def commit(self: Any, batch_id: int, next_watermark_ms: int) -> bool:
        at("before-commit", batch_id)
        written = add_commit(self, batch_id, next_watermark_ms)
        say(f"commit {batch_id}")
        at("after-commit", batch_id)
        return written

    def files(self: Any, batch_id: int, entries: Any) -> bool:
        sink = os.path.basename(self.path.rstrip(os.sep)) == "_spark_metadata"
        if sink:
            at("in-sink", batch_id)
        written = add_entries(self, batch_id, entries)
        if sink:
            say(f"manifest {batch_id}")
        return written

    OffsetSeqLog.add_offsets = offsets  # type: ignore[method-assign]
    CommitLog.add_commit = commit  # type: ignore[method-assign]
    CompactibleFileLog.add_entries = files  # type: ignore[method-assign]


def latest_id(directory: str) -> str:
    ids = [int(n) for n in os.listdir(directory) if n.isdigit()] if os.path.isdir(directory) else []
    return str(max(ids)) if ids else "-"


# ------------------------------------------------------------------ the queries


def idempotent_writer(spark: Any, bootstrap: str, topic: str,
                      at: Callable[[str, int], None]) -> Callable[[Any, int], None]:
    """``foreachBatch`` function: the batch's rows, sorted, as records keyed ``"<batch_id>:<i>"``.

    Why this is exactly-once for a reader that keeps the last record per key (a compacted
    topic, or a consumer building a table): the engine calls the function again only for
    the batch that has ``offsets/N`` but no ``commits/N``, with the same offsets and the
    same state version, so the rows are the same; sorted, they get the same keys and
    values. A re-run rewrites the keys of the first attempt with equal values and adds
    the ones it did not reach. Each value carries the batch's row count ``n``, so a
    reader also knows when it holds all of a batch (keys ``0 .. n-1``).
    """

    def send(records: list[tuple[str, str]]) -> None:
        if records:
            frame = spark.createDataFrame(records, "key string, value string")
            frame.write.format("kafka").option("kafka.bootstrap.servers", bootstrap).option("topic", topic).save()

    def write(batch_df: Any, batch_id: int) -> None:
        rows = sorted((r["word"], r["count"]) for r in batch_df.collect())
        say(f"sink {batch_id} {len(rows)}")
        records = [(f"{batch_id}:{i}", json.dumps({"word": w, "count": c, "n": len(rows)}))
                   for i, (w, c) in enumerate(rows)]
        half = len(records) // 2
        send(records[:half])
        at("in-sink", batch_id)
        send(records[half:])

    return write


def start_query(spark: Any, args: argparse.Namespace, at: Callable[[str, int], None]) -> Any:
    from dstream.sql import functions as F

    kafka_options = {"kafka.bootstrap.servers": args.bootstrap, "subscribe": args.in_topic,
                     "startingOffsets": "earliest", "maxOffsetsPerTrigger": str(KAFKA_MAX_OFFSETS)}
    if args.combo == "file-parquet":
        events = spark.readStream.schema("t long, word string").option("maxFilesPerTrigger", 1).json(args.input)
        counts = (events.select(F.col("t").cast("timestamp").alias("ts"), "word")
                  .withWatermark("ts", FILE_DELAY)
                  .groupBy(F.window("ts", f"{FILE_WINDOW_S} seconds"), "word").count()
                  .select(F.col("window.start").cast("long").alias("start"), "word", "count"))
        writer = counts.writeStream.format("parquet").option("path", args.output).trigger(availableNow=True)
    elif args.combo == "kafka-foreachbatch":
        lines = spark.readStream.format("kafka").options(**kafka_options).load()
        words = lines.select(F.explode(F.split(F.col("value").cast("string"), " ")).alias("word"))
        counts = words.groupBy("word").count()
        writer = (counts.writeStream.outputMode("update").trigger(availableNow=True)
                  .foreachBatch(idempotent_writer(spark, args.bootstrap, args.out_topic, at)))
    elif args.combo == "kafka-json":
        lines = spark.readStream.format("kafka").options(**kafka_options).load()
        rows = lines.select("partition", "offset", F.col("value").cast("string").alias("line"))
        writer = rows.writeStream.format("json").option("path", args.output).trigger(availableNow=True)
    else:
        rate = (spark.readStream.format("rate-micro-batch").option("rowsPerBatch", RATE_ROWS)
                .option("advanceMillisPerBatch", 1000).load())
        # The values past the target are counted out, not filtered out: a filter after
        # withWatermark goes below it (as in Spark), and the rows it drops would not move
        # the watermark on, so the last windows of kept values would never close.
        kept = F.when(F.col("value") < RATE_TARGET, F.col("value"))
        windows = (rate.withWatermark("timestamp", "1 second")
                   .groupBy(F.window("timestamp", f"{RATE_WINDOW_S} seconds"))
                   .agg(F.count(kept).alias("count"), F.sum(kept).alias("total"))
                   .where(F.col("count") > 0)
                   .select(F.col("window.start").cast("long").alias("start"), "count", "total"))
        writer = windows.writeStream.format("json").option("path", args.output)
    return writer.option("checkpointLocation", args.checkpoint).queryName(args.combo.replace("-", "_")).start()


def rate_done(spark: Any) -> threading.Event:
    """Set once a committed batch of the rate query ends at RATE_STOP rows or later."""
    from dstream.sql.streaming import StreamingQueryListener

    done = threading.Event()

    class Watch(StreamingQueryListener):
        def onQueryProgress(self, event: Any) -> None:  # noqa: N802 - PySpark's name
            text = event.progress["sources"][0]["endOffset"]  # JSON text, "None" before any (as PySpark)
            end = {} if text == "None" else json.loads(text)
            if int(end.get("offsetValue", 0)) >= RATE_STOP:
                done.set()

    spark.streams.addListener(Watch())
    return done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("combo", choices=COMBOS)
    parser.add_argument("--checkpoint", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--input")
    parser.add_argument("--bootstrap")
    parser.add_argument("--in-topic")
    parser.add_argument("--out-topic")
    args = parser.parse_args(argv)
    pause_text = os.environ.get("CRASH_APP_PAUSE")
    pause = None
    if pause_text:
        phase, batch = pause_text.split(":")
        pause = (phase, int(batch))
    at = pause_point(pause)
    install_crash_points(at)

    from dstream.sql import SparkSession

    spark = (SparkSession.builder.master("local[2]").appName(f"crash-{args.combo}")
             .config("spark.sql.session.timeZone", "UTC").config("spark.sql.shuffle.partitions", "2").getOrCreate())
    say(f"started offsets={latest_id(os.path.join(args.checkpoint, 'offsets'))} "
        f"commits={latest_id(os.path.join(args.checkpoint, 'commits'))} master={spark.sparkContext.master}")
    done = rate_done(spark) if args.combo == "rate-json" else None
    query = start_query(spark, args, at)
    if done is not None:
        done.wait(RUN_S)
        query.stop()
    ended = query.awaitTermination(RUN_S)
    status = 0
    if query.exception() is not None or not ended or (done is not None and not done.is_set()):
        error = query.exception() or f"the query did not end within {RUN_S} s"
        say(f"error {error}".replace("\n", " | "))
        status = 2
    query.stop()
    spark.stop()
    if status == 0:
        say("finished")
    return status


if __name__ == "__main__":
    sys.exit(main())

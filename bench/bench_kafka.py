"""Benchmark of the Kafka direct stream against a plain kafka-python consumer.

This module owns one measurement: records per second from a real Kafka topic through
``KafkaUtils.createDirectStream -> count()`` on ``local[2]`` (one batch reads the whole
topic: each of the two worker processes reads its partitions with its own pooled
consumer), vs one plain ``KafkaConsumer`` in this process that ``assign``s every
partition, seeks to the beginning and polls until the end offsets, counting records.
Target: at least 1.0x (two workers read partitions in parallel; the plain consumer is
one process).

Both sides read the same topic, produced once per run (the corpus lines as values,
4 partitions), from the same broker, in the same invocation, and both are warm: the
engine after one untimed batch (worker consumers pooled, stage code shipped), the
baseline with its consumer created before timing. An engine sample is one batch: from
advancing the manual clock to the batch's ``count()`` output; starting the stream
(connecting the driver's offset client) is not timed. Counts are checked against the
produced record count before timing.

The broker is ``KAFKA_BOOTSTRAP`` when set, else one started by
``scripts/kafka/kafka-maven.sh`` with the full JIT (``KAFKA_FAST_START=0``: startup
time does not matter here, broker throughput does) and stopped afterwards.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

from bench.corpus import ensure_corpus, read_lines
from bench.harness import Benchmark, Options, Result, Target, Timing, time_call

TITLE = "the Kafka direct stream against a plain kafka-python consumer"
WORKERS = 2
PARTITIONS = 4
FULL_RECORDS = 400_000
QUICK_RECORDS = 40_000


def _quiet() -> None:
    # kafka-python logs every reconnect at ERROR; none of it is the benchmark's output
    logging.getLogger("kafka").setLevel(logging.CRITICAL)


def produce(bootstrap: str, topic: str, lines: list[str]) -> None:
    """Create ``topic`` with :data:`PARTITIONS` partitions and write ``lines`` round-robin."""
    from kafka import KafkaAdminClient, KafkaProducer

    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        admin.create_topics({topic: {"num_partitions": PARTITIONS, "replication_factor": 1}},
                            timeout_ms=30_000, wait_for_metadata=True)
    finally:
        admin.close()
    producer = KafkaProducer(bootstrap_servers=bootstrap, linger_ms=20, batch_size=256 * 1024,
                             max_block_ms=60_000)
    try:
        for i, line in enumerate(lines):
            producer.send(topic, value=line.encode("utf-8"), partition=i % PARTITIONS)
        producer.flush(timeout=300)
    finally:
        producer.close(timeout=10)


class PlainConsumer:
    """The baseline: one warm kafka-python consumer reading every partition to its end."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        from kafka import KafkaConsumer, TopicPartition

        # The workers' settings (dstream.kafka.params): a short broker-side wait at the log
        # end, so a sample does not start by waiting for the previous one's last fetch.
        self.consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False,
                                      fetch_max_wait_ms=50, receive_buffer_bytes=65536)
        self.tps = [TopicPartition(topic, p) for p in range(PARTITIONS)]
        self.consumer.assign(self.tps)
        self.ends = self.consumer.end_offsets(self.tps)

    def count(self) -> int:
        consumer, ends = self.consumer, self.ends
        consumer.seek_to_beginning(*self.tps)
        n = 0
        remaining = set(self.tps)
        while remaining:
            for tp, records in consumer.poll(timeout_ms=1000, max_records=5000).items():
                n += len(records)
                if records[-1].offset + 1 >= ends[tp]:
                    remaining.discard(tp)
        return n

    def close(self) -> None:
        self.consumer.close(autocommit=False)


def engine_batch(sc: Any, bootstrap: str, topic: str) -> tuple[float, int]:
    """Run one direct-stream batch over the whole topic; return (seconds, count)."""
    from dstream import StreamingContext
    from dstream.kafka import KafkaUtils
    from dstream.testing import advance_batches, manual_clock

    ssc = StreamingContext(sc, 1)
    manual_clock(ssc)
    stream = KafkaUtils.createDirectStream(ssc, [topic], {"bootstrap.servers": bootstrap,
                                                          "auto.offset.reset": "earliest"})
    counts: list[int] = []
    stream.count().foreachRDD(lambda rdd: counts.extend(rdd.collect()))
    ssc.start()
    try:
        started = time.perf_counter()
        advance_batches(ssc, 1, timeout=600)
        elapsed = time.perf_counter() - started
        error = ssc._engine.waiter.error
    finally:
        ssc.stop(stopSparkContext=False)
    if error is not None:
        raise error
    return elapsed, sum(counts)


def _broker() -> tuple[str, Any]:
    given = os.environ.get("KAFKA_BOOTSTRAP", "").strip()
    if given:
        return given, None
    from tests.kafka.broker import ScriptBroker, wait_usable

    broker = ScriptBroker(fast_start=False)
    bootstrap = broker.start()
    wait_usable(bootstrap, 60)
    return bootstrap, broker


def run(options: Options) -> list[Benchmark]:
    """Produce the topic, check both sides' counts, time them; return one table."""
    from rdd import SparkContext

    _quiet()
    records = QUICK_RECORDS if options.quick else FULL_RECORDS
    lines = read_lines(ensure_corpus(max(records, 100_000)))[:records]
    payload = sum(len(line.encode("utf-8")) for line in lines)
    repeat = max(1, options.repeat)
    bootstrap, broker = _broker()
    try:
        topic = f"bench-kafka-{os.getpid()}-{int(time.time())}"
        produced = time.perf_counter()
        produce(bootstrap, topic, lines)
        produce_s = time.perf_counter() - produced

        plain = PlainConsumer(bootstrap, topic)
        try:
            if plain.count() != records:
                raise AssertionError("the plain consumer did not read every produced record")
            baseline = time_call(plain.count, repeat=repeat)
        finally:
            plain.close()

        sc = SparkContext(f"local[{WORKERS}]", "bench-kafka")
        try:
            _, got = engine_batch(sc, bootstrap, topic)  # warm-up and correctness
            if got != records:
                raise AssertionError(f"the direct stream counted {got} records, {records} were produced")
            engine = Timing(tuple(engine_batch(sc, bootstrap, topic)[0] for _ in range(repeat)))
        finally:
            sc.stop()
    finally:
        if broker is not None:
            broker.stop()

    where = "KAFKA_BOOTSTRAP" if broker is None else "kafka-maven.sh, full JIT"
    return [Benchmark(
        title="(a) read a topic: records per second",
        description=(f"{records:,} records ({payload / 1e6:.1f} MB of corpus lines) in {PARTITIONS} partitions "
                     f"on one local broker ({where}; produced in {produce_s:.1f} s). Engine: one batch of "
                     "`createDirectStream(...).count()` on `local[2]` (one RDD partition per Kafka partition, "
                     "read in the workers). Baseline: one `KafkaConsumer` assigning all partitions and polling "
                     f"to the end. Engine rate: {records / engine.median:,.0f} records/s; baseline "
                     f"{records / baseline.median:,.0f} records/s."),
        engine_label="local[2] direct stream", baseline_label="KafkaConsumer",
        results=(Result(f"{records:,} records, {PARTITIONS} partitions", engine, baseline, Target(min_ratio=1.0)),),
    )]

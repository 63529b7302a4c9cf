"""KafkaUtils.writeToKafka against the real broker, on ``local`` and ``local[2]``.

The records of an RDD or of every batch reach the topic before the job returns (the
producer is flushed in the task), one producer per worker process serves every task
and batch, and the sink round-trips through the direct stream.
"""

from __future__ import annotations

import json
import time
from collections import Counter

import pytest

from dstream import StreamingContext
from dstream.kafka import BrokerUnreachableError, KafkaUtils
from dstream.testing import advance_batches, collect_batches, manual_clock
from tests.kafka.utils import KAFKA_PYTHON_WARNINGS, pool_statistics

pytestmark = [pytest.mark.kafka, pytest.mark.integration, *KAFKA_PYTHON_WARNINGS]


def test_rdd_records_are_in_the_topic_when_the_call_returns(ctx, kafka):
    topic = kafka.new_topic(partitions=3)
    pairs = [(f"key{i % 7}", f"value{i}") for i in range(500)]
    written = KafkaUtils.writeToKafka(ctx.parallelize(pairs, 4), topic, kafka.params())
    assert written == 500
    got = kafka.read_all(topic)  # no waiting: the tasks flushed before they finished
    assert Counter((k.decode(), v.decode()) for _, _, k, v in got) == Counter(pairs)
    by_key = {}
    for partition, _, key, _ in got:
        by_key.setdefault(key, set()).add(partition)
    assert all(len(parts) == 1 for parts in by_key.values())  # keyed records keep their partition


def test_stream_round_trip_through_the_direct_stream(ctx, kafka):
    target = kafka.new_topic(partitions=2)
    params = kafka.params(client_id=f"sink-{ctx.master}")  # its own pool key
    batches = [[("a", "1"), ("b", "2")], [], [("c", "3")], [(None, "no key"), ("d", None)]]

    ssc = StreamingContext(ctx, 1)
    manual_clock(ssc)
    KafkaUtils.writeToKafka(ssc.queueStream(batches), target, params)
    ssc.start()
    try:
        advance_batches(ssc, len(batches))
        assert ssc._engine.waiter.error is None
    finally:
        ssc.stop(stopSparkContext=False)
    stats = pool_statistics(ctx, params).values()
    assert sum(s.producers_created for s in stats) <= len(stats)  # one per worker, reused by every batch
    assert all(s.producers_created <= 1 for s in stats)

    reader = StreamingContext(ctx, 1)
    manual_clock(reader)
    stream = KafkaUtils.createDirectStream(reader, [target], kafka.params(auto_offset_reset="earliest"))
    out = collect_batches(stream)
    reader.start()
    try:
        advance_batches(reader, 1)
    finally:
        reader.stop(stopSparkContext=False)
    assert Counter(out[0]) == Counter(kv for batch in batches for kv in batch)


def test_custom_encoders(ctx, kafka):
    topic = kafka.new_topic(partitions=1)
    rdd = ctx.parallelize([(1, {"n": 1}), (2, {"n": 2})], 2)
    KafkaUtils.writeToKafka(rdd, topic, kafka.params(), keyEncoder=lambda k: str(k).encode(),
                            valueEncoder=lambda v: json.dumps(v).encode())
    got = sorted((k, json.loads(v)) for _, _, k, v in kafka.read_all(topic))
    assert got == [(b"1", {"n": 1}), (b"2", {"n": 2})]


def test_records_must_be_pairs(ctx, kafka):
    topic = kafka.new_topic(partitions=1)
    with pytest.raises(TypeError, match=r"needs \(key, value\) pairs, got 'lonely'"):
        KafkaUtils.writeToKafka(ctx.parallelize(["lonely"], 1), topic, kafka.params())
    with pytest.raises(TypeError, match="str .as UTF-8. or bytes, got int"):
        KafkaUtils.writeToKafka(ctx.parallelize([("k", 3)], 1), topic, kafka.params())
    with pytest.raises(TypeError, match="RDD or a DStream"):
        KafkaUtils.writeToKafka([("k", "v")], topic, kafka.params())


def test_unreachable_bootstrap_fails_the_write_quickly(ctx):
    started = time.monotonic()
    with pytest.raises(BrokerUnreachableError, match="127.0.0.1:1"):
        KafkaUtils.writeToKafka(ctx.parallelize([("k", "v")], 1), "t", {"bootstrap.servers": "127.0.0.1:1"})
    assert time.monotonic() - started < 10

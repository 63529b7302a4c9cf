"""KafkaUtils.createRDD against the real broker, inline (`local`) and on worker processes (`local[2]`).

Covers: exact ranges (mid-partition, whole, empty), several partitions, partition order,
``offsetRanges()`` only on the source RDD, decoders and ``messageHandler``, the decoder
error naming the record, out-of-range and unknown-topic errors before any task runs,
out-of-range discovered in the worker, unreachable bootstrap within the bound, and the
per-worker consumer reuse.
"""

from __future__ import annotations

import time

import pytest

from dstream.kafka import (
    BrokerUnreachableError,
    KafkaDecodeError,
    KafkaRDD,
    KafkaUtils,
    OffsetRange,
    OffsetsOutOfRangeError,
    TopicAndPartition,
    UnknownTopicError,
)
from tests.kafka.utils import KAFKA_PYTHON_WARNINGS, pool_statistics

pytestmark = [pytest.mark.kafka, pytest.mark.integration, *KAFKA_PYTHON_WARNINGS]


@pytest.fixture(scope="module")
def topic(kafka):
    """A 3-partition topic with 10, 20 and 0 records (values ``v-<p>-<i>``, keys ``k<i>``)."""
    name = kafka.new_topic(partitions=3)
    kafka.fill(name, {0: 10, 1: 20})
    return name


def test_reads_exactly_the_ranges_one_partition_each(ctx, kafka, topic):
    ranges = [OffsetRange(topic, 0, 2, 7), OffsetRange(topic, 1, 0, 20), OffsetRange(topic, 2, 0, 0),
              OffsetRange(topic, 0, 9, 10)]
    rdd = KafkaUtils.createRDD(ctx, kafka.params(), ranges)
    assert isinstance(rdd, KafkaRDD)
    assert rdd.getNumPartitions() == 4
    assert rdd.glom().collect() == [
        [(f"k{i}", f"v-0-{i}") for i in range(2, 7)],
        [(f"k{i}", f"v-1-{i}") for i in range(20)],
        [],
        [("k9", "v-0-9")],
    ]
    assert rdd.count() == 26


def test_offset_ranges_only_on_the_source_rdd(ctx, kafka, topic):
    ranges = [OffsetRange(topic, 1, 5, 8)]
    rdd = KafkaUtils.createRDD(ctx, kafka.params(), ranges)
    assert rdd.offsetRanges() == ranges
    assert rdd.offsetRanges() is not rdd.offsetRanges()  # a copy: callers cannot alter the RDD's
    assert not hasattr(rdd.map(lambda kv: kv), "offsetRanges")


def test_message_handler_sees_the_record_metadata(ctx, kafka, topic):
    ranges = [OffsetRange(topic, 0, 0, 3), OffsetRange(topic, 1, 18, 20)]

    def handler(m):
        return (m.topic, m.partition, m.offset, m.key, m.message, m.value, m.timestamp > 0, m.timestampType)

    got = KafkaUtils.createRDD(ctx, kafka.params(), ranges, messageHandler=handler).collect()
    assert got == [(topic, 0, i, f"k{i}", f"v-0-{i}", f"v-0-{i}", True, 0) for i in range(3)] + \
                  [(topic, 1, i, f"k{i}", f"v-1-{i}", f"v-1-{i}", True, 0) for i in (18, 19)]


def test_custom_and_absent_decoders(ctx, kafka, topic):
    ranges = [OffsetRange(topic, 0, 0, 2)]
    raw = KafkaUtils.createRDD(ctx, kafka.params(), ranges, keyDecoder=None, valueDecoder=None).collect()
    assert raw == [(b"k0", b"v-0-0"), (b"k1", b"v-0-1")]
    upper = KafkaUtils.createRDD(ctx, kafka.params(), ranges, valueDecoder=lambda b: b.decode().upper()).collect()
    assert upper == [("k0", "V-0-0"), ("k1", "V-0-1")]


def test_undecodable_value_names_topic_partition_and_offset(ctx, kafka):
    name = kafka.new_topic(partitions=2)
    kafka.send(name, ["ok-0", "ok-1"], partition=1)
    bad = kafka.send_raw(name, b"\xff\xfe not utf-8", partition=1)
    rdd = KafkaUtils.createRDD(ctx, kafka.params(), [OffsetRange(name, 1, 0, 3)])
    with pytest.raises(KafkaDecodeError) as info:
        rdd.collect()
    error = info.value
    assert (error.topic, error.partition, error.offset, error.field) == (name, 1, bad, "value")
    assert f"{name}-1 offset {bad}" in str(error)
    assert isinstance(error, ValueError)
    # messageHandler decodes lazily: a handler that does not touch the value is fine
    offsets = KafkaUtils.createRDD(ctx, kafka.params(), [OffsetRange(name, 1, 0, 3)],
                                   messageHandler=lambda m: m.offset).collect()
    assert offsets == [0, 1, 2]


def test_range_beyond_the_log_end_fails_before_any_task(ctx, kafka, topic):
    with pytest.raises(OffsetsOutOfRangeError) as info:
        KafkaUtils.createRDD(ctx, kafka.params(), [OffsetRange(topic, 0, 5, 11)])
    error = info.value
    assert (error.topic, error.partition, error.from_offset, error.until_offset) == (topic, 0, 5, 11)
    assert (error.earliest, error.latest) == (0, 10)
    assert f"[5, 11) of {topic}-0" in str(error) and "holds [0, 10)" in str(error)


def test_range_removed_by_retention_fails_before_any_task(ctx, kafka):
    name = kafka.new_topic(partitions=1)
    kafka.fill(name, {0: 10})
    kafka.delete_records(name, 0, 4)
    with pytest.raises(OffsetsOutOfRangeError, match=r"\[2, 6\) .*holds \[4, 10\)"):
        KafkaUtils.createRDD(ctx, kafka.params(), [OffsetRange(name, 0, 2, 6)])
    assert KafkaUtils.createRDD(ctx, kafka.params(), [OffsetRange(name, 0, 4, 6)]).values().collect() == \
        ["v-0-4", "v-0-5"]


def test_range_removed_after_planning_fails_in_the_worker(ctx, kafka):
    name = kafka.new_topic(partitions=1)
    kafka.fill(name, {0: 10})
    rdd = KafkaUtils.createRDD(ctx, kafka.params(), [OffsetRange(name, 0, 0, 10)])
    kafka.delete_records(name, 0, 5)  # retention strikes between planning and reading
    with pytest.raises(OffsetsOutOfRangeError) as info:
        rdd.collect()
    error = info.value
    assert (error.partition, error.from_offset, error.until_offset, error.earliest) == (0, 0, 10, 5)


def test_unknown_topic_and_partition_are_named(ctx, kafka, topic):
    missing = kafka.unused_topic()
    with pytest.raises(UnknownTopicError, match=missing) as info:
        KafkaUtils.createRDD(ctx, kafka.params(), [OffsetRange(missing, 0, 0, 1)])
    assert info.value.topic == missing
    with pytest.raises(UnknownTopicError, match=r"partition 7 of Kafka topic"):
        KafkaUtils.createRDD(ctx, kafka.params(), [OffsetRange(topic, 7, 0, 1)])


def test_unreachable_bootstrap_fails_fast_naming_the_servers(ctx):
    started = time.monotonic()
    with pytest.raises(BrokerUnreachableError) as info:
        KafkaUtils.createRDD(ctx, {"bootstrap.servers": "127.0.0.1:1,127.0.0.1:2"}, [OffsetRange("t", 0, 0, 1)])
    assert time.monotonic() - started < 10
    assert info.value.servers == ("127.0.0.1:1", "127.0.0.1:2")
    assert "127.0.0.1:1,127.0.0.1:2" in str(info.value)
    assert isinstance(info.value, ConnectionError)


def test_argument_errors(ctx, kafka, topic):
    with pytest.raises(TypeError, match="list of OffsetRange"):
        KafkaUtils.createRDD(ctx, kafka.params(), OffsetRange(topic, 0, 0, 1))
    with pytest.raises(ValueError, match="bootstrap.servers"):
        KafkaUtils.createRDD(ctx, {"group.id": "g"}, [OffsetRange(topic, 0, 0, 1)])
    with pytest.raises(TypeError, match="valueDecoder"):
        KafkaUtils.createRDD(ctx, kafka.params(), [], valueDecoder="utf-8")
    # leaders is accepted for PySpark compatibility
    from dstream.kafka import Broker

    rdd = KafkaUtils.createRDD(ctx, kafka.params(), [OffsetRange(topic, 0, 0, 1)],
                               leaders={TopicAndPartition(topic, 0): Broker("127.0.0.1", 1)})
    assert rdd.collect() == [("k0", "v-0-0")]


def test_workers_reuse_one_consumer_across_tasks(ctx, kafka, topic):
    params = kafka.params(client_id=f"reuse-test-{ctx.master}")  # a settings key of its own
    ranges = [OffsetRange(topic, p % 2, 0, 5) for p in range(8)]
    for _ in range(3):
        assert KafkaUtils.createRDD(ctx, params, ranges).count() == 40
    stats = pool_statistics(ctx, params).values()
    # 24 tasks, one at a time per process: one consumer per process, then reuse
    assert sum(s.consumers_created for s in stats) + sum(s.consumers_reused for s in stats) == 24
    assert all(s.consumers_created <= 1 for s in stats)
    assert all(s.consumers_idle == s.consumers_created for s in stats)

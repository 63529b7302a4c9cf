"""SparkConf settings of the Kafka source, each on a fresh context (``make_sc``).

``spark.streaming.kafka.maxRatePerPartition`` / ``minRatePerPartition``, the
backpressure rate hook and ``spark.streaming.backpressure.initialRate``, and
``spark.streaming.kafka.allowNonConsecutiveOffsets`` on a transactional topic (whose
commit markers leave gaps in the offsets).
"""

from __future__ import annotations

import pytest

from rdd import SparkConf

from dstream import StreamingContext
from dstream.kafka import KafkaUtils, OffsetRange, RangeReadError
from dstream.testing import advance_batches, manual_clock
from tests.kafka.utils import KAFKA_PYTHON_WARNINGS, assert_contiguous

pytestmark = [pytest.mark.kafka, pytest.mark.integration, *KAFKA_PYTHON_WARNINGS]


def run_ranges(sc, topic, params, batches, batch_s=1.0, rate_controller=None):
    """Run ``batches`` batches of a direct stream; return each batch's ranges and record count."""
    ssc = StreamingContext(sc, batch_s)
    manual_clock(ssc)
    stream = KafkaUtils.createDirectStream(ssc, [topic], params)
    if rate_controller is not None:
        stream._kafka_node.rate_controller = rate_controller
    out = []
    stream.foreachRDD(lambda rdd: out.append((rdd.offsetRanges(), rdd.count())))
    ssc.start()
    try:
        advance_batches(ssc, batches)
        assert ssc._engine.waiter.error is None, ssc._engine.waiter.error
    finally:
        ssc.stop(stopSparkContext=False)
    return out


def conf(**settings):
    c = SparkConf()
    for key, value in settings.items():
        c.set(key.replace("__", "."), str(value))
    return c


def sizes(out):
    return [{r.partition: r.count() for r in ranges} for ranges, _ in out]


def test_max_rate_per_partition_caps_every_batch(make_sc, kafka):
    sc = make_sc("local", conf(spark__streaming__kafka__maxRatePerPartition=4))
    topic = kafka.new_topic(partitions=2)
    kafka.fill(topic, {0: 10, 1: 3})
    out = run_ranges(sc, topic, kafka.params(auto_offset_reset="earliest"), 4)
    assert sizes(out) == [{0: 4, 1: 3}, {0: 4, 1: 0}, {0: 2, 1: 0}, {0: 0, 1: 0}]
    assert [n for _, n in out] == [7, 4, 2, 0]
    assert_contiguous([r for r, _ in out], {(topic, 0): 0, (topic, 1): 0}, {(topic, 0): 10, (topic, 1): 3})


def test_rate_times_batch_seconds_with_the_minimum_per_partition(make_sc, kafka):
    sc = make_sc("local", conf(spark__streaming__kafka__maxRatePerPartition=3,
                               spark__streaming__kafka__minRatePerPartition=2))
    topic = kafka.new_topic(partitions=1)
    kafka.fill(topic, {0: 9})
    # 0.5 s batches at 3 records/s would allow 1.5 records: floor 1, raised to the minimum 2
    out = run_ranges(sc, topic, kafka.params(auto_offset_reset="earliest"), 3, batch_s=0.5)
    assert sizes(out) == [{0: 2}, {0: 2}, {0: 2}]


def test_backpressure_rate_is_split_by_lag_and_capped(make_sc, kafka):
    sc = make_sc("local", conf(spark__streaming__kafka__maxRatePerPartition=5))
    topic = kafka.new_topic(partitions=2)
    kafka.fill(topic, {0: 30, 1: 10})
    rates = iter([8.0, None, 40.0])
    out = run_ranges(sc, topic, kafka.params(auto_offset_reset="earliest"), 3, rate_controller=lambda: next(rates))
    # rate 8, lags 30:10 -> 6 and 2, the first capped at 5; no estimate -> the cap alone;
    # rate 40, lags 20:3 -> 34.8 and 5.2, both capped at 5
    assert sizes(out) == [{0: 5, 1: 2}, {0: 5, 1: 5}, {0: 5, 1: 3}]


def test_initial_rate_applies_until_there_is_an_estimate(make_sc, kafka):
    sc = make_sc("local", conf(spark__streaming__backpressure__enabled="true",
                               spark__streaming__backpressure__initialRate=4))
    topic = kafka.new_topic(partitions=2)
    kafka.fill(topic, {0: 6, 1: 2})
    out = run_ranges(sc, topic, kafka.params(auto_offset_reset="earliest"), 2)
    assert sizes(out) == [{0: 3, 1: 1}, {0: 3, 1: 1}]


def test_backpressure_enabled_pulls_the_pid_estimate(make_sc, kafka):
    sc = make_sc("local", conf(spark__streaming__backpressure__enabled="true",
                               spark__streaming__backpressure__pid__minRate=1))
    topic = kafka.new_topic(partitions=2)
    kafka.fill(topic, {0: 30, 1: 10})
    ssc = StreamingContext(sc, 1)
    manual_clock(ssc)
    stream = KafkaUtils.createDirectStream(ssc, [topic], kafka.params(auto_offset_reset="earliest"))
    controller = stream._kafka_node.backpressure_controller
    assert controller is not None and controller.stream_id == stream._kafka_node.input_id
    # two completed batches of 10 records in 1 s each: the PID estimate settles at 10/s
    assert controller.compute_and_publish(1000, 10, 1000, 0) is None
    assert controller.compute_and_publish(2000, 10, 1000, 0) == 10.0
    out = []
    stream.foreachRDD(lambda rdd: out.append({r.partition: r.count() for r in rdd.offsetRanges()}))
    ssc.start()
    try:
        advance_batches(ssc, 1)
    finally:
        ssc.stop(stopSparkContext=False)
    assert out == [{0: 7, 1: 2}]  # 10/s split by lag 30:10 -> 7.5 and 2.5, floored


def test_invalid_rate_settings_are_named(make_sc, kafka):
    sc = make_sc("local", conf(spark__streaming__kafka__maxRatePerPartition="fast"))
    ssc = StreamingContext(sc, 1)
    with pytest.raises(ValueError, match="maxRatePerPartition='fast' must be a number"):
        KafkaUtils.createDirectStream(ssc, ["t"], kafka.params())
    ssc.stop(stopSparkContext=False)


def transactional_topic(kafka):
    """A topic whose offsets 5 and 11 are transaction commit markers (never returned)."""
    from kafka import KafkaProducer

    topic = kafka.new_topic(partitions=1)
    producer = KafkaProducer(bootstrap_servers=kafka.bootstrap, transactional_id=f"tx-{topic}", max_block_ms=15000)
    producer.init_transactions()
    for batch in range(2):
        producer.begin_transaction()
        for i in range(5):
            producer.send(topic, value=f"t{batch}-{i}".encode(), partition=0)
        producer.commit_transaction()
    producer.close(timeout=5)
    return topic


def test_gaps_fail_unless_non_consecutive_offsets_are_allowed(make_sc, kafka):
    topic = transactional_topic(kafka)
    assert kafka.end_offsets(topic) == {0: 12}
    sc = make_sc("local")
    with pytest.raises(RangeReadError, match=r"offsets 5\.\.5 .*allowNonConsecutiveOffsets") as info:
        KafkaUtils.createRDD(sc, kafka.params(), [OffsetRange(topic, 0, 0, 12)]).collect()
    assert (info.value.partition, info.value.position) == (0, 5)
    # the first transaction alone, marker included, has no gap inside its records
    assert KafkaUtils.createRDD(sc, kafka.params(), [OffsetRange(topic, 0, 0, 6)]).count() == 5
    sc.stop()
    relaxed = make_sc("local", conf(spark__streaming__kafka__allowNonConsecutiveOffsets="true"))
    values = KafkaUtils.createRDD(relaxed, kafka.params(), [OffsetRange(topic, 0, 0, 12)]).values().collect()
    assert values == [f"t{b}-{i}" for b in range(2) for i in range(5)]

"""The Kafka package's pure parts, without a broker.

Value types in PySpark 2.x's shape, ``kafkaParams`` translation per client role, the
rate-limit arithmetic (Spark's ``maxMessagesPerPartition``), decoders/encoders, and the
errors' structured fields surviving a trip through pickle (they are raised in workers).
"""

from __future__ import annotations

import logging
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rdd import ConfigError

from dstream.kafka import (
    Broker,
    BrokerUnreachableError,
    KafkaDecodeError,
    KafkaMessageAndMetadata,
    KafkaSinkError,
    OffsetRange,
    OffsetsOutOfRangeError,
    RangeReadError,
    TopicAndPartition,
    UnknownTopicError,
    utf8_decoder,
    utf8_encoder,
)
from dstream.kafka.offsets import plan_untils
from dstream.kafka.params import CONNECT_TIMEOUT_MS, MIN_RECEIVE_BUFFER_BYTES, parse_kafka_params
from dstream.kafka.structs import decode_field
from tests.kafka.utils import KAFKA_PYTHON_WARNINGS

pytestmark = KAFKA_PYTHON_WARNINGS

# ---------------------------------------------------------------------------- value types


def test_offset_range_shape():
    r = OffsetRange("events", 2, 10, 15)
    assert (r.topic, r.partition, r.fromOffset, r.untilOffset) == ("events", 2, 10, 15)
    assert r == OffsetRange("events", 2, 10, 15) and r != OffsetRange("events", 2, 10, 16)
    assert r != ("events", 2, 10, 15)
    assert hash(r) == hash(OffsetRange("events", 2, 10, 15))
    assert repr(r) == "OffsetRange(topic='events', partition=2, fromOffset=10, untilOffset=15)"
    assert str(r) == "OffsetRange(topic: 'events', partition: 2, range: [10 -> 15])"
    assert r.count() == 5 and r.topicPartition() == TopicAndPartition("events", 2)
    assert pickle.loads(pickle.dumps(r)) == r
    assert OffsetRange("e", 0, 3, 3).count() == 0
    with pytest.raises(AttributeError):
        r.fromOffset = 1  # type: ignore[misc]


@pytest.mark.parametrize("args, error, match", [
    (("t", 0, 5, 4), ValueError, r"fromOffset \(5\) must not exceed untilOffset \(4\) .* t-0"),
    (("t", -1, 0, 4), ValueError, "partition must be >= 0"),
    (("t", 0, -2, 4), ValueError, "fromOffset must be >= 0"),
    (("t", 0, 1.5, 4), TypeError, "fromOffset must be an int"),
    (("t", 0, True, 4), TypeError, "fromOffset must be an int"),
    (("", 0, 0, 4), TypeError, "topic must be a non-empty str"),
])
def test_offset_range_rejects_bad_values(args, error, match):
    with pytest.raises(error, match=match):
        OffsetRange(*args)


def test_topic_and_partition_shape():
    tp = TopicAndPartition("events", 1)
    assert tp == TopicAndPartition("events", 1) and tp != TopicAndPartition("events", 2)
    assert {tp: 5}[TopicAndPartition("events", 1)] == 5
    assert (tp._topic, tp._partition) == ("events", 1)  # PySpark's private fields still work
    assert (tp.topic, tp.partition) == ("events", 1)
    assert repr(tp) == "TopicAndPartition(topic='events', partition=1)"
    assert pickle.loads(pickle.dumps(tp)) == tp
    assert sorted([TopicAndPartition("b", 0), TopicAndPartition("a", 3), TopicAndPartition("a", 1)]) == [
        TopicAndPartition("a", 1), TopicAndPartition("a", 3), TopicAndPartition("b", 0)]
    assert Broker("h", 9092).port == 9092


def test_message_and_metadata_decodes_lazily_and_names_the_record():
    calls = []

    def decoder(raw):
        calls.append(raw)
        return raw.decode("utf-8")

    m = KafkaMessageAndMetadata("t", 3, 42, b"k", b"\xff", timestamp=1700, timestampType=0,
                                keyDecoder=decoder, valueDecoder=decoder)
    assert (m.topic, m.partition, m.offset, m.timestamp, m.timestampType) == ("t", 3, 42, 1700, 0)
    assert calls == []
    assert m.key == "k"
    with pytest.raises(KafkaDecodeError, match=r"value of the record at t-3 offset 42 .*UnicodeDecodeError") as info:
        _ = m.value
    assert (info.value.topic, info.value.partition, info.value.offset, info.value.field) == ("t", 3, 42, "value")
    assert isinstance(info.value.__cause__, UnicodeDecodeError)
    ok = KafkaMessageAndMetadata("t", 0, 1, None, b"v", keyDecoder=utf8_decoder, valueDecoder=utf8_decoder)
    assert (ok.key, ok.message, ok.value) == (None, "v", "v")
    copy = pickle.loads(pickle.dumps(ok))
    assert (copy.offset, copy.message) == (1, "v")


def test_decode_field_without_decoder_returns_raw():
    assert decode_field(None, b"x", "t", 0, 0, "key") == b"x"


def test_utf8_codecs():
    assert utf8_decoder(None) is None and utf8_decoder("é".encode()) == "é"
    assert utf8_encoder("é") == "é".encode() and utf8_encoder(b"x") == b"x" and utf8_encoder(None) is None
    assert utf8_encoder(bytearray(b"y")) == b"y"
    with pytest.raises(TypeError, match="keyEncoder=/valueEncoder="):
        utf8_encoder(3)


@pytest.mark.parametrize("error", [
    BrokerUnreachableError("m", ("h:1", "h:2")),
    UnknownTopicError("m", "t"),
    OffsetsOutOfRangeError("m", "t", 1, 2, 3, 4, 5),
    KafkaDecodeError("m", "t", 1, 2, "key"),
    RangeReadError("m", "t", 1, 2, 3, 2),
    KafkaSinkError("m", "t", 7),
])
def test_errors_keep_their_fields_across_processes(error):
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is type(error) and str(copy) == str(error)
    assert {k: v for k, v in vars(copy).items()} == {k: v for k, v in vars(error).items()}


# ---------------------------------------------------------------------------- kafkaParams


def test_params_roles_and_conversions():
    config = parse_kafka_params({
        "metadata.broker.list": "a:1, b:2", "group.id": "g", "auto.offset.reset": "smallest",
        "fetch.max.bytes": "1000", "check.crcs": "false", "linger_ms": 5,
    })
    assert config.servers == ("a:1", "b:2") and config.group_id == "g" and config.offset_reset == "earliest"
    worker = config.worker_consumer()
    assert worker["fetch_max_bytes"] == 1000 and worker["check_crcs"] is False
    assert (worker["group_id"], worker["enable_auto_commit"], worker["auto_offset_reset"]) == (None, False, "none")
    assert worker["allow_auto_create_topics"] is False
    assert worker["receive_buffer_bytes"] == MIN_RECEIVE_BUFFER_BYTES
    assert "linger_ms" not in worker  # a producer setting
    driver = config.driver_consumer()
    assert (driver["group_id"], driver["enable_auto_commit"]) == ("g", False)
    assert driver["bootstrap_timeout_ms"] == CONNECT_TIMEOUT_MS
    producer = config.producer()
    assert producer["enable_idempotence"] is True and producer["acks"] == "all" and producer["linger_ms"] == 5
    assert "fetch_max_bytes" not in producer
    assert parse_kafka_params({"bootstrap.servers": "a:1"}).offset_reset is None


def test_params_key_identifies_settings():
    one = parse_kafka_params({"bootstrap.servers": "a:1", "fetch.max.bytes": "10"})
    same = parse_kafka_params({"bootstrap.servers": "a:1", "fetch_max_bytes": 10})
    other = parse_kafka_params({"bootstrap.servers": "a:1", "fetch.max.bytes": "11"})
    assert one.key == same.key != other.key
    assert hash(one.key) == hash(same.key)


def test_params_errors_and_warnings(caplog):
    with pytest.raises(ValueError, match="bootstrap.servers"):
        parse_kafka_params({"group.id": "g"})
    with pytest.raises(ValueError, match="names no server"):
        parse_kafka_params({"bootstrap.servers": " , "})
    with pytest.raises(ValueError, match="earliest, latest, none"):
        parse_kafka_params({"bootstrap.servers": "a:1", "auto.offset.reset": "oldest"})
    with pytest.raises(TypeError, match="valueDecoder"):
        parse_kafka_params({"bootstrap.servers": "a:1", "value.deserializer": "x"})
    with pytest.raises(ValueError, match=r"'fetch.max.bytes'\] = 'lots' is not a valid int"):
        parse_kafka_params({"bootstrap.servers": "a:1", "fetch.max.bytes": "lots"})
    with pytest.raises(TypeError, match="dict of Kafka settings"):
        parse_kafka_params([("bootstrap.servers", "a:1")])
    with caplog.at_level(logging.WARNING, logger="dstream.kafka.params"):
        config = parse_kafka_params({"bootstrap.servers": "a:1", "spark.custom": "1", "enable.auto.commit": "true",
                                     "zookeeper.connect": "zk:2181"})
    messages = " ".join(r.getMessage() for r in caplog.records)
    assert "'spark.custom'" in messages and "commitAsync" in messages and "ZooKeeper" in messages
    assert config.settings == ()


@pytest.mark.parametrize("key", ["allow.auto.create.topics", "enable.auto.commit", "check.crcs"])
def test_params_booleans_are_true_or_false_in_any_case(key):
    # one rule with every setting of the engine (and Kafka's own clients): not 1/yes/no
    with pytest.raises(ConfigError, match=rf"kafkaParams\['{key}'\]='1' must be 'true' or 'false'"):
        parse_kafka_params({"bootstrap.servers": "a:1", key: "1"})
    assert parse_kafka_params({"bootstrap.servers": "a:1", "allow.auto.create.topics": "True"}).allow_auto_create


# ---------------------------------------------------------------------------- rate limits


def test_no_cap_reads_up_to_latest():
    assert plan_untils({"a": 3, "b": 0}, {"a": 10, "b": 0}, 1.0) == {"a": 10, "b": 0}


def test_per_partition_cap_and_minimum():
    assert plan_untils({"a": 0, "b": 0}, {"a": 100, "b": 1}, 2.0, max_rate_per_partition=10) == {"a": 20, "b": 1}
    # 0.1 s * 3/s = 0.3 records: floor 0, raised to the minimum of 1 per partition
    assert plan_untils({"a": 0}, {"a": 100}, 0.1, max_rate_per_partition=3) == {"a": 1}
    assert plan_untils({"a": 0}, {"a": 100}, 0.1, max_rate_per_partition=3, min_rate_per_partition=4) == {"a": 4}


def test_backpressure_rate_split_by_lag():
    untils = plan_untils({"a": 0, "b": 0, "c": 5}, {"a": 90, "b": 10, "c": 5}, 1.0, stream_rate=50)
    assert untils == {"a": 45, "b": 5, "c": 5}
    capped = plan_untils({"a": 0, "b": 0}, {"a": 90, "b": 10}, 1.0, stream_rate=50, max_rate_per_partition=20)
    assert capped == {"a": 20, "b": 5}
    # no lag anywhere: nothing to read, nothing to divide by
    assert plan_untils({"a": 4}, {"a": 4}, 1.0, stream_rate=10) == {"a": 4}


def test_an_offset_ahead_of_latest_never_moves_backwards():
    assert plan_untils({"a": 12}, {"a": 10}, 1.0, max_rate_per_partition=5) == {"a": 12}


@given(
    lags=st.dictionaries(st.sampled_from("abcdef"), st.integers(0, 10_000), min_size=1),
    batch_s=st.sampled_from([0.1, 0.5, 1.0, 2.0]),
    max_rate=st.sampled_from([0.0, 1.0, 7.0, 1000.0]),
    stream_rate=st.one_of(st.none(), st.floats(0, 5000)),
)
def test_untils_stay_between_current_and_latest(lags, batch_s, max_rate, stream_rate):
    current = {tp: 100 for tp in lags}
    latest = {tp: 100 + lag for tp, lag in lags.items()}
    untils = plan_untils(current, latest, batch_s, max_rate_per_partition=max_rate, stream_rate=stream_rate)
    assert set(untils) == set(current)
    for tp in current:
        assert current[tp] <= untils[tp] <= latest[tp]
    if max_rate > 0:
        for tp in current:  # a cap holds unless the per-partition minimum lifts it
            assert untils[tp] - current[tp] <= max(int(batch_s * max_rate), 1)
    if max_rate == 0 and not stream_rate:
        assert untils == latest


# ---------------------------------------------------------------------------- public surface


def test_all_is_sorted_and_complete():
    import types

    import dstream.kafka as package

    exported = list(package.__all__)
    assert exported == sorted(exported) and len(set(exported)) == len(exported)
    public = {name for name, value in vars(package).items()
              if not name.startswith("_") and not isinstance(value, types.ModuleType) and name != "annotations"}
    assert set(exported) == public


@pytest.mark.parametrize("method, params", [
    ("createDirectStream", ["ssc", "topics", "kafkaParams", "fromOffsets", "keyDecoder", "valueDecoder",
                            "messageHandler"]),
    ("createRDD", ["sc", "kafkaParams", "offsetRanges", "leaders", "keyDecoder", "valueDecoder", "messageHandler"]),
    ("createStream", ["ssc", "zkQuorum", "groupId", "topics", "kafkaParams", "storageLevel", "keyDecoder",
                      "valueDecoder"]),
])
def test_kafka_utils_signatures_match_pyspark_2(method, params):
    import inspect

    from dstream.kafka import KafkaUtils

    signature = inspect.signature(getattr(KafkaUtils, method))
    assert list(signature.parameters) == params
    defaults = {name: p.default for name, p in signature.parameters.items() if p.default is not p.empty}
    if "keyDecoder" in defaults:
        assert defaults["keyDecoder"] is utf8_decoder and defaults["valueDecoder"] is utf8_decoder
    if "messageHandler" in defaults:
        assert defaults["messageHandler"] is None

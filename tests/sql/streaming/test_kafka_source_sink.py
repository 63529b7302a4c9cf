"""The Kafka source and sink against the real test broker, through their contracts.

Covers: Spark's schema; offsets per batch and exact ranges; ``startingOffsets``
earliest, latest and JSON (-2/-1); ``maxOffsetsPerTrigger`` split by lag (and the pure
arithmetic); ``assign`` and ``subscribePattern`` (a topic created later joins from
offset 0); ``failOnDataLoss`` true (the error) and false (skip, warn) after
``deleteRecords``, and for an out-of-range starting offset; restart continuity through
the metadata log; batch reads with ``endingOffsets``; the sink's column rules and round
trips (streaming ``add_batch`` and ``df.write.format("kafka")``); the option errors; and
the reading and writing tasks in worker processes.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

import pytest

from dstream.kafka.structs import OffsetRange, TopicAndPartition
from dstream.sql import AnalysisException, Row, SparkSession
from dstream.sql.errors import IllegalArgumentException, SparkRuntimeException
from dstream.sql.local_data import attributes_of
from dstream.sql.streaming.formats import sink_provider, source_provider
from dstream.sql.streaming.relation import ArrowRDDRelation
from dstream.sql.streaming.sources.base import Source
from dstream.sql.streaming.sources.kafka_offsets import rate_limit, split_ranges
from dstream.sql.types import (
    BinaryType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)
from tests.kafka.utils import KAFKA_PYTHON_WARNINGS

pytestmark = [pytest.mark.kafka, pytest.mark.integration, *KAFKA_PYTHON_WARNINGS]


@pytest.fixture(scope="module")
def topic(kafka: Any) -> str:
    """3 partitions holding 10, 20 and 0 records (values ``v-<p>-<i>``, keys ``k<i>``)."""
    name = kafka.new_topic(partitions=3)
    kafka.fill(name, {0: 10, 1: 20})
    return name


class Started:
    """A Kafka source created the engine's way."""

    def __init__(self, spark: SparkSession, options: dict[str, str], metadata_path: Path) -> None:
        provider = source_provider("kafka")
        self.options = {k.lower(): v for k, v in options.items()}
        self.schema = provider.schema(spark, self.options, None)
        self.output = attributes_of(self.schema)
        self.source: Source = provider.create(spark, self.options, self.schema, str(metadata_path))
        self.spark = spark

    def rows(self, start: Any, end: Any) -> list[tuple[Any, ...]]:
        """``(partition, offset, key, value)`` of the batch, as strings."""
        plan = self.source.get_batch(start, end, self.output)
        assert plan.output() == self.output
        return [(r.partition, r.offset, _text(r.key), _text(r.value))
                for r in self.spark._new_dataframe(plan).collect()]

    def __enter__(self) -> Started:
        return self

    def __exit__(self, *exc: object) -> None:
        self.source.stop()


def _text(b: Any) -> str | None:
    return None if b is None else bytes(b).decode()


def options(kafka: Any, **extra: str) -> dict[str, str]:
    return {"kafka.bootstrap.servers": kafka.bootstrap, **extra}


def records(partition: int, first: int, until: int) -> list[tuple[int, int, str, str]]:
    return [(partition, i, f"k{i}", f"v-{partition}-{i}") for i in range(first, until)]


# --------------------------------------------------------------------------- schema, offsets, batches


def test_schema_is_sparks_and_rows_carry_every_field(spark: SparkSession, kafka: Any, topic: str,
                                                     tmp_path: Path) -> None:
    with Started(spark, options(kafka, subscribe=topic, startingOffsets="earliest"), tmp_path) as src:
        assert src.schema == StructType([
            StructField("key", BinaryType()), StructField("value", BinaryType()), StructField("topic", StringType()),
            StructField("partition", IntegerType()), StructField("offset", LongType()),
            StructField("timestamp", TimestampType()), StructField("timestampType", IntegerType())])
        assert src.source.description == f"KafkaV2[Subscribe[{topic}]]"
        end = src.source.latest_offset(None, False)
        plan = src.source.get_batch(None, end, src.output)
        assert isinstance(plan, ArrowRDDRelation)
        assert plan.rdd.getNumPartitions() == 2  # one task per non-empty partition range
        row = spark._new_dataframe(plan).collect()[0]
        assert (bytes(row.key), bytes(row.value), row.topic, row.partition, row.offset, row.timestampType) == (
            b"k0", b"v-0-0", topic, 0, 0, 0)
        assert row.timestamp.year >= 2024  # CreateTime from the producer


def test_offsets_per_batch_read_exact_ranges(spark: SparkSession, kafka: Any, tmp_path: Path) -> None:
    name = kafka.new_topic(partitions=3)
    kafka.fill(name, {0: 10, 1: 20})
    with Started(spark, options(kafka, subscribe=name, startingOffsets="earliest"), tmp_path) as src:
        first = src.source.latest_offset(None, False)
        assert first == {name: {"0": 10, "1": 20, "2": 0}}
        assert src.rows(None, first) == records(0, 0, 10) + records(1, 0, 20)
        assert src.source.latest_offset(first, False) == first  # nothing new
        kafka.send(name, ["x", "y"], partition=2, keys=["a", "b"])
        kafka.send(name, ["z"], partition=0, keys=["c"])
        second = src.source.latest_offset(first, False)
        assert second == {name: {"0": 11, "1": 20, "2": 2}}
        assert src.rows(first, second) == [(0, 10, "c", "z"), (2, 0, "a", "x"), (2, 1, "b", "y")]
        assert src.rows(first, second) == src.rows(first, second)  # deterministic
        assert src.source.reports_latest_offset() == second


def test_starting_offsets_latest_is_the_default(spark: SparkSession, kafka: Any, topic: str, tmp_path: Path) -> None:
    name = kafka.new_topic(partitions=2)
    kafka.fill(name, {0: 3, 1: 3})
    with Started(spark, options(kafka, subscribe=name), tmp_path) as src:
        assert src.source.latest_offset(None, False) is None  # nothing after the starting offsets
        kafka.send(name, ["new"], partition=1, keys=["k3"])
        end = src.source.latest_offset(None, False)
        assert end == {name: {"0": 3, "1": 4}}
        assert src.rows(None, end) == [(1, 3, "k3", "new")]


def test_starting_offsets_json_with_earliest_and_latest_markers(spark: SparkSession, kafka: Any, topic: str,
                                                                tmp_path: Path) -> None:
    spec = json.dumps({topic: {"0": 7, "1": -2, "2": -1}})
    with Started(spark, options(kafka, subscribe=topic, startingOffsets=spec), tmp_path) as src:
        end = src.source.latest_offset(None, False)
        assert src.rows(None, end) == records(0, 7, 10) + records(1, 0, 20)
    partial = json.dumps({topic: {"0": 1}})
    with pytest.raises(IllegalArgumentException, match="you must specify all TopicPartitions"):
        Started(spark, options(kafka, subscribe=topic, startingOffsets=partial), tmp_path / "partial")
    with pytest.raises(IllegalArgumentException, match=r"Expected e\.g\. \{\"topicA\""):
        Started(spark, options(kafka, subscribe=topic, startingOffsets="{oops"), tmp_path / "bad")


def test_restart_reads_the_starting_offsets_from_the_metadata_log(spark: SparkSession, kafka: Any,
                                                                  tmp_path: Path) -> None:
    name = kafka.new_topic(partitions=1)
    kafka.fill(name, {0: 2})
    metadata = tmp_path / "sources" / "0"
    with Started(spark, options(kafka, subscribe=name), metadata):  # latest: starts at offset 2
        pass
    assert (metadata / "0").read_text() == "v1\n" + json.dumps({name: {"0": 2}}, separators=(",", ":"))
    kafka.send(name, ["while-down"], partition=0, keys=["k2"])
    with Started(spark, options(kafka, subscribe=name), metadata) as again:
        end = again.source.latest_offset(None, False)
        assert again.rows(None, end) == [(0, 2, "k2", "while-down")]  # not skipped by a new "latest"
    with Started(spark, options(kafka, subscribe=name), tmp_path / "fresh") as fresh:
        assert fresh.source.latest_offset(None, False) is None


# --------------------------------------------------------------------------- maxOffsetsPerTrigger


def test_rate_limit_arithmetic() -> None:
    a, b, c = (TopicAndPartition("t", p) for p in range(3))
    assert rate_limit(6, {a: 0, b: 0, c: 0}, {a: 10, b: 20, c: 0}, {}) == {a: 2, b: 4, c: 0}
    # A share below one offset is rounded up: a small partition is never starved.
    assert rate_limit(10, {a: 0, b: 0}, {a: 1, b: 99}, {}) == {a: 1, b: 9}
    # A new partition starts from its earliest offset.
    assert rate_limit(4, {a: 5}, {a: 9, b: 14}, {b: 10}) == {a: 7, b: 12}
    assert rate_limit(100, {a: 0}, {a: 3}, {}) == {a: 3}
    assert split_ranges([OffsetRange("t", 0, 0, 10), OffsetRange("t", 1, 5, 5), OffsetRange("t", 2, 0, 30)], 4) == [
        OffsetRange("t", 0, 0, 10), OffsetRange("t", 2, 0, 10), OffsetRange("t", 2, 10, 20),
        OffsetRange("t", 2, 20, 30)]


def test_max_offsets_per_trigger_splits_by_lag_and_batches_chain(spark: SparkSession, kafka: Any, topic: str,
                                                                 tmp_path: Path) -> None:
    opts = options(kafka, subscribe=topic, startingOffsets="earliest", maxOffsetsPerTrigger="6")
    with Started(spark, opts, tmp_path) as src:
        assert src.source.latest_offset(None, False) == {topic: {"0": 10, "1": 20, "2": 0}}  # not limited
        start, seen, batches = None, [], 0
        while True:
            end = src.source.latest_offset(start, True)
            if end == start:
                break
            batch = src.rows(start, end)
            assert len(batch) <= 7, f"batch {batches} read {len(batch)} records"
            seen.extend(batch)
            start, batches = end, batches + 1
            assert batches < 20
        # The first batch is split 1:2, as the lags are 10 and 20.
        assert src.source.latest_offset(None, True) == {topic: {"0": 2, "1": 4, "2": 0}}
        assert sorted(seen) == records(0, 0, 10) + records(1, 0, 20)
        assert start == {topic: {"0": 10, "1": 20, "2": 0}}


# --------------------------------------------------------------------------- assign, subscribePattern


def test_assign_reads_only_the_named_partitions(spark: SparkSession, kafka: Any, topic: str, tmp_path: Path) -> None:
    opts = options(kafka, assign=json.dumps({topic: [1]}), startingOffsets="earliest")
    with Started(spark, opts, tmp_path) as src:
        assert src.source.description == f"KafkaV2[Assign[{topic}-1]]"
        end = src.source.latest_offset(None, False)
        assert end == {topic: {"1": 20}}
        assert src.rows(None, end) == records(1, 0, 20)
    with pytest.raises(IllegalArgumentException, match=f"Partitions {topic}-7 of option 'assign' do not exist"):
        Started(spark, options(kafka, assign=json.dumps({topic: [7]})), tmp_path / "missing")


def test_subscribe_pattern_picks_up_new_topics_from_offset_zero(spark: SparkSession, kafka: Any,
                                                                tmp_path: Path) -> None:
    first = kafka.new_topic(partitions=1, prefix="pat")
    kafka.fill(first, {0: 2})
    kafka.fill(kafka.new_topic(partitions=1, prefix="other"), {0: 5})
    pattern = first.rsplit("-", 1)[0] + r"-\d+"
    with Started(spark, options(kafka, subscribePattern=pattern, startingOffsets="earliest"), tmp_path) as src:
        assert src.source.description == f"KafkaV2[SubscribePattern[{pattern}]]"
        end = src.source.latest_offset(None, False)
        assert end == {first: {"0": 2}}
        second = kafka.new_topic(partitions=2, prefix="pat")
        assert second.startswith(pattern[:-4])
        kafka.fill(second, {0: 1, 1: 2})
        later = src.source.latest_offset(end, False)
        assert later == {first: {"0": 2}, second: {"0": 1, "1": 2}}
        assert src.rows(end, later) == records(0, 0, 1) + records(1, 0, 2)


# --------------------------------------------------------------------------- failOnDataLoss


def test_fail_on_data_loss_after_delete_records(spark: SparkSession, kafka: Any, tmp_path: Path,
                                                caplog: pytest.LogCaptureFixture) -> None:
    name = kafka.new_topic(partitions=1)
    kafka.fill(name, {0: 10})
    strict = Started(spark, options(kafka, subscribe=name, startingOffsets="earliest"), tmp_path / "strict")
    lenient = Started(spark, options(kafka, subscribe=name, startingOffsets="earliest", failOnDataLoss="false"),
                      tmp_path / "lenient")
    kafka.delete_records(name, 0, 6)  # retention removed offsets 0..5 after the queries started
    with strict, lenient:
        end = strict.source.latest_offset(None, False)
        with pytest.raises(SparkRuntimeException) as info:
            strict.rows(None, end)
        assert info.value.getCondition() == "KAFKA_DATA_LOSS.COULD_NOT_READ_OFFSET_RANGE"
        assert f"Cannot fetch offset 0 of {name}-0" in str(info.value)
        assert 'set the source option "failOnDataLoss" to "false"' in str(info.value)
        with caplog.at_level(logging.WARNING):
            assert lenient.rows(None, end) == records(0, 6, 10)
        assert f"Skip missing records in [0, 6) of {name}-0" in caplog.text


def test_out_of_range_starting_offset_is_data_loss(spark: SparkSession, kafka: Any, tmp_path: Path) -> None:
    name = kafka.new_topic(partitions=1)
    kafka.fill(name, {0: 4})
    kafka.delete_records(name, 0, 2)
    spec = json.dumps({name: {"0": 1}})
    with pytest.raises(SparkRuntimeException, match=f"startingOffsets for {name}-0 was 1 but consumer reset to 2"):
        Started(spark, options(kafka, subscribe=name, startingOffsets=spec), tmp_path / "strict")
    with Started(spark, options(kafka, subscribe=name, startingOffsets=spec, failOnDataLoss="false"),
                 tmp_path / "lenient") as src:
        end = src.source.latest_offset(None, False)
        assert src.rows(None, end) == records(0, 2, 4)


# --------------------------------------------------------------------------- option errors


def test_option_errors_name_the_option_and_the_fix(spark: SparkSession, kafka: Any, topic: str) -> None:
    provider = source_provider("kafka")
    servers = {"kafka.bootstrap.servers": kafka.bootstrap}
    cases = [
        ({"subscribe": topic}, "Option 'kafka.bootstrap.servers' must be specified for configuring Kafka consumer"),
        (servers, "One of the following options must be specified for Kafka source: assign, subscribe, "
                  "subscribePattern"),
        ({**servers, "subscribe": topic, "subscribepattern": "x"},
         "Only one of the following options can be specified"),
        ({**servers, "subscribe": " , "}, "No topics to subscribe to as specified value for option 'subscribe'"),
        ({**servers, "assign": "t"}, "No topicpartitions to assign as specified value for option 'assign' is 't'"),
        ({**servers, "subscribepattern": "("}, "Option 'subscribePattern' = '(' is not a valid regular expression"),
        ({**servers, "subscribe": topic, "kafka.auto.offset.reset": "earliest"},
         "Kafka option 'auto.offset.reset' is not supported. Instead set the source option 'startingOffsets'"),
        ({**servers, "subscribe": topic, "kafka.value.deserializer": "x"},
         "Kafka option 'value.deserializer' is not supported as values are deserialized as byte arrays"),
        ({**servers, "subscribe": topic, "kafka.enable.auto.commit": "true"},
         "Kafka option 'enable.auto.commit' is not supported"),
        ({**servers, "subscribe": topic, "endingoffsets": "latest"}, "ending offset not valid in streaming queries"),
        ({**servers, "subscribe": topic, "maxoffsetspertrigger": "0"},
         "Invalid value '0' for option 'maxOffsetsPerTrigger', must be a positive integer"),
        ({**servers, "subscribe": topic, "failondataloss": "maybe"},
         "The value of option 'failOnDataLoss' must be true or false"),
    ]
    for opts, message in cases:
        with pytest.raises(IllegalArgumentException, match=re.escape(message)):
            provider.schema(spark, opts, None)
    with pytest.raises(AnalysisException, match="Kafka source has a fixed schema"):
        provider.schema(spark, {**servers, "subscribe": topic}, StructType([StructField("v", StringType())]))


# --------------------------------------------------------------------------- batch reads


def test_batch_read_between_starting_and_ending_offsets(spark: SparkSession, kafka: Any, topic: str) -> None:
    reader = spark.read.format("kafka").option("kafka.bootstrap.servers", kafka.bootstrap).option("subscribe", topic)
    everything = reader.load()
    assert everything.schema.names == ["key", "value", "topic", "partition", "offset", "timestamp", "timestampType"]
    assert everything.count() == 30
    df = (spark.read.format("kafka").option("kafka.bootstrap.servers", kafka.bootstrap).option("subscribe", topic)
          .option("startingOffsets", json.dumps({topic: {"0": 8, "1": -2, "2": -2}}))
          .option("endingOffsets", json.dumps({topic: {"0": -1, "1": 3, "2": -1}})).load())
    got = [(r.partition, r.offset, _text(r.key), _text(r.value)) for r in df.collect()]
    assert got == records(0, 8, 10) + records(1, 0, 3)
    strings = df.selectExpr("CAST(value AS STRING) AS v").collect()
    assert strings[0] == Row(v="v-0-8")
    with pytest.raises(IllegalArgumentException, match="starting offset can't be latest for batch queries"):
        reader.option("startingOffsets", "latest").load()
    with pytest.raises(IllegalArgumentException, match="ending offset can't be earliest for batch queries"):
        (spark.read.format("kafka").option("kafka.bootstrap.servers", kafka.bootstrap).option("subscribe", topic)
         .option("endingOffsets", "earliest").load())


# --------------------------------------------------------------------------- the sink


def _sink(spark: SparkSession, opts: dict[str, str]) -> Any:
    provider = sink_provider("kafka")
    assert provider.needs_checkpoint
    return provider.create(spark, {k.lower(): v for k, v in opts.items()}, "append", [], None)


def _read_back(spark: SparkSession, kafka: Any, topic: str) -> list[tuple[Any, ...]]:
    df = (spark.read.format("kafka").option("kafka.bootstrap.servers", kafka.bootstrap).option("subscribe", topic)
          .option("includeHeaders", "true").load())
    return sorted(((_text(r.key), _text(r.value), r.partition,
                    [(h.key, bytes(h.value)) for h in r.headers] if r.headers else [])
                   for r in df.collect()), key=repr)


def test_sink_round_trip_with_every_column(spark: SparkSession, kafka: Any) -> None:
    target = kafka.new_topic(partitions=2)
    sink = _sink(spark, options(kafka))
    df = spark.createDataFrame(
        [("a", "1", target, 0, [("h", b"x")]), (None, "2", target, 1, []), ("c", None, target, 1, None)],
        "key string, value string, topic string, partition int, headers array<struct<key:string,value:binary>>")
    assert sink.add_batch(0, df) == 3
    assert _read_back(spark, kafka, target) == [("a", "1", 0, [("h", b"x")]), ("c", None, 1, []), (None, "2", 1, [])]
    assert sink.add_batch(0, df) == 0  # a batch id already written is skipped
    assert len(_read_back(spark, kafka, target)) == 3


def test_sink_topic_option_wins_over_the_column_and_binary_values(spark: SparkSession, kafka: Any) -> None:
    target, ignored = kafka.new_topic(partitions=1), kafka.new_topic(partitions=1)
    sink = _sink(spark, options(kafka, topic=target))
    df = spark.createDataFrame([(b"\x00\x01", ignored, 5)], "value binary, topic string, extra int")
    assert sink.add_batch(0, df) == 1
    assert [r[1] for r in kafka.read_all(target)] == [0] and kafka.read_all(target)[0][3] == b"\x00\x01"
    assert kafka.read_all(ignored) == []


def test_sink_column_errors_name_the_column(spark: SparkSession, kafka: Any) -> None:
    sink = _sink(spark, options(kafka))
    cases = [(spark.createDataFrame([("x",)], "v string"), "topic option required when no 'topic' attribute"),
             (spark.createDataFrame([("t",)], "topic string"), "Required attribute 'value' not found"),
             (spark.createDataFrame([(1, "t")], "value int, topic string"),
              "value attribute unsupported type int. value must be a string or binary"),
             (spark.createDataFrame([("v", 1)], "value string, topic int"), "topic attribute unsupported type int"),
             (spark.createDataFrame([("v", "t", 1)], "value string, topic string, key int"),
              "key attribute unsupported type int"),
             (spark.createDataFrame([("v", "t", 1)], "value string, topic string, partition long"),
              "partition attribute unsupported type bigint. partition must be a int")]
    for df, message in cases:
        with pytest.raises(AnalysisException, match=message):
            sink.add_batch(1, df)
    with pytest.raises(IllegalArgumentException, match="Option 'kafka.bootstrap.servers' must be specified for "
                                                       "configuring Kafka producer"):
        _sink(spark, {"topic": "t"})
    with pytest.raises(IllegalArgumentException, match="Kafka option 'key.serializer' is not supported"):
        _sink(spark, options(kafka, **{"kafka.key.serializer": "x"}))
    nulls = spark.createDataFrame([("v", None)], "value string, topic string")
    with pytest.raises(SparkRuntimeException, match="null topic present in the data"):
        sink.add_batch(2, nulls)


def test_batch_write_and_read_back(spark: SparkSession, kafka: Any) -> None:
    target = kafka.new_topic(partitions=3)
    df = spark.range(100).selectExpr("CAST(id AS STRING) AS key", "CAST(id * 2 AS STRING) AS value")
    df.write.format("kafka").option("kafka.bootstrap.servers", kafka.bootstrap).option("topic", target).save()
    back = {k: v for k, v, _, _ in _read_back(spark, kafka, target)}
    assert back == {str(i): str(2 * i) for i in range(100)}
    with pytest.raises(AnalysisException, match="Save mode Overwrite not allowed for Kafka"):
        df.write.format("kafka").mode("overwrite").option("kafka.bootstrap.servers", kafka.bootstrap).save()


# --------------------------------------------------------------------------- workers (last: replaces the context)


def test_tasks_read_and_write_in_worker_processes(sc2: Any, kafka: Any, topic: str, tmp_path: Path) -> None:
    session = SparkSession(sc2, [("spark.sql.session.timeZone", "UTC")])
    with Started(session, options(kafka, subscribe=topic, startingOffsets="earliest", minPartitions="4"),
                 tmp_path) as src:
        end = src.source.latest_offset(None, False)
        plan = src.source.get_batch(None, end, src.output)
        assert isinstance(plan, ArrowRDDRelation) and plan.rdd.getNumPartitions() == 4
        assert sorted(src.rows(None, end)) == records(0, 0, 10) + records(1, 0, 20)
    target = kafka.new_topic(partitions=2)
    sink = _sink(session, options(kafka, topic=target))
    df = session.createDataFrame([(f"r{i}",) for i in range(50)], "value string").repartition(3)
    assert sink.add_batch(0, df) == 50
    assert sorted(v.decode() for _, _, _, v in kafka.read_all(target)) == sorted(f"r{i}" for i in range(50))

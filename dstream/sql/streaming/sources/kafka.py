"""The ``kafka`` source: ``spark.readStream.format("kafka")`` and ``spark.read.format("kafka")``.

What this module owns
---------------------
* The options of Spark's Kafka source, checked with Spark's sentences
  (:func:`read_options`): ``kafka.bootstrap.servers`` and the other ``kafka.*`` client
  settings, exactly one of ``subscribe``/``subscribePattern``/``assign``,
  ``startingOffsets`` (``latest`` by default for streams, ``earliest`` for batch reads),
  ``endingOffsets`` (batch reads; ``latest`` by default), ``maxOffsetsPerTrigger``,
  ``minPartitions``, ``failOnDataLoss``, ``includeHeaders``,
  ``kafkaConsumer.pollTimeoutMs``.
* :class:`KafkaMicroBatchSource`: offsets are ``{"topic": {"partition": offset}}``, the
  next offset to read of every partition. A batch ``(start, end]`` reads
  ``[start[p], end[p])`` of every partition ``p`` in one task per partition (an
  ``ArrowRDDRelation`` over :class:`~.kafka_rows.KafkaRangesNode`).
* :func:`kafka_relation`: the batch read, the same plan over ``[startingOffsets,
  endingOffsets)``.

Invariants
----------
* The starting offsets are resolved once, when the query first runs, and written to
  ``<metadata_path>/0``; a restart reads them back, so "latest" means the latest of the
  first run, not of the restart.
* Deterministic: ``get_batch(start, end)`` reads exactly the offsets between the two,
  whenever it runs. Only data loss (records deleted before they were read, partitions
  deleted) changes what a re-run batch sees, and then only with ``failOnDataLoss``
  false; with true (the default) the query fails naming what is gone.
* A partition that appears while the query runs (a new topic of the pattern, an added
  partition) is read from its earliest offset.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from dstream.kafka.params import KafkaConfig, parse_kafka_params
from dstream.kafka.rdd import ReadSettings
from dstream.kafka.structs import OffsetRange, TopicAndPartition

from ...errors import AnalysisException, IllegalArgumentException, SparkRuntimeException
from ...expressions.base import AttributeReference, column_key
from ...local_data import attributes_of
from ..logs import MetadataLog
from .base import Offset, Source, SourceProvider, register_source
from .kafka_offsets import (
    KafkaOffsetReader,
    PartitionOffsets,
    Strategy,
    data_loss,
    from_offset_json,
    offsets_json,
    parse_partition_offsets,
    rate_limit,
    split_ranges,
)
from .kafka_rows import KafkaRangesNode, kafka_schema
from .options import SourceOptions
from .rows import empty_rows, task_rows

if TYPE_CHECKING:
    from ...plan.logical import LogicalPlan
    from ...session import SparkSession
    from ...types import StructType

__all__ = ["KafkaMicroBatchSource", "KafkaReadOptions", "KafkaSourceProvider", "kafka_relation", "read_options"]

logger = logging.getLogger(__name__)

OffsetSpec = str | PartitionOffsets

_UNSUPPORTED_CONSUMER = ("enable.auto.commit", "interceptor.classes")
_TIMESTAMP_OPTIONS = ("startingtimestamp", "startingoffsetsbytimestamp", "endingtimestamp",
                      "endingoffsetsbytimestamp")


@dataclass(frozen=True)
class KafkaReadOptions:
    """The parsed options of one Kafka source or batch read."""

    config: KafkaConfig
    strategy: Strategy
    fail_on_data_loss: bool
    max_offsets_per_trigger: int | None
    min_partitions: int | None
    settings: ReadSettings
    include_headers: bool


def _check_kafka_params(options: SourceOptions, role: str) -> KafkaConfig:
    if "kafka.bootstrap.servers" not in options:
        raise IllegalArgumentException(
            f"Option 'kafka.bootstrap.servers' must be specified for configuring Kafka {role}: e.g. "
            '.option("kafka.bootstrap.servers", "host1:9092,host2:9092").')
    if "kafka.auto.offset.reset" in options:
        raise IllegalArgumentException(
            "Kafka option 'auto.offset.reset' is not supported. Instead set the source option 'startingOffsets' to "
            "'earliest' or 'latest' to specify where to start. Structured Streaming manages which offsets are "
            "consumed internally, rather than relying on the kafkaConsumer to do it. Note that 'startingOffsets' "
            "only applies when a new Streaming query is started, and that resuming will always pick up from where "
            "the query left off.")
    for part in ("key", "value"):
        if f"kafka.{part}.deserializer" in options:
            raise IllegalArgumentException(
                f"Kafka option '{part}.deserializer' is not supported as {part}s are deserialized as byte arrays "
                f"with ByteArrayDeserializer. Use DataFrame operations to explicitly deserialize the {part}s.")
    for name in _UNSUPPORTED_CONSUMER:
        if f"kafka.{name}" in options:
            raise IllegalArgumentException(f"Kafka option '{name}' is not supported: remove option 'kafka.{name}'.")
    if "kafka.group.id" in options:
        logger.warning("Kafka option 'kafka.group.id' has been set on this query: it is not recommended, since "
                       "the source never commits offsets to Kafka and a group id shared by two queries only "
                       "confuses tools that watch the group.")
    params = {name[len("kafka."):]: value for name, value in options.items() if name.startswith("kafka.")}
    try:
        return parse_kafka_params(params)
    except (TypeError, ValueError) as exc:
        raise IllegalArgumentException(f"Invalid Kafka option: {exc} (set it as option 'kafka.<name>').") from None


def read_options(session: SparkSession, options: dict[str, str], streaming: bool) -> KafkaReadOptions:
    """Check and parse the options of a Kafka stream (``streaming``) or batch read."""
    opts = SourceOptions(options)
    if streaming and "endingoffsets" in opts:
        raise IllegalArgumentException("ending offset not valid in streaming queries: remove option "
                                       "'endingOffsets' (a stream reads until it is stopped).")
    for name in _TIMESTAMP_OPTIONS:
        if name in opts:
            raise IllegalArgumentException(f"Option '{name}' is not supported by dstreams' Kafka source: give the "
                                           "offsets with startingOffsets/endingOffsets instead.")
    for name in ("minOffsetsPerTrigger", "maxTriggerDelay"):
        if name in opts:
            logger.warning("Option '%s' of the Kafka source is not supported and is ignored.", name)
    strategy = Strategy.from_options(dict(opts.items()))
    config = _check_kafka_params(opts, "consumer")
    max_offsets = None
    if "maxOffsetsPerTrigger" in opts:
        if not streaming:
            logger.warning("maxOffsetsPerTrigger option ignored in batch queries")
        max_offsets = opts.get_long("maxOffsetsPerTrigger", 0)
        if max_offsets <= 0:
            raise IllegalArgumentException(f"Invalid value '{max_offsets}' for option 'maxOffsetsPerTrigger', must "
                                           "be a positive integer")
    min_partitions = None
    if "minPartitions" in opts:
        min_partitions = opts.get_long("minPartitions", 0)
        if min_partitions <= 0:
            raise IllegalArgumentException(f"Invalid value '{min_partitions}' for option 'minPartitions', must be "
                                           "a positive integer")
    network_ms = session.sparkContext.getConf().getTimeAsMs("spark.network.timeout", "120s")
    poll_ms = opts.get_long("kafkaConsumer.pollTimeoutMs", network_ms)
    if poll_ms <= 0:
        raise IllegalArgumentException(f"Invalid value '{poll_ms}' for option 'kafkaConsumer.pollTimeoutMs', must "
                                       "be a positive number of milliseconds")
    # Gaps inside a range (transaction markers, compaction) are skipped, as Spark does;
    # records below the log start are data loss, handled by the reading task.
    settings = ReadSettings(poll_timeout_ms=poll_ms, allow_non_consecutive=True)
    return KafkaReadOptions(config, strategy, opts.get_boolean("failOnDataLoss", True), max_offsets, min_partitions,
                            settings, opts.get_boolean("includeHeaders", False))


def _offset_spec(options: dict[str, str], name: str, default: str) -> OffsetSpec:
    text = SourceOptions(options).get(name)
    if text is None:
        return default
    word = text.strip().lower()
    if word in ("earliest", "latest"):
        return word
    return parse_partition_offsets(text.strip(), name)


def _no_user_schema(user_schema: StructType | None) -> None:
    if user_schema is not None:
        raise AnalysisException("kafka does not support user-specified schema: Kafka source has a fixed schema and "
                                "cannot be set with a custom one. Remove .schema(...) and cast the binary key and "
                                "value columns instead.")


def ranges_plan(session: SparkSession, opts: KafkaReadOptions, ranges: list[OffsetRange],
                output: list[AttributeReference], name: str) -> LogicalPlan:
    """The plan reading ``ranges`` (split by ``minPartitions``; empty ones dropped) in tasks."""
    ranges = split_ranges(ranges, opts.min_partitions)
    if not ranges:
        return empty_rows(output)
    node = KafkaRangesNode(opts.config, ranges, opts.settings, opts.fail_on_data_loss,
                           [column_key(a.expr_id) for a in output], opts.include_headers)
    return task_rows(session, node, output, name)


class KafkaMicroBatchSource(Source):
    """A started Kafka source of one query run."""

    def __init__(self, session: SparkSession, opts: KafkaReadOptions, starting: OffsetSpec,
                 metadata_path: str) -> None:
        self._session = session
        self.opts = opts
        self.description = f"KafkaV2[{opts.strategy}]"
        self._reader = KafkaOffsetReader(opts.config, opts.strategy)
        try:
            self.initial = self._initial_offsets(MetadataLog(metadata_path), starting)
        except BaseException:
            self._reader.close()
            raise
        self._latest: PartitionOffsets | None = None
        self._available_now: PartitionOffsets | None = None

    def _initial_offsets(self, log: MetadataLog, starting: OffsetSpec) -> PartitionOffsets:
        body = log.get(0)
        if body is None:
            offsets = self._reader.resolve(starting, "startingOffsets", self.opts.fail_on_data_loss)
            log.add(0, json.dumps(offsets_json(offsets), separators=(",", ":")))
            body = log.get(0)
            logger.info("Initial offsets of %s: %s", self.description, body)
        assert body is not None
        return from_offset_json(body)

    def _start(self, start: Offset | None) -> PartitionOffsets:
        return dict(self.initial) if start is None else from_offset_json(start)

    def latest_offset(self, start: Offset | None, limited: bool) -> Offset | None:
        begin = self._start(start)
        latest = self._available_now
        if latest is None:
            latest = self._reader.latest(self._reader.partitions())
        self._latest = latest
        end = latest
        limit = self.opts.max_offsets_per_trigger
        if limited and limit is not None:
            new = [tp for tp in latest if tp not in begin]
            end = rate_limit(limit, begin, latest, self._reader.earliest(new) if new else {})
        if start is None and end == self.initial:
            return None  # nothing after the starting offsets yet
        return offsets_json(end)

    def reports_latest_offset(self) -> Offset | None:
        return None if self._latest is None else offsets_json(self._latest)

    def prepare_for_available_now(self) -> None:
        self._available_now = self._reader.latest(self._reader.partitions())

    def get_batch(self, start: Offset | None, end: Offset, output: list[AttributeReference]) -> LogicalPlan:
        begin, until = self._start(start), from_offset_json(end)
        fail = self.opts.fail_on_data_loss
        new = [tp for tp in until if tp not in begin]
        if new:
            found = self._reader.earliest(new)
            gone = [tp for tp in new if tp not in found]
            if gone:
                data_loss(fail, "INITIAL_OFFSET_NOT_FOUND_FOR_PARTITIONS",
                          f"Cannot find earliest offsets of {_names(gone)}. Some data may have been missed.")
            for tp, offset in sorted(found.items()):
                if offset != 0:
                    data_loss(fail, "ADDED_PARTITION_DOES_NOT_START_FROM_OFFSET_ZERO",
                              f"Added partition {tp.topic}-{tp.partition} starts from {offset} instead of 0. Some "
                              "data may have been missed.")
            begin.update(found)
        deleted = [tp for tp in begin if tp not in until]
        if deleted:
            data_loss(fail, "PARTITIONS_DELETED", f"{_names(deleted)} are gone. Some data may have been missed.")
        ranges = []
        for tp in sorted(until):
            if tp not in begin:
                continue
            if until[tp] < begin[tp]:
                data_loss(fail, "PARTITION_OFFSET_CHANGED",
                          f"Partition {tp.topic}-{tp.partition}'s offset was changed from {begin[tp]} to "
                          f"{until[tp]}, some data may have been missed.")
                continue
            ranges.append(OffsetRange(tp.topic, tp.partition, begin[tp], until[tp]))
        return ranges_plan(self._session, self.opts, ranges, output, self.description)

    def stop(self) -> None:
        self._reader.close()


def _names(tps: list[TopicAndPartition]) -> str:
    return "[" + ", ".join(f"{tp.topic}-{tp.partition}" for tp in sorted(tps)) + "]"


class KafkaSourceProvider(SourceProvider):
    """``spark.readStream.format("kafka")``."""

    def schema(self, session: SparkSession, options: dict[str, str], user_schema: StructType | None) -> StructType:
        _no_user_schema(user_schema)
        opts = read_options(session, options, streaming=True)
        _offset_spec(options, "startingOffsets", "latest")
        return kafka_schema(opts.include_headers)

    def create(self, session: SparkSession, options: dict[str, str], schema: StructType,
               metadata_path: str) -> Source:
        opts = read_options(session, options, streaming=True)
        return KafkaMicroBatchSource(session, opts, _offset_spec(options, "startingOffsets", "latest"),
                                     metadata_path)


def kafka_relation(session: SparkSession, options: dict[str, str], user_schema: StructType | None) -> LogicalPlan:
    """The plan of ``spark.read.format("kafka")...load()``: ``[startingOffsets, endingOffsets)``.

    The offsets are resolved now (``latest`` is the log end at ``load()``).
    """
    _no_user_schema(user_schema)
    opts = read_options(session, options, streaming=False)
    starting = _offset_spec(options, "startingOffsets", "earliest")
    ending = _offset_spec(options, "endingOffsets", "latest")
    if starting == "latest" or (isinstance(starting, dict) and -1 in starting.values()):
        raise IllegalArgumentException("starting offset can't be latest for batch queries on Kafka: use 'earliest' "
                                       "or specific offsets for option 'startingOffsets'.")
    if ending == "earliest" or (isinstance(ending, dict) and -2 in ending.values()):
        raise IllegalArgumentException("ending offset can't be earliest for batch queries on Kafka: use 'latest' "
                                       "or specific offsets for option 'endingOffsets'.")
    reader = KafkaOffsetReader(opts.config, opts.strategy)
    try:
        begin = reader.resolve(starting, "startingOffsets", opts.fail_on_data_loss)
        until = reader.resolve(ending, "endingOffsets", opts.fail_on_data_loss)
    finally:
        reader.close()
    if set(begin) != set(until):
        raise SparkRuntimeException(
            f"different topic partitions for starting offsets topics[{_names(list(begin))}] and ending offsets "
            f"topics[{_names(list(until))}]: the partitions changed while the offsets were read; read again.")
    ranges = []
    for tp in sorted(until):
        if until[tp] < begin[tp]:
            raise IllegalArgumentException(
                f"Beginning offset {begin[tp]} is after the ending offset {until[tp]} for topic {tp.topic} partition "
                f"{tp.partition}. You either provided an invalid fromOffset, or the Kafka topic has been damaged")
        ranges.append(OffsetRange(tp.topic, tp.partition, begin[tp], until[tp]))
    output = attributes_of(kafka_schema(opts.include_headers))
    return ranges_plan(session, opts, ranges, output, f"KafkaRelation[{opts.strategy}]")


register_source("kafka", KafkaSourceProvider)

"""The Kafka source's driver side: which partitions, which offsets, how far a batch reads.

What this module owns
---------------------
* :class:`Strategy`: ``subscribe`` (a topic list), ``subscribePattern`` (a regex on
  topic names) or ``assign`` (explicit partitions), and the partitions it means now.
* The offset JSON of Spark's Kafka source, ``{"topic": {"0": 42}}`` (partition keys are
  strings; ``-2`` means earliest and ``-1`` latest in ``startingOffsets`` /
  ``endingOffsets``): :func:`parse_partition_offsets`, :func:`offsets_json`,
  :func:`from_offset_json`.
* :class:`KafkaOffsetReader`: the driver's consumer (never reads records), which lists
  partitions and asks the brokers for earliest and latest offsets; every call holds a
  lock, since a kafka-python consumer is not thread-safe.
* :func:`rate_limit` (``maxOffsetsPerTrigger`` shared among partitions in proportion to
  what each has to read) and :func:`split_ranges` (``minPartitions``), pure arithmetic.
* :func:`data_loss`: what happens when offsets a query needs are gone (Spark's
  ``failOnDataLoss``): an error, or a warning and the query goes on.

Invariants
----------
* Offsets JSON is sorted by topic, then partition number, so the same offsets always
  print the same line of ``offsets/N``.
* A topic of ``subscribe`` that does not exist yet has no partitions (it joins when it
  is created, its partitions read from their earliest offsets), as in Spark.
"""

from __future__ import annotations

import json
import logging
import math
import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dstream.kafka.clients import close_quietly, connect
from dstream.kafka.params import KafkaConfig
from dstream.kafka.structs import OffsetRange, TopicAndPartition

from ...errors import IllegalArgumentException, SparkRuntimeException

__all__ = ["EARLIEST", "LATEST", "KafkaOffsetReader", "Strategy", "data_loss", "data_loss_error", "from_offset_json",
           "offsets_json", "parse_partition_offsets", "rate_limit", "split_ranges"]

logger = logging.getLogger(__name__)

#: The special offsets of ``startingOffsets``/``endingOffsets`` JSON.
EARLIEST = -2
LATEST = -1

#: Timeout of one metadata or offset request of the driver.
REQUEST_TIMEOUT_MS = 10_000

PartitionOffsets = dict[TopicAndPartition, int]

_OFFSETS_EXAMPLE = '{"topicA":{"0":23,"1":-1},"topicB":{"0":-2}}'
_ASSIGN_EXAMPLE = '{"topicA":[0,1],"topicB":[2,4]}'


# --------------------------------------------------------------------------- offsets JSON


def offsets_json(offsets: Mapping[TopicAndPartition, int]) -> dict[str, dict[str, int]]:
    """``{topic: {"partition": offset}}``, sorted, as Spark writes a Kafka offset."""
    out: dict[str, dict[str, int]] = {}
    for tp in sorted(offsets):
        out.setdefault(tp.topic, {})[str(tp.partition)] = int(offsets[tp])
    return out


def from_offset_json(value: Any) -> PartitionOffsets:
    """The partition offsets of a Kafka offset read back from ``offsets/N`` or a metadata log."""
    if isinstance(value, str):
        value = json.loads(value)
    if not isinstance(value, dict):
        raise IllegalArgumentException(
            f"Kafka offset {json.dumps(value)} is not of the form {_OFFSETS_EXAMPLE}: the checkpoint was written by "
            "another source; use a new checkpointLocation.")
    return {TopicAndPartition(topic, int(p)): int(o) for topic, parts in value.items() for p, o in parts.items()}


def parse_partition_offsets(text: str, option: str) -> PartitionOffsets:
    """Parse a ``startingOffsets``/``endingOffsets`` JSON value."""
    try:
        value = json.loads(text)
        if not isinstance(value, dict) or not all(isinstance(v, dict) for v in value.values()):
            raise ValueError("not an object of objects")
        return {TopicAndPartition(str(topic), int(p)): int(o) for topic, parts in value.items()
                for p, o in parts.items()}
    except (ValueError, TypeError):
        raise IllegalArgumentException(
            f"Expected e.g. {_OFFSETS_EXAMPLE}, got {text} (option '{option}': partition numbers as strings, "
            "-2 for earliest, -1 for latest)") from None


def _parse_assign(text: str) -> list[TopicAndPartition]:
    try:
        value = json.loads(text)
        if not isinstance(value, dict):
            raise ValueError("not an object")
        parts = [TopicAndPartition(str(topic), int(p)) for topic, ps in value.items() for p in ps]
    except (ValueError, TypeError):
        raise IllegalArgumentException(f"Expected e.g. {_ASSIGN_EXAMPLE}, got {text} (option 'assign')") from None
    if not parts:
        raise IllegalArgumentException(f"No topicpartitions to assign as specified value for option 'assign' is "
                                       f"'{text}'; name at least one partition, e.g. {_ASSIGN_EXAMPLE}")
    return sorted(set(parts))


# --------------------------------------------------------------------------- strategy

STRATEGY_KEYS = ("assign", "subscribe", "subscribepattern")


@dataclass(frozen=True)
class Strategy:
    """Which partitions a Kafka source reads: ``kind`` is ``assign``, ``subscribe`` or ``subscribePattern``."""

    kind: str
    topics: tuple[str, ...] = ()
    pattern: str = ""
    assigned: tuple[TopicAndPartition, ...] = ()

    @classmethod
    def from_options(cls, options: Mapping[str, str]) -> Strategy:
        """The one strategy option of ``options`` (lower-cased keys)."""
        given = [k for k in STRATEGY_KEYS if k in options]
        names = "assign, subscribe, subscribePattern"
        if not given:
            raise IllegalArgumentException(
                f"One of the following options must be specified for Kafka source: {names}. See the docs for more "
                'details: e.g. .option("subscribe", "topic1,topic2").')
        if len(given) > 1:
            raise IllegalArgumentException(
                f"Only one of the following options can be specified for Kafka source: {names}. See the docs for "
                "more details.")
        value = options[given[0]]
        if given[0] == "assign":
            if not value.strip().startswith("{"):
                raise IllegalArgumentException(
                    f"No topicpartitions to assign as specified value for option 'assign' is '{value}'; expected "
                    f"JSON such as {_ASSIGN_EXAMPLE}")
            return cls("assign", assigned=tuple(_parse_assign(value)))
        if given[0] == "subscribe":
            topics = tuple(t.strip() for t in value.split(",") if t.strip())
            if not topics:
                raise IllegalArgumentException(
                    f"No topics to subscribe to as specified value for option 'subscribe' is '{value}'; give a "
                    "comma-separated list of topics")
            return cls("subscribe", topics=topics)
        pattern = value.strip()
        if not pattern:
            raise IllegalArgumentException(
                f"Pattern to subscribe is empty as specified value for option 'subscribePattern' is '{value}'")
        try:
            re.compile(pattern)
        except re.error as exc:
            raise IllegalArgumentException(
                f"Option 'subscribePattern' = '{value}' is not a valid regular expression: {exc}") from None
        return cls("subscribePattern", pattern=pattern)

    def __str__(self) -> str:
        if self.kind == "assign":
            return f"Assign[{', '.join(f'{tp.topic}-{tp.partition}' for tp in self.assigned)}]"
        if self.kind == "subscribe":
            return f"Subscribe[{', '.join(self.topics)}]"
        return f"SubscribePattern[{self.pattern}]"


# --------------------------------------------------------------------------- the driver's reader


class KafkaOffsetReader:
    """The driver's view of the strategy's partitions and their offsets."""

    def __init__(self, config: KafkaConfig, strategy: Strategy) -> None:
        self.config = config
        self.strategy = strategy
        self._lock = threading.Lock()
        self._consumer: Any = connect("consumer", config.driver_consumer())

    def close(self) -> None:
        """Close the consumer (idempotent)."""
        with self._lock:
            consumer, self._consumer = self._consumer, None
        if consumer is not None:
            close_quietly(consumer)

    def _client(self) -> Any:
        if self._consumer is None:
            raise RuntimeError("the Kafka source's offset reader is closed (the query was stopped)")
        return self._consumer

    def partitions(self) -> list[TopicAndPartition]:
        """The partitions the strategy reads now (metadata fetched afresh, so new ones appear)."""
        with self._lock:
            consumer = self._client()
            topics = consumer.topics()  # a remote call: refreshes the metadata of every topic
            if self.strategy.kind == "assign":
                missing = [tp for tp in self.strategy.assigned
                           if tp.partition not in (consumer.partitions_for_topic(tp.topic) or ())]
                if missing:
                    raise IllegalArgumentException(
                        f"Partitions {', '.join(f'{tp.topic}-{tp.partition}' for tp in missing)} of option 'assign' "
                        f"do not exist on {self.config.bootstrap}; create them first or fix the option.")
                return list(self.strategy.assigned)
            if self.strategy.kind == "subscribe":
                wanted = [t for t in self.strategy.topics if t in topics]
            else:
                regex = re.compile(self.strategy.pattern)
                wanted = sorted(t for t in topics if regex.fullmatch(t) and not t.startswith("__"))
            return sorted(TopicAndPartition(t, p) for t in wanted for p in consumer.partitions_for_topic(t) or ())

    def earliest(self, tps: Iterable[TopicAndPartition]) -> PartitionOffsets:
        """The log start offset of each partition."""
        return self._list(tps, "beginning_offsets")

    def latest(self, tps: Iterable[TopicAndPartition]) -> PartitionOffsets:
        """The log end offset (next offset to be written) of each partition."""
        return self._list(tps, "end_offsets")

    def _list(self, tps: Iterable[TopicAndPartition], method: str) -> PartitionOffsets:
        from kafka import TopicPartition

        wanted = {TopicPartition(tp.topic, tp.partition): tp for tp in tps}
        if not wanted:
            return {}
        with self._lock:
            got = getattr(self._client(), method)(list(wanted), timeout_ms=REQUEST_TIMEOUT_MS)
        return {wanted[k]: int(v) for k, v in got.items()}

    def resolve(self, spec: str | PartitionOffsets, option: str, fail_on_data_loss: bool) -> PartitionOffsets:
        """The offsets ``spec`` (``"earliest"``, ``"latest"`` or specific offsets) means now.

        Specific offsets must name exactly the strategy's partitions; ``-2``/``-1`` are
        looked up; an offset outside what the broker holds is data loss (moved into
        range when ``failOnDataLoss`` is false).
        """
        tps = self.partitions()
        if spec == "earliest":
            return self.earliest(tps)
        if spec == "latest":
            return self.latest(tps)
        assert isinstance(spec, dict)
        if set(spec) != set(tps):
            raise IllegalArgumentException(
                f"If {option} contains specific offsets, you must specify all TopicPartitions.\nUse -1 for latest, "
                f"-2 for earliest.\nSpecified: {_names(spec)} Assigned: {_names(tps)}")
        earliest, latest = self.earliest(tps), self.latest(tps)
        out = {}
        for tp, offset in spec.items():
            if offset == EARLIEST:
                out[tp] = earliest[tp]
            elif offset == LATEST:
                out[tp] = latest[tp]
            elif offset < earliest[tp] or offset > latest[tp]:
                target = earliest[tp] if offset < earliest[tp] else latest[tp]
                data_loss(fail_on_data_loss, "START_OFFSET_RESET",
                          f"{option} for {tp.topic}-{tp.partition} was {offset} but consumer reset to "
                          f"{target} (the broker holds [{earliest[tp]}, {latest[tp]})).")
                out[tp] = target
            else:
                out[tp] = offset
        return out


def _names(tps: Iterable[TopicAndPartition]) -> str:
    return "{" + ", ".join(f"{tp.topic}-{tp.partition}" for tp in sorted(tps)) + "}"


# --------------------------------------------------------------------------- data loss

_DATA_LOSS = ("Some data may have been lost because they are not available in Kafka any more; either the data was "
              "aged out by Kafka or the topic may have been deleted before all the data in the topic was processed.")


def data_loss_error(condition: str, reason: str) -> SparkRuntimeException:
    """The ``KAFKA_DATA_LOSS.<condition>`` error (``failOnDataLoss`` true)."""
    return SparkRuntimeException(
        f"{_DATA_LOSS} If you don't want your streaming query to fail on such cases, set the source option "
        f'"failOnDataLoss" to "false".\nReason: {reason}', f"KAFKA_DATA_LOSS.{condition}", {"reason": reason})


def data_loss(fail: bool, condition: str, reason: str) -> None:
    """Offsets the query needs are gone: raise (``failOnDataLoss`` true) or log a warning.

    Raises
    ------
    SparkRuntimeException
        ``KAFKA_DATA_LOSS.<condition>`` when ``fail``.
    """
    if fail:
        raise data_loss_error(condition, reason)
    logger.warning("%s %s If you want your streaming query to fail on such cases, set the source option "
                   '"failOnDataLoss" to "true".', reason, _DATA_LOSS)


# --------------------------------------------------------------------------- arithmetic


def rate_limit(limit: int, start: Mapping[TopicAndPartition, int], until: Mapping[TopicAndPartition, int],
               new_start: Mapping[TopicAndPartition, int]) -> PartitionOffsets:
    """Spread ``limit`` offsets over the partitions of ``until`` in proportion to what each has to read.

    ``start`` is where each known partition is; ``new_start`` where a partition not in
    ``start`` begins (its earliest offset). A share below one offset is rounded up, so a
    small partition is never starved; others are rounded down. A partition never goes
    past its ``until``.
    """
    sizes = {}
    for tp, end in until.items():
        begin = start.get(tp, new_start.get(tp))
        if begin is not None and end - begin > 0:
            sizes[tp] = end - begin
    total = float(sum(sizes.values()))
    if total < 1:
        return dict(until)
    out = {}
    for tp, end in until.items():
        size = sizes.get(tp)
        if size is None:
            out[tp] = end
            continue
        begin = start.get(tp, new_start.get(tp, 0))
        share = limit * (size / total)
        out[tp] = min(end, begin + int(math.ceil(share) if share < 1 else math.floor(share)))
    return out


def split_ranges(ranges: Sequence[OffsetRange], min_partitions: int | None) -> list[OffsetRange]:
    """The non-empty ``ranges``, large ones split so that there are about ``min_partitions`` of them."""
    ranges = [r for r in ranges if r.count() > 0]
    if min_partitions is None or len(ranges) >= min_partitions:
        return ranges
    ideal = sum(r.count() for r in ranges) / min_partitions
    out = []
    for r in ranges:
        parts = max(int(math.floor(r.count() / ideal + 0.5)), 1)
        remaining, begin = r.count(), r.fromOffset
        for part in range(parts):
            this = remaining // (parts - part)
            remaining -= this
            end = min(begin + this, r.untilOffset)
            if end > begin:
                out.append(OffsetRange(r.topic, r.partition, begin, end))
            begin = end
    return out

"""KafkaRDD: one RDD partition per offset range, read by the task itself in its worker.

What this module owns
---------------------
* :class:`KafkaRDDNode` — the lineage node. Its partitions are :class:`KafkaPartition`
  objects, each carrying one :class:`~dstream.kafka.structs.OffsetRange`; nothing else
  travels with a task (no records go through the driver).
* :func:`read_range` — how a task reads ``[fromOffset, untilOffset)`` exactly: borrow
  this process's consumer, ``assign`` + ``seek``, poll until the position reaches
  ``untilOffset``, hand records over in offset order, stop at ``untilOffset`` even when
  the consumer fetched further.
* :class:`KafkaRDD` — the RDD facade with ``offsetRanges()`` (PySpark's ``KafkaRDD``,
  Spark's ``HasOffsetRanges``). Only the RDD the stream or ``createRDD`` produced has
  it; a transformation returns a plain RDD, because its partitions no longer map to
  the ranges.

Invariants
----------
* Partition ``i`` holds exactly the records of range ``i`` with offsets in
  ``[fromOffset, untilOffset)``, in offset order; with
  ``spark.streaming.kafka.allowNonConsecutiveOffsets`` false (the default) a missing
  offset inside the range fails the task (:class:`RangeReadError`), since a count
  derived from offsets would then be wrong. Gaps are legal in compacted and
  transactional topics: set the option there.
* An empty range opens no connection.
* An offset the broker no longer holds fails the task with
  :class:`OffsetsOutOfRangeError` naming the partition, the range and what the broker
  holds; workers never reset offsets on their own.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rdd import RDD
from rdd.engine_api import Partition, SourceNode

from dstream.kafka.clients import borrowed_consumer
from dstream.kafka.errors import OffsetsOutOfRangeError, RangeReadError
from dstream.kafka.params import KafkaConfig
from dstream.kafka.structs import KafkaMessageAndMetadata, OffsetRange, decode_field

if TYPE_CHECKING:
    from rdd import SparkContext, TaskContext

__all__ = ["KafkaPartition", "KafkaRDD", "KafkaRDDNode", "ReadSettings", "read_range", "read_settings"]

#: Spark's default for ``spark.streaming.kafka.consumer.poll.ms`` (``spark.network.timeout``):
#: how long a task waits for the next record of a range that the broker said exists.
DEFAULT_POLL_TIMEOUT_MS = 120_000
#: Records asked for per ``poll``: large enough that the per-call overhead is amortised,
#: small enough that a range's tail does not make the consumer parse much beyond it.
POLL_BATCH = 5000


@dataclass(frozen=True, slots=True)
class ReadSettings:
    """How workers read ranges (from the SparkConf of the context that built the RDD)."""

    poll_timeout_ms: int = DEFAULT_POLL_TIMEOUT_MS
    allow_non_consecutive: bool = False


def read_settings(sc: Any) -> ReadSettings:
    """Read ``spark.streaming.kafka.consumer.poll.ms`` and ``...allowNonConsecutiveOffsets``."""
    conf = sc.getConf()
    poll_ms = conf.getLong("spark.streaming.kafka.consumer.poll.ms", DEFAULT_POLL_TIMEOUT_MS)
    if poll_ms <= 0:
        raise ValueError(f"spark.streaming.kafka.consumer.poll.ms must be positive, got {poll_ms}")
    gaps = conf.getBoolean("spark.streaming.kafka.allowNonConsecutiveOffsets", False)
    return ReadSettings(poll_ms, gaps)


class KafkaPartition(Partition):
    """An RDD partition holding one offset range."""

    __slots__ = ("offset_range",)

    def __init__(self, index: int, offset_range: OffsetRange) -> None:
        super().__init__(index)
        self.offset_range = offset_range

    def __repr__(self) -> str:
        return f"KafkaPartition({self.index}, {self.offset_range})"


def _out_of_range(consumer: Any, tp: Any, r: OffsetRange, position: int) -> OffsetsOutOfRangeError:
    try:
        earliest = consumer.beginning_offsets([tp], timeout_ms=5000)[tp]
        latest = consumer.end_offsets([tp], timeout_ms=5000)[tp]
        held = f"the broker holds [{earliest}, {latest})"
    except Exception:  # noqa: BLE001 - the message is still useful without the figures
        earliest = latest = None
        held = "the broker's offsets could not be read"
    return OffsetsOutOfRangeError(
        f"offset {position} of {r.topic}-{r.partition} is out of range while reading [{r.fromOffset}, "
        f"{r.untilOffset}): {held}. Retention or deleteRecords removed the records, or the range was "
        "computed for another topic incarnation; the batch cannot be read exactly",
        r.topic, r.partition, r.fromOffset, r.untilOffset, earliest, latest,
    )


def read_range(config: KafkaConfig, r: OffsetRange, settings: ReadSettings) -> Iterator[Any]:
    """Yield the kafka-python records of ``r`` in offset order, exactly ``[from, until)``.

    Raises
    ------
    OffsetsOutOfRangeError
        If the broker no longer (or does not yet) hold an offset of the range.
    RangeReadError
        On a gap (unless allowed) or when no record arrives within the poll timeout.
    """
    if r.fromOffset >= r.untilOffset:
        return
    from kafka import TopicPartition
    from kafka.errors import OffsetOutOfRangeError as ClientOutOfRange

    until = r.untilOffset
    with borrowed_consumer(config) as consumer:
        tp = TopicPartition(r.topic, r.partition)
        consumer.assign([tp])
        # A pooled consumer paused this partition after its last read of it; assigning
        # the same partition again keeps that state.
        consumer.resume(tp)
        consumer.seek(tp, r.fromOffset)
        expected = r.fromOffset
        timeout_s = settings.poll_timeout_ms / 1000
        deadline = time.monotonic() + timeout_s
        try:
            while expected < until:
                try:
                    fetched = consumer.poll(timeout_ms=min(1000, settings.poll_timeout_ms),
                                            max_records=min(until - expected, POLL_BATCH))
                except ClientOutOfRange:
                    raise _out_of_range(consumer, tp, r, expected) from None
                records = fetched.get(tp)
                if not records:
                    # Transaction markers occupy offsets but are never returned: the
                    # position can reach `until` without a record at until - 1.
                    if consumer.position(tp) >= until:
                        return
                    if time.monotonic() > deadline:
                        raise RangeReadError(
                            f"no record of {r.topic}-{r.partition} arrived within {settings.poll_timeout_ms} ms "
                            f"at offset {expected} while reading [{r.fromOffset}, {until}); raise "
                            "spark.streaming.kafka.consumer.poll.ms if the broker is slow",
                            r.topic, r.partition, r.fromOffset, until, expected)
                    continue
                deadline = time.monotonic() + timeout_s
                for record in records:
                    offset = record.offset
                    if offset < expected:
                        continue
                    if offset >= until:
                        return
                    if offset != expected and not settings.allow_non_consecutive:
                        raise RangeReadError(
                            f"offsets {expected}..{offset - 1} of {r.topic}-{r.partition} are missing while "
                            f"reading [{r.fromOffset}, {until}); a compacted or transactional topic has gaps: "
                            "set spark.streaming.kafka.allowNonConsecutiveOffsets=true to read it",
                            r.topic, r.partition, r.fromOffset, until, expected)
                    yield record
                    expected = offset + 1
        finally:
            # An idle pooled consumer must not keep prefetching this partition.
            try:
                consumer.pause(tp)
            except Exception:  # noqa: BLE001 - the consumer may already be broken
                pass


Decoder = Callable[[Any], Any]


def _identity(x: Any) -> Any:
    return x


def read_pairs(config: KafkaConfig, r: OffsetRange, settings: ReadSettings, key_decoder: Decoder | None,
               value_decoder: Decoder | None) -> Iterator[tuple[Any, Any]]:
    """Yield ``(key, value)`` for every record of ``r``, decoded."""
    kd = key_decoder or _identity
    vd = value_decoder or _identity
    for record in read_range(config, r, settings):
        try:
            pair = (kd(record.key), vd(record.value))
        except Exception:
            # Re-run the failing decoder through decode_field, which names the record.
            decode_field(kd, record.key, r.topic, r.partition, record.offset, "key")
            decode_field(vd, record.value, r.topic, r.partition, record.offset, "value")
            raise
        yield pair


def read_messages(config: KafkaConfig, r: OffsetRange, settings: ReadSettings, key_decoder: Decoder | None,
                  value_decoder: Decoder | None, handler: Callable[[KafkaMessageAndMetadata], Any]) -> Iterator[Any]:
    """Yield ``handler(record)`` for every record of ``r``; the record decodes lazily."""
    for record in read_range(config, r, settings):
        yield handler(KafkaMessageAndMetadata(
            record.topic, record.partition, record.offset, record.key, record.value,
            record.timestamp if record.timestamp is not None else -1,
            record.timestamp_type if record.timestamp_type is not None else -1,
            key_decoder, value_decoder))


class KafkaRDDNode(SourceNode):
    """A source node over explicit offset ranges (no parents, one partition per range)."""

    def __init__(self, config: KafkaConfig, ranges: Sequence[OffsetRange], settings: ReadSettings,
                 key_decoder: Decoder | None, value_decoder: Decoder | None,
                 message_handler: Callable[[KafkaMessageAndMetadata], Any] | None) -> None:
        super().__init__()
        self.config = config
        self.ranges = tuple(ranges)
        self.settings = settings
        self.key_decoder = key_decoder
        self.value_decoder = value_decoder
        self.message_handler = message_handler

    def make_partitions(self) -> list[Partition]:
        return [KafkaPartition(i, r) for i, r in enumerate(self.ranges)]

    def compute(self, split: Partition, tctx: TaskContext) -> Iterator[Any]:
        assert isinstance(split, KafkaPartition)
        r = split.offset_range
        if self.message_handler is None:
            return read_pairs(self.config, r, self.settings, self.key_decoder, self.value_decoder)
        return read_messages(self.config, r, self.settings, self.key_decoder, self.value_decoder,
                             self.message_handler)

    def describe(self) -> str:
        return "KafkaRDD"

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state["ranges"] = ()  # each task carries its own range in its partition
        return state


class KafkaRDD(RDD):
    """An RDD of Kafka records over explicit offset ranges (PySpark's ``KafkaRDD``).

    Elements are ``(key, value)`` decoded by the stream's decoders, or whatever the
    ``messageHandler`` returned. Create one with ``KafkaUtils.createRDD``; a direct
    stream hands one to ``foreachRDD``/``transform`` for every batch.
    """

    def __init__(self, node: KafkaRDDNode, ctx: SparkContext) -> None:
        super().__init__(node, ctx)
        self._offset_ranges = node.ranges

    def offsetRanges(self) -> list[OffsetRange]:  # noqa: N802 - PySpark name
        """Return the offset ranges of this RDD, one per partition, in partition order.

        Examples
        --------
        >>> def store_offsets(rdd):  # doctest: +SKIP
        ...     for o in rdd.offsetRanges():
        ...         print(o.topic, o.partition, o.fromOffset, o.untilOffset)
        >>> stream.foreachRDD(store_offsets)  # doctest: +SKIP
        """
        return list(self._offset_ranges)

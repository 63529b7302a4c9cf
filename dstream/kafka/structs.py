"""Value types of the Kafka API, in PySpark 2.x's shape.

What this module owns
---------------------
* :class:`OffsetRange` ``(topic, partition, fromOffset, untilOffset)``: one partition's
  records ``[fromOffset, untilOffset)``. Immutable, hashable, compared by value.
  ``count()`` and ``topicPartition()`` come from the Scala kafka-0-10 API.
* :class:`TopicAndPartition` ``(topic, partition)``: hashable key of ``fromOffsets``.
* :class:`Broker` ``(host, port)``: accepted in ``createRDD(leaders=...)`` for parity.
* :class:`KafkaMessageAndMetadata`: what a ``messageHandler`` receives, with the key
  and message decoded lazily (a handler that reads only ``offset`` never pays for
  decoding, and a decoder error names the record's topic, partition and offset).

Invariants: offsets are non-negative ints and ``fromOffset <= untilOffset``; a range
with ``fromOffset == untilOffset`` is valid and empty (a partition without new records
in a batch still gets one).

PySpark's names are kept verbatim (``fromOffset``, ``untilOffset``, ``message``);
these classes are part of the camelCase facade.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dstream.kafka.errors import KafkaDecodeError

__all__ = ["Broker", "KafkaMessageAndMetadata", "OffsetRange", "TopicAndPartition"]


def _check_offset(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {value!r} of type {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")
    return value


def _check_topic(topic: Any) -> str:
    if not isinstance(topic, str) or not topic:
        raise TypeError(f"topic must be a non-empty str, got {topic!r}")
    return topic


@dataclass(frozen=True, slots=True)
class OffsetRange:
    """The records ``[fromOffset, untilOffset)`` of one Kafka topic-partition.

    Parameters
    ----------
    topic : str
        Kafka topic name.
    partition : int
        Kafka partition id.
    fromOffset : int
        First offset, inclusive.
    untilOffset : int
        Last offset, exclusive (``fromOffset == untilOffset`` is an empty range).

    Raises
    ------
    ValueError
        If an offset is negative or ``fromOffset > untilOffset``.

    Examples
    --------
    >>> r = OffsetRange("events", 0, 10, 15)
    >>> r.count(), r.topicPartition()
    (5, TopicAndPartition(topic='events', partition=0))
    >>> r == OffsetRange("events", 0, 10, 15)
    True
    """

    topic: str
    partition: int
    fromOffset: int  # noqa: N815 - PySpark's attribute name
    untilOffset: int  # noqa: N815 - PySpark's attribute name

    def __post_init__(self) -> None:
        _check_topic(self.topic)
        _check_offset("partition", self.partition)
        _check_offset("fromOffset", self.fromOffset)
        _check_offset("untilOffset", self.untilOffset)
        if self.fromOffset > self.untilOffset:
            raise ValueError(
                f"fromOffset ({self.fromOffset}) must not exceed untilOffset ({self.untilOffset}) in the "
                f"offset range of {self.topic}-{self.partition}; untilOffset is exclusive, so "
                "[n, n) is an empty range"
            )

    def count(self) -> int:
        """Return the number of offsets in the range (``untilOffset - fromOffset``)."""
        return self.untilOffset - self.fromOffset

    def topicPartition(self) -> TopicAndPartition:  # noqa: N802 - Scala API name
        """Return the range's :class:`TopicAndPartition`."""
        return TopicAndPartition(self.topic, self.partition)

    def __str__(self) -> str:
        # Spark's own rendering, so logs read the same as a Spark application's.
        return f"OffsetRange(topic: '{self.topic}', partition: {self.partition}, " \
               f"range: [{self.fromOffset} -> {self.untilOffset}])"


class TopicAndPartition:
    """A Kafka topic-partition: the key type of ``fromOffsets``.

    Parameters
    ----------
    topic : str
        Kafka topic name.
    partition : int
        Kafka partition id.

    Examples
    --------
    >>> {TopicAndPartition("events", 0): 42}[TopicAndPartition("events", 0)]
    42
    """

    # PySpark keeps the fields private (``_topic``, ``_partition``); code that read them
    # still works, and ``topic``/``partition`` are the read-only public view.
    __slots__ = ("_topic", "_partition")

    def __init__(self, topic: str, partition: int) -> None:
        self._topic = _check_topic(topic)
        self._partition = _check_offset("partition", partition)

    @property
    def topic(self) -> str:
        """The topic name."""
        return self._topic

    @property
    def partition(self) -> int:
        """The partition id."""
        return self._partition

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TopicAndPartition):
            return NotImplemented
        return self._topic == other._topic and self._partition == other._partition

    def __hash__(self) -> int:
        return hash((self._topic, self._partition))

    def __lt__(self, other: TopicAndPartition) -> bool:
        return (self._topic, self._partition) < (other._topic, other._partition)

    def __repr__(self) -> str:
        return f"TopicAndPartition(topic={self._topic!r}, partition={self._partition})"

    def __reduce__(self) -> Any:
        return (TopicAndPartition, (self._topic, self._partition))


@dataclass(frozen=True, slots=True)
class Broker:
    """A broker's address, as in PySpark's ``createRDD(leaders={tp: Broker(host, port)})``.

    Leaders are looked up by the Kafka client; a ``leaders`` map is accepted and ignored.
    """

    host: str
    port: int


Decoder = Callable[[Any], Any]


class KafkaMessageAndMetadata:
    """One Kafka record as a ``messageHandler`` sees it.

    Attributes
    ----------
    topic : str
    partition : int
    offset : int
    timestamp : int
        Record timestamp in milliseconds since the epoch (-1 if the broker has none).
    timestampType : int
        0 = CreateTime, 1 = LogAppendTime, -1 = none.
    key, message
        Decoded with the stream's ``keyDecoder`` and ``valueDecoder`` on first access.
    value
        The same as ``message``: ``message`` is PySpark 2.x's name, ``value`` Kafka's
        (``ConsumerRecord.value``), and handlers are written against both.

    Raises
    ------
    KafkaDecodeError
        On access of ``key``/``message``/``value`` when the decoder fails; the message
        names the topic, partition and offset.
    """

    __slots__ = ("topic", "partition", "offset", "timestamp", "timestampType", "_raw_key", "_raw_value",
                 "_key_decoder", "_value_decoder")

    def __init__(self, topic: str, partition: int, offset: int, key: bytes | None, message: bytes | None,
                 timestamp: int = -1, timestampType: int = -1,  # noqa: N803 - PySpark-style name
                 keyDecoder: Decoder | None = None, valueDecoder: Decoder | None = None) -> None:  # noqa: N803
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.timestamp = timestamp
        self.timestampType = timestampType
        self._raw_key = key
        self._raw_value = message
        self._key_decoder = keyDecoder
        self._value_decoder = valueDecoder

    @property
    def key(self) -> Any:
        """The record key, decoded."""
        return decode_field(self._key_decoder, self._raw_key, self.topic, self.partition, self.offset, "key")

    @property
    def message(self) -> Any:
        """The record value, decoded (PySpark's name)."""
        return decode_field(self._value_decoder, self._raw_value, self.topic, self.partition, self.offset, "value")

    @property
    def value(self) -> Any:
        """The record value, decoded (Kafka's name; same as :attr:`message`)."""
        return self.message

    def __repr__(self) -> str:
        return (f"KafkaMessageAndMetadata(topic={self.topic!r}, partition={self.partition}, "
                f"offset={self.offset}, timestamp={self.timestamp})")

    def __reduce__(self) -> Any:
        # Handlers may return the record itself; ship the raw bytes and the decoders.
        return (KafkaMessageAndMetadata, (self.topic, self.partition, self.offset, self._raw_key, self._raw_value,
                                          self.timestamp, self.timestampType, self._key_decoder,
                                          self._value_decoder))


def decode_field(decoder: Decoder | None, raw: Any, topic: str, partition: int, offset: int, field: str) -> Any:
    """Apply ``decoder`` to one field of a record, naming the record if it fails."""
    if decoder is None:
        return raw
    try:
        return decoder(raw)
    except Exception as exc:  # noqa: BLE001 - any decoder failure is reported with its record
        name = getattr(decoder, "__qualname__", None) or repr(decoder)
        preview = raw[:32] if isinstance(raw, (bytes, bytearray)) else raw
        raise KafkaDecodeError(
            f"cannot decode the {field} of the record at {topic}-{partition} offset {offset} with "
            f"{name}: {type(exc).__name__}: {exc} (first bytes: {preview!r}); pass a "
            f"{'keyDecoder' if field == 'key' else 'valueDecoder'} that accepts these bytes",
            topic, partition, offset, field,
        ) from exc

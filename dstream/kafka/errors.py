"""Exceptions raised by the Kafka source and sink.

The hierarchy::

    dstream.StreamingError
    └── KafkaSourceError           base of everything raised by ``dstream.kafka``
        ├── BrokerUnreachableError  no bootstrap server answered within the connect
        │                           budget (also a ConnectionError)
        ├── UnknownTopicError       a topic of the stream or of an offset range does not
        │                           exist and creating it was not allowed (also a
        │                           LookupError)
        ├── OffsetsOutOfRangeError  a range starts before the log start (retention or
        │                           deleteRecords removed the records) or ends after the
        │                           log end; names the partition and both offsets
        ├── KafkaDecodeError        a key or value decoder failed; names the topic,
        │                           partition and offset of the record (also a ValueError)
        ├── RangeReadError          a worker could not read an offset range completely
        │                           (a gap without allowNonConsecutiveOffsets, or no
        │                           record within the poll timeout)
        └── KafkaSinkError          records could not be written to a topic

Argument errors (a malformed ``kafkaParams`` value, a negative offset, ``fromOffset >
untilOffset``) are plain ``ValueError``/``TypeError`` raised at the call, as PySpark
users expect.

Several of these are raised inside worker processes and travel back to the driver
pickled; each keeps its structured fields (``topic``, ``partition``, offsets) through
``__reduce__`` so a handler on the driver can read them, not only the message.
"""

from __future__ import annotations

from typing import Any

from dstream.errors import StreamingError

__all__ = [
    "BrokerUnreachableError",
    "KafkaDecodeError",
    "KafkaSinkError",
    "KafkaSourceError",
    "OffsetsOutOfRangeError",
    "RangeReadError",
    "UnknownTopicError",
]


class KafkaSourceError(StreamingError):
    """Base class of the errors raised by the Kafka source and sink."""


class BrokerUnreachableError(KafkaSourceError, ConnectionError):
    """No bootstrap server could be reached within the connect budget.

    Attributes
    ----------
    servers : tuple of str
        The ``host:port`` addresses that were tried.
    """

    def __init__(self, message: str, servers: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.servers = tuple(servers)

    def __reduce__(self) -> Any:
        return (type(self), (str(self), self.servers))


class UnknownTopicError(KafkaSourceError, LookupError):
    """A topic does not exist (and automatic creation was not enabled).

    Attributes
    ----------
    topic : str
        The missing topic.
    """

    def __init__(self, message: str, topic: str = "") -> None:
        super().__init__(message)
        self.topic = topic

    def __reduce__(self) -> Any:
        return (type(self), (str(self), self.topic))


class OffsetsOutOfRangeError(KafkaSourceError):
    """An offset range is not (or no longer) available on the broker.

    Attributes
    ----------
    topic, partition : str, int
        The topic-partition.
    from_offset, until_offset : int
        The requested range ``[from_offset, until_offset)``.
    earliest, latest : int or None
        The offsets the broker holds, ``[earliest, latest)``, when known.
    """

    def __init__(self, message: str, topic: str = "", partition: int = -1, from_offset: int = -1,
                 until_offset: int = -1, earliest: int | None = None, latest: int | None = None) -> None:
        super().__init__(message)
        self.topic = topic
        self.partition = partition
        self.from_offset = from_offset
        self.until_offset = until_offset
        self.earliest = earliest
        self.latest = latest

    def __reduce__(self) -> Any:
        return (type(self), (str(self), self.topic, self.partition, self.from_offset, self.until_offset,
                             self.earliest, self.latest))


class KafkaDecodeError(KafkaSourceError, ValueError):
    """A key or value decoder raised on a record; ``__cause__`` is the decoder's error.

    Attributes
    ----------
    topic, partition, offset : str, int, int
        Where the record is.
    field : str
        ``"key"`` or ``"value"``.
    """

    def __init__(self, message: str, topic: str = "", partition: int = -1, offset: int = -1,
                 field: str = "") -> None:
        super().__init__(message)
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.field = field

    def __reduce__(self) -> Any:
        return (type(self), (str(self), self.topic, self.partition, self.offset, self.field))


class RangeReadError(KafkaSourceError):
    """A worker could not read an offset range exactly.

    Attributes
    ----------
    topic, partition : str, int
        The topic-partition.
    from_offset, until_offset : int
        The range being read.
    position : int
        The next offset the worker expected when it gave up.
    """

    def __init__(self, message: str, topic: str = "", partition: int = -1, from_offset: int = -1,
                 until_offset: int = -1, position: int = -1) -> None:
        super().__init__(message)
        self.topic = topic
        self.partition = partition
        self.from_offset = from_offset
        self.until_offset = until_offset
        self.position = position

    def __reduce__(self) -> Any:
        return (type(self), (str(self), self.topic, self.partition, self.from_offset, self.until_offset,
                             self.position))


class KafkaSinkError(KafkaSourceError):
    """Records could not be written to a topic.

    Attributes
    ----------
    topic : str
        The target topic.
    failed : int
        How many records of the task were not acknowledged.
    """

    def __init__(self, message: str, topic: str = "", failed: int = 0) -> None:
        super().__init__(message)
        self.topic = topic
        self.failed = failed

    def __reduce__(self) -> Any:
        return (type(self), (str(self), self.topic, self.failed))

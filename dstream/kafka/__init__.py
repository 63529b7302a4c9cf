"""Kafka for dstreams: a direct stream, batch reads of offset ranges, and a sink.

PySpark 2.x's ``pyspark.streaming.kafka`` surface (``KafkaUtils``, ``OffsetRange``,
``TopicAndPartition``, ``Broker``, ``KafkaMessageAndMetadata``, ``utf8_decoder``) with
the semantics of Spark's kafka-0-10 direct stream, on kafka-python. Change
``from pyspark.streaming.kafka import KafkaUtils`` to ``from dstream.kafka import
KafkaUtils``.

Layout (engine modules are snake_case, the facade keeps PySpark's names)::

    utils.py     KafkaUtils: createDirectStream, createRDD, writeToKafka (facade)
    stream.py    DirectKafkaInputNode (per-batch range plan) + KafkaDStream.commitAsync
    rdd.py       KafkaRDDNode (one partition per range, read in the worker) + KafkaRDD
    offsets.py   driver-side offset look-ups, commits, and the rate-limit arithmetic
    clients.py   client creation with bounded connects; per-worker consumer/producer pools
    sink.py      the task-side writer (idempotent producer, flush before the task ends)
    params.py    kafkaParams -> kafka-python settings per role
    structs.py   OffsetRange, TopicAndPartition, Broker, KafkaMessageAndMetadata
    decoders.py  utf8_decoder, utf8_encoder
    errors.py    the exception hierarchy

>>> from dstream.kafka import KafkaUtils, OffsetRange, TopicAndPartition
"""

from __future__ import annotations

from dstream.kafka.decoders import utf8_decoder, utf8_encoder
from dstream.kafka.errors import (
    BrokerUnreachableError,
    KafkaDecodeError,
    KafkaSinkError,
    KafkaSourceError,
    OffsetsOutOfRangeError,
    RangeReadError,
    UnknownTopicError,
)
from dstream.kafka.rdd import KafkaRDD
from dstream.kafka.stream import KafkaDStream
from dstream.kafka.structs import Broker, KafkaMessageAndMetadata, OffsetRange, TopicAndPartition
from dstream.kafka.utils import KafkaUtils

__all__ = [
    "Broker",
    "BrokerUnreachableError",
    "KafkaDStream",
    "KafkaDecodeError",
    "KafkaMessageAndMetadata",
    "KafkaRDD",
    "KafkaSinkError",
    "KafkaSourceError",
    "KafkaUtils",
    "OffsetRange",
    "OffsetsOutOfRangeError",
    "RangeReadError",
    "TopicAndPartition",
    "UnknownTopicError",
    "utf8_decoder",
    "utf8_encoder",
]

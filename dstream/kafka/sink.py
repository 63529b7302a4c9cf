"""The Kafka sink: write ``(key, value)`` records of an RDD or of every batch to a topic.

What this module owns
---------------------
:func:`produce`, the task-side delivery rule below (shared by the Structured Streaming
Kafka sink), :func:`write_partition`, the task-side writer of ``(key, value)`` records,
and :func:`write_rdd`, the job that runs it on every partition.

Delivery rule
-------------
Each worker process keeps one producer per ``kafkaParams``
(:func:`dstream.kafka.clients.shared_producer`), reused by every task and batch. The
producer is idempotent with ``acks='all'``, so a retry inside the client never
duplicates a record. A task sends its records, then *flushes*, then checks that every
record was acknowledged; only then does it return, so a batch whose output job
succeeded has all its records in the topic. A task that fails discards its producer
(its in-flight state is unknown) and the error names the topic and how many records
were not written.

End-to-end exactly-once needs more than this: a batch replayed after a driver crash
writes its records again (with new offsets). Consumers must de-duplicate (for example
by a key that contains the batch time), or the output must go to an idempotent store.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from dstream.kafka.clients import discard_producer, shared_producer
from dstream.kafka.errors import KafkaSinkError
from dstream.kafka.params import KafkaConfig

if TYPE_CHECKING:
    from rdd import RDD

__all__ = ["produce", "write_partition", "write_rdd"]

Encoder = Callable[[Any], Any]


def produce(config: KafkaConfig, topic: str | None,
            send: Callable[[Any, Callable[[BaseException], Any]], int]) -> int:
    """Run ``send(producer, on_failure)`` on the task's shared producer, flush, and return its count.

    ``send`` sends records, adds ``on_failure`` as every future's errback, and returns how
    many it sent. ``topic`` (``None`` when each record names its own) is for the message.

    Raises
    ------
    KafkaSinkError
        If any record was not acknowledged by the broker.
    """
    producer = shared_producer(config)
    failures: list[BaseException] = []
    try:
        sent = send(producer, failures.append)
        # flush returns when every record sent so far is acknowledged or has failed
        # (bounded by the producer's delivery_timeout_ms).
        producer.flush()
    except BaseException:
        discard_producer(config, producer)  # its in-flight state is unknown
        raise
    if failures:
        discard_producer(config, producer)
        first = failures[0]
        where = f"Kafka topic {topic!r}" if topic else "Kafka"
        raise KafkaSinkError(f"{len(failures)} of {sent} records were not written to {where}: "
                             f"{type(first).__name__}: {first}", topic or "", len(failures)) from first
    return sent


def write_partition(config: KafkaConfig, topic: str, key_encoder: Encoder, value_encoder: Encoder,
                    records: Iterable[Any]) -> int:
    """Send every ``(key, value)`` of ``records`` to ``topic``, flush, and return the count.

    Raises
    ------
    TypeError
        If a record is not a ``(key, value)`` pair, or an encoder returns no bytes.
    KafkaSinkError
        If any record was not acknowledged by the broker.
    """
    def send(producer: Any, on_failure: Callable[[BaseException], Any]) -> int:
        sent = 0
        for item in records:
            try:
                key, value = item
            except (TypeError, ValueError):
                raise TypeError(f"writing to Kafka topic {topic!r} needs (key, value) pairs, got {item!r}; "
                                "map the records first, e.g. .map(lambda v: (None, v))") from None
            producer.send(topic, key=key_encoder(key), value=value_encoder(value)).add_errback(on_failure)
            sent += 1
        return sent

    return produce(config, topic, send)


def write_rdd(rdd: RDD[Any], topic: str, config: KafkaConfig, key_encoder: Encoder, value_encoder: Encoder) -> int:
    """Write every partition of ``rdd`` (one task each); return the number of records written."""

    def write(records: Iterable[Any]) -> list[int]:
        return [write_partition(config, topic, key_encoder, value_encoder, records)]

    return sum(rdd.ctx.runJob(rdd, write))

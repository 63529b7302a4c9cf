"""KafkaUtils: PySpark 2.x's Kafka entry points, with kafka-0-10 semantics.

What this module owns
---------------------
The public factory methods and their argument checks; each validates, converts
``kafkaParams`` once (:func:`~dstream.kafka.params.parse_kafka_params`) and delegates to
one engine object: :class:`~dstream.kafka.stream.DirectKafkaInputNode` for a stream,
:class:`~dstream.kafka.rdd.KafkaRDDNode` for a batch read, and
:func:`~dstream.kafka.sink.write_rdd` for the sink.

PySpark 2.x had ``createStream`` (receiver, ZooKeeper), ``createDirectStream`` and
``createRDD``. The first has no equivalent here and raises with the replacement; the
other two keep their signatures. ``writeToKafka`` is new (PySpark had no Kafka sink);
it is named and shaped like the other methods of this class.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rdd import RDD

from dstream.dstream import DStream
from dstream.kafka.decoders import utf8_decoder, utf8_encoder
from dstream.kafka.offsets import OffsetClient, check_ranges
from dstream.kafka.params import parse_kafka_params
from dstream.kafka.rdd import KafkaRDD, KafkaRDDNode, read_settings
from dstream.kafka.sink import write_rdd
from dstream.kafka.stream import DirectKafkaInputNode, KafkaDStream
from dstream.kafka.structs import Broker, KafkaMessageAndMetadata, OffsetRange, TopicAndPartition

if TYPE_CHECKING:
    from rdd import SparkContext

    from dstream.context import StreamingContext

__all__ = ["KafkaUtils"]

Decoder = Callable[[Any], Any]
Handler = Callable[[KafkaMessageAndMetadata], Any]


def _check_callable(name: str, value: Any, optional: bool = True) -> None:
    if value is None and optional:
        return
    if not callable(value):
        raise TypeError(f"{name} must be a function, got {value!r}")


def _check_topics(topics: Any) -> list[str]:
    if isinstance(topics, str) or not isinstance(topics, (list, tuple)):
        raise TypeError(f"topics must be a list of topic names, got {topics!r}")
    if not topics:
        raise ValueError("topics is empty: name at least one Kafka topic")
    for t in topics:
        if not isinstance(t, str) or not t:
            raise TypeError(f"topics must hold non-empty str topic names, got {t!r}")
    return list(dict.fromkeys(topics))


def _check_from_offsets(fromOffsets: Any, topics: list[str]) -> dict[TopicAndPartition, int]:  # noqa: N803
    if fromOffsets is None:
        return {}
    if not isinstance(fromOffsets, Mapping):
        raise TypeError(f"fromOffsets must be a dict of TopicAndPartition -> offset, got {fromOffsets!r}")
    out = {}
    for tp, offset in fromOffsets.items():
        if not isinstance(tp, TopicAndPartition):
            raise TypeError(f"fromOffsets keys must be TopicAndPartition, got {tp!r}")
        if tp.topic not in topics:
            raise ValueError(f"fromOffsets names {tp!r}, whose topic is not one of the stream's topics {topics}")
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            raise ValueError(f"fromOffsets[{tp!r}] must be an offset (int >= 0), got {offset!r}")
        out[tp] = offset
    return out


class KafkaUtils:
    """Create Kafka streams and RDDs, and write to Kafka (PySpark's ``KafkaUtils``)."""

    @staticmethod
    def createStream(ssc: StreamingContext, zkQuorum: str, groupId: str,  # noqa: N802, N803
                     topics: Mapping[str, int], kafkaParams: Mapping[str, Any] | None = None,  # noqa: N803
                     storageLevel: Any = None, keyDecoder: Decoder = utf8_decoder,  # noqa: N803
                     valueDecoder: Decoder = utf8_decoder) -> DStream[Any]:  # noqa: N803
        """Not supported: the receiver-based, ZooKeeper-tracked stream of Kafka 0.8.

        Raises
        ------
        NotImplementedError
            Always; use :meth:`createDirectStream` with ``{"bootstrap.servers": ...,
            "group.id": groupId}`` instead.
        """
        raise NotImplementedError(
            "KafkaUtils.createStream (Kafka 0.8 receiver with ZooKeeper offsets) is not supported; use "
            "KafkaUtils.createDirectStream(ssc, list(topics), {'bootstrap.servers': 'host:9092', 'group.id': "
            f"{groupId!r}}}) and commitAsync(rdd.offsetRanges()) to store offsets in Kafka")

    @staticmethod
    def createDirectStream(ssc: StreamingContext, topics: Sequence[str],  # noqa: N802
                           kafkaParams: Mapping[str, Any],  # noqa: N803
                           fromOffsets: Mapping[TopicAndPartition, int] | None = None,  # noqa: N803
                           keyDecoder: Decoder | None = utf8_decoder,  # noqa: N803
                           valueDecoder: Decoder | None = utf8_decoder,  # noqa: N803
                           messageHandler: Handler | None = None) -> KafkaDStream:  # noqa: N803
        """Create a stream that reads new Kafka records every batch, without receivers.

        Each batch is a :class:`KafkaRDD` with one partition per topic-partition, holding
        the records ``[fromOffset, untilOffset)``; workers read their ranges themselves.
        Offsets are tracked by the stream (and by checkpoints), not by Kafka, unless you
        call :meth:`KafkaDStream.commitAsync`.

        Parameters
        ----------
        ssc
            The StreamingContext.
        topics
            List of topic names; every partition of each topic is read.
        kafkaParams
            Kafka settings: ``bootstrap.servers`` (or ``metadata.broker.list``) is
            required; ``group.id`` enables ``commitAsync`` and starting from committed
            offsets; ``auto.offset.reset`` (``earliest``/``latest``, default latest)
            chooses where to start without one, and whether to jump when retention
            removed the next offset (by default that fails the batch);
            ``allow.auto.create.topics`` creates missing topics. Other Kafka client
            settings (fetch sizes, security) are passed to the clients.
        fromOffsets
            ``{TopicAndPartition: offset}`` starting offsets; they win over committed
            offsets and ``auto.offset.reset``.
        keyDecoder, valueDecoder
            Functions of the raw bytes (``None`` for a missing key or a tombstone).
        messageHandler
            If given, each element is ``messageHandler(m)`` with ``m`` a
            :class:`KafkaMessageAndMetadata` (topic, partition, offset, timestamp, key,
            message/value) instead of ``(key, value)``.

        Returns
        -------
        KafkaDStream

        Raises
        ------
        TypeError, ValueError
            For malformed arguments (at the call).
        BrokerUnreachableError, UnknownTopicError
            From ``ssc.start()``, when no broker answers or a topic does not exist.

        Notes
        -----
        Configuration read from the SparkConf: ``spark.streaming.kafka.maxRatePerPartition``
        (records per second per partition, 0 = no cap),
        ``spark.streaming.kafka.minRatePerPartition`` (1),
        ``spark.streaming.backpressure.enabled`` / ``...initialRate``,
        ``spark.streaming.kafka.consumer.poll.ms`` (120000) and
        ``spark.streaming.kafka.allowNonConsecutiveOffsets`` (false).

        Examples
        --------
        >>> stream = KafkaUtils.createDirectStream(  # doctest: +SKIP
        ...     ssc, ["events"], {"bootstrap.servers": "localhost:9092", "auto.offset.reset": "earliest"})
        >>> stream.map(lambda kv: kv[1]).count().pprint()  # doctest: +SKIP
        """
        from dstream.context import StreamingContext

        if not isinstance(ssc, StreamingContext):
            raise TypeError(f"ssc must be a StreamingContext, got {ssc!r}")
        names = _check_topics(topics)
        config = parse_kafka_params(kafkaParams)
        offsets = _check_from_offsets(fromOffsets, names)
        _check_callable("keyDecoder", keyDecoder)
        _check_callable("valueDecoder", valueDecoder)
        _check_callable("messageHandler", messageHandler)
        engine = ssc._engine
        node = DirectKafkaInputNode(engine.graph, names, config, offsets, keyDecoder, valueDecoder,
                                    messageHandler)
        engine.attach(node)
        return KafkaDStream(node, ssc)

    @staticmethod
    def createRDD(sc: SparkContext, kafkaParams: Mapping[str, Any],  # noqa: N802, N803
                  offsetRanges: Sequence[OffsetRange],  # noqa: N803
                  leaders: Mapping[TopicAndPartition, Broker] | None = None,
                  keyDecoder: Decoder | None = utf8_decoder,  # noqa: N803
                  valueDecoder: Decoder | None = utf8_decoder,  # noqa: N803
                  messageHandler: Handler | None = None) -> KafkaRDD:  # noqa: N803
        """Create an RDD of the records in explicit offset ranges (a batch read).

        Parameters
        ----------
        sc
            The SparkContext.
        kafkaParams
            Kafka settings; ``bootstrap.servers`` is required.
        offsetRanges
            List of :class:`OffsetRange`; the RDD has one partition per range, in order.
        leaders
            Accepted for PySpark compatibility and ignored (the client finds leaders).
        keyDecoder, valueDecoder, messageHandler
            As for :meth:`createDirectStream`.

        Returns
        -------
        KafkaRDD

        Raises
        ------
        BrokerUnreachableError
            If no bootstrap server answers within the connect budget.
        UnknownTopicError
            If a range's topic or partition does not exist.
        OffsetsOutOfRangeError
            If a range is not inside what the broker holds (checked before any task).

        Examples
        --------
        >>> ranges = [OffsetRange("events", 0, 0, 100), OffsetRange("events", 1, 0, 100)]  # doctest: +SKIP
        >>> KafkaUtils.createRDD(sc, {"bootstrap.servers": "localhost:9092"}, ranges).count()  # doctest: +SKIP
        200
        """
        if not isinstance(offsetRanges, (list, tuple)):
            raise TypeError(f"offsetRanges must be a list of OffsetRange, got {offsetRanges!r}")
        for r in offsetRanges:
            if not isinstance(r, OffsetRange):
                raise TypeError(f"offsetRanges must hold OffsetRange objects, got {r!r}")
        if leaders is not None and not isinstance(leaders, Mapping):
            raise TypeError(f"leaders must be a dict of TopicAndPartition -> Broker, got {leaders!r}")
        _check_callable("keyDecoder", keyDecoder)
        _check_callable("valueDecoder", valueDecoder)
        _check_callable("messageHandler", messageHandler)
        config = parse_kafka_params(kafkaParams)
        ranges = list(offsetRanges)
        if ranges:
            with OffsetClient(config) as client:
                check_ranges(client, ranges)
        node = KafkaRDDNode(config, ranges, read_settings(sc), keyDecoder, valueDecoder, messageHandler)
        return KafkaRDD(node, sc)

    @staticmethod
    def writeToKafka(data: DStream[Any] | RDD[Any], topic: str, kafkaParams: Mapping[str, Any],  # noqa: N802, N803
                     keyEncoder: Callable[[Any], Any] = utf8_encoder,  # noqa: N803
                     valueEncoder: Callable[[Any], Any] = utf8_encoder) -> int | None:  # noqa: N803
        """Write ``(key, value)`` records to a Kafka topic: an RDD now, a DStream every batch.

        Each worker keeps one idempotent producer (``acks='all'``) per ``kafkaParams`` and
        flushes it before its task ends, so a batch counts as done only once its records
        are acknowledged.

        Parameters
        ----------
        data
            An RDD, or a DStream (an output operation is registered, like ``foreachRDD``).
        topic
            Target topic.
        kafkaParams
            Kafka settings; ``bootstrap.servers`` is required. Producer settings
            (``linger.ms``, ``compression.type``...) are passed to the producer.
        keyEncoder, valueEncoder
            Functions to bytes; the default writes ``str`` as UTF-8 and ``bytes`` as is.

        Returns
        -------
        int or None
            The number of records written for an RDD; ``None`` for a DStream.

        Raises
        ------
        KafkaSinkError
            (From the batch, or at once for an RDD) when records were not acknowledged.

        Examples
        --------
        >>> pairs = counts.map(lambda kv: (kv[0], str(kv[1])))  # doctest: +SKIP
        >>> KafkaUtils.writeToKafka(pairs, "counts", {"bootstrap.servers": "localhost:9092"})  # doctest: +SKIP
        """
        if not isinstance(topic, str) or not topic:
            raise TypeError(f"topic must be a non-empty str, got {topic!r}")
        _check_callable("keyEncoder", keyEncoder, optional=False)
        _check_callable("valueEncoder", valueEncoder, optional=False)
        config = parse_kafka_params(kafkaParams)
        if isinstance(data, DStream):
            data.foreachRDD(lambda rdd: write_rdd(rdd, topic, config, keyEncoder, valueEncoder))
            return None
        if isinstance(data, RDD):
            return write_rdd(data, topic, config, keyEncoder, valueEncoder)
        raise TypeError(f"writeToKafka writes an RDD or a DStream, got {type(data).__name__}")

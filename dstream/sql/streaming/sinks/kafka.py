"""The ``kafka`` sink: ``df.writeStream.format("kafka")`` and ``df.write.format("kafka").save()``.

What this module owns
---------------------
* The columns a written DataFrame may have, checked by name as Spark's KafkaWriter
  does (:func:`kafka_columns`): ``value`` (string or binary, required), ``key``
  (string or binary), ``topic`` (string; required unless the ``topic`` option is set,
  which then wins over the column), ``partition`` (int) and ``headers``
  (``array<struct<key: string, value: binary>>``). Other columns are ignored.
* :func:`write_kafka`: one job whose tasks each send their rows under the DStream Kafka
  sink's delivery rule (:func:`dstream.kafka.sink.produce`: the worker's shared producer,
  a flush, and every record acknowledged before the task ends).
* :class:`KafkaSink`: the streaming sink (a checkpoint is required).

Delivery rule
-------------
At least once, as Spark's Kafka sink: a batch whose job succeeded has all its records
in Kafka; a batch re-run after a crash (the last one without a commit) is written again.
Within one run a batch id already written is skipped. Consumers that need exactly-once
de-duplicate, for example on a key that holds the batch id.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from dstream.kafka.params import KafkaConfig, parse_kafka_params
from dstream.kafka.sink import produce

from ...errors import AnalysisException, IllegalArgumentException, SparkRuntimeException
from ...types import ArrayType, BinaryType, IntegerType, StringType, StructType
from ..sources.options import SourceOptions
from .base import Sink, SinkProvider, register_sink

if TYPE_CHECKING:
    from ...dataframe import DataFrame
    from ...session import SparkSession

__all__ = ["KafkaColumns", "KafkaSink", "KafkaSinkProvider", "kafka_columns", "write_kafka"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class KafkaColumns:
    """Where each Kafka field is among the written columns (``None``: absent)."""

    value: int
    key: int | None
    topic: int | None
    partition: int | None
    headers: int | None


def _producer_config(options: SourceOptions) -> KafkaConfig:
    if "kafka.bootstrap.servers" not in options:
        raise IllegalArgumentException(
            "Option 'kafka.bootstrap.servers' must be specified for configuring Kafka producer: e.g. "
            '.option("kafka.bootstrap.servers", "host1:9092,host2:9092").')
    for part in ("key", "value"):
        if f"kafka.{part}.serializer" in options:
            raise IllegalArgumentException(
                f"Kafka option '{part}.serializer' is not supported as {part}s are serialized with "
                f"ByteArraySerializer. Cast the '{part}' column to string or binary instead.")
    params = {name[len("kafka."):]: value for name, value in options.items() if name.startswith("kafka.")}
    try:
        return parse_kafka_params(params)
    except (TypeError, ValueError) as exc:
        raise IllegalArgumentException(f"Invalid Kafka option: {exc} (set it as option 'kafka.<name>').") from None


def _is_headers(dt: Any) -> bool:
    if not isinstance(dt, ArrayType) or not isinstance(dt.elementType, StructType):
        return False
    fields = dt.elementType.fields
    return ([f.name for f in fields] == ["key", "value"] and isinstance(fields[0].dataType, StringType)
            and isinstance(fields[1].dataType, BinaryType))


def kafka_columns(schema: StructType, topic: str | None) -> KafkaColumns:
    """Check the written DataFrame's columns as Spark does; the positions of the Kafka fields.

    Raises
    ------
    AnalysisException
        Naming the missing column or the column of an unsupported type.
    """
    where = {f.name: i for i, f in reversed(list(enumerate(schema.fields)))}
    types = {f.name: f.dataType for f in schema.fields}
    if topic is None and "topic" not in where:
        raise AnalysisException("topic option required when no 'topic' attribute is present. Use the topic option "
                                "for setting a topic.")
    if topic is None and not isinstance(types["topic"], StringType):
        raise AnalysisException(f"topic attribute unsupported type {types['topic'].simpleString()}. topic must be a "
                                "string")
    if "value" not in where:
        raise AnalysisException("Required attribute 'value' not found: the written DataFrame needs a 'value' column "
                                f"(string or binary); it has {', '.join(schema.names) or 'no columns'}.")
    for name in ("key", "value"):
        if name in where and not isinstance(types[name], StringType | BinaryType):
            raise AnalysisException(f"{name} attribute unsupported type {types[name].simpleString()}. {name} must be "
                                    "a string or binary")
    if "partition" in where and not isinstance(types["partition"], IntegerType):
        raise AnalysisException(f"partition attribute unsupported type {types['partition'].simpleString()}. "
                                "partition must be a int")
    if "headers" in where and not _is_headers(types["headers"]):
        raise AnalysisException(f"headers attribute unsupported type {types['headers'].simpleString()}. headers "
                                "must be a array<struct<key:string,value:binary>>")
    return KafkaColumns(where["value"], where.get("key"), None if topic is not None else where["topic"],
                        where.get("partition"), where.get("headers"))


def _bytes(value: Any) -> bytes | None:
    return value.encode("utf-8") if isinstance(value, str) else value


def _send_batch(producer: Any, batch: pa.RecordBatch, cols: KafkaColumns, topic: str | None,
                on_failure: Callable[[BaseException], Any]) -> int:
    def column(index: int | None) -> list[Any]:
        return batch.column(index).to_pylist() if index is not None else [None] * batch.num_rows

    values, keys, topics = column(cols.value), column(cols.key), column(cols.topic)
    partitions, headers = column(cols.partition), column(cols.headers)
    for i in range(batch.num_rows):
        target = topic if topic is not None else topics[i]
        if target is None:
            raise SparkRuntimeException("null topic present in the data. Use the topic option for setting a default "
                                        "topic.")
        extra = {}
        if headers[i]:
            extra["headers"] = [(h["key"], _bytes(h["value"])) for h in headers[i] if h is not None]
        future = producer.send(target, value=_bytes(values[i]), key=_bytes(keys[i]), partition=partitions[i],
                               **extra)
        future.add_errback(on_failure)
    return batch.num_rows


def write_partition(config: KafkaConfig, cols: KafkaColumns, topic: str | None,
                    batches: Iterator[pa.RecordBatch]) -> int:
    """Send one task's rows, flush, and return how many were written (runs in the task).

    Raises
    ------
    KafkaSinkError
        If any record was not acknowledged by the broker.
    """
    return produce(config, topic, lambda producer, on_failure: sum(
        _send_batch(producer, batch, cols, topic, on_failure) for batch in batches))


def write_kafka(df: DataFrame, options: dict[str, str]) -> int:
    """Write every row of ``df`` to Kafka (one task per partition); the number of records written."""
    opts = SourceOptions(options)
    config = _producer_config(opts)
    topic = opts.get("topic")
    cols = kafka_columns(df.schema, topic)

    def task(batches: Iterator[pa.RecordBatch]) -> Iterator[int]:
        yield write_partition(config, cols, topic, batches)

    # to_rdd's batches hold the columns by position, in the schema's order.
    return sum(df._execution().to_rdd().mapPartitions(task).collect())


def save_kafka(df: DataFrame, options: dict[str, str], mode: str) -> None:
    """``df.write.format("kafka").save()``: ``append`` or ``errorifexists`` (the default) only, as Spark."""
    if mode not in ("append", "error", "errorifexists"):
        shown = {"overwrite": "Overwrite", "ignore": "Ignore"}.get(mode, mode)
        raise AnalysisException(f"Save mode {shown} not allowed for Kafka. Allowed save modes are Append and "
                                "ErrorIfExists (default).")
    write_kafka(df, options)


class KafkaSink(Sink):
    """The Kafka sink of one query run (at least once; see the module docstring)."""

    description = "KafkaSink"

    def __init__(self, options: dict[str, str]) -> None:
        self._options = dict(options)
        self._latest_batch_id = -1

    def add_batch(self, batch_id: int, df: DataFrame) -> int:
        if batch_id <= self._latest_batch_id:
            logger.info("Skipping already committed batch %d", batch_id)
            return 0
        written = write_kafka(df, self._options)
        self._latest_batch_id = batch_id
        return written


class KafkaSinkProvider(SinkProvider):
    """``df.writeStream.format("kafka")``."""

    needs_checkpoint = True

    def create(self, session: SparkSession, options: dict[str, str], output_mode: str, partition_by: list[str],
               query_name: str | None) -> Sink:
        _producer_config(SourceOptions(options))
        if partition_by:
            logger.warning("partitionBy(%s) is ignored by the Kafka sink (as in Spark): a record's partition comes "
                           "from the 'partition' column or the producer's partitioner.", ", ".join(partition_by))
        return KafkaSink(options)


register_sink("kafka", KafkaSinkProvider)

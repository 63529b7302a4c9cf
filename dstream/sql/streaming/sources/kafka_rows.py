"""The Kafka source's task side: one offset range read into Arrow record batches.

What this module owns
---------------------
:data:`KAFKA_SCHEMA` (Spark's columns: ``key`` binary, ``value`` binary, ``topic``
string, ``partition`` int, ``offset`` long, ``timestamp`` timestamp, ``timestampType``
int, and ``headers`` with ``includeHeaders``) and :class:`KafkaRangesNode`, the lineage
node whose partition ``i`` reads range ``i`` in its task with the worker's pooled
consumer (:func:`dstream.kafka.rdd.read_range`; no record passes through the driver).

Invariants
----------
* A partition yields exactly the records of ``[fromOffset, untilOffset)`` in offset
  order. Offsets the log does not return but still holds (transaction markers,
  compacted records) are skipped, as Spark does; offsets below the log start (deleted
  by retention or ``deleteRecords``) are data loss: the task fails with
  ``KAFKA_DATA_LOSS`` when ``failOnDataLoss`` is true, else logs a warning and goes on
  from the log start.
* ``timestamp`` is the record's timestamp (milliseconds) as a timestamp;
  ``timestampType`` is Kafka's id (0 CreateTime, 1 LogAppendTime).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from rdd.engine_api import Partition, SourceNode

from dstream.kafka.errors import OffsetsOutOfRangeError
from dstream.kafka.params import KafkaConfig
from dstream.kafka.rdd import ReadSettings, read_range
from dstream.kafka.structs import OffsetRange

from ...types import (
    ArrayType,
    BinaryType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)
from .kafka_offsets import data_loss, data_loss_error

if TYPE_CHECKING:
    from rdd import TaskContext

__all__ = ["HEADERS_TYPE", "KAFKA_SCHEMA", "KafkaRangesNode", "kafka_schema"]

#: Records per record batch a task produces.
BATCH_RECORDS = 8192

#: Spark's ``headers`` column type.
HEADERS_TYPE = ArrayType(StructType([StructField("key", StringType(), True), StructField("value", BinaryType(), True)]),
                         True)

#: The columns of the Kafka source (without headers).
KAFKA_SCHEMA = StructType([
    StructField("key", BinaryType(), True),
    StructField("value", BinaryType(), True),
    StructField("topic", StringType(), True),
    StructField("partition", IntegerType(), True),
    StructField("offset", LongType(), True),
    StructField("timestamp", TimestampType(), True),
    StructField("timestampType", IntegerType(), True),
])

_ARROW_TYPES = [pa.binary(), pa.binary(), pa.string(), pa.int32(), pa.int64(), pa.timestamp("us", tz="UTC"),
                pa.int32()]
_HEADERS_ARROW = pa.list_(pa.field("element", pa.struct([pa.field("key", pa.string()),
                                                           pa.field("value", pa.binary())])))


def kafka_schema(include_headers: bool) -> StructType:
    """The Kafka source's schema, with the ``headers`` column when ``includeHeaders`` is set."""
    if not include_headers:
        return KAFKA_SCHEMA
    return StructType(list(KAFKA_SCHEMA.fields) + [StructField("headers", HEADERS_TYPE, True)])


class KafkaRangePartition(Partition):
    """An RDD partition holding one offset range."""

    __slots__ = ("offset_range",)

    def __init__(self, index: int, offset_range: OffsetRange) -> None:
        super().__init__(index)
        self.offset_range = offset_range


class KafkaRangesNode(SourceNode):
    """Reads one offset range per partition into record batches with columns ``names``."""

    def __init__(self, config: KafkaConfig, ranges: Sequence[OffsetRange], settings: ReadSettings,
                 fail_on_data_loss: bool, names: Sequence[str], include_headers: bool) -> None:
        super().__init__()
        self.config = config
        self.ranges = tuple(ranges)
        self.settings = settings
        self.fail_on_data_loss = fail_on_data_loss
        self.names = list(names)
        self.include_headers = include_headers

    def make_partitions(self) -> list[Partition]:
        return [KafkaRangePartition(i, r) for i, r in enumerate(self.ranges)]

    def compute(self, split: Partition, tctx: TaskContext) -> Iterator[pa.RecordBatch]:
        assert isinstance(split, KafkaRangePartition)
        chunk: list[Any] = []
        for record in self._records(split.offset_range):
            chunk.append(record)
            if len(chunk) >= BATCH_RECORDS:
                yield self._batch(chunk)
                chunk = []
        if chunk:
            yield self._batch(chunk)

    def _records(self, r: OffsetRange) -> Iterator[Any]:
        position = r.fromOffset
        while position < r.untilOffset:
            try:
                for record in read_range(self.config, OffsetRange(r.topic, r.partition, position, r.untilOffset),
                                         self.settings):
                    position = record.offset + 1
                    yield record
                return
            except OffsetsOutOfRangeError as exc:
                earliest = exc.earliest
                held = f"[{exc.earliest}, {exc.latest})" if exc.earliest is not None else "an unknown range"
                if self.fail_on_data_loss or earliest is None or earliest <= position:
                    raise data_loss_error(
                        "COULD_NOT_READ_OFFSET_RANGE", f"Cannot fetch offset {position} of {r.topic}-{r.partition} "
                        f"while reading [{r.fromOffset}, {r.untilOffset}): the broker holds {held}.") from exc
                skipped_to = min(earliest, r.untilOffset)
                data_loss(False, "COULD_NOT_READ_OFFSET_RANGE",
                          f"Skip missing records in [{position}, {skipped_to}) of {r.topic}-{r.partition}: the "
                          f"broker holds {held}.")
                position = skipped_to

    def _batch(self, records: list[Any]) -> pa.RecordBatch:
        arrays = [
            pa.array([r.key for r in records], pa.binary()),
            pa.array([r.value for r in records], pa.binary()),
            pa.array([r.topic for r in records], pa.string()),
            pa.array([r.partition for r in records], pa.int32()),
            pa.array([r.offset for r in records], pa.int64()),
            pa.array([None if r.timestamp is None else r.timestamp * 1000 for r in records],
                     pa.int64()).cast(_ARROW_TYPES[5]),
            pa.array([-1 if r.timestamp_type is None else r.timestamp_type for r in records], pa.int32()),
        ]
        if self.include_headers:
            arrays.append(pa.array([[{"key": k, "value": v} for k, v in (r.headers or ())] for r in records],
                                   _HEADERS_ARROW))
        return pa.RecordBatch.from_arrays(arrays, names=self.names)

    def describe(self) -> str:
        return "KafkaSourceRDD"

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state["ranges"] = ()  # each task carries its own range in its partition
        return state

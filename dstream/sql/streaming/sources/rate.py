"""The ``rate`` and ``rate-micro-batch`` test sources: generated ``(timestamp, value)`` rows.

What this module owns
---------------------
* ``rate`` (Spark's RateStreamProvider): ``rowsPerSecond`` rows every second of the
  query's life, with an optional linear ``rampUpTime``. The offset is the number of
  whole seconds elapsed since the source's *start time*, read from the session's
  streaming clock (:func:`~dstream.sql.streaming.clock.streaming_clock`), so a test on
  the manual clock moves the source by advancing the clock, never by sleeping.
* ``rate-micro-batch`` (Spark's RatePerMicroBatchProvider): exactly ``rowsPerBatch``
  rows per batch, whatever the time; every row of a batch carries the batch's
  timestamp, ``startTimestamp + batch number * advanceMillisPerBatch``. Its offset is
  ``{"offsetValue": rows so far, "offsetTs": next batch's timestamp}``.

Both produce ``timestamp`` (timestamp) and ``value`` (long); ``value`` counts rows
from 0. Rows are computed in the tasks, ``numPartitions`` of them (the default
parallelism unless set): partition ``p`` of a batch holds the values ``first + p``,
``first + p + numPartitions``, ... below the batch's end, as Spark deals them.

Invariants
----------
* Deterministic: the rows of ``(start, end]`` depend only on the offsets, the options
  and (``rate``) the start time, which is written once to ``<metadata_path>/0`` when
  the query first runs and read back on every restart, so a restarted query continues
  the same sequence and a re-run batch reads the same rows.
* ``rate``: second ``s`` ends at value ``valueAtSecond(s)`` (the ramp's running sum,
  then ``rowsPerSecond`` a second); the rows of seconds ``(a, b]`` are the values
  ``[valueAtSecond(a), valueAtSecond(b))``, their timestamps spread evenly over those
  seconds and rounded half up to the millisecond, as Spark does.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc

from rdd.engine_api import Partition, SourceNode

from ...errors import AnalysisException, ArithmeticException, IllegalArgumentException
from ...execution.arrays import arange
from ...expressions.base import AttributeReference, column_key
from ...types import LongType, StructField, StructType, TimestampType
from ..clock import streaming_clock
from ..logs import MetadataLog
from .base import Offset, Source, SourceProvider, register_source
from .options import SourceOptions
from .rows import empty_rows, task_rows

if TYPE_CHECKING:
    from rdd import TaskContext

    from ...plan.logical import LogicalPlan
    from ...session import SparkSession

__all__ = ["RATE_SCHEMA", "RatePerMicroBatchProvider", "RateStreamProvider", "value_at_second"]

#: The columns of both rate sources.
RATE_SCHEMA = StructType([StructField("timestamp", TimestampType(), True), StructField("value", LongType(), True)])

#: Java's ``Long.MAX_VALUE``: offsets and values stay within a long, as in Spark.
LONG_MAX = (1 << 63) - 1
#: Rows per record batch a task produces.
BATCH_ROWS = 1 << 20


def value_at_second(seconds: int, rows_per_second: int, ramp_up_seconds: int) -> int:
    """How many rows the ``rate`` source has produced by the end of second ``seconds``.

    During the ramp the speed grows by ``rowsPerSecond // (rampUpTime + 1)`` a second
    (so with ``rowsPerSecond=10, rampUpTime=4s`` seconds 0..6 end at 0, 2, 6, 12, 20,
    30, 40); afterwards it is ``rowsPerSecond``.
    """
    speed_delta = rows_per_second // (ramp_up_seconds + 1)
    if seconds <= ramp_up_seconds:
        return speed_delta * seconds * (seconds + 1) // 2
    ramp_part = value_at_second(ramp_up_seconds, rows_per_second, ramp_up_seconds)
    return ramp_part + (seconds - ramp_up_seconds) * rows_per_second


def _no_user_schema(name: str, user_schema: StructType | None) -> None:
    if user_schema is not None:
        raise AnalysisException(
            f"{name} does not support user-specified schema. Remove .schema(...): the {name} source always "
            "produces the columns timestamp (timestamp) and value (bigint).")


def _positive(options: SourceOptions, name: str, default: int) -> int:
    value = options.get_long(name, default)
    if value <= 0:
        raise IllegalArgumentException(f"Invalid value '{value}'. The option '{name}' must be positive")
    return value


def _not_negative(options: SourceOptions, name: str, default: int) -> int:
    value = options.get_long(name, default)
    if value < 0:
        raise IllegalArgumentException(f"Invalid value '{value}'. The option '{name}' must be non-negative")
    return value


class RatePartition(Partition):
    """One task's share of a rate batch: the values ``first + index``, every ``step``-th."""

    __slots__ = ()


class RateRowsNode(SourceNode):
    """Computes the rows with values ``[first, end)`` of a rate batch in ``parts`` tasks.

    Value ``v``'s timestamp is ``round(start_ms + (v - first) * ms_per_value)`` ms.
    """

    def __init__(self, first: int, end: int, parts: int, start_ms: int, ms_per_value: float,
                 names: Sequence[str]) -> None:
        super().__init__()
        self.first, self.end, self.parts = first, end, parts
        self.start_ms, self.ms_per_value = start_ms, ms_per_value
        self.names = list(names)

    def make_partitions(self) -> list[Partition]:
        return [RatePartition(i) for i in range(self.parts)]

    def compute(self, split: Partition, tctx: TaskContext) -> Iterator[pa.RecordBatch]:
        begin = self.first + split.index
        step = self.parts * BATCH_ROWS
        for chunk in range(begin, self.end, step):
            values = arange(chunk, min(self.end, chunk + step), self.parts)
            yield pa.RecordBatch.from_arrays([self._timestamps(values), values], names=self.names)

    def _timestamps(self, values: pa.Array) -> pa.Array:
        # Java's Math.round of (start + (v - first) * msPerValue): floor(x + 0.5), in doubles.
        spread = pc.multiply(pc.cast(pc.subtract(values, self.first), pa.float64()), self.ms_per_value)
        ms = pc.cast(pc.floor(pc.add(pc.add(spread, float(self.start_ms)), 0.5)), pa.int64())
        return pc.cast(pc.multiply(ms, 1000), pa.timestamp("us", tz="UTC"))

    def describe(self) -> str:
        return f"RateRows [{self.first}, {self.end}) in {self.parts}"


def _rows_plan(session: SparkSession, output: list[AttributeReference], node_args: tuple[int, int, int, int, float],
               name: str) -> LogicalPlan:
    first, end, parts, start_ms, ms_per_value = node_args
    if first >= end:
        return empty_rows(output)
    names = [column_key(a.expr_id) for a in output]
    return task_rows(session, RateRowsNode(first, end, parts, start_ms, ms_per_value, names), output, name)


# --------------------------------------------------------------------------- rate


class RateStreamSource(Source):
    """A started ``rate`` source: offsets are whole seconds since the start time."""

    def __init__(self, session: SparkSession, options: SourceOptions, metadata_path: str) -> None:
        self._session = session
        self.rows_per_second, self.ramp_up_seconds, self.num_partitions = _rate_settings(session, options)
        self._clock = streaming_clock(session)
        self.max_seconds = LONG_MAX // self.rows_per_second
        if self.ramp_up_seconds > self.max_seconds:
            raise ArithmeticException(
                f"Integer overflow. Max offset with {self.rows_per_second} rowsPerSecond is {self.max_seconds}, "
                f"but 'rampUpTimeSeconds' is {self.ramp_up_seconds}.")
        self.start_ms = self._start_time(MetadataLog(metadata_path))
        self._last_ms = self.start_ms
        self._lock = threading.Lock()
        self._available_now: int | None = None
        # Spark's text, without a closing bracket (as Spark prints it in progress reports).
        self.description = (f"RateStreamV2[rowsPerSecond={self.rows_per_second}, rampUpTimeSeconds="
                            f"{self.ramp_up_seconds}, numPartitions={options.get('numpartitions', 'default')}")

    def _start_time(self, log: MetadataLog) -> int:
        # Written once: a restart keeps the first run's start, so the sequence continues.
        body = log.get(0)
        if body is None:
            log.add(0, json.dumps(self._clock.now_ms()))
            body = log.get(0)
        assert body is not None
        return int(json.loads(body))

    def _elapsed_seconds(self) -> int:
        now = self._clock.now_ms()
        with self._lock:
            self._last_ms = max(self._last_ms, now)
            return (self._last_ms - self.start_ms) // 1000

    def latest_offset(self, start: Offset | None, limited: bool) -> Offset | None:
        seconds = self._elapsed_seconds()
        if self._available_now is not None:
            seconds = min(seconds, self._available_now)
        if start is not None:
            seconds = max(seconds, int(start))
        # Offset 0 is the source's initial offset: nothing was produced yet.
        return None if start is None and seconds == 0 else seconds

    def reports_latest_offset(self) -> Offset | None:
        return self._elapsed_seconds()

    def prepare_for_available_now(self) -> None:
        self._available_now = self._elapsed_seconds()

    def get_batch(self, start: Offset | None, end: Offset, output: list[AttributeReference]) -> LogicalPlan:
        start_s, end_s = (0 if start is None else int(start)), int(end)
        if start_s > end_s:
            raise IllegalArgumentException(f"startSeconds({start_s}) > endSeconds({end_s}): the rate source's "
                                           "offsets must not go backwards")
        if end_s > self.max_seconds:
            raise ArithmeticException(f"Integer overflow. Max offset with {self.rows_per_second} rowsPerSecond is "
                                      f"{self.max_seconds}, but it's {end_s} now.")
        with self._lock:  # a re-run batch after a restart moves the source's time past it
            self._last_ms = max(self._last_ms, self.start_ms + end_s * 1000)
        first = value_at_second(start_s, self.rows_per_second, self.ramp_up_seconds)
        stop = value_at_second(end_s, self.rows_per_second, self.ramp_up_seconds)
        ms_per_value = (end_s - start_s) * 1000 / (stop - first) if stop > first else 0.0
        return _rows_plan(self._session, output,
                          (first, stop, self.num_partitions, self.start_ms + start_s * 1000, ms_per_value),
                          f"RateStream [{start_s}, {end_s}]")


def _rate_settings(session: SparkSession, options: SourceOptions) -> tuple[int, int, int]:
    rows_per_second = _positive(options, "rowsPerSecond", 1)
    ramp_up = options.get_duration_seconds("rampUpTime", 0)
    if ramp_up < 0:
        raise IllegalArgumentException(f"Invalid value '{ramp_up}'. The option 'rampUpTime' must not be negative")
    partitions = _positive(options, "numPartitions", session.sparkContext.defaultParallelism)
    return rows_per_second, ramp_up, partitions


class RateStreamProvider(SourceProvider):
    """``spark.readStream.format("rate")``."""

    def schema(self, session: SparkSession, options: dict[str, str], user_schema: StructType | None) -> StructType:
        _no_user_schema("rate", user_schema)
        _rate_settings(session, SourceOptions(options))
        return RATE_SCHEMA

    def create(self, session: SparkSession, options: dict[str, str], schema: StructType,
               metadata_path: str) -> Source:
        return RateStreamSource(session, SourceOptions(options), metadata_path)


# --------------------------------------------------------------------------- rate-micro-batch


def _micro_batch_offset(offset: Any, start_timestamp: int) -> tuple[int, int]:
    if offset is None:
        return 0, start_timestamp
    if not isinstance(offset, dict) or "offsetValue" not in offset or "offsetTs" not in offset:
        raise IllegalArgumentException(
            f"Offset {json.dumps(offset)} is not a rate-micro-batch offset: expected "
            '{"offsetValue": <rows>, "offsetTs": <ms>}. The checkpoint was written by another source; '
            "use a new checkpointLocation.")
    return int(offset["offsetValue"]), int(offset["offsetTs"])


class RatePerMicroBatchSource(Source):
    """A started ``rate-micro-batch`` source: each batch is ``rowsPerBatch`` more rows."""

    def __init__(self, session: SparkSession, options: SourceOptions) -> None:
        self._session = session
        self.rows_per_batch, self.num_partitions, self.start_timestamp, self.advance_ms = \
            _micro_batch_settings(session, options)
        self._available_now: dict[str, int] | None = None
        self._preparing = False
        self.description = (f"RatePerMicroBatchStream[rowsPerBatch={self.rows_per_batch}, numPartitions="
                            f"{self.num_partitions}, startTimestamp={self.start_timestamp}, "
                            f"advanceMsPerBatch={self.advance_ms}]")

    def _next(self, start: Offset | None) -> dict[str, int]:
        value, ts = _micro_batch_offset(start, self.start_timestamp)
        return {"offsetValue": value + self.rows_per_batch, "offsetTs": ts + self.advance_ms}

    def latest_offset(self, start: Offset | None, limited: bool) -> Offset | None:
        if self._preparing:
            # Trigger.AvailableNow: one batch, fixed by the first call after preparing.
            if self._available_now is None:
                self._available_now = self._next(start)
            return self._available_now
        return self._next(start)

    def prepare_for_available_now(self) -> None:
        self._preparing = True

    def get_batch(self, start: Offset | None, end: Offset, output: list[AttributeReference]) -> LogicalPlan:
        first, ts = _micro_batch_offset(start, self.start_timestamp)
        stop, _ = _micro_batch_offset(end, self.start_timestamp)
        return _rows_plan(self._session, output, (first, stop, self.num_partitions, ts, 0.0),
                          f"RatePerMicroBatchStream [{first}, {stop})")


def _micro_batch_settings(session: SparkSession, options: SourceOptions) -> tuple[int, int, int, int]:
    if "rowsPerBatch" not in options:
        raise IllegalArgumentException(
            "Invalid value '0'. The option 'rowsPerBatch' must be positive: set it with "
            '.option("rowsPerBatch", 10) (the rows every micro-batch gets).')
    rows = _positive(options, "rowsPerBatch", 0)
    partitions = _positive(options, "numPartitions", session.sparkContext.defaultParallelism)
    start_timestamp = _not_negative(options, "startTimestamp", 0)
    advance = _not_negative(options, "advanceMillisPerBatch", 1000)
    return rows, partitions, start_timestamp, advance


class RatePerMicroBatchProvider(SourceProvider):
    """``spark.readStream.format("rate-micro-batch")``."""

    def schema(self, session: SparkSession, options: dict[str, str], user_schema: StructType | None) -> StructType:
        _no_user_schema("rate-micro-batch", user_schema)
        _micro_batch_settings(session, SourceOptions(options))
        return RATE_SCHEMA

    def create(self, session: SparkSession, options: dict[str, str], schema: StructType,
               metadata_path: str) -> Source:
        return RatePerMicroBatchSource(session, SourceOptions(options))


register_source("rate", RateStreamProvider)
register_source("rate-micro-batch", RatePerMicroBatchProvider)

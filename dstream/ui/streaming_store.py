"""The Streaming tab's status store: Spark's StreamingJobProgressListener.

What this module owns
---------------------
:class:`StreamingStore`, a listener on the SparkContext's bus fed with the DStream events
the StreamingContext forwards (:mod:`dstream.ui.events`; see :mod:`dstream.ui.hooks`) and with the core
``SparkListenerJobStart`` events, whose properties link each Spark job to the batch and
output operation that ran it. It keeps:

* the waiting (submitted), running (started) and completed batches, keyed by batch time;
  completed batches beyond ``spark.streaming.ui.retainedBatches`` (1000) are dropped,
  oldest first, with their job ids;
* cumulative counters that retention never lowers: completed batches, received records
  (counted when a batch starts) and processed records (when it completes);
* the latest :class:`~dstream.listener.ReceiverInfo` of each receiver;
* the batch interval, the start time and the input streams' names.

Invariants
----------
* Events arrive on one thread (the bus), reads on others (HTTP): every access holds
  ``_lock`` and reads return copies, never live containers.
* A batch is in exactly one of waiting / running / completed.
* Spark's formulas live in :meth:`StreamingStore.snapshot` users (the REST builders); the
  store only records what happened.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from dstream.listener import BatchInfo, OutputOperationInfo, ReceiverInfo

__all__ = ["BATCH_TIME_PROPERTY", "OUTPUT_OP_ID_PROPERTY", "BatchData", "StreamingSnapshot", "StreamingStore"]

#: Job properties set on the job thread around each output operation (Spark's keys).
BATCH_TIME_PROPERTY = "spark.streaming.internal.batchTime"
OUTPUT_OP_ID_PROPERTY = "spark.streaming.internal.outputOpId"

#: Spark's default for ``spark.streaming.ui.retainedBatches``.
DEFAULT_RETAINED_BATCHES = 1000


@dataclass
class BatchData:
    """One batch as the UI shows it (Spark's BatchUIData)."""

    batch_time: int
    records_by_stream: dict[int, int]
    submission_time: int
    processing_start: int | None
    processing_end: int | None
    output_ops: dict[int, OutputOperationInfo]
    job_ids: dict[int, list[int]] = field(default_factory=dict)  # output op id -> Spark job ids

    @classmethod
    def of(cls, info: BatchInfo) -> BatchData:
        start, end = info.processingStartTime(), info.processingEndTime()
        return cls(info.batchTime().milliseconds(),
                   {k: v.numRecords() for k, v in info.streamIdToInputInfo().items()},
                   info.submissionTime(), start if start >= 0 else None, end if end >= 0 else None,
                   info.outputOperationInfos())

    @property
    def num_records(self) -> int:
        return sum(self.records_by_stream.values())

    @property
    def scheduling_delay(self) -> int | None:
        return None if self.processing_start is None else self.processing_start - self.submission_time

    @property
    def processing_delay(self) -> int | None:
        if self.processing_start is None or self.processing_end is None:
            return None
        return self.processing_end - self.processing_start

    @property
    def total_delay(self) -> int | None:
        return None if self.processing_end is None else self.processing_end - self.submission_time

    def copy(self) -> BatchData:
        return BatchData(self.batch_time, dict(self.records_by_stream), self.submission_time,
                         self.processing_start, self.processing_end, dict(self.output_ops),
                         {k: list(v) for k, v in self.job_ids.items()})


@dataclass(frozen=True)
class StreamingSnapshot:
    """A consistent copy of the store, for one REST answer or one page refresh."""

    started: bool
    start_time: int
    batch_duration: int
    input_streams: dict[int, str]
    receivers: dict[int, ReceiverInfo]
    waiting: list[BatchData]
    running: list[BatchData]
    completed: list[BatchData]  # oldest first
    total_completed: int
    total_received_records: int
    total_processed_records: int

    @property
    def retained(self) -> list[BatchData]:
        """Waiting + running + completed, by batch time (what Spark's statistics use)."""
        return sorted(self.waiting + self.running + self.completed, key=lambda b: b.batch_time)

    @property
    def stream_ids(self) -> list[int]:
        ids = set(self.input_streams) | set(self.receivers)
        for batch in self.completed:
            ids.update(batch.records_by_stream)
        return sorted(ids)

    def stream_name(self, stream_id: int) -> str:
        receiver = self.receivers.get(stream_id)
        if receiver is not None:
            return receiver.name()
        return self.input_streams.get(stream_id, f"Stream-{stream_id}")


class StreamingStore:
    """The Streaming tab's listener and store (see the module docstring).

    Parameters
    ----------
    retained_batches
        How many completed batches to keep (``spark.streaming.ui.retainedBatches``).
    """

    def __init__(self, retained_batches: int = DEFAULT_RETAINED_BATCHES) -> None:
        if retained_batches < 1:
            raise ValueError(f"spark.streaming.ui.retainedBatches must be at least 1, got {retained_batches}")
        self._lock = threading.Lock()
        self._limit = retained_batches
        self._started = False
        self._start_time = -1
        self._batch_duration = 0
        self._input_streams: dict[int, str] = {}
        self._receivers: dict[int, ReceiverInfo] = {}
        self._waiting: dict[int, BatchData] = {}
        self._running: dict[int, BatchData] = {}
        self._completed: deque[BatchData] = deque()
        self._job_ids: dict[int, dict[int, list[int]]] = {}  # batch time -> op id -> job ids
        self._total_completed = 0
        self._total_received = 0
        self._total_processed = 0

    # -- the bus side ----------------------------------------------------------------
    def on_event(self, event: Any) -> None:
        """Take one event from the SparkContext's bus (others are ignored)."""
        handler = _HANDLERS.get(type(event).__name__)
        if handler is not None:
            with self._lock:
                handler(self, event)

    def _context_info(self, event: Any) -> None:
        self._started = True
        self._start_time = event.time
        self._batch_duration = event.batchDuration
        self._input_streams = {int(k): str(v) for k, v in event.inputStreams.items()}

    def _streaming_started(self, event: Any) -> None:
        self._started = True
        self._start_time = event.time

    def _receiver(self, event: Any) -> None:
        info = event.listener_event().receiverInfo()
        self._receivers[info.streamId()] = info

    def _batch_submitted(self, event: Any) -> None:
        data = BatchData.of(event.listener_event().batchInfo())
        self._waiting[data.batch_time] = data

    def _batch_started(self, event: Any) -> None:
        data = BatchData.of(event.listener_event().batchInfo())
        self._waiting.pop(data.batch_time, None)
        self._running[data.batch_time] = data
        self._total_received += data.num_records

    def _batch_completed(self, event: Any) -> None:
        data = BatchData.of(event.listener_event().batchInfo())
        self._waiting.pop(data.batch_time, None)
        self._running.pop(data.batch_time, None)
        self._completed.append(data)
        while len(self._completed) > self._limit:
            dropped = self._completed.popleft()
            self._job_ids.pop(dropped.batch_time, None)
        self._total_completed += 1
        self._total_processed += data.num_records

    def _output_op(self, event: Any) -> None:
        op = event.listener_event().outputOperationInfo()
        batch = self._running.get(op.batchTime().milliseconds())
        if batch is not None:
            batch.output_ops[op.id()] = op

    def _job_start(self, event: Any) -> None:
        properties = getattr(event, "properties", None) or {}
        batch_time, op_id = properties.get(BATCH_TIME_PROPERTY), properties.get(OUTPUT_OP_ID_PROPERTY)
        if batch_time is None or op_id is None:
            return
        ops = self._job_ids.setdefault(int(batch_time), {})
        ops.setdefault(int(op_id), []).append(int(event.jobId))

    # -- the read side ---------------------------------------------------------------
    def snapshot(self) -> StreamingSnapshot:
        """A consistent copy of everything the store holds."""
        with self._lock:
            def with_jobs(batch: BatchData) -> BatchData:
                copy = batch.copy()
                copy.job_ids = {k: sorted(v) for k, v in self._job_ids.get(batch.batch_time, {}).items()}
                return copy

            return StreamingSnapshot(
                started=self._started, start_time=self._start_time, batch_duration=self._batch_duration,
                input_streams=dict(self._input_streams), receivers=dict(self._receivers),
                waiting=[with_jobs(b) for b in self._waiting.values()],
                running=[with_jobs(b) for b in self._running.values()],
                completed=[with_jobs(b) for b in self._completed],
                total_completed=self._total_completed, total_received_records=self._total_received,
                total_processed_records=self._total_processed)


_HANDLERS: dict[str, Any] = {
    "StreamingContextInfo": StreamingStore._context_info,
    "StreamingStartedEvent": StreamingStore._streaming_started,
    "ReceiverStartedEvent": StreamingStore._receiver,
    "ReceiverErrorEvent": StreamingStore._receiver,
    "ReceiverStoppedEvent": StreamingStore._receiver,
    "BatchSubmittedEvent": StreamingStore._batch_submitted,
    "BatchStartedEvent": StreamingStore._batch_started,
    "BatchCompletedEvent": StreamingStore._batch_completed,
    "OutputOperationStartedEvent": StreamingStore._output_op,
    "OutputOperationCompletedEvent": StreamingStore._output_op,
    # The core's job event: its properties name the batch and output operation (see the
    # job thread's local properties).
    "SparkListenerJobStart": StreamingStore._job_start,
}

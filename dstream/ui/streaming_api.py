"""The REST endpoints under ``/api/v1/applications/{appId}/streaming/`` (Spark's shapes).

What this module owns
---------------------
:class:`StreamingApi`, the handler registered with the core API under the prefix
``streaming``: ``statistics``, ``receivers``, ``receivers/{streamId}``,
``batches[?status=]``, ``batches/{batchId}``, ``batches/{batchId}/operations`` and
``batches/{batchId}/operations/{outputOpId}``, with Spark's field names, value types and
formulas:

* input rate of a batch = ``records * 1000 / batchInterval`` (the configured interval);
  ``avgInputRate`` is the mean over the retained batches (waiting and running included);
* ``avgSchedulingDelay`` / ``avgProcessingTime`` / ``avgTotalDelay`` are integer-division
  means in ms over the retained batches that have the value, ``null`` when none has;
* ``batchId`` is the batch time in ms; lists of batches are newest first.

Invariants
----------
* Every answer is built from one :class:`~dstream.ui.streaming_store.StreamingSnapshot`.
* Unknown ids answer 404 with Spark's message text; malformed ids and unknown ``status``
  values answer 400 naming the value and what is accepted.
* Dates are Spark's strings, ``2026-12-01T10:00:00.000GMT``; an optional value Spark
  leaves out (Scala ``None``) is ``null`` here, so every documented key is always present.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from dstream.ui.streaming_store import BatchData, StreamingSnapshot, StreamingStore

__all__ = ["BATCH_STATUSES", "StreamingApi", "spark_date"]

#: Spark's BatchStatus values.
BATCH_STATUSES = ("COMPLETED", "PROCESSING", "QUEUED")

Answer = tuple[int, Any]


def spark_date(ms: int) -> str:
    """Epoch ms as Spark's REST API prints dates: ``2026-12-01T10:00:00.000GMT``."""
    t = dt.datetime.fromtimestamp(ms / 1000.0, tz=dt.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}GMT"


def _avg_time(values: list[int]) -> int | None:
    return sum(values) // len(values) if values else None


def _avg_rate(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _int_part(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


class StreamingApi:
    """``handler(parts, query) -> (status, body)`` over one :class:`StreamingStore`."""

    def __init__(self, store: StreamingStore | Callable[[], StreamingStore]) -> None:
        self._store = store

    def _snapshot(self) -> StreamingSnapshot:
        store = self._store if isinstance(self._store, StreamingStore) else self._store()
        return store.snapshot()

    def __call__(self, parts: list[str], query: dict[str, list[str]]) -> Answer:
        parts = [p for p in parts if p]
        snap = self._snapshot()
        if not snap.started:
            return 404, "no streaming listener attached to this application: no StreamingContext has started"
        head = parts[0] if parts else ""
        if head == "statistics" and len(parts) == 1:
            return 200, statistics(snap)
        if head == "receivers" and len(parts) == 1:
            return 200, receivers(snap)
        if head == "receivers" and len(parts) == 2:
            stream_id = _int_part(parts[1])
            if stream_id is None:
                return 400, f"streamId must be an integer, got {parts[1]!r}"
            found = [r for r in receivers(snap) if r["streamId"] == stream_id]
            return (200, found[0]) if found else (404, f"unknown receiver: {stream_id}")
        if head == "batches":
            return self._batches(snap, parts[1:], query)
        return 404, f"unknown streaming resource: {'/'.join(parts) or '(none)'}; known: statistics, " \
                    "receivers[/{streamId}], batches[/{batchId}[/operations[/{outputOpId}]]]"

    def _batches(self, snap: StreamingSnapshot, rest: list[str], query: dict[str, list[str]]) -> Answer:
        if not rest:
            wanted = [s for values in query.get("status", []) for s in values.split(",") if s]
            bad = [s for s in wanted if s.upper() not in BATCH_STATUSES]
            if bad:
                return 400, f"unknown batch status {bad[0]!r}; use one of {', '.join(BATCH_STATUSES)}"
            return 200, batches(snap, {s.upper() for s in wanted})
        batch_id = _int_part(rest[0])
        if batch_id is None:
            return 400, f"batchId must be an integer (the batch time in ms), got {rest[0]!r}"
        found = [(status, b) for status, b in _with_status(snap) if b.batch_time == batch_id]
        if not found:
            return 404, f"unknown batch: {batch_id}"
        status, batch = found[0]
        if len(rest) == 1:
            return 200, batch_json(snap, batch, status)
        if rest[1] != "operations" or len(rest) > 3:
            return 404, f"unknown batch resource: {'/'.join(rest[1:])}; known: operations[/{{outputOpId}}]"
        ops = operations(batch)
        if len(rest) == 2:
            return 200, ops
        op_id = _int_part(rest[2])
        if op_id is None:
            return 400, f"outputOpId must be an integer, got {rest[2]!r}"
        matching = [op for op in ops if op["outputOpId"] == op_id]
        return (200, matching[0]) if matching else (404, f"unknown output operation: {op_id}")


def statistics(snap: StreamingSnapshot) -> dict[str, Any]:
    """``streaming/statistics`` (Spark's StreamingStatistics)."""
    retained = snap.retained
    interval = snap.batch_duration or 1
    active = sum(1 for r in snap.receivers.values() if r.active())
    return {
        "startTime": spark_date(snap.start_time),
        "batchDuration": snap.batch_duration,
        "numReceivers": len(snap.receivers),
        "numActiveReceivers": active,
        "numInactiveReceivers": len(snap.receivers) - active,
        "numTotalCompletedBatches": snap.total_completed,
        "numRetainedCompletedBatches": len(snap.completed),
        "numActiveBatches": len(snap.waiting) + len(snap.running),
        "numProcessedRecords": snap.total_processed_records,
        "numReceivedRecords": snap.total_received_records,
        "avgInputRate": _avg_rate([b.num_records * 1000.0 / interval for b in retained]),
        "avgSchedulingDelay": _avg_time([d for b in retained if (d := b.scheduling_delay) is not None]),
        "avgProcessingTime": _avg_time([d for b in retained if (d := b.processing_delay) is not None]),
        "avgTotalDelay": _avg_time([d for b in retained if (d := b.total_delay) is not None]),
    }


def receivers(snap: StreamingSnapshot) -> list[dict[str, Any]]:
    """``streaming/receivers``: one entry per input stream (Spark lists every input stream)."""
    interval = snap.batch_duration or 1
    retained = snap.retained
    out = []
    for stream_id in snap.stream_ids:
        rates = [[b.batch_time, b.records_by_stream.get(stream_id, 0) * 1000.0 / interval] for b in retained]
        info = snap.receivers.get(stream_id)
        out.append({
            "streamId": stream_id,
            "streamName": snap.stream_name(stream_id),
            "isActive": None if info is None else info.active(),
            "executorId": None if info is None else info.executorId(),
            "executorHost": None if info is None else info.location(),
            "lastErrorTime": None if info is None or info.lastErrorTime() < 0 else spark_date(info.lastErrorTime()),
            "lastErrorMessage": (info.lastErrorMessage() or None) if info is not None else None,
            "lastError": (info.lastError() or None) if info is not None else None,
            "avgEventRate": _avg_rate([r for _, r in rates]),
            "eventRates": rates,
        })
    return out


def _with_status(snap: StreamingSnapshot) -> list[tuple[str, BatchData]]:
    return ([("QUEUED", b) for b in snap.waiting] + [("PROCESSING", b) for b in snap.running]
            + [("COMPLETED", b) for b in snap.completed])


def batches(snap: StreamingSnapshot, statuses: set[str]) -> list[dict[str, Any]]:
    """``streaming/batches``: the retained batches with one of ``statuses`` (all if empty), newest first."""
    chosen = [(s, b) for s, b in _with_status(snap) if not statuses or s in statuses]
    chosen.sort(key=lambda sb: -sb[1].batch_time)
    return [batch_json(snap, b, s) for s, b in chosen]


def batch_json(snap: StreamingSnapshot, batch: BatchData, status: str) -> dict[str, Any]:
    """One batch (Spark's BatchInfo of the REST API)."""
    ops = batch.output_ops.values()
    failures = [op.failureReason() for op in sorted(ops, key=lambda o: o.id()) if op.failureReason()]
    return {
        "batchId": batch.batch_time,
        "batchTime": spark_date(batch.batch_time),
        "status": status,
        "batchDuration": snap.batch_duration,
        "inputSize": batch.num_records,
        "schedulingDelay": batch.scheduling_delay,
        "processingTime": batch.processing_delay,
        "totalDelay": batch.total_delay,
        "numActiveOutputOps": sum(1 for op in ops if op.endTime() < 0),
        "numCompletedOutputOps": sum(1 for op in ops if op.endTime() >= 0 and not op.failureReason()),
        "numFailedOutputOps": sum(1 for op in ops if op.failureReason()),
        "numTotalOutputOps": len(batch.output_ops),
        "firstFailureReason": failures[0] if failures else None,
    }


def operations(batch: BatchData) -> list[dict[str, Any]]:
    """``batches/{id}/operations``: the batch's output operations by id, with their Spark job ids."""
    out = []
    for op_id in sorted(batch.output_ops):
        op = batch.output_ops[op_id]
        start, end = op.startTime(), op.endTime()
        out.append({
            "outputOpId": op_id,
            "name": op.name(),
            "description": op.description(),
            "startTime": spark_date(start) if start >= 0 else None,
            "endTime": spark_date(end) if end >= 0 else None,
            "duration": end - start if start >= 0 and end >= 0 else None,
            "failureReason": op.failureReason(),
            "jobIds": list(batch.job_ids.get(op_id, [])),
        })
    return out

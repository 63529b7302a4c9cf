"""What a query reports: progress of each trigger, and its status.

What this module owns
---------------------
:class:`StreamingQueryProgress` (``lastProgress``/``recentProgress`` entries and the
listeners' progress), :class:`StreamingQueryStatus`, :func:`iso_time` and
:class:`ProgressRecorder`, which times the phases of a trigger (Spark's ``durationMs``
keys) and builds the progress from what the engine measured.

Invariants
----------
* A progress is a ``dict`` (as PySpark's) with Spark's keys and JSON layout: times as
  ``2024-01-01T00:00:12.000Z``; rates rounded to one decimal; ``eventTime`` is ``{}``
  without a watermark and holds only ``watermark`` on a batch without rows; ``name`` is
  ``None`` for an unnamed query.
* ``inputRowsPerSecond`` divides by the time since the previous trigger started (0.0
  on the first); ``processedRowsPerSecond`` by the trigger's duration (at least 1 ms).
"""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["ProgressRecorder", "StreamingQueryProgress", "StreamingQueryStatus", "build_progress",
           "event_time_progress", "iso_time", "operators_progress", "source_progress", "state_operator_progress"]


def iso_time(ms: int) -> str:
    """Epoch milliseconds as Spark prints them: ``2024-01-01T00:00:12.000Z``."""
    t = dt.datetime.fromtimestamp(ms / 1000.0, tz=dt.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def _rate(rows: int, seconds: float) -> float:
    if seconds <= 0:
        return 0.0
    return float(round(rows / seconds, 1))


class _JsonDict(dict[str, Any]):
    """A dict whose keys read as attributes too, with PySpark's ``json``/``prettyJson``."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    @property
    def json(self) -> str:
        return json.dumps(_clean(self), separators=(",", ":"))

    @property
    def prettyJson(self) -> str:  # noqa: N802 - PySpark's name
        return json.dumps(_clean(self), indent=2)

    def __str__(self) -> str:
        return self.prettyJson


def _clean(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


class StreamingQueryProgress(_JsonDict):
    """One trigger's progress (``query.lastProgress``): a dict with Spark's fields."""


class StreamingQueryStatus(_JsonDict):
    """``query.status``: ``message``, ``isDataAvailable``, ``isTriggerActive``."""


class ProgressRecorder:
    """Times the phases of one trigger and collects what the progress reports."""

    def __init__(self, now_ms: int) -> None:
        self.start_ms = now_ms
        self.started = time.perf_counter()
        self.durations: dict[str, int] = {}

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Add the time spent in the ``with`` block to ``durationMs[name]``."""
        began = time.perf_counter()
        try:
            yield
        finally:
            self.durations[name] = self.durations.get(name, 0) + int((time.perf_counter() - began) * 1000)

    def elapsed_ms(self) -> int:
        return int((time.perf_counter() - self.started) * 1000)


def build_progress(*, query_id: str, run_id: str, name: str | None, recorder: ProgressRecorder, batch_id: int,
                   previous_start_ms: int | None, sources: list[dict[str, Any]], sink: dict[str, Any],
                   event_time: dict[str, str], state_operators: list[dict[str, Any]],
                   clock_elapsed_ms: int | None = None,
                   observed: dict[str, dict[str, Any]] | None = None) -> StreamingQueryProgress:
    """The progress of a trigger (durations measured by ``recorder``)."""
    duration = recorder.elapsed_ms() if clock_elapsed_ms is None else clock_elapsed_ms
    recorder.durations["triggerExecution"] = max(recorder.durations.get("triggerExecution", 0), duration)
    rows = sum(int(s["numInputRows"]) for s in sources)
    since = None if previous_start_ms is None else (recorder.start_ms - previous_start_ms) / 1000.0
    processed_s = max(1, duration) / 1000.0
    for s in sources:
        s["inputRowsPerSecond"] = _rate(int(s["numInputRows"]), since or 0.0)
        s["processedRowsPerSecond"] = _rate(int(s["numInputRows"]), processed_s)
    return StreamingQueryProgress({
        "id": query_id, "runId": run_id, "name": name, "timestamp": iso_time(recorder.start_ms),
        "batchId": batch_id, "batchDuration": duration, "numInputRows": rows,
        "inputRowsPerSecond": _rate(rows, since or 0.0), "processedRowsPerSecond": _rate(rows, processed_s),
        "durationMs": dict(sorted(recorder.durations.items())), "eventTime": dict(sorted(event_time.items())),
        "stateOperators": state_operators, "sources": sources, "sink": sink, "observedMetrics": observed or {},
    })


def state_operator_progress(name: str, metrics: dict[str, Any], partitions: int,
                            custom: dict[str, int] | None = None) -> dict[str, Any]:
    """One entry of ``stateOperators``."""
    return {
        "operatorName": name,
        "numRowsTotal": int(metrics.get("numRowsTotal", 0)),
        "numRowsUpdated": int(metrics.get("numRowsUpdated", 0)),
        "allUpdatesTimeMs": int(metrics.get("allUpdatesTimeMs", 0)),
        "numRowsRemoved": int(metrics.get("numRowsRemoved", 0)),
        "allRemovalsTimeMs": int(metrics.get("allRemovalsTimeMs", 0)),
        "commitTimeMs": int(metrics.get("commitTimeMs", 0)),
        "memoryUsedBytes": int(metrics.get("memoryUsedBytes", 0)),
        "numRowsDroppedByWatermark": int(metrics.get("numRowsDroppedByWatermark", 0)),
        "numShufflePartitions": partitions,
        "numStateStoreInstances": int(metrics.get("numStateStoreInstances", partitions)),
        "customMetrics": dict(sorted((custom or {}).items())),
    }


def source_progress(description: str, start: Any, end: Any, latest: Any, rows: int) -> dict[str, Any]:
    """One entry of ``sources`` (the rates are filled in by :func:`build_progress`)."""
    return {"description": description, "startOffset": start, "endOffset": end,
            "latestOffset": end if latest is None else latest, "numInputRows": rows, "inputRowsPerSecond": 0.0,
            "processedRowsPerSecond": 0.0, "metrics": {}}


def event_time_progress(watermarked: bool, stats: list[tuple[int, int, int, int]],
                        watermark_ms: int) -> dict[str, str]:
    """``eventTime``: empty without a watermark; ``max``/``min``/``avg`` only when rows had event times."""
    if not watermarked:
        return {}
    out = {"watermark": iso_time(watermark_ms)}
    rows = sum(st[3] for st in stats if st[3] > 0)
    if rows:
        seen = [st for st in stats if st[3] > 0]
        out.update({"max": iso_time(max(st[0] for st in seen)), "min": iso_time(min(st[1] for st in seen)),
                    "avg": iso_time(sum(st[2] for st in seen) // rows)})
    return out


def operators_progress(operators: list[tuple[int, Any]], idle: bool) -> list[dict[str, Any]]:
    """``stateOperators`` of a batch (from each operator's metrics), or of an idle trigger (totals kept)."""
    out = []
    for _, op in operators:
        metrics = op.accumulator.value
        if idle:
            kept = {"numRowsTotal": metrics.get("numRowsTotal", 0),
                    "memoryUsedBytes": metrics.get("memoryUsedBytes", 0)}
            out.append(state_operator_progress(op.name, kept, op.partitions))
        else:
            custom = {n: metrics.get("customMetrics", {}).get(n, 0) for n in op.custom_metrics}
            out.append(state_operator_progress(op.name, metrics, op.partitions, custom))
    return out

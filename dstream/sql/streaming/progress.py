"""What a query reports: progress of each trigger, and its status.

What this module owns
---------------------
:class:`StreamingQueryProgress` (``lastProgress``/``recentProgress`` entries and the
listeners' progress), :class:`StreamingQueryStatus`, :func:`iso_time` and
:class:`ProgressRecorder`, which times the phases of a trigger (Spark's ``durationMs``
keys) and builds the progress from what the engine measured.

Invariants
----------
* A progress is a ``dict`` (as PySpark 4's) with Spark's keys: times as
  ``2024-01-01T00:00:12.000Z``; rates rounded to one decimal; ``eventTime`` is ``{}``
  without a watermark and holds only ``watermark`` on a batch without rows; ``name`` is
  ``None`` for an unnamed query. Its ``sources``, ``sink`` and ``stateOperators`` are
  :class:`SourceProgress`, :class:`SinkProgress` and :class:`StateOperatorProgress`
  (dicts whose keys read as attributes too); offsets are their JSON text, ``"None"``
  where there is none (PySpark's ``str`` of a missing offset); ``p["id"]`` is a string
  and ``p.id`` a ``uuid.UUID``; observed metrics are ``Row``s.
* ``str()`` and ``repr()`` of a progress are Spark's ``prettyJson``: Jackson's layout
  (``"key" : value``, arrays ``[ ... ]`` on one line), offsets as JSON, empty
  ``eventTime``, ``metrics``, ``customMetrics`` and ``observedMetrics`` left out, map
  keys sorted. ``json`` is the same, compact. A status prints as the plain ``dict``
  PySpark returns.
* ``inputRowsPerSecond`` divides by the time since the previous trigger started (0.0
  on the first); ``processedRowsPerSecond`` by the trigger's duration (at least 1 ms).
"""

from __future__ import annotations

import decimal
import json
import math
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["ProgressRecorder", "SinkProgress", "SourceProgress", "StateOperatorProgress", "StreamingQueryProgress",
           "StreamingQueryStatus", "build_progress", "event_time_progress", "iso_time", "offset_text",
           "operators_progress", "sink_progress", "source_progress", "state_operator_progress"]


def iso_time(ms: int) -> str:
    """Epoch milliseconds as Spark prints them: ``2024-01-01T00:00:12.000Z``."""
    # time.gmtime rather than datetime.strftime: half the cost, and a batch formats several.
    seconds, millis = divmod(ms, 1000)
    t = time.gmtime(seconds)
    return f"{t.tm_year:04d}-{t.tm_mon:02d}-{t.tm_mday:02d}T{t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d}.{millis:03d}Z"


def _rate(rows: int, seconds: float) -> float:
    if seconds <= 0:
        return 0.0
    return float(round(rows / seconds, 1))


class _JsonDict(dict[str, Any]):
    """A dict whose keys read as attributes too, printed as Spark's ``prettyJson``."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def _json_value(self) -> dict[str, Any]:
        """What Spark's ``jsonValue`` renders (see the module doc)."""
        return {k: _json_value(v) for k, v in self.items()}

    @property
    def json(self) -> str:
        return json.dumps(self._json_value(), separators=(",", ":"))

    def json_object(self) -> dict[str, Any]:
        """What ``json.loads(self.json)`` gives, without writing and parsing the text (a fresh copy)."""
        return self._json_value()

    @property
    def prettyJson(self) -> str:  # noqa: N802 - PySpark's name
        return _jackson(self._json_value(), 0)

    def __str__(self) -> str:
        return self.prettyJson

    def __repr__(self) -> str:
        return self.prettyJson


class SourceProgress(_JsonDict):
    """One source's part of a progress (``progress.sources[i]``)."""

    def _json_value(self) -> dict[str, Any]:
        out = {k: (_parsed(v) if k in _OFFSET_KEYS else _json_value(v)) for k, v in self.items()}
        return _without_empty(out, ("metrics",))


class SinkProgress(_JsonDict):
    """The sink's part of a progress (``progress.sink``)."""

    def _json_value(self) -> dict[str, Any]:
        return _without_empty(super()._json_value(), ("metrics",))


class StateOperatorProgress(_JsonDict):
    """One stateful operator's part of a progress (``progress.stateOperators[i]``)."""

    def _json_value(self) -> dict[str, Any]:
        return _without_empty(super()._json_value(), ("customMetrics",))


class StreamingQueryProgress(_JsonDict):
    """One trigger's progress (``query.lastProgress``): a dict with Spark's fields."""

    @property
    def id(self) -> uuid.UUID:
        """The query's id (``progress["id"]`` is its text)."""
        return uuid.UUID(self["id"])

    @property
    def runId(self) -> uuid.UUID:  # noqa: N802 - PySpark's name
        """This run's id (``progress["runId"]`` is its text)."""
        return uuid.UUID(self["runId"])

    def _json_value(self) -> dict[str, Any]:
        out = super()._json_value()
        for key in ("durationMs", "eventTime", "observedMetrics"):
            if isinstance(out.get(key), dict):
                out[key] = dict(sorted(out[key].items()))
        return _without_empty(out, ("durationMs", "eventTime", "observedMetrics"))


class StreamingQueryStatus(dict[str, Any]):
    """``query.status``: ``message``, ``isDataAvailable``, ``isTriggerActive`` (printed as PySpark's dict)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    @property
    def json(self) -> str:
        return json.dumps(self, separators=(",", ":"))

    @property
    def prettyJson(self) -> str:  # noqa: N802 - PySpark's name
        return _jackson(dict(self), 0)


_OFFSET_KEYS = ("startOffset", "endOffset", "latestOffset")
#: The order of a progress' ``eventTime`` keys in PySpark (a Java HashMap's iteration order).
_EVENT_TIME_ORDER = ("min", "avg", "watermark", "max")


def offset_text(offset: Any) -> str:
    """An offset as a progress holds it: its JSON text, ``"None"`` without one (as PySpark)."""
    return "None" if offset is None else json.dumps(offset, separators=(",", ":"))


def _parsed(text: Any) -> Any:
    # Spark's tryParse: an offset's JSON as JSON, null for a missing one, else the text.
    if text is None or text == "None":
        return None
    if type(text) is str and text.isdigit():  # a plain number offset (a memory or socket source's), parsed cheaply
        return int(text)
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return text


_SCALARS = frozenset((str, int, float, bool, type(None)))


def _json_value(value: Any) -> Any:
    if type(value) in _SCALARS:  # most of a progress: checked first, it is rendered per trigger
        return value
    if isinstance(value, _JsonDict):
        return value._json_value()
    if isinstance(value, dict):
        return {k: _json_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple) and not hasattr(value, "asDict"):
        return [_json_value(v) for v in value]
    if hasattr(value, "asDict"):  # a Row of observed metrics: an object of its fields
        return {k: _json_value(v) for k, v in value.asDict().items()}
    return value


def _without_empty(value: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {k: v for k, v in value.items() if not (k in keys and not v)}


def _jackson(value: Any, depth: int) -> str:
    """``value`` as Jackson's default pretty printer writes it (Spark's ``prettyJson``)."""
    if isinstance(value, dict):
        if not value:
            return "{ }"
        inner = "  " * (depth + 1)
        fields = ",\n".join(f"{inner}{json.dumps(k)} : {_jackson(v, depth + 1)}" for k, v in value.items())
        return "{\n" + fields + "\n" + "  " * depth + "}"
    if isinstance(value, list):
        return "[ " + ", ".join(_jackson(v, depth) for v in value) + " ]" if value else "[ ]"
    if isinstance(value, float):
        return _java_double(value)
    return json.dumps(value)


def _java_double(value: float) -> str:
    """A double as Java's ``Double.toString`` writes it (``12.5``, ``1.0E7``, ``1.0E-4``)."""
    if value != value or value in (math.inf, -math.inf):
        return json.dumps(str(value))
    if value == 0 or 1e-3 <= abs(value) < 1e7:
        return repr(float(value))
    sign, digits, exponent = decimal.Decimal(repr(float(value))).normalize().as_tuple()
    text = "".join(map(str, digits))
    return f"{'-' if sign else ''}{text[0]}.{text[1:] or '0'}E{int(exponent) + len(text) - 1}"


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
    from ..row import Row  # noqa: PLC0415 - the streaming package loads before the DataFrame's

    return StreamingQueryProgress({
        "id": query_id, "runId": run_id, "name": name, "timestamp": iso_time(recorder.start_ms),
        "batchId": batch_id, "batchDuration": duration, "numInputRows": rows,
        "inputRowsPerSecond": _rate(rows, since or 0.0), "processedRowsPerSecond": _rate(rows, processed_s),
        "durationMs": dict(sorted(recorder.durations.items())),
        "eventTime": {k: event_time[k] for k in _EVENT_TIME_ORDER if k in event_time},
        "stateOperators": [StateOperatorProgress(op) for op in state_operators],
        "sources": [SourceProgress(src) for src in sources], "sink": SinkProgress(sink),
        "observedMetrics": {k: Row(**v) for k, v in (observed or {}).items()},
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


def source_progress(description: str, start: Any, end: Any, latest: Any, rows: int,
                    text: Callable[[Any], str] = offset_text) -> dict[str, Any]:
    """One entry of ``sources`` (the rates are filled in by :func:`build_progress`); offsets as JSON
    text (written by ``text``: a source may print its offsets its own way)."""
    return {"description": description, "startOffset": text(start), "endOffset": text(end),
            "latestOffset": text(end if latest is None else latest), "numInputRows": rows,
            "inputRowsPerSecond": 0.0, "processedRowsPerSecond": 0.0, "metrics": {}}


def sink_progress(description: str, rows: int) -> dict[str, Any]:
    """``sink``: its description and the rows it wrote (-1 when it cannot count them)."""
    return {"description": description, "numOutputRows": rows, "metrics": {}}


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

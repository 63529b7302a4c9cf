"""The DStream streaming events as they travel on the SparkContext's bus and in the event log.

What this module owns
---------------------
* One frozen dataclass per :mod:`dstream.listener` event (``BatchCompletedEvent`` for
  ``StreamingListenerBatchCompleted`` ...), registered with the core event registry under
  Spark's class name (``org.apache.spark.streaming.scheduler.StreamingListenerBatchCompleted``),
  so the event log writes them and its replay reads them back. Their fields are the JSON
  forms of the records (``batchInfo``, ``outputOperationInfo``, ``receiverInfo``);
  :meth:`listener_event` rebuilds the :mod:`dstream.listener` record.
* :class:`StreamingContextInfo`: what the Streaming tab needs that no StreamingListener
  event carries (batch interval, input streams' ids and names), posted when a
  StreamingContext starts, so a replayed log rebuilds the store the live UI had.
* :func:`wrap`: a :mod:`dstream.listener` event -> its bus event. The event keeps the
  record it came from, and its JSON field is built from that record the first time it
  is read (by the event log): the live Streaming store reads the record itself, so a
  context without an event log never builds the JSON forms of its batches.

Invariants
----------
* ``wrap(e).listener_event() == e`` and ``event_from_json(wrap(e).to_json()) == wrap(e)``.
* Spark does not log these events; dstreams does, so ``python -m dstream.history`` can
  show the Streaming tab. Times are epoch ms, ``-1`` when unknown (as the records).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from rdd.engine_api import register_event

from dstream.listener import (
    BatchInfo,
    OutputOperationInfo,
    ReceiverInfo,
    StreamingListenerBatchCompleted,
    StreamingListenerBatchStarted,
    StreamingListenerBatchSubmitted,
    StreamingListenerEvent,
    StreamingListenerOutputOperationCompleted,
    StreamingListenerOutputOperationStarted,
    StreamingListenerReceiverError,
    StreamingListenerReceiverStarted,
    StreamingListenerReceiverStopped,
    StreamingListenerStreamingStarted,
    StreamInputInfo,
)

__all__ = [
    "BatchCompletedEvent", "BatchStartedEvent", "BatchSubmittedEvent", "OutputOperationCompletedEvent",
    "OutputOperationStartedEvent", "ReceiverErrorEvent", "ReceiverStartedEvent", "ReceiverStoppedEvent",
    "StreamingContextInfo", "StreamingStartedEvent", "batch_info_from_json", "batch_info_to_json", "wrap",
]

_PREFIX = "org.apache.spark.streaming.scheduler."


def _plain(value: Any) -> Any:
    # Input metadata is free-form (offsets, file names): keep what JSON holds, stringify the rest.
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return str(value)


def _op_to_json(op: OutputOperationInfo) -> dict[str, Any]:
    return {"batchTime": op.batchTime().milliseconds(), "id": op.id(), "name": op.name(),
            "description": op.description(), "startTime": op.startTime(), "endTime": op.endTime(),
            "failureReason": op.failureReason()}


def _op_from_json(d: dict[str, Any]) -> OutputOperationInfo:
    return OutputOperationInfo(int(d["batchTime"]), int(d["id"]), str(d["name"]), str(d["description"]),
                               int(d["startTime"]), int(d["endTime"]), d.get("failureReason"))


def batch_info_to_json(info: BatchInfo) -> dict[str, Any]:
    """The JSON form of a :class:`~dstream.listener.BatchInfo`."""
    return {
        "batchTime": info.batchTime().milliseconds(),
        "streamIdToInputInfo": {
            str(k): {"inputStreamId": v.inputStreamId(), "numRecords": v.numRecords(),
                     "metadata": _plain(v.metadata())}
            for k, v in info.streamIdToInputInfo().items()},
        "submissionTime": info.submissionTime(),
        "processingStartTime": info.processingStartTime(),
        "processingEndTime": info.processingEndTime(),
        "outputOperationInfos": {str(k): _op_to_json(v) for k, v in info.outputOperationInfos().items()},
    }


def batch_info_from_json(d: dict[str, Any]) -> BatchInfo:
    """Rebuild a :class:`~dstream.listener.BatchInfo` from :func:`batch_info_to_json`'s dict."""
    inputs = {int(k): StreamInputInfo(int(v["inputStreamId"]), int(v["numRecords"]), v.get("metadata") or {})
              for k, v in d["streamIdToInputInfo"].items()}
    ops = {int(k): _op_from_json(v) for k, v in d["outputOperationInfos"].items()}
    return BatchInfo(int(d["batchTime"]), inputs, int(d["submissionTime"]), int(d["processingStartTime"]),
                     int(d["processingEndTime"]), ops)


def _receiver_to_json(info: ReceiverInfo) -> dict[str, Any]:
    return {"streamId": info.streamId(), "name": info.name(), "active": info.active(),
            "location": info.location(), "executorId": info.executorId(),
            "lastErrorMessage": info.lastErrorMessage(), "lastError": info.lastError(),
            "lastErrorTime": info.lastErrorTime()}


def _receiver_from_json(d: dict[str, Any]) -> ReceiverInfo:
    return ReceiverInfo(int(d["streamId"]), str(d["name"]), bool(d["active"]), str(d["location"]),
                        str(d["executorId"]), str(d["lastErrorMessage"]), str(d["lastError"]),
                        int(d["lastErrorTime"]))


@dataclass(frozen=True)
class StreamingContextInfo:
    """A StreamingContext started: its interval (ms) and input streams (``{id: name}``)."""

    _callback: ClassVar[str] = "onStreamingContextInfo"
    time: int
    batchDuration: int  # noqa: N815 - the event log's field name
    inputStreams: dict[str, str] = field(default_factory=dict)  # noqa: N815 - keys are ids as JSON keys


class _FromRecord:
    """Builds the one field of a :func:`wrap`-made event from its record on first read."""

    if not TYPE_CHECKING:  # to the type checker, the fields are plain dataclass fields
        def __getattr__(self, name: str) -> Any:
            # Only called when the attribute is missing: a wrapped event's field until read.
            record = self.__dict__.get("_record_of_origin")
            if record is not None and not name.startswith("_"):
                field_name, body = _WRAPPERS[type(record)][1:]
                if name == field_name:
                    value = body(record)
                    object.__setattr__(self, name, value)
                    return value
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


@dataclass(frozen=True)
class StreamingStartedEvent(_FromRecord):
    _callback: ClassVar[str] = "onStreamingStarted"
    time: int

    def listener_event(self) -> StreamingListenerEvent:
        return StreamingListenerStreamingStarted(self.time)


@dataclass(frozen=True)
class _BatchEvent(_FromRecord):
    _record: ClassVar[type]
    batchInfo: dict[str, Any]  # noqa: N815

    def listener_event(self) -> StreamingListenerEvent:
        return _cached(self) or self._record(batch_info_from_json(self.batchInfo))


@dataclass(frozen=True)
class BatchSubmittedEvent(_BatchEvent):
    _record = StreamingListenerBatchSubmitted
    _callback: ClassVar[str] = "onBatchSubmitted"


@dataclass(frozen=True)
class BatchStartedEvent(_BatchEvent):
    _record = StreamingListenerBatchStarted
    _callback: ClassVar[str] = "onBatchStarted"


@dataclass(frozen=True)
class BatchCompletedEvent(_BatchEvent):
    _record = StreamingListenerBatchCompleted
    _callback: ClassVar[str] = "onBatchCompleted"


@dataclass(frozen=True)
class _OutputOperationEvent(_FromRecord):
    _record: ClassVar[type]
    outputOperationInfo: dict[str, Any]  # noqa: N815

    def listener_event(self) -> StreamingListenerEvent:
        return _cached(self) or self._record(_op_from_json(self.outputOperationInfo))


@dataclass(frozen=True)
class OutputOperationStartedEvent(_OutputOperationEvent):
    _record = StreamingListenerOutputOperationStarted
    _callback: ClassVar[str] = "onOutputOperationStarted"


@dataclass(frozen=True)
class OutputOperationCompletedEvent(_OutputOperationEvent):
    _record = StreamingListenerOutputOperationCompleted
    _callback: ClassVar[str] = "onOutputOperationCompleted"


@dataclass(frozen=True)
class _ReceiverEvent(_FromRecord):
    _record: ClassVar[type]
    receiverInfo: dict[str, Any]  # noqa: N815

    def listener_event(self) -> StreamingListenerEvent:
        return _cached(self) or self._record(_receiver_from_json(self.receiverInfo))


@dataclass(frozen=True)
class ReceiverStartedEvent(_ReceiverEvent):
    _record = StreamingListenerReceiverStarted
    _callback: ClassVar[str] = "onReceiverStarted"


@dataclass(frozen=True)
class ReceiverErrorEvent(_ReceiverEvent):
    _record = StreamingListenerReceiverError
    _callback: ClassVar[str] = "onReceiverError"


@dataclass(frozen=True)
class ReceiverStoppedEvent(_ReceiverEvent):
    _record = StreamingListenerReceiverStopped
    _callback: ClassVar[str] = "onReceiverStopped"


#: dstream.listener event class -> (bus event class, its field, the record's JSON form).
_WRAPPERS: dict[type, tuple[type, str, Any]] = {
    StreamingListenerStreamingStarted: (StreamingStartedEvent, "time", lambda e: e.time()),
    StreamingListenerBatchSubmitted: (BatchSubmittedEvent, "batchInfo", lambda e: batch_info_to_json(e.batchInfo())),
    StreamingListenerBatchStarted: (BatchStartedEvent, "batchInfo", lambda e: batch_info_to_json(e.batchInfo())),
    StreamingListenerBatchCompleted: (BatchCompletedEvent, "batchInfo",
                                      lambda e: batch_info_to_json(e.batchInfo())),
    StreamingListenerOutputOperationStarted: (OutputOperationStartedEvent, "outputOperationInfo",
                                              lambda e: _op_to_json(e.outputOperationInfo())),
    StreamingListenerOutputOperationCompleted: (OutputOperationCompletedEvent, "outputOperationInfo",
                                                lambda e: _op_to_json(e.outputOperationInfo())),
    StreamingListenerReceiverStarted: (ReceiverStartedEvent, "receiverInfo",
                                       lambda e: _receiver_to_json(e.receiverInfo())),
    StreamingListenerReceiverError: (ReceiverErrorEvent, "receiverInfo", lambda e: _receiver_to_json(e.receiverInfo())),
    StreamingListenerReceiverStopped: (ReceiverStoppedEvent, "receiverInfo",
                                       lambda e: _receiver_to_json(e.receiverInfo())),
}

register_event(StreamingContextInfo, "dstream.StreamingContextInfo")
for _record_cls, (_event_cls, _, _) in _WRAPPERS.items():
    register_event(_event_cls, _PREFIX + _record_cls.__name__)


def wrap(event: StreamingListenerEvent) -> Any:
    """The bus event carrying ``event`` (a :mod:`dstream.listener` event)."""
    cls = _WRAPPERS[type(event)][0]
    # No field yet: _FromRecord builds it from the record when it is first read. The live
    # store reads the record itself rather than rebuilding it from the JSON form (a
    # replayed event has only the JSON form). Not a field: not logged, not compared.
    wrapped: Any = object.__new__(cls)
    object.__setattr__(wrapped, "_record_of_origin", event)
    return wrapped


def _cached(wrapped: Any) -> StreamingListenerEvent | None:
    return wrapped.__dict__.get("_record_of_origin")

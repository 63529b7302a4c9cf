"""StreamingListener and the records it receives (PySpark's call style).

What this module owns
---------------------
* :class:`StreamingListener`: the base class users subclass, with PySpark's camelCase
  callbacks, all no-ops.
* The event records (``StreamingListenerBatchCompleted`` ...) and the info records they
  carry (:class:`BatchInfo`, :class:`OutputOperationInfo`, :class:`StreamInputInfo`,
  :class:`ReceiverInfo`).

PySpark hands listeners Py4J proxies of Spark's Java wrappers, so every field is read by
*calling* it: ``event.batchInfo().processingDelay()``. The records here keep that call
style so listener code moves over unchanged. As in the Java wrappers, a time or delay
that is not known yet is ``-1``.

Times are epoch milliseconds read from the context's injected clock (Spark mixes in the
wall clock); under a ``ManualClock`` the stamps are the manual time, so tests can assert
exact values. Delays are defined as in Spark:

* ``schedulingDelay = processingStartTime - submissionTime`` (waiting for the job thread),
* ``processingDelay = processingEndTime - processingStartTime`` (first output operation's
  start to the last one's end),
* ``totalDelay = schedulingDelay + processingDelay``.

The records are immutable after construction; the engine builds a fresh ``BatchInfo``
for each event.
"""

from __future__ import annotations

from typing import Any, ClassVar

from dstream.time import Time

__all__ = [
    "BatchInfo",
    "OutputOperationInfo",
    "ReceiverInfo",
    "StreamInputInfo",
    "StreamingListener",
    "StreamingListenerBatchCompleted",
    "StreamingListenerBatchStarted",
    "StreamingListenerBatchSubmitted",
    "StreamingListenerEvent",
    "StreamingListenerOutputOperationCompleted",
    "StreamingListenerOutputOperationStarted",
    "StreamingListenerReceiverError",
    "StreamingListenerReceiverStarted",
    "StreamingListenerReceiverStopped",
    "StreamingListenerStreamingStarted",
]


class StreamingListener:
    """Receives events about a running StreamingContext; override what you need.

    Callbacks run on the listener bus thread, one event at a time, in the order the
    events happened. A callback that raises is logged and the bus carries on. Keep
    callbacks fast and never call ``StreamingContext.stop()`` from one.

    Examples
    --------
    >>> class Delays(StreamingListener):
    ...     def __init__(self):
    ...         self.delays = []
    ...     def onBatchCompleted(self, batchCompleted):
    ...         self.delays.append(batchCompleted.batchInfo().processingDelay())
    >>> # ssc.addStreamingListener(Delays())
    """

    def onStreamingStarted(self, streamingStarted: StreamingListenerStreamingStarted) -> None:
        """Called when the streaming context has started."""

    def onReceiverStarted(self, receiverStarted: StreamingListenerReceiverStarted) -> None:
        """Called when a receiver has started."""

    def onReceiverError(self, receiverError: StreamingListenerReceiverError) -> None:
        """Called when a receiver has reported an error."""

    def onReceiverStopped(self, receiverStopped: StreamingListenerReceiverStopped) -> None:
        """Called when a receiver has stopped."""

    def onBatchSubmitted(self, batchSubmitted: StreamingListenerBatchSubmitted) -> None:
        """Called when a batch's jobs have been submitted for processing."""

    def onBatchStarted(self, batchSubmitted: StreamingListenerBatchStarted) -> None:
        """Called when the first job of a batch starts (PySpark's parameter name)."""

    def onBatchCompleted(self, batchCompleted: StreamingListenerBatchCompleted) -> None:
        """Called when the last job of a batch has finished, whether or not jobs failed."""

    def onOutputOperationStarted(
        self, outputOperationStarted: StreamingListenerOutputOperationStarted
    ) -> None:
        """Called when an output operation of a batch starts."""

    def onOutputOperationCompleted(
        self, outputOperationCompleted: StreamingListenerOutputOperationCompleted
    ) -> None:
        """Called when an output operation of a batch has finished (see ``failureReason``)."""


#: Sets a field of an immutable record. The hot records (one of each per batch and output
#: operation) call it field by field: building them is most of a listener bus's work.
_set = object.__setattr__


class _Record:
    """Immutable record with slots; ``repr`` lists the fields."""

    __slots__: tuple[str, ...] = ()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def _init(self, **fields: Any) -> None:
        for name, value in fields.items():
            _set(self, "_" + name, value)

    @classmethod
    def _fields(cls) -> tuple[str, ...]:
        """Every slot of the record, the base classes' first (an event type adds none)."""
        return tuple(slot for klass in reversed(cls.__mro__) for slot in klass.__dict__.get("__slots__", ()))

    def __repr__(self) -> str:
        fields = ", ".join(f"{slot[1:]}={getattr(self, slot)!r}" for slot in self._fields())
        return f"{type(self).__name__}({fields})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, s) == getattr(other, s) for s in self._fields())

    __hash__ = None  # type: ignore[assignment]


class StreamInputInfo(_Record):
    """What one input stream contributed to a batch."""

    __slots__ = ("_input_stream_id", "_num_records", "_metadata")
    _input_stream_id: int
    _num_records: int
    _metadata: dict[str, Any]

    def __init__(self, input_stream_id: int, num_records: int, metadata: dict[str, Any] | None = None) -> None:
        self._init(input_stream_id=input_stream_id, num_records=num_records, metadata=dict(metadata or {}))

    def inputStreamId(self) -> int:
        """Return the id of the input stream."""
        return self._input_stream_id

    def numRecords(self) -> int:
        """Return the number of records the stream put into the batch."""
        return self._num_records

    def metadata(self) -> dict[str, Any]:
        """Return free-form metadata (for example offsets or file names)."""
        return dict(self._metadata)

    def metadataDescription(self) -> str | None:
        """Return the ``"Description"`` metadata entry, or ``None``."""
        value = self._metadata.get("Description")
        return None if value is None else str(value)


class OutputOperationInfo(_Record):
    """One output operation of one batch."""

    __slots__ = ("_batch_time", "_id", "_name", "_description", "_start_time", "_end_time", "_failure_reason")
    _batch_time: int
    _id: int
    _name: str
    _description: str
    _start_time: int
    _end_time: int
    _failure_reason: str | None

    def __init__(
        self,
        batch_time: int,
        id: int,  # noqa: A002 - Spark's field name
        name: str,
        description: str,
        start_time: int = -1,
        end_time: int = -1,
        failure_reason: str | None = None,
    ) -> None:
        _set(self, "_batch_time", batch_time)
        _set(self, "_id", id)
        _set(self, "_name", name)
        _set(self, "_description", description)
        _set(self, "_start_time", start_time)
        _set(self, "_end_time", end_time)
        _set(self, "_failure_reason", failure_reason)

    def batchTime(self) -> Time:
        """Return the batch time."""
        return Time(self._batch_time)

    def id(self) -> int:
        """Return the output operation's id (registration order, from 0)."""
        return self._id

    def name(self) -> str:
        """Return the operation's name, for example ``'foreachRDD'``."""
        return self._name

    def description(self) -> str:
        """Return where the operation was registered (``file:line``)."""
        return self._description

    def startTime(self) -> int:
        """Return when the operation started (epoch ms), or -1."""
        return self._start_time

    def endTime(self) -> int:
        """Return when the operation ended (epoch ms), or -1."""
        return self._end_time

    def failureReason(self) -> str | None:
        """Return the failure (exception type, message and traceback), or ``None``."""
        return self._failure_reason


class BatchInfo(_Record):
    """Timing and size of one batch (see the module docstring for the delays)."""

    __slots__ = (
        "_batch_time",
        "_stream_id_to_input_info",
        "_submission_time",
        "_processing_start_time",
        "_processing_end_time",
        "_output_operation_infos",
    )
    _batch_time: int
    _stream_id_to_input_info: dict[int, StreamInputInfo]
    _submission_time: int
    _processing_start_time: int
    _processing_end_time: int
    _output_operation_infos: dict[int, OutputOperationInfo]

    def __init__(
        self,
        batch_time: int,
        stream_id_to_input_info: dict[int, StreamInputInfo],
        submission_time: int,
        processing_start_time: int = -1,
        processing_end_time: int = -1,
        output_operation_infos: dict[int, OutputOperationInfo] | None = None,
    ) -> None:
        _set(self, "_batch_time", batch_time)
        _set(self, "_stream_id_to_input_info", dict(stream_id_to_input_info))
        _set(self, "_submission_time", submission_time)
        _set(self, "_processing_start_time", processing_start_time)
        _set(self, "_processing_end_time", processing_end_time)
        _set(self, "_output_operation_infos", dict(output_operation_infos or {}))

    def batchTime(self) -> Time:
        """Return the batch time (``.milliseconds()`` gives epoch ms)."""
        return Time(self._batch_time)

    def streamIdToInputInfo(self) -> dict[int, StreamInputInfo]:
        """Return the input of each input stream, keyed by stream id."""
        return dict(self._stream_id_to_input_info)

    def submissionTime(self) -> int:
        """Return when the batch's jobs were submitted (epoch ms)."""
        return self._submission_time

    def processingStartTime(self) -> int:
        """Return when the first job started (epoch ms), or -1."""
        return self._processing_start_time

    def processingEndTime(self) -> int:
        """Return when the last job ended (epoch ms), or -1."""
        return self._processing_end_time

    def schedulingDelay(self) -> int:
        """Return ``processingStartTime - submissionTime`` in ms, or -1 if not started."""
        if self._processing_start_time < 0:
            return -1
        return self._processing_start_time - self._submission_time

    def processingDelay(self) -> int:
        """Return ``processingEndTime - processingStartTime`` in ms, or -1 if not ended."""
        if self._processing_start_time < 0 or self._processing_end_time < 0:
            return -1
        return self._processing_end_time - self._processing_start_time

    def totalDelay(self) -> int:
        """Return ``schedulingDelay + processingDelay`` in ms, or -1 if not ended."""
        if self._processing_start_time < 0 or self._processing_end_time < 0:
            return -1
        return self._processing_end_time - self._submission_time

    def numRecords(self) -> int:
        """Return the number of input records of the batch (all input streams)."""
        return sum(info.numRecords() for info in self._stream_id_to_input_info.values())

    def outputOperationInfos(self) -> dict[int, OutputOperationInfo]:
        """Return the batch's output operations keyed by id."""
        return dict(self._output_operation_infos)


class ReceiverInfo(_Record):
    """State of one receiver (used by the receiver events)."""

    __slots__ = (
        "_stream_id",
        "_name",
        "_active",
        "_location",
        "_executor_id",
        "_last_error_message",
        "_last_error",
        "_last_error_time",
    )
    _stream_id: int
    _name: str
    _active: bool
    _location: str
    _executor_id: str
    _last_error_message: str
    _last_error: str
    _last_error_time: int

    def __init__(
        self,
        stream_id: int,
        name: str,
        active: bool,
        location: str = "driver",
        executor_id: str = "driver",
        last_error_message: str = "",
        last_error: str = "",
        last_error_time: int = -1,
    ) -> None:
        self._init(
            stream_id=stream_id,
            name=name,
            active=active,
            location=location,
            executor_id=executor_id,
            last_error_message=last_error_message,
            last_error=last_error,
            last_error_time=last_error_time,
        )

    def streamId(self) -> int:
        """Return the input stream id of the receiver."""
        return self._stream_id

    def name(self) -> str:
        """Return the receiver's name."""
        return self._name

    def active(self) -> bool:
        """Return whether the receiver is running."""
        return self._active

    def location(self) -> str:
        """Return where the receiver runs."""
        return self._location

    def executorId(self) -> str:
        """Return the executor the receiver runs in."""
        return self._executor_id

    def lastErrorMessage(self) -> str:
        """Return the last error's message, or ``''``."""
        return self._last_error_message

    def lastError(self) -> str:
        """Return the last error's details, or ``''``."""
        return self._last_error

    def lastErrorTime(self) -> int:
        """Return when the last error happened (epoch ms), or -1."""
        return self._last_error_time


class StreamingListenerEvent(_Record):
    """Base of the events; ``_callback`` names the listener method that receives it."""

    __slots__ = ()
    _callback: ClassVar[str]


class StreamingListenerStreamingStarted(StreamingListenerEvent):
    """The context started at ``time()`` (epoch ms)."""

    __slots__ = ("_time",)
    _time: int
    _callback = "onStreamingStarted"

    def __init__(self, time: int) -> None:
        self._init(time=time)

    def time(self) -> int:
        """Return when streaming started (epoch ms)."""
        return self._time


class _BatchEvent(StreamingListenerEvent):
    __slots__ = ("_batch_info",)
    _batch_info: BatchInfo

    def __init__(self, batch_info: BatchInfo) -> None:
        _set(self, "_batch_info", batch_info)

    def batchInfo(self) -> BatchInfo:
        """Return the batch's :class:`BatchInfo`."""
        return self._batch_info


class StreamingListenerBatchSubmitted(_BatchEvent):
    """A batch's jobs were submitted."""

    __slots__ = ()
    _callback = "onBatchSubmitted"


class StreamingListenerBatchStarted(_BatchEvent):
    """A batch's first job started."""

    __slots__ = ()
    _callback = "onBatchStarted"


class StreamingListenerBatchCompleted(_BatchEvent):
    """A batch's last job finished (some jobs may have failed)."""

    __slots__ = ()
    _callback = "onBatchCompleted"


class _OutputOperationEvent(StreamingListenerEvent):
    __slots__ = ("_output_operation_info",)
    _output_operation_info: OutputOperationInfo

    def __init__(self, output_operation_info: OutputOperationInfo) -> None:
        _set(self, "_output_operation_info", output_operation_info)

    def outputOperationInfo(self) -> OutputOperationInfo:
        """Return the operation's :class:`OutputOperationInfo`."""
        return self._output_operation_info


class StreamingListenerOutputOperationStarted(_OutputOperationEvent):
    """An output operation of a batch started."""

    __slots__ = ()
    _callback = "onOutputOperationStarted"


class StreamingListenerOutputOperationCompleted(_OutputOperationEvent):
    """An output operation of a batch finished."""

    __slots__ = ()
    _callback = "onOutputOperationCompleted"


class _ReceiverEvent(StreamingListenerEvent):
    __slots__ = ("_receiver_info",)
    _receiver_info: ReceiverInfo

    def __init__(self, receiver_info: ReceiverInfo) -> None:
        self._init(receiver_info=receiver_info)

    def receiverInfo(self) -> ReceiverInfo:
        """Return the receiver's :class:`ReceiverInfo`."""
        return self._receiver_info


class StreamingListenerReceiverStarted(_ReceiverEvent):
    """A receiver started."""

    __slots__ = ()
    _callback = "onReceiverStarted"


class StreamingListenerReceiverError(_ReceiverEvent):
    """A receiver reported an error."""

    __slots__ = ()
    _callback = "onReceiverError"


class StreamingListenerReceiverStopped(_ReceiverEvent):
    """A receiver stopped."""

    __slots__ = ()
    _callback = "onReceiverStopped"

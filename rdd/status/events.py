"""The engine's listener events (Spark's names and fields) and their JSON form.

What this module owns
---------------------
The event types the scheduler, the executors, the block manager and the context post
on a context's :class:`~rdd.status.bus.LiveListenerBus`, the value types they carry
(:class:`StageInfo`, :class:`TaskInfo`, :class:`TaskMetrics`, :class:`RDDInfo`), and
the registry that turns any registered event into a JSON-able dict and back
(``to_json`` / :func:`event_from_json`), used by the event log and its replay.

Invariants
----------
* Events are slotted dataclasses whose fields are named as in Spark's JSON event log
  (camelCase); ``to_json()`` returns ``{"Event": <Spark's event name>, field: value...}``
  holding only JSON types, and ``event_from_json(e.to_json()) == e``. They are not
  frozen (a frozen dataclass pays a call per field to be built, and a job builds a
  dozen of these) but every listener treats them as read-only: one object reaches
  all listeners.
* A nested value type (a field of type :class:`StageInfo`, a list of them...) is declared
  in the class's ``_nested`` table, so decoding needs no type introspection: ``[T]`` for a
  list of ``T``, ``(T,)`` for a tuple of them; ``_tuples`` names the other fields decoded
  as tuples. The value types a status store keeps (a stage's RDDs and parents) are tuples:
  a tuple of numbers is not tracked by the garbage collector, a list always is.
* Layers above the engine (streaming) register their own event types with
  :func:`register_event`; names are unique (registering a second class under a name
  already taken is refused).
* ``_callback`` names the :class:`~rdd.status.bus.SparkListener` method of the event.
"""

# ruff: noqa: N815 - fields are named as Spark's JSON (camelCase), the contract of the event log and REST API
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

__all__ = [
    "RDDInfo", "SparkListenerApplicationEnd", "SparkListenerApplicationStart", "SparkListenerBlockUpdated",
    "SparkListenerEnvironmentUpdate", "SparkListenerEvent", "SparkListenerExecutorAdded",
    "SparkListenerExecutorRemoved", "SparkListenerJobEnd", "SparkListenerJobStart",
    "SparkListenerStageCompleted", "SparkListenerStageSubmitted", "SparkListenerTaskEnd",
    "SparkListenerTaskStart", "SparkListenerUnpersistRDD", "StageInfo", "TaskInfo", "TaskMetrics",
    "event_from_json", "register_event", "registered_events",
]

E = TypeVar("E", bound=type)

#: ``"Event"`` name -> class, for decoding.
_REGISTRY: dict[str, type] = {}


def _encode(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _encode(v) for k, v in value.items()}
    return value


def _decode(cls: type, data: dict[str, Any]) -> Any:
    nested: dict[str, Any] = getattr(cls, "_nested", {})
    tuples: frozenset[str] = getattr(cls, "_tuples", frozenset())
    kwargs: dict[str, Any] = {}
    names = {f.name for f in dataclasses.fields(cls)}
    for key, value in data.items():
        if key not in names:
            continue  # a field a newer writer added: ignored, as Spark's JsonProtocol does
        kind = nested.get(key)
        if kind is not None and value is not None:
            if isinstance(kind, list):
                value = [_decode(kind[0], v) for v in value]
            elif isinstance(kind, tuple):
                value = tuple([_decode(kind[0], v) for v in value])
            else:
                value = _decode(kind, value)
        elif key in tuples and value is not None:
            value = tuple(value)
        kwargs[key] = value
    return cls(**kwargs)


class SparkListenerEvent:
    """Mix-in of every event: the JSON conversion."""

    __slots__ = ()
    _callback: ClassVar[str] = "onOtherEvent"
    _event_name: ClassVar[str]

    def to_json(self) -> dict[str, Any]:
        """This event as a JSON-able dict, ``"Event"`` first."""
        body = _encode(self)
        return {"Event": type(self)._event_name, **body}


def register_event(cls: E, name: str | None = None) -> E:
    """Make event class ``cls`` loggable and replayable under ``name`` (default: its name).

    ``cls`` must be a dataclass; nested dataclass fields are declared in its ``_nested``
    (``{"field": Class}`` or ``{"field": [Class]}`` for a list). Usable as a decorator.

    Raises
    ------
    ValueError
        If another class is already registered under that name.
    """
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"register_event needs a dataclass, got {cls!r}; decorate it with @dataclass(frozen=True)")
    key = name or cls.__name__
    existing = _REGISTRY.get(key)
    if existing is not None and existing is not cls and existing.__qualname__ != cls.__qualname__:
        raise ValueError(f"event name {key!r} is already registered for {existing!r}; pick another name for {cls!r}")
    _REGISTRY[key] = cls
    cls._event_name = key  # type: ignore[attr-defined]
    if not hasattr(cls, "to_json"):
        cls.to_json = SparkListenerEvent.to_json  # type: ignore[attr-defined]
    return cls


def registered_events() -> dict[str, type]:
    """A copy of the registry: event name -> class."""
    return dict(_REGISTRY)


def event_from_json(data: dict[str, Any]) -> Any:
    """The event ``to_json`` produced ``data`` from.

    Raises
    ------
    ValueError
        If ``data`` has no ``"Event"`` or names an event type nobody registered (a log
        written by a program with more layers: import them before replaying).
    """
    name = data.get("Event")
    cls = _REGISTRY.get(name) if isinstance(name, str) else None
    if cls is None:
        raise ValueError(f"unknown listener event {name!r}: not registered with register_event "
                         f"(known: {', '.join(sorted(_REGISTRY))})")
    return _decode(cls, {k: v for k, v in data.items() if k != "Event"})


# -- value types ---------------------------------------------------------------------
@dataclass(slots=True)
class RDDInfo:
    """An RDD of a stage: its name, partitions and storage level (Spark's ``RDDInfo``)."""

    id: int
    name: str
    numPartitions: int
    storageLevel: str = "NONE"
    useMemory: bool = False
    useDisk: bool = False
    deserialized: bool = False
    parentIds: tuple[int, ...] = ()
    callSite: str = ""

    _tuples: ClassVar[frozenset[str]] = frozenset({"parentIds"})


@dataclass(slots=True)
class StageInfo:
    """One attempt of a stage (Spark's ``StageInfo``); times in epoch ms."""

    _nested: ClassVar[dict[str, Any]] = {"rddInfos": (RDDInfo,)}
    _tuples: ClassVar[frozenset[str]] = frozenset({"parentIds"})

    stageId: int
    attemptId: int
    name: str
    numTasks: int
    rddInfos: tuple[RDDInfo, ...] = ()
    parentIds: tuple[int, ...] = ()
    details: str = ""
    submissionTime: int | None = None
    completionTime: int | None = None
    failureReason: str | None = None
    isShuffleMap: bool = False


@dataclass(slots=True)
class TaskInfo:
    """One task attempt (Spark's ``TaskInfo``); times in epoch ms, 0 while unknown."""

    taskId: int
    index: int
    attempt: int
    partitionId: int
    launchTime: int
    executorId: str
    host: str = "localhost"
    taskLocality: str = "PROCESS_LOCAL"
    speculative: bool = False
    gettingResultTime: int = 0
    finishTime: int = 0
    failed: bool = False
    killed: bool = False


@dataclass(slots=True)
class TaskMetrics:
    """What a task measured (Spark's ``TaskMetrics``, flattened); times in ms, sizes in bytes."""

    executorDeserializeTime: int = 0
    executorDeserializeCpuTime: int = 0
    executorRunTime: int = 0
    executorCpuTime: int = 0  # nanoseconds, as Spark
    resultSize: int = 0
    jvmGcTime: int = 0
    resultSerializationTime: int = 0
    memoryBytesSpilled: int = 0
    diskBytesSpilled: int = 0
    peakExecutionMemory: int = 0
    inputBytes: int = 0
    inputRecords: int = 0
    outputBytes: int = 0
    outputRecords: int = 0
    shuffleReadBytes: int = 0
    shuffleReadRecords: int = 0
    shuffleReadBlocks: int = 0
    shuffleWriteBytes: int = 0
    shuffleWriteRecords: int = 0
    shuffleWriteTime: int = 0  # nanoseconds, as Spark


# -- events --------------------------------------------------------------------------
@register_event
@dataclass(slots=True)
class SparkListenerApplicationStart(SparkListenerEvent):
    _callback = "onApplicationStart"
    appName: str
    appId: str
    time: int
    sparkUser: str
    appAttemptId: str | None = None


@register_event
@dataclass(slots=True)
class SparkListenerApplicationEnd(SparkListenerEvent):
    _callback = "onApplicationEnd"
    time: int


@register_event
@dataclass(slots=True)
class SparkListenerEnvironmentUpdate(SparkListenerEvent):
    """``environmentDetails``: section ("Spark Properties", "System Properties",
    "Runtime Information"...) -> list of ``[key, value]`` pairs."""

    _callback = "onEnvironmentUpdate"
    environmentDetails: dict[str, list[list[str]]]


@register_event
@dataclass(slots=True)
class SparkListenerJobStart(SparkListenerEvent):
    _callback = "onJobStart"
    _nested = {"stageInfos": [StageInfo]}
    jobId: int
    time: int
    stageInfos: list[StageInfo]
    properties: dict[str, str] = field(default_factory=dict)


@register_event
@dataclass(slots=True)
class SparkListenerJobEnd(SparkListenerEvent):
    """``jobResult``: ``{"Result": "JobSucceeded"}`` or ``{"Result": "JobFailed", "Exception": text}``."""

    _callback = "onJobEnd"
    jobId: int
    time: int
    jobResult: dict[str, str]


@register_event
@dataclass(slots=True)
class SparkListenerStageSubmitted(SparkListenerEvent):
    _callback = "onStageSubmitted"
    _nested = {"stageInfo": StageInfo}
    stageInfo: StageInfo
    properties: dict[str, str] = field(default_factory=dict)


@register_event
@dataclass(slots=True)
class SparkListenerStageCompleted(SparkListenerEvent):
    """A stage attempt ended; ``stageInfo.failureReason`` is set when it failed."""

    _callback = "onStageCompleted"
    _nested = {"stageInfo": StageInfo}
    stageInfo: StageInfo


@register_event
@dataclass(slots=True)
class SparkListenerTaskStart(SparkListenerEvent):
    _callback = "onTaskStart"
    _nested = {"taskInfo": TaskInfo}
    stageId: int
    stageAttemptId: int
    taskInfo: TaskInfo


@register_event
@dataclass(slots=True)
class SparkListenerTaskEnd(SparkListenerEvent):
    """``reason``: ``{"Reason": "Success"}``, ``{"Reason": "ExceptionFailure", "Description": ...}``,
    ``{"Reason": "ExecutorLostFailure", ...}``, ``{"Reason": "FetchFailed", ...}`` or
    ``{"Reason": "TaskKilled", ...}``."""

    _callback = "onTaskEnd"
    _nested = {"taskInfo": TaskInfo, "taskMetrics": TaskMetrics}
    stageId: int
    stageAttemptId: int
    taskType: str
    reason: dict[str, str]
    taskInfo: TaskInfo
    taskMetrics: TaskMetrics | None = None


@register_event
@dataclass(slots=True)
class SparkListenerExecutorAdded(SparkListenerEvent):
    """``executorInfo``: ``{"Host": ..., "Total Cores": n, "Log Urls": {}, "Pid": n}``."""

    _callback = "onExecutorAdded"
    time: int
    executorId: str
    executorInfo: dict[str, Any]


@register_event
@dataclass(slots=True)
class SparkListenerExecutorRemoved(SparkListenerEvent):
    _callback = "onExecutorRemoved"
    time: int
    executorId: str
    reason: str


@register_event
@dataclass(slots=True)
class SparkListenerBlockUpdated(SparkListenerEvent):
    """A block was stored (sizes > 0) or dropped (``storageLevel`` ``"NONE"``, sizes 0)."""

    _callback = "onBlockUpdated"
    executorId: str
    blockId: str
    storageLevel: str
    memSize: int
    diskSize: int


@register_event
@dataclass(slots=True)
class SparkListenerUnpersistRDD(SparkListenerEvent):
    _callback = "onUnpersistRDD"
    rddId: int

"""What crosses the process boundary: a task to run and its result.

A stage's closure (its final node plus the result function or the shuffle write
spec) is pickled once per stage into a *binary* identified by its digest; each task
carries only the digest and its own pickled partition. Workers cache binaries by
digest, so a stage's functions cross to each worker at most once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class TaskSpec:
    task_id: int           # unique per attempt, in one context
    job_id: int
    stage_id: int
    partition: int         # the partition index of the stage's node
    attempt: int
    digest: str
    split_bytes: bytes
    is_shuffle_map: bool
    preferred: str | None = None
    strict_locality: bool = False
    local_properties: dict[str, str] = field(default_factory=dict)
    #: A map task's reduce partitions (0 for a result task).
    buckets: int = 0
    #: The shuffle a map task writes (-1 for a result task).
    shuffle_id: int = -1
    #: The ``(shuffle_id, reduce_id)`` buckets the task reads; filled only for a backend
    #: that must ship map outputs to the task (Ray), empty otherwise.
    shuffle_reads: tuple[tuple[int, int], ...] = ()
    #: ``(shuffle_id, map_id, reduce_id)`` -> the bytes of a bucket the task reads whose
    #: map output the driver holds (an ``InlineMapOutput``); the other buckets are files.
    inline_buckets: dict[tuple[int, int, int], bytes] = field(default_factory=dict)
    #: The buffers ``split_bytes`` keeps out of band (a parallelized slice's records):
    #: ``pickle.loads(split_bytes, buffers=split_buffers)`` is the split.
    split_buffers: tuple[Any, ...] = ()


@dataclass
class TaskResult:
    task_id: int
    value: Any                       # result value, or bucket sizes of a map task
    blocks_added: list[str]
    accumulator_updates: dict[int, Any]
    executor_id: str
    metrics: dict[str, int] = field(default_factory=dict)          # TaskMetrics' field names
    block_sizes: dict[str, tuple[int, int]] = field(default_factory=dict)  # block id -> (memory, disk) bytes


@dataclass
class TaskFailure:
    task_id: int
    error: BaseException             # the user's exception, or FetchFailedError
    traceback_text: str
    executor_id: str
    metrics: dict[str, int] = field(default_factory=dict)

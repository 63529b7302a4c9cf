"""What an executor backend reports back to the scheduler: one event per outcome.

These types belong to the scheduler, which consumes them; the backends (``rdd.executor``)
produce them, so the executor depends on the scheduler and never the reverse. The
contract that says which events a backend must produce is in ``rdd.executor.backend``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .task import TaskFailure, TaskResult, TaskSpec


@dataclass(frozen=True)
class TaskFinished:
    spec: TaskSpec
    result: TaskResult


@dataclass(frozen=True)
class TaskFailed:
    spec: TaskSpec
    failure: TaskFailure


@dataclass(frozen=True)
class ExecutorLost:
    executor_id: str
    reason: str
    tasks: tuple[TaskSpec, ...]


BackendEvent = TaskFinished | TaskFailed | ExecutorLost
EventSink = Callable[[BackendEvent], None]

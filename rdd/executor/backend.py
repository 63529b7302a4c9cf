"""The seam between scheduling and execution.

A backend takes tasks with ``submit(spec, binary)`` and reports every outcome as an
event through the ``on_event`` callback it was built with; it never blocks the
caller on a task. Events: ``TaskFinished``, ``TaskFailed``, ``ExecutorLost``. Every
submitted task produces exactly one ``TaskFinished``/``TaskFailed``, or appears in
the ``tasks`` of exactly one ``ExecutorLost``. ``cancel_job`` drops a job's queued
tasks and kills its running ones where it can; the events of those tasks may still
come (the scheduler ignores events of a job that is over).
"""

from __future__ import annotations

from typing import Protocol

from ..scheduler.task import TaskSpec


class ExecutorBackend(Protocol):
    def submit(self, spec: TaskSpec, binary: bytes) -> None: ...

    def executor_ids(self) -> list[str]: ...

    def remove_rdd(self, rdd_id: int) -> None: ...

    def release_binaries(self) -> None: ...
    def cancel_job(self, job_id: int) -> None: ...

    def shutdown(self) -> None: ...

    @property
    def parallelism(self) -> int: ...

"""InlineBackend (``local``): tasks run in the caller's thread, in the driver process.

Functions are still pickled and unpickled (once per stage), so closures behave as on
workers and an unpicklable closure fails the same way on every master.
"""

from __future__ import annotations

from typing import Any

from ..scheduler.events import EventSink, TaskFailed, TaskFinished
from ..scheduler.task import TaskFailure, TaskSpec
from ..storage import block_manager
from .task_runner import DEFAULT_CLOSURE_CACHE_BYTES, BinaryCache, run_task


class InlineBackend:
    def __init__(self, on_event: EventSink,
                 closure_cache_bytes: int = DEFAULT_CLOSURE_CACHE_BYTES, observer: Any = None) -> None:
        self._on_event = on_event
        self._observer = observer
        self._binaries = BinaryCache(closure_cache_bytes)

    @property
    def parallelism(self) -> int:
        return 1

    def executor_ids(self) -> list[str]:
        return ["driver"]

    def submit(self, spec: TaskSpec, binary: bytes) -> None:
        stage = self._binaries.get(spec.digest)
        if stage is None:
            stage = self._binaries.put(spec.digest, binary)
        if self._observer is not None:
            self._observer.task_launched(spec, "driver")
        outcome = run_task(spec, stage)
        if isinstance(outcome, TaskFailure):
            self._on_event(TaskFailed(spec, outcome))
        else:
            self._on_event(TaskFinished(spec, outcome))

    def remove_rdd(self, rdd_id: int) -> None:
        block_manager.current().remove_rdd(rdd_id)

    def release_binaries(self) -> None:
        self._binaries.clear()
    def cancel_job(self, job_id: int) -> None:
        """Nothing to do: a task running inline is the caller's own thread and cannot be
        killed; the runner starts no further task of a cancelled job."""

    def worker_pids(self) -> list[int]:
        return []

    def shutdown(self) -> None:
        block_manager.current().clear()

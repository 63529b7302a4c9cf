"""TaskContext: what a running task knows about itself (PySpark's names).

``TaskContext.get()`` returns the context of the task running in this thread, or
``None`` on the driver outside a task. The engine also uses it to collect what the
task produced besides its value: blocks stored, accumulator updates.
"""

from __future__ import annotations

import threading
from typing import Any

_local = threading.local()


class TaskContext:
    """Contextual information about a task, available inside the task."""

    def __init__(self, stage_id: int, partition_id: int, attempt_number: int, task_attempt_id: int,
                 local_properties: dict[str, str] | None = None) -> None:
        self._stage_id = stage_id
        self._partition_id = partition_id
        self._attempt_number = attempt_number
        self._task_attempt_id = task_attempt_id
        self._local_properties = local_properties or {}
        self.blocks_added: list[str] = []
        self.block_sizes: dict[str, tuple[int, int]] = {}
        self.accumulator_updates: dict[int, Any] = {}
        # The task's measurements, by TaskMetrics field name (shuffle bytes and records...).
        self.metrics: dict[str, int] = {}

    def add_metric(self, name: str, amount: int) -> None:
        """Add ``amount`` to the task's measurement ``name`` (engine side)."""
        self.metrics[name] = self.metrics.get(name, 0) + amount

    @classmethod
    def get(cls) -> TaskContext | None:
        """The TaskContext of the running task, or ``None`` outside a task."""
        return getattr(_local, "current", None)

    def stageId(self) -> int:
        """The ID of the stage that this task belongs to."""
        return self._stage_id

    def partitionId(self) -> int:
        """The ID of the RDD partition that is computed by this task."""
        return self._partition_id

    def attemptNumber(self) -> int:
        """How many times this task has been attempted (0 for the first attempt)."""
        return self._attempt_number

    def taskAttemptId(self) -> int:
        """An ID unique to this task attempt within the context."""
        return self._task_attempt_id

    def getLocalProperty(self, key: str) -> str | None:
        """A local property set upstream in the driver, or ``None``."""
        return self._local_properties.get(key)

    def cpus(self) -> int:
        """CPUs allocated to the task (always 1)."""
        return 1

    def resources(self) -> dict:
        """Resources allocated to the task (none)."""
        return {}

    # -- engine side -------------------------------------------------------------
    def enter(self) -> None:
        _local.current = self

    def exit(self) -> None:
        _local.current = None

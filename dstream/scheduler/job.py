"""Job and JobSet: the unit of work of one output operation, and one batch's jobs.

A :class:`Job` wraps the closure an output operation built for a batch; running it
never raises (the outcome is recorded on the job). A :class:`JobSet` is one batch: its
jobs in output-operation order and the stamps that become the batch's
:class:`~dstream.listener.BatchInfo`. Both are owned by whichever thread currently holds
them (generator, then job thread), so they need no locks.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dstream.listener import BatchInfo, OutputOperationInfo, StreamInputInfo

__all__ = ["Job", "JobSet"]


@dataclass(slots=True, eq=False)
class Job:
    """One output operation's work for one batch."""

    time_ms: int
    output_op_id: int
    name: str
    description: str
    fn: Callable[[], Any]
    start_time: int = -1
    end_time: int = -1
    error: BaseException | None = None

    def run(self) -> None:
        """Run the closure, recording an exception instead of raising it."""
        try:
            self.fn()
        except BaseException as exc:  # noqa: BLE001 - recorded; awaitTermination re-raises it
            self.error = exc

    @property
    def failure_reason(self) -> str | None:
        if self.error is None:
            return None
        return "".join(traceback.format_exception(self.error)).rstrip()

    def info(self) -> OutputOperationInfo:
        return OutputOperationInfo(
            self.time_ms,
            self.output_op_id,
            self.name,
            self.description,
            self.start_time,
            self.end_time,
            self.failure_reason,
        )


@dataclass(slots=True, eq=False)
class JobSet:
    """The jobs of one batch, in output-operation order."""

    time_ms: int
    jobs: list[Job]
    submission_time: int
    input_infos: dict[int, StreamInputInfo] = field(default_factory=dict)
    processing_start: int = -1
    processing_end: int = -1

    def batch_info(self) -> BatchInfo:
        return BatchInfo(
            self.time_ms,
            self.input_infos,
            self.submission_time,
            self.processing_start,
            self.processing_end,
            {job.output_op_id: job.info() for job in self.jobs},
        )

"""Job and JobSet: the unit of work of one output operation, and one batch's jobs.

A :class:`Job` wraps the closure an output operation built for a batch; running it
never raises (the outcome is recorded on the job). A :class:`JobSet` is one batch: its
jobs in output-operation order and the stamps that become the batch's
:class:`~dstream.listener.BatchInfo`. Both are owned by whichever thread currently holds
them (generator, then job thread), so they need no locks.

Listener events are not built where a batch runs: the scheduler threads take a
:meth:`JobSet.facts` / :meth:`Job.facts` snapshot (a few tuples, cheap and immutable) and
post it with :func:`batch_events` / :func:`output_operation_events` as the builder, which
the listener bus's own thread calls. The snapshot is taken at posting time, so an event
shows the batch as it was then, whatever the job thread has changed since.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dstream.listener import BatchInfo, OutputOperationInfo, StreamInputInfo

__all__ = ["Job", "JobSet", "batch_events", "output_operation_events"]

#: One output operation as posted: (id, name, description, start, end, error).
OperationFacts = tuple[int, str, str, int, int, "BaseException | None"]
#: One batch as posted: (time, input infos, submission, processing start, end, operations).
BatchFacts = tuple[int, dict[int, StreamInputInfo], int, int, int, tuple[OperationFacts, ...]]


def failure_text(error: BaseException | None) -> str | None:
    """The ``failureReason`` of an operation that raised ``error``: type, message, traceback."""
    if error is None:
        return None
    return "".join(traceback.format_exception(error)).rstrip()


def _operation_info(time_ms: int, facts: OperationFacts) -> OutputOperationInfo:
    op_id, name, description, start, end, error = facts
    return OutputOperationInfo(time_ms, op_id, name, description, start, end, failure_text(error))


def batch_info(facts: BatchFacts) -> BatchInfo:
    """The :class:`BatchInfo` of a :meth:`JobSet.facts` snapshot."""
    time_ms, inputs, submitted, start, end, operations = facts
    return BatchInfo(time_ms, inputs, submitted, start, end,
                     {op[0]: _operation_info(time_ms, op) for op in operations})


def batch_events(event_type: Callable[[BatchInfo], Any], facts: BatchFacts) -> tuple[Any]:
    """The listener-bus builder of a batch event (runs on the bus thread)."""
    return (event_type(batch_info(facts)),)


def output_operation_events(event_type: Callable[[OutputOperationInfo], Any], time_ms: int,
                            facts: OperationFacts) -> tuple[Any]:
    """The listener-bus builder of an output-operation event (runs on the bus thread)."""
    return (event_type(_operation_info(time_ms, facts)),)


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
        return failure_text(self.error)

    def facts(self) -> OperationFacts:
        """A snapshot of the operation, for a listener event built later."""
        return (self.output_op_id, self.name, self.description, self.start_time, self.end_time, self.error)


@dataclass(slots=True, eq=False)
class JobSet:
    """The jobs of one batch, in output-operation order."""

    time_ms: int
    jobs: list[Job]
    submission_time: int
    input_infos: dict[int, StreamInputInfo] = field(default_factory=dict)
    processing_start: int = -1
    processing_end: int = -1

    def facts(self) -> BatchFacts:
        """A snapshot of the batch and its operations, for a listener event built later."""
        return (self.time_ms, self.input_infos, self.submission_time, self.processing_start,
                self.processing_end, tuple([job.facts() for job in self.jobs]))

    def batch_info(self) -> BatchInfo:
        return batch_info(self.facts())

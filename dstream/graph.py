"""DStreamGraph: the set of streams of one StreamingContext.

What this module owns
---------------------
* Registration: every node gets an id in creation order; inputs and output operations
  are listed separately (output ids ``0..n-1`` in registration order).
* The one-way door of the lifecycle: nodes can be added only while the graph is open
  (context INITIALIZED). ``close()`` (at start or stop) makes any later
  operator construction raise :class:`~dstream.errors.StreamingStateError`.
* Start-time setup: ``validate`` (at least one output operation, checkpoint settings),
  then zero time, remember durations (``initialize``/``remember`` from every output
  stream) and input start.
* ``generate_jobs(t)``: one job per output operation that has an RDD at ``t``, in
  registration order, after every input took its data for ``t`` (so an input's batch
  ``t`` is always the data of time ``t``, even when no consumer reads that time).
  ``clear_metadata(t)``: every node forgets RDDs older than its remember duration.

Threading: after start the job generator thread is the only caller of
``generate_jobs``/``clear_metadata``; ``lock`` also guards ``slice`` from user threads.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from dstream.errors import NoOutputOperationError, StreamingStateError
from dstream.time import format_ms

if TYPE_CHECKING:
    from dstream.inputs.base import InputNode
    from dstream.listener import StreamInputInfo
    from dstream.nodes.base import StreamNode
    from dstream.nodes.output import ForEachNode
    from dstream.scheduler.job import Job

__all__ = ["DStreamGraph"]


class DStreamGraph:
    """Inputs, output operations and every node between them."""

    def __init__(self, sc: Any, batch_ms: int) -> None:
        self.sc = sc
        self.batch_ms = batch_ms
        self.nodes: list[StreamNode] = []
        self.inputs: list[InputNode] = []
        self.outputs: list[ForEachNode] = []
        self.zero_time: int | None = None
        self.remember_ms = 0
        self.checkpoint_dir: str | None = None
        self.unpersist = True
        self.lock = threading.RLock()
        self._closed_reason: str | None = None

    # -- construction ---------------------------------------------------------------
    def close(self, reason: str) -> None:
        """Refuse new nodes from now on; ``reason`` goes into the error message."""
        self._closed_reason = reason

    def register_node(self, node: StreamNode) -> int:
        if self._closed_reason is not None:
            raise StreamingStateError(
                f"cannot add the DStream operation {node.name!r}: the StreamingContext "
                f"{self._closed_reason}; define every input, transformation and output "
                "operation before calling ssc.start()"
            )
        self.nodes.append(node)
        return len(self.nodes) - 1

    def add_input(self, node: InputNode) -> int:
        self.inputs.append(node)
        return len(self.inputs) - 1

    def add_output(self, node: ForEachNode) -> int:
        self.outputs.append(node)
        return len(self.outputs) - 1

    # -- start ----------------------------------------------------------------------
    def validate(self) -> None:
        if not self.outputs:
            raise NoOutputOperationError(
                "no output operations registered, so nothing to execute: add one (for "
                "example dstream.pprint() or dstream.foreachRDD(func)) before ssc.start()"
            )
        for output in self.outputs:
            output.validate_at_start()

    def start(self, zero_time: int) -> None:
        self.validate()
        self.zero_time = zero_time
        for output in self.outputs:
            output.initialize(zero_time)
        for output in self.outputs:
            output.remember(self.remember_ms)
        for node in self.inputs:
            if node.zero_time is None:
                # An input no output depends on still needs a grid to ignore batches on.
                node.initialize(zero_time)
            node.start()

    def set_remember(self, duration_ms: int) -> None:
        if self.remember_ms:
            raise StreamingStateError(
                f"remember duration is already set to {format_ms(self.remember_ms)}; "
                "ssc.remember() can be called only once"
            )
        self.remember_ms = duration_ms

    def stop(self) -> None:
        for node in self.inputs:
            node.stop()

    # -- per batch (job generator thread) --------------------------------------------
    def generate_jobs(self, time_ms: int) -> list[Job]:
        # Every input takes its batch at every batch time, whether or not a consumer
        # asks for that time (a window sliding every 2 batches still must not shift
        # batch 1's data into batch 2).
        for node in self.inputs:
            node.get_or_compute(time_ms)
        jobs = []
        for output in self.outputs:
            job = output.generate_job(time_ms)
            if job is not None:
                jobs.append(job)
        return jobs

    def input_infos(self, time_ms: int) -> dict[int, StreamInputInfo]:
        infos = {}
        for node in self.inputs:
            info = node.input_info(time_ms)
            if info is not None:
                infos[node.input_id] = info
        return infos

    # -- checkpointed graphs ---------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["sc"] = None  # a restored graph gets the new SparkContext
        state["lock"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.lock = threading.RLock()

    def clear_metadata(self, time_ms: int) -> list[Any]:
        """Forget old RDDs everywhere; return the cached ones to unpersist."""
        stale: list[Any] = []
        for node in self.nodes:
            if node.generated:
                node.clear_metadata(time_ms, stale)
        return stale

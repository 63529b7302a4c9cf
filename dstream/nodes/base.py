"""StreamNode: the contract every DStream graph node implements.

What this module owns
---------------------
The per-stream bookkeeping shared by every operator: the slide duration, the
dependencies, the memo of generated RDDs (``generated``), zero time, remember duration,
persistence and the periodic RDD checkpoint. Subclasses implement only
:meth:`StreamNode.compute`.

Invariants
----------
* A node produces an RDD only at valid times: ``t > zero_time`` and
  ``(t - zero_time) % slide_ms == 0``. ``get_or_compute`` returns ``None`` elsewhere.
* ``get_or_compute(t)`` computes at most once per ``t`` (``None`` results are memoised
  too, so an input never consumes data twice for one time).
* ``generated`` is touched only by the job generator thread (and by ``start``/``slice``
  under the graph lock), so it needs no lock of its own.
* Remember durations: ``initialize`` sets each node's to at least its slide (twice its
  checkpoint interval when checkpointed); ``remember(d)`` raises it to ``d`` and asks
  each parent to remember ``own + window_ms`` (``window_ms`` is 0 except for windowed
  nodes). After batch ``t`` completes, ``clear_metadata(t)`` drops every RDD generated at
  a time ``<= t - remember_ms`` and hands it back for unpersisting, so memory stays
  flat however long the stream runs.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from dstream.errors import DurationError, StreamingStateError
from dstream.time import format_ms

if TYPE_CHECKING:
    from dstream.graph import DStreamGraph

__all__ = ["StreamNode"]

logger = logging.getLogger(__name__)


class StreamNode:
    """Base of every DStream graph node (Spark's ``DStream`` minus the user API)."""

    #: Extra time the parents must remember beyond this node's own remember duration
    #: (the window length for windowed nodes).
    window_ms: int = 0

    def __init__(
        self,
        graph: DStreamGraph,
        dependencies: Sequence[StreamNode],
        slide_ms: int,
        name: str,
    ) -> None:
        self.graph = graph
        self.dependencies: tuple[StreamNode, ...] = tuple(dependencies)
        self.slide_ms = slide_ms
        self.name = name
        self.id = graph.register_node(self)
        self.generated: dict[int, Any] = {}
        self.zero_time: int | None = None
        self.remember_ms = 0
        self.storage_level: Any = None
        self.checkpoint_ms: int | None = None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} #{self.id} {self.name} slide={format_ms(self.slide_ms)}>"

    # -- the one method subclasses implement ----------------------------------------
    def compute(self, time_ms: int) -> Any:
        """Return the RDD of batch ``time_ms`` (a valid time), or ``None`` if there is none."""
        raise NotImplementedError

    # -- generation ------------------------------------------------------------------
    def is_time_valid(self, time_ms: int) -> bool:
        zero = self.zero_time
        if zero is None:
            raise StreamingStateError(
                f"{self!r} was asked for batch {time_ms} before the context started; "
                "call StreamingContext.start() first"
            )
        return time_ms > zero and (time_ms - zero) % self.slide_ms == 0

    def get_or_compute(self, time_ms: int) -> Any:
        """Return this node's RDD at ``time_ms``, computing it once."""
        generated = self.generated
        if time_ms in generated:
            return generated[time_ms]
        if not self.is_time_valid(time_ms):
            return None
        rdd = self.compute(time_ms)
        if rdd is not None:
            if self.storage_level is not None and not getattr(rdd, "is_cached", False):
                rdd.persist(self.storage_level)
            if self.checkpoint_due(time_ms, rdd):
                rdd.checkpoint()
        generated[time_ms] = rdd
        return rdd

    def checkpoint_due(self, time_ms: int, rdd: Any) -> bool:
        """Whether ``rdd``, this node's new RDD at ``time_ms``, is to be checkpointed."""
        interval, zero = self.checkpoint_ms, self.zero_time
        return bool(interval) and (time_ms - zero) % interval == 0  # type: ignore[operator]

    def slice_times(self, begin_ms: int, end_ms: int) -> list[int]:
        """Return this node's valid times in ``[begin_ms, end_ms]``, aligned down to its grid."""
        zero = self.zero_time
        if zero is None:
            raise StreamingStateError(
                "slice() was called before the StreamingContext started; DStream RDDs "
                "exist only for batches of a started context"
            )
        slide = self.slide_ms
        first = zero + ((begin_ms - zero) // slide) * slide
        if first < begin_ms:
            # begin is not on the grid: the first grid point inside the interval.
            first += slide
        last = zero + ((end_ms - zero) // slide) * slide
        first = max(first, zero + slide)
        return list(range(first, last + 1, slide)) if last >= first else []

    # -- start-time setup (graph.start, before the first batch) ---------------------
    def initialize(self, zero_time: int) -> None:
        if self.zero_time is not None and self.zero_time != zero_time:
            raise StreamingStateError(
                f"{self!r} already has zero time {self.zero_time}, cannot re-initialize "
                f"it with {zero_time}"
            )
        self.zero_time = zero_time
        minimum = 2 * self.checkpoint_ms if self.checkpoint_ms else self.slide_ms
        self.remember_ms = max(self.remember_ms, minimum)
        for parent in self.dependencies:
            parent.initialize(zero_time)

    def remember(self, duration_ms: int) -> None:
        if duration_ms > self.remember_ms:
            self.remember_ms = duration_ms
        for parent in self.dependencies:
            parent.remember(self.remember_ms + self.window_ms)

    def validate_at_start(self) -> None:
        if self.checkpoint_ms is not None:
            if self.checkpoint_ms < self.slide_ms or self.checkpoint_ms % self.slide_ms:
                raise DurationError(
                    f"checkpoint interval ({format_ms(self.checkpoint_ms)}) of {self!r} must "
                    f"be a multiple of its slide duration ({format_ms(self.slide_ms)}); pass "
                    "a multiple to DStream.checkpoint()"
                )
            self.require_checkpoint_dir(
                f"{self!r} is checkpointed every {format_ms(self.checkpoint_ms)}")
        for parent in self.dependencies:
            parent.validate_at_start()

    def require_checkpoint_dir(self, why: str) -> None:
        """Spark's start-time rule: RDD checkpoints need the SparkContext's checkpoint
        directory (``ssc.checkpoint(d)`` sets it, and also turns on metadata checkpoints)."""
        if self.graph.sc.getCheckpointDir() is None:
            raise StreamingStateError(
                f"{why}: The checkpoint directory has not been set. Please set it by "
                "StreamingContext.checkpoint() (or SparkContext.setCheckpointDir(), which "
                "checkpoints the RDDs only, without recovery from a driver failure)."
            )

    # -- persistence ----------------------------------------------------------------
    def persist(self, storage_level: Any) -> None:
        self.storage_level = storage_level

    # -- cleanup (job generator thread, after batch t completed) --------------------
    def clear_metadata(self, time_ms: int, stale: list[Any]) -> None:
        """Forget the RDDs generated at times ``<= time_ms - remember_ms``.

        The graph calls this on every node once (not recursively). Cached RDDs to
        unpersist are appended to ``stale``; the caller unpersists them on the job thread,
        between jobs, so the engine never sees an unpersist during a job. A cached RDD is
        left alone if it is the very RDD a parent generated for the same time (a transform
        that returned its input, a one-batch window): the parent, which remembers at least
        as long, owns it.
        """
        horizon = time_ms - self.remember_ms
        generated = self.generated
        old = [t for t in generated if t <= horizon]
        if not old:
            return
        unpersist = self.graph.unpersist
        for t in old:
            rdd = generated.pop(t)
            if (
                unpersist
                and rdd is not None
                and getattr(rdd, "is_cached", False)
                and not any(p.generated.get(t) is rdd for p in self.dependencies)
            ):
                stale.append(rdd)

    def stop(self) -> None:
        """Release resources at context stop (inputs override)."""

    # -- checkpointed graphs -----------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        # The graph is pickled once, at start: generated RDDs live in the driver only;
        # what recovery needs of them (checkpoint files) goes in the checkpoint's data.
        state = dict(self.__dict__)
        state["generated"] = {}
        return state

    def checkpoint_files(self) -> dict[int, str]:
        """Batch time -> RDD checkpoint directory, for this node's checkpointed RDDs."""
        files = {}
        for time_ms, rdd in list(self.generated.items()):
            if rdd is not None and rdd.isCheckpointed():
                path = rdd.getCheckpointFile()
                if path:
                    files[time_ms] = path
        return files

"""StatefulNode: the base of streams whose RDD at t is built from their own RDD at t - slide.

What this module owns
---------------------
The rules every stateful stream shares (Spark's ``mustCheckpoint`` streams):

* It must be checkpointed: its lineage grows by one batch per batch, so without an RDD
  checkpoint the cost of a batch and the size of a job would grow forever. Without a
  checkpoint directory on the SparkContext (``ssc.checkpoint(dir)`` sets one, as does
  ``sc.setCheckpointDir(dir)``) the context refuses to start and says what to call.
* Its default checkpoint interval is the smallest multiple of its slide that is at
  least 10 s, but at most :data:`MAX_DEFAULT_BATCHES` slides (``default_checkpoint_ms``
  may say otherwise: mapWithState uses 10 slides): at 50 ms batches, 10 s would be 200
  uncheckpointed batches in every task.
* Its lineage depth is bounded by construction, whatever the interval: a new RDD whose
  lineage is deeper than :data:`MAX_LINEAGE_DEPTH` nodes is checkpointed too, even
  between two checkpoints of its interval (a long interval given by the user, or a
  graph that adds several levels per batch). Pickling a stage recurses once or more
  per node of its lineage, and Python's recursion limit fails it near 125 nodes.
* Its RDDs are persisted, so the next batch reads the previous one from memory, in the
  worker that holds it.
"""

from __future__ import annotations

import logging
import math
from typing import Any

from rdd.engine_api import lineage_depth, lineage_of

from dstream.nodes.base import StreamNode
from dstream.time import format_ms

__all__ = ["MAX_DEFAULT_BATCHES", "MAX_LINEAGE_DEPTH", "StatefulNode"]

logger = logging.getLogger(__name__)

_DEFAULT_INTERVAL_MS = 10_000
#: The default checkpoint interval is at most this many slides.
MAX_DEFAULT_BATCHES = 50
#: A stateful RDD whose lineage is deeper than this (in nodes) is checkpointed at once.
MAX_LINEAGE_DEPTH = 60


class StatefulNode(StreamNode):
    """A node that reads its own previous RDD."""

    #: Whether the warning about a checkpoint forced by depth was logged (once per stream).
    _depth_warned = False

    def default_checkpoint_ms(self) -> int:
        slides = math.ceil(_DEFAULT_INTERVAL_MS / self.slide_ms)
        return self.slide_ms * max(1, min(slides, MAX_DEFAULT_BATCHES))

    def validate_at_start(self) -> None:
        self.require_checkpoint_dir(
            f"{self.name} keeps state from batch to batch, so its RDDs must be checkpointed")
        if self.checkpoint_ms is None:
            self.checkpoint_ms = self.default_checkpoint_ms()
        super().validate_at_start()

    def checkpoint_due(self, time_ms: int, rdd: Any) -> bool:
        if super().checkpoint_due(time_ms, rdd):
            return True
        depth = lineage_depth(lineage_of(rdd))
        if depth <= MAX_LINEAGE_DEPTH:
            return False
        if not self._depth_warned:
            self._depth_warned = True
            logger.warning(
                "the lineage of %s reached %d RDDs before its checkpoint interval (%s) came "
                "round: checkpointing it now, and whenever it gets this deep, so that its tasks "
                "stay small enough to send to workers",
                self.name, depth, format_ms(self.checkpoint_ms or 0))
        return True

    def previous(self, time_ms: int) -> Any:
        """This stream's RDD of the previous slide, or ``None`` before the first one."""
        return self.get_or_compute(time_ms - self.slide_ms)

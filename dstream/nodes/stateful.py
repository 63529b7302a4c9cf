"""StatefulNode: the base of streams whose RDD at t is built from their own RDD at t - slide.

What this module owns
---------------------
The rules every stateful stream shares (SPARK-INTERNALS §2.4, §3.3, §4):

* It must be checkpointed: its lineage grows by one batch per batch, so without an RDD
  checkpoint the cost of a batch and the size of a job would grow forever. Without
  ``ssc.checkpoint(dir)`` the context refuses to start and says what to call.
* Its default checkpoint interval is the smallest multiple of its slide that is at
  least 10 s (``default_checkpoint_ms`` may say otherwise: mapWithState uses 10 slides).
* Its RDDs are persisted, so the next batch reads the previous one from memory, in the
  worker that holds it.
"""

from __future__ import annotations

import math
from typing import Any

from dstream.errors import StreamingStateError
from dstream.nodes.base import StreamNode

__all__ = ["StatefulNode"]

_DEFAULT_INTERVAL_MS = 10_000


class StatefulNode(StreamNode):
    """A node that reads its own previous RDD."""

    def default_checkpoint_ms(self) -> int:
        return self.slide_ms * max(1, math.ceil(_DEFAULT_INTERVAL_MS / self.slide_ms))

    def validate_at_start(self) -> None:
        if not self.graph.checkpoint_dir:
            raise StreamingStateError(
                f"{self.name} keeps state from batch to batch, so its RDDs must be checkpointed, "
                "but no checkpoint directory is set: call ssc.checkpoint(directory) before "
                "ssc.start()"
            )
        if self.checkpoint_ms is None:
            self.checkpoint_ms = self.default_checkpoint_ms()
        super().validate_at_start()

    def previous(self, time_ms: int) -> Any:
        """This stream's RDD of the previous slide, or ``None`` before the first one."""
        return self.get_or_compute(time_ms - self.slide_ms)

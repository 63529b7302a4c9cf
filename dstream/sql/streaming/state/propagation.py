"""The watermark each stateful operator uses: Spark's propagation through chained operators.

What this module owns
---------------------
:func:`input_watermark_ms`, the watermark a stateful operator sees over its children,
from the query's global watermark, as Spark 3.5+'s ``PropagateWatermarkSimulator``
computes it: a ``withWatermark`` gives the global watermark; a stream-stream join lets
through the lowest of its own input watermark and its sides' state watermarks (the rows
it emits, unmatched outer rows or matches within a time range, can be that old); every
other node, stateful or not, passes on the lowest of its children's. An operator uses it
at this batch's global watermark to evict and at the previous batch's to drop late rows
(:func:`operator_watermarks`).

Invariants
----------
* Without a stream-stream join below an operator, its watermarks are the global ones.
* A global watermark of 0 (none yet) is not propagated, as in Spark: every operator
  sees 0; a propagated value never goes below 0.
"""

from __future__ import annotations

from typing import Any

from ...plan.logical import Join, LogicalPlan
from ..relation import EventTimeWatermark, reads_stream
from .join_bounds import state_watermarks

__all__ = ["input_watermark_ms", "join_output_watermark_ms", "operator_watermarks"]


def join_output_watermark_ms(join: Join, input_ms: int) -> int:
    """Spark's output watermark of a stream-stream join: the lowest of ``input_ms`` and the
    state watermarks of its sides."""
    return min([input_ms, *[ms for ms in state_watermarks(join, input_ms) if ms is not None]])


def _output_ms(plan: LogicalPlan, global_ms: int) -> int | None:
    if isinstance(plan, EventTimeWatermark):
        return global_ms
    below = [ms for child in plan.children if (ms := _output_ms(child, global_ms)) is not None]
    if not below:
        return None
    if isinstance(plan, Join) and reads_stream(plan.left) and reads_stream(plan.right):
        return join_output_watermark_ms(plan, min(below))
    return min(below)


def input_watermark_ms(node: LogicalPlan, global_ms: int) -> int:
    """The watermark the stateful operator ``node`` sees when the query's is ``global_ms``."""
    if global_ms == 0:
        return 0
    below = [ms for child in node.children if (ms := _output_ms(child, global_ms)) is not None]
    return max(min(below), 0) if below else 0


def operator_watermarks(node: LogicalPlan, info: Any) -> tuple[int, int]:
    """``(for late rows, for eviction)`` of the stateful operator ``node`` in the batch ``info`` plans."""
    return (input_watermark_ms(node, info.watermark_for_late_ms),
            input_watermark_ms(node, info.watermark_for_eviction_ms))

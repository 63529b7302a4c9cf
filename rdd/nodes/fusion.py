"""Map-side fusion of ``map(lambda x: (x, c)).reduceByKey(add)`` into a C-level count.

The idiom at the heart of every word count pairs each element with an integer
constant and sums per key. Summing ``n`` copies of an ``int`` ``c`` is exactly
``c * n``, so the map side can count the elements with ``collections.Counter`` (a C
loop) instead of calling the pairing lambda and the merge once per element. The
result is identical: same keys (same hashing and equality), same first-seen order,
same integer sums.

It applies only when all of this holds, checked on the driver when the shuffle is
planned and again in the task:
- the shuffle's aggregator is a plain sum (identity create, ``+`` merges) with
  map-side combine;
- its parent was made by ``RDD.map(f)`` with ``f`` exactly ``lambda x: (x, c)``,
  ``c`` an ``int`` (read from the bytecode: ``aggregator.constant_pair_value``);
- that parent is neither persisted nor checkpointed when the task runs (so a cache
  the user asked for is still filled).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from ..aggregator import Aggregator, constant_pair_value, is_sum_aggregator

if TYPE_CHECKING:
    from ..runtime.task_context import TaskContext
    from .base import LineageNode, Partition


def plan_count(parent: LineageNode, aggregator: Aggregator | None, map_side_combine: bool) -> int | None:
    """The constant ``c`` if this shuffle can use the fused count, else ``None``."""
    if not map_side_combine or not is_sum_aggregator(aggregator):
        return None
    fn = getattr(parent, "element_fn", None)
    return None if fn is None else constant_pair_value(fn)


def fused_counts(node: LineageNode, constant: int, split: Partition,
                tctx: TaskContext) -> dict[Any, int] | None:
    """The map task's combined sums, key to sum, or ``None`` to take the generic path."""
    source = getattr(node, "parent", None)
    if source is None or node.storage_level.is_valid or node.checkpointed is not None:
        return None
    counts = Counter(source.iterator(split, tctx))
    if constant == 1:
        return counts
    return {key: constant * n for key, n in counts.items()}

"""ShuffledNode: one reduce partition read from the files of a shuffle.

Pickled into a task, it carries only what the reduce side needs (shuffle id, map
count, aggregator): its parent lineage stays on the driver.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ..runtime import environment
from ..shuffle.reader import read_all
from .base import LineageNode, Partition, ShuffleDependency

if TYPE_CHECKING:
    from ..runtime.task_context import TaskContext


class ShuffledNode(LineageNode):
    def __init__(self, dep: ShuffleDependency) -> None:
        super().__init__([dep])
        self.shuffle_id = dep.shuffle_id
        self.num_maps = dep.num_maps
        self.aggregator = dep.aggregator
        self.map_side_combine = dep.map_side_combine
        self.partitioner = dep.partitioner

    @property
    def shuffle_dependency(self) -> ShuffleDependency:
        dep = self._deps[0]
        assert isinstance(dep, ShuffleDependency)
        return dep

    def _make_partitions(self) -> list[Partition]:
        assert self.partitioner is not None
        return [Partition(i) for i in range(self.partitioner.numPartitions)]

    def compute(self, split: Partition, tctx: TaskContext) -> Iterator[Any]:
        buckets = read_all(environment.current().shuffle_store, self.shuffle_id, self.num_maps, split.index)
        agg = self.aggregator
        if agg is None:
            return itertools.chain.from_iterable(buckets)
        combined: dict = {}
        if self.map_side_combine:
            for bucket in buckets:
                if combined:
                    agg.merge_combiners_into(combined, bucket)
                else:  # a combined map output holds each key once: the first needs no merging
                    combined = dict(bucket)
        else:
            for bucket in buckets:
                part = agg.combine_values_by_key(bucket)
                if combined:
                    agg.merge_combiners_into(combined, part.items())
                else:
                    combined = part
        return iter(combined.items())

    def __getstate__(self) -> Any:
        state = super().__getstate__()
        state["_deps"] = []  # the parent lineage never leaves the driver
        return state

    def describe(self) -> str:
        return "ShuffledRDD"

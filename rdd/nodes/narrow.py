"""Narrow nodes: each output partition reads a fixed set of parent partitions.

These run fused inside one task: ``compute`` returns a lazy iterator over the parents'
iterators, so a chain ``map -> filter -> flatMap`` never materialises a partition.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from .base import LineageNode, NarrowDependency, OneToOneDependency, Partition

if TYPE_CHECKING:
    from ..runtime.task_context import TaskContext


class MapPartitionsNode(LineageNode):
    """``f(split_index, parent_iterator)`` per partition."""

    def __init__(self, parent: LineageNode, f: Callable[[int, Iterator], Any],
                 preserves_partitioning: bool = False) -> None:
        super().__init__([OneToOneDependency(parent)])
        self.parent = parent
        self.f = f
        self.partitioner = parent.partitioner if preserves_partitioning else None

    def _make_partitions(self) -> list[Partition]:
        return self.parent.partitions()

    def compute(self, split: Partition, tctx: TaskContext) -> Iterator[Any]:
        result = self.f(split.index, self.parent.iterator(split, tctx))
        return iter(result) if result is not None else iter(())

    def describe(self) -> str:
        return "PythonRDD"


class _UnionPartition(Partition):
    __slots__ = ("parent_index", "parent_split")

    def __init__(self, index: int, parent_index: int, parent_split: Partition) -> None:
        super().__init__(index)
        self.parent_index = parent_index
        self.parent_split = parent_split


class UnionNode(LineageNode):
    """Concatenates the partitions of its parents."""

    def __init__(self, parents: list[LineageNode]) -> None:
        super().__init__([NarrowDependency(p) for p in parents])
        self.parents = parents

    def _make_partitions(self) -> list[Partition]:
        splits: list[Partition] = []
        for parent_index, parent in enumerate(self.parents):
            for split in parent.partitions():
                splits.append(_UnionPartition(len(splits), parent_index, split))
        return splits

    def compute(self, split: _UnionPartition, tctx: TaskContext) -> Iterator[Any]:
        return self.parents[split.parent_index].iterator(split.parent_split, tctx)

    def parent_splits(self, split: _UnionPartition) -> list[tuple[LineageNode, Partition]]:
        if self.checkpointed is not None:
            return super().parent_splits(split)
        return [(self.parents[split.parent_index], split.parent_split)]

    def describe(self) -> str:
        return "UnionRDD"


class _MultiPartition(Partition):
    __slots__ = ("parent_splits",)

    def __init__(self, index: int, parent_splits: list[Partition]) -> None:
        super().__init__(index)
        self.parent_splits = parent_splits


class _MultiParentNode(LineageNode):
    """A node whose partitions are ``_MultiPartition``s over ``self._split_owners``."""

    def _split_owners(self, split: _MultiPartition) -> list[LineageNode]:
        raise NotImplementedError

    def parent_splits(self, split: _MultiPartition) -> list[tuple[LineageNode, Partition]]:
        if self.checkpointed is not None:
            return super().parent_splits(split)
        return list(zip(self._split_owners(split), split.parent_splits))


class PartitionerAwareUnionNode(_MultiParentNode):
    """Union of parents sharing one partitioner: partition i is every parent's i.

    Keeps the partitioner, so a later group or cogroup by that partitioner is narrow.
    """

    def __init__(self, parents: list[LineageNode]) -> None:
        super().__init__([NarrowDependency(p) for p in parents])
        self.parents = parents
        self.partitioner = parents[0].partitioner

    def _make_partitions(self) -> list[Partition]:
        per_parent = [p.partitions() for p in self.parents]
        return [_MultiPartition(i, [splits[i] for splits in per_parent]) for i in range(len(per_parent[0]))]

    def compute(self, split: _MultiPartition, tctx: TaskContext) -> Iterator[Any]:
        return itertools.chain.from_iterable(
            parent.iterator(s, tctx) for parent, s in zip(self.parents, split.parent_splits))

    def _split_owners(self, split: _MultiPartition) -> list[LineageNode]:
        return self.parents

    def describe(self) -> str:
        return "PartitionerAwareUnionRDD"


class ZippedNode(_MultiParentNode):
    """Pairs the i-th elements of partition i of two parents."""

    def __init__(self, first: LineageNode, second: LineageNode) -> None:
        super().__init__([NarrowDependency(first), NarrowDependency(second)])
        self.first, self.second = first, second

    def _make_partitions(self) -> list[Partition]:
        a, b = self.first.partitions(), self.second.partitions()
        if len(a) != len(b):
            raise ValueError(f"Can only zip RDDs with the same number of partitions: {len(a)} and {len(b)}; "
                             "repartition one of them first")
        return [_MultiPartition(i, [a[i], b[i]]) for i in range(len(a))]

    def compute(self, split: _MultiPartition, tctx: TaskContext) -> Iterator[Any]:
        left = self.first.iterator(split.parent_splits[0], tctx)
        right = self.second.iterator(split.parent_splits[1], tctx)
        sentinel = object()
        for x, y in itertools.zip_longest(left, right, fillvalue=sentinel):
            if x is sentinel or y is sentinel:
                raise ValueError(f"Can only zip RDDs with same number of elements in each partition "
                                 f"(partition {split.index} differs)")
            yield (x, y)

    def _split_owners(self, split: _MultiPartition) -> list[LineageNode]:
        return [self.first, self.second]

    def describe(self) -> str:
        return "ZippedPartitionsRDD2"


class CartesianNode(_MultiParentNode):
    """Every pair (a, b) with a from the first parent and b from the second."""

    def __init__(self, first: LineageNode, second: LineageNode) -> None:
        super().__init__([NarrowDependency(first), NarrowDependency(second)])
        self.first, self.second = first, second

    def _make_partitions(self) -> list[Partition]:
        a, b = self.first.partitions(), self.second.partitions()
        return [_MultiPartition(i * len(b) + j, [sa, sb]) for i, sa in enumerate(a) for j, sb in enumerate(b)]

    def compute(self, split: _MultiPartition, tctx: TaskContext) -> Iterator[Any]:
        right = list(self.second.iterator(split.parent_splits[1], tctx))
        for x in self.first.iterator(split.parent_splits[0], tctx):
            for y in right:
                yield (x, y)

    def _split_owners(self, split: _MultiPartition) -> list[LineageNode]:
        return [self.first, self.second]

    def describe(self) -> str:
        return "CartesianRDD"


class CoalescedNode(_MultiParentNode):
    """Merges groups of parent partitions into fewer partitions, without a shuffle."""

    def __init__(self, parent: LineageNode, num_partitions: int) -> None:
        super().__init__([NarrowDependency(parent)])
        self.parent = parent
        self.target = num_partitions

    def _make_partitions(self) -> list[Partition]:
        parent_splits = self.parent.partitions()
        n = len(parent_splits)
        count = max(1, min(self.target, n)) if n else 0
        # Contiguous groups keep the parent's order, as Spark's coalesce does locally.
        return [_MultiPartition(i, parent_splits[i * n // count:(i + 1) * n // count]) for i in range(count)]

    def compute(self, split: _MultiPartition, tctx: TaskContext) -> Iterator[Any]:
        return itertools.chain.from_iterable(self.parent.iterator(s, tctx) for s in split.parent_splits)

    def _split_owners(self, split: _MultiPartition) -> list[LineageNode]:
        return [self.parent] * len(split.parent_splits)

    def describe(self) -> str:
        return "CoalescedRDD"


class ZipPartitionsNode(_MultiParentNode):
    """``f(split_index, [iterator of parent 0, iterator of parent 1, ...])`` per partition.

    Parents must have the same number of partitions; partition i of each is read by
    partition i of the result (Spark's ``zipPartitions``). With
    ``preserves_partitioning`` the first parent's partitioner is kept: this is how a
    stream's state partition is combined with the same partition of a batch without
    moving the state.
    """

    def __init__(self, parents: list[LineageNode], f: Callable[[int, list[Iterator]], Any],
                 preserves_partitioning: bool = False) -> None:
        super().__init__([NarrowDependency(p) for p in parents])
        self.parents = parents
        self.f = f
        if preserves_partitioning:
            self.partitioner = parents[0].partitioner

    def _make_partitions(self) -> list[Partition]:
        per_parent = [p.partitions() for p in self.parents]
        counts = {len(s) for s in per_parent}
        if len(counts) != 1:
            raise ValueError(f"zipPartitions needs parents with equal partition counts, got "
                             f"{[len(s) for s in per_parent]}; repartition them to the same count first")
        return [_MultiPartition(i, [s[i] for s in per_parent]) for i in range(counts.pop())]

    def compute(self, split: _MultiPartition, tctx: TaskContext) -> Iterator[Any]:
        iterators = [p.iterator(s, tctx) for p, s in zip(self.parents, split.parent_splits)]
        result = self.f(split.index, iterators)
        return iter(result) if result is not None else iter(())

    def _split_owners(self, split: _MultiPartition) -> list[LineageNode]:
        return self.parents

    def describe(self) -> str:
        return f"ZippedPartitionsRDD{len(self.parents)}"

"""ParallelCollectionNode: a driver-side sequence sliced into partitions.

The data travels inside each task's partition (``_SlicePartition.data``), never with
the node, so a stage's pickled functions stay small however large the collection is.
``range`` objects are sliced lazily (a slice of a range is a range), so
``sc.range(10**9)`` costs nothing until computed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator, Sequence

from .base import LineageNode, Partition

if TYPE_CHECKING:
    from ..scheduler.task_context import TaskContext


class _SlicePartition(Partition):
    __slots__ = ("data",)

    def __init__(self, index: int, data: Sequence[Any]) -> None:
        super().__init__(index)
        self.data = data


def slice_sequence(data: Sequence[Any], num_slices: int) -> list[Sequence[Any]]:
    """Split ``data`` into ``num_slices`` contiguous slices: slice i is ``[i*n//p, (i+1)*n//p)``."""
    n = len(data)
    return [data[i * n // num_slices:(i + 1) * n // num_slices] for i in range(num_slices)]


class ParallelCollectionNode(LineageNode):
    def __init__(self, slices: list[Sequence[Any]]) -> None:
        super().__init__([])
        self._slices = slices

    def _make_partitions(self) -> list[Partition]:
        return [_SlicePartition(i, s) for i, s in enumerate(self._slices)]

    def compute(self, split: _SlicePartition, tctx: TaskContext) -> Iterator[Any]:
        return iter(split.data)

    def __getstate__(self):
        state = super().__getstate__()
        state["_slices"] = None
        return state

    def describe(self) -> str:
        return "ParallelCollectionRDD"

"""CheckpointedNode: partitions read back from an RDD checkpoint directory.

A checkpoint directory holds ``part-NNNNN`` files (pickled record batches, the
format of ``saveAsPickleFile``) and, when the RDD had one, ``_partitioner`` (the
pickled partitioner), so a checkpointed pair RDD keeps its partitioning.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ..errors import CheckpointError
from .base import LineageNode, Partition
from .files import read_pickle_frames

if TYPE_CHECKING:
    from ..partitioner import Partitioner
    from ..runtime.task_context import TaskContext


def part_file(directory: str, index: int) -> str:
    return os.path.join(directory, f"part-{index:05d}")


class CheckpointedNode(LineageNode):
    def __init__(self, directory: str, num_partitions: int, partitioner: Partitioner | None,
                 node_id: int | None = None) -> None:
        super().__init__([])
        if node_id is not None:
            self.id = node_id  # keep the original id so cached blocks keep their names
        self.directory = directory
        self.count = num_partitions
        self.partitioner = partitioner

    def _make_partitions(self) -> list[Partition]:
        return [Partition(i) for i in range(self.count)]

    def compute(self, split: Partition, tctx: TaskContext) -> Iterator[Any]:
        path = part_file(self.directory, split.index)
        if not os.path.exists(path):
            raise CheckpointError(f"checkpoint file {path} is missing: the checkpoint directory "
                                  f"{self.directory} was changed or deleted after it was written")
        return read_pickle_frames(path)

    def describe(self) -> str:
        return f"ReliableCheckpointRDD[{self.directory}]"

"""RDD checkpointing: write marked RDDs' partitions to files and cut their lineage.

``rdd.checkpoint()`` only marks the node. After the next job that computes it, the
context calls :func:`checkpoint_marked` with the job's final node: every marked node
in its lineage is written by one more job (``part-NNNNN`` pickle files and the
pickled partitioner, each file written under a temporary name then renamed), and then
the node is switched to read from those files, with its parents forgotten, so the
lineage, and what is pickled into later tasks, stops growing.
"""

from __future__ import annotations

import os
import pickle
from typing import Any, Callable, Iterator

from .errors import CheckpointError
from .executor.serializer import dumps_data
from .nodes.base import LineageNode
from .nodes.checkpointed import CheckpointedNode, part_file

_BATCH = 1024


def marked_nodes(node: LineageNode) -> list[LineageNode]:
    """Marked, not yet checkpointed nodes in ``node``'s lineage, ancestors first."""
    found: list[LineageNode] = []
    seen: set[int] = set()

    def visit(current: LineageNode) -> None:
        if current.id in seen or current.checkpointed is not None:
            return
        seen.add(current.id)
        for dep in current.dependencies:
            visit(dep.parent)
        if current.checkpoint_dir is not None:
            found.append(current)

    visit(node)
    return found


def lineage_depth(node: LineageNode) -> int:
    """Nodes on the longest dependency path from ``node`` to a source or a checkpoint.

    Pickling a stage and computing a partition both recurse once or more per node on
    that path, so this is what must stay bounded (an RDD marked but not yet written
    still counts its whole lineage: the job that computes it pickles it).
    """
    depth: dict[int, int] = {}
    stack: list[tuple[LineageNode, bool]] = [(node, False)]
    while stack:
        current, expanded = stack.pop()
        if current.id in depth:
            continue
        parents = [dep.parent for dep in current.dependencies]
        if expanded:
            depth[current.id] = 1 + max((depth[p.id] for p in parents), default=0)
            continue
        stack.append((current, True))
        stack.extend((p, False) for p in parents if p.id not in depth)
    return depth[node.id]


def write_partition(directory: str) -> Callable[[Iterator[Any]], int]:
    def write(records: Iterator[Any]) -> int:
        from .scheduler.task_context import TaskContext
        tctx: TaskContext | None = TaskContext.get()
        index = tctx.partitionId() if tctx is not None else 0
        path = part_file(directory, index)
        tmp = f"{path}.tmp-{os.getpid()}"
        count = 0
        with open(tmp, "wb") as f:
            batch: list[Any] = []
            for record in records:
                batch.append(record)
                if len(batch) >= _BATCH:
                    pickle.dump(batch, f, protocol=5)
                    count += len(batch)
                    batch = []
            if batch:
                pickle.dump(batch, f, protocol=5)
                count += len(batch)
        os.replace(tmp, path)
        return count
    return write


def finish(node: LineageNode) -> None:
    """Switch ``node`` to its checkpoint files and drop its parents."""
    directory = node.checkpoint_dir
    assert directory is not None
    count = node.num_partitions
    if node.partitioner is not None:
        tmp = os.path.join(directory, "_partitioner.tmp")
        with open(tmp, "wb") as f:
            f.write(dumps_data(node.partitioner))
        os.replace(tmp, os.path.join(directory, "_partitioner"))
    node.checkpointed = CheckpointedNode(directory, count, node.partitioner, node_id=node.id)
    forget_parents(node)


def forget_parents(node: LineageNode) -> None:
    """Release references to parent nodes so the driver does not keep old lineage alive."""
    node._deps = []
    for key, value in list(vars(node).items()):
        if isinstance(value, LineageNode) and key != "checkpointed":
            setattr(node, key, None)
        elif isinstance(value, list) and value and all(isinstance(v, LineageNode) for v in value):
            setattr(node, key, [])


def read_checkpoint_dir(directory: str) -> CheckpointedNode:
    """A node reading a checkpoint directory written by :func:`write_partition` + :func:`finish`."""
    if not os.path.isdir(directory):
        raise CheckpointError(f"RDD checkpoint directory {directory} does not exist (deleted, or written by "
                              "another machine)")
    parts = sorted(name for name in os.listdir(directory) if name.startswith("part-") and "." not in name)
    if not parts or parts != [os.path.basename(part_file(directory, i)) for i in range(len(parts))]:
        raise CheckpointError(f"RDD checkpoint directory {directory} has incomplete partition files: {parts}")
    partitioner = None
    marker = os.path.join(directory, "_partitioner")
    if os.path.exists(marker):
        with open(marker, "rb") as f:
            payload = f.read()
        partitioner = pickle.loads(payload) if payload else None
    return CheckpointedNode(directory, len(parts), partitioner)


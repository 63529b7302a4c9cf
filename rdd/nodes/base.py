"""LineageNode, Partition and the dependency kinds.

``LineageNode.iterator`` is the only way a partition is read, and its order is the
rule of the engine: a checkpointed node reads its checkpoint files; a persisted node
reads its block from this process's block manager, or computes and stores it; any
other node computes from its parents.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..storage import block_manager
from ..storage.level import StorageLevel

if TYPE_CHECKING:
    from ..aggregator import Aggregator
    from ..partitioner import Partitioner
    from ..runtime.task_context import TaskContext

_ids = itertools.count()
_ids_lock = threading.Lock()


def next_node_id() -> int:
    with _ids_lock:
        return next(_ids)


class Partition:
    """One partition of a node: its index, plus whatever ``compute`` needs to read it."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index

    def __getstate__(self) -> Any:
        return {s: getattr(self, s) for cls in type(self).__mro__ for s in getattr(cls, "__slots__", ())}

    def __setstate__(self, state: Any) -> None:
        for key, value in state.items():
            setattr(self, key, value)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.index})"


@dataclass(eq=False)
class Dependency:
    parent: LineageNode


@dataclass(eq=False)
class OneToOneDependency(Dependency):
    """Partition i of the child reads partition i of the parent."""


@dataclass(eq=False)
class NarrowDependency(Dependency):
    """The child's partitions read a known subset of the parent's (union, coalesce, zip)."""


@dataclass(eq=False)
class ShuffleDependency(Dependency):
    """The child reads every map output of the parent, bucketed by ``partitioner``."""

    shuffle_id: int = -1
    partitioner: Partitioner | None = None
    aggregator: Aggregator | None = None
    map_side_combine: bool = True
    num_maps: int = field(default=0)
    count_constant: int | None = None  # see nodes.fusion
    # The scheduler's map stage of this shuffle, set by the DAG scheduler when it plans
    # the first job that needs it, so later jobs reuse it (and its outputs).
    stage: Any = field(default=None, compare=False, repr=False)


class LineageNode:
    """Base of every lineage node.

    Subclasses set ``_deps`` and implement ``_make_partitions`` and ``compute``.
    """

    partitioner: Partitioner | None = None
    #: Tasks reading this node wait for the worker that caches their input however long
    #: it is busy (state partitions: moving them costs a recomputation from checkpoint).
    strict_locality: bool = False
    #: The per-record function of a ``map`` (set by ``RDD.map``), which the shuffle
    #: planner reads to recognise ``map(lambda x: (x, c))`` (see ``nodes.fusion``).
    element_fn: Callable[[Any], Any] | None = None

    def __init__(self, deps: list[Dependency]) -> None:
        self.id = next_node_id()
        self.name: str | None = None
        self._deps = deps
        self._partitions: list[Partition] | None = None
        self.storage_level: StorageLevel = StorageLevel.NONE
        self.checkpoint_dir: str | None = None       # set when marked for checkpointing
        self.checkpointed: LineageNode | None = None  # the node that replaced our lineage
        self.creation_site = ""

    # -- structure -------------------------------------------------------------
    @property
    def dependencies(self) -> list[Dependency]:
        if self.checkpointed is not None:
            return [OneToOneDependency(self.checkpointed)]
        return self._deps

    def partitions(self) -> list[Partition]:
        if self.checkpointed is not None:
            return self.checkpointed.partitions()
        if self._partitions is None:
            self._partitions = self._make_partitions()
        return self._partitions

    @property
    def num_partitions(self) -> int:
        return len(self.partitions())

    def _make_partitions(self) -> list[Partition]:
        raise NotImplementedError

    def compute(self, split: Partition, tctx: TaskContext) -> Iterator[Any]:
        raise NotImplementedError

    def block_is_valid(self, values: list) -> bool:
        """Whether a cached block can still be used (a node whose blocks are updated in
        place says no once a later version consumed it; it is then recomputed)."""
        return True

    def parent_splits(self, split: Partition) -> list[tuple[LineageNode, Partition]]:
        """The parent partitions that ``split`` reads through narrow dependencies.

        Used for preferred locations: a task goes where a cached ancestor partition lives.
        """
        if self.checkpointed is not None:
            return [(self.checkpointed, split)]
        return [(d.parent, split) for d in self._deps if isinstance(d, OneToOneDependency)]

    def describe(self) -> str:
        """One line for ``toDebugString``."""
        return type(self).__name__.replace("Node", "RDD")

    # -- reading ---------------------------------------------------------------
    def iterator(self, split: Partition, tctx: TaskContext) -> Iterator[Any]:
        if self.storage_level is not StorageLevel.NONE and self.storage_level.is_valid:
            return self._get_or_compute(split, tctx)
        return self._compute_or_read_checkpoint(split, tctx)

    def _compute_or_read_checkpoint(self, split: Partition, tctx: TaskContext) -> Iterator[Any]:
        if self.checkpointed is not None:
            return self.checkpointed.iterator(split, tctx)
        return self.compute(split, tctx)

    def _get_or_compute(self, split: Partition, tctx: TaskContext) -> Iterator[Any]:
        manager = block_manager.current()
        block_id = block_manager.rdd_block_id(self.id, split.index)
        cached = manager.get(block_id)
        if cached is not None and self.block_is_valid(cached):
            return iter(cached)
        values = list(self._compute_or_read_checkpoint(split, tctx))
        tctx.block_sizes[block_id] = manager.put(block_id, values, self.storage_level)
        tctx.blocks_added.append(block_id)
        return iter(values)

    # -- pickling into tasks -----------------------------------------------------
    # A checkpointed node has forgotten its parents (checkpoint.finish), so it pickles
    # small; in the task its cache is still read first, then its checkpoint files.
    def __getstate__(self) -> Any:
        state = dict(self.__dict__)
        state["_partitions"] = None  # partitions travel with each task, not the node
        return state

    def __repr__(self) -> str:
        return f"{type(self).__name__}[{self.id}]"


def walk_narrow(node: LineageNode) -> Iterator[LineageNode]:
    """Yield ``node`` and every ancestor reachable without crossing a shuffle."""
    seen: set[int] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if current.id in seen:
            continue
        seen.add(current.id)
        yield current
        for dep in current.dependencies:
            if not isinstance(dep, ShuffleDependency):
                stack.append(dep.parent)

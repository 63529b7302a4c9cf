"""The RDD facade: identity, lineage, persistence, and the narrow transformations.

``RDD`` is a thin camelCase wrapper over a lineage node (``self._node``). Every
method here is built on one of the engine's three funnels (see ``docs/internals.md``):
``mapPartitionsWithIndex`` for narrow work, ``_shuffle`` for wide work, and the
context's ``_run_job`` for actions (in the mixins). Actions, derived transformations,
output writers, pair functions, joins, ordering and numeric statistics live in the
mixin modules named in the class bases.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .actions import RDDActions
from .aggregator import Aggregator
from .approximate import BoundedFloat, RDDApproximate  # noqa: F401 - pyspark.rdd has BoundedFloat too
from .derived import RDDDerived
from .errors import DriverOnlyError
from .join import JoinRDDFunctions
from .nodes import fusion
from .nodes.base import LineageNode, ShuffleDependency
from .nodes.checkpointed import CheckpointedNode
from .nodes.narrow import (
    CartesianNode,
    CoalescedNode,
    MapPartitionsNode,
    PartitionerAwareUnionNode,
    UnionNode,
    ZipPartitionsNode,
    ZippedNode,
)
from .nodes.shuffled import ShuffledNode
from .numeric import DoubleRDDFunctions
from .ordered import OrderedRDDFunctions
from .output import RDDOutput
from .pair import PairRDDFunctions
from .partitioner import Partitioner
from .piped import RDDPiped
from .serialization.serializer import RDD_ON_WORKER
from .storage.level import StorageLevel
from .task_functions import _FilterFunction, _FlatMapFunction, _MapFunction, _PartitionFunction

if TYPE_CHECKING:
    from .context import SparkContext

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)
U = TypeVar("U")


class RDD(RDDActions, RDDDerived, RDDOutput, PairRDDFunctions, JoinRDDFunctions,
          OrderedRDDFunctions, DoubleRDDFunctions, RDDApproximate, RDDPiped, Generic[T_co]):
    """A Resilient Distributed Dataset: an immutable, partitioned collection with lineage.

    Create RDDs with a :class:`SparkContext` (``parallelize``, ``textFile``...), derive
    new ones with transformations (lazy), and compute with actions.
    """

    def __init__(self, node: LineageNode, ctx: SparkContext) -> None:
        self._node = node
        self.ctx = ctx
        self.is_cached = False
        self.is_checkpointed = False

    # -- identity and lineage --------------------------------------------------
    @property
    def context(self) -> SparkContext:
        """The SparkContext this RDD was created on."""
        return self.ctx

    @property
    def partitioner(self) -> Partitioner | None:
        """How keys are placed in partitions, when known (else ``None``)."""
        return self._node.partitioner

    def id(self) -> int:
        """A unique ID for this RDD (within its SparkContext)."""
        return self._node.id

    def name(self) -> str | None:
        """The name of this RDD, if set."""
        return self._node.name

    def setName(self, name: str) -> RDD[T_co]:
        """Assign a name to this RDD (shown by ``toDebugString``)."""
        self._node.name = name
        return self

    def getNumPartitions(self) -> int:
        """The number of partitions in this RDD."""
        return self._node.num_partitions

    def toDebugString(self) -> bytes:
        """A description of this RDD and its lineage, one line per RDD.

        Narrow parents follow with `` |  ``; a shuffle starts a new stage, drawn as
        `` +-(n)`` and indented. Returned as ``bytes`` as in PySpark; ``.decode()`` it.
        """
        return "\n".join(_debug_lines(self._node)).encode("utf-8")

    def __repr__(self) -> str:
        return f"{self._node.describe()}[{self._node.id}] at {self._node.name or 'RDD'}"

    def __reduce__(self) -> Any:
        raise DriverOnlyError(RDD_ON_WORKER)

    def _wrap(self, node: LineageNode) -> RDD[Any]:
        return RDD(node, self.ctx)

    # -- persistence -------------------------------------------------------------
    def cache(self) -> RDD[T_co]:
        """Persist this RDD with the default storage level (``MEMORY_ONLY``)."""
        return self.persist(StorageLevel.MEMORY_ONLY)

    def persist(self, storageLevel: StorageLevel = StorageLevel.MEMORY_ONLY) -> RDD[T_co]:
        """Keep this RDD's partitions, once computed, in the worker that computed them.

        Later jobs read a cached partition in that worker instead of recomputing it.
        """
        current = self._node.storage_level
        if current.is_valid and current != storageLevel:
            raise ValueError(f"Cannot change the storage level of an RDD after it was assigned a level "
                             f"({current!r} -> {storageLevel!r}); unpersist() it first")
        self._node.storage_level = storageLevel
        self.ctx._env.cleaner.register_persisted(self._node, self._node.id)
        self.is_cached = True
        return self

    def unpersist(self, blocking: bool = False) -> RDD[T_co]:
        """Mark the RDD as non-persistent and drop its blocks from every worker."""
        self._node.storage_level = StorageLevel.NONE
        self.is_cached = False
        self.ctx._env.unpersist_rdd(self._node.id)
        return self

    def cleanShuffleDependencies(self, blocking: bool = False) -> None:  # noqa: N802 - PySpark's name
        """Remove the shuffle outputs this RDD's lineage made, up to its persisted ancestors.

        Frees their files; a later job on this RDD computes them again (checkpoint and
        materialize it first to avoid that).

        Parameters
        ----------
        blocking : bool
            Accepted for PySpark's signature: the files are removed before this returns.
        """
        env = self.ctx._env
        seen: set[int] = set()
        pending = list(self._node.dependencies)
        while pending:
            dep = pending.pop()
            if isinstance(dep, ShuffleDependency) and dep.shuffle_id not in seen:
                seen.add(dep.shuffle_id)
                env._remove_shuffle(dep.shuffle_id)
            if not dep.parent.storage_level.is_valid:  # a persisted ancestor's own lineage stays
                pending.extend(dep.parent.dependencies)

    def getStorageLevel(self) -> StorageLevel:
        """The RDD's current storage level."""
        return self._node.storage_level

    def checkpoint(self) -> None:
        """Mark this RDD for checkpointing; it is written after the next job that computes it.

        Its lineage is then cut: later jobs read the checkpoint files. Persist it first
        to avoid computing it twice. Requires ``SparkContext.setCheckpointDir``.
        """
        directory = self.ctx.getCheckpointDir()
        if directory is None:
            raise ValueError("Checkpoint directory has not been set in the SparkContext: call "
                             "sc.setCheckpointDir(path) first")
        import os
        self._node.checkpoint_dir = os.path.join(directory, f"rdd-{self._node.id}")
        os.makedirs(self._node.checkpoint_dir, exist_ok=True)
        self.is_checkpointed = False

    def localCheckpoint(self) -> None:
        """Checkpoint to local storage (same as ``checkpoint`` here: one machine)."""
        self.checkpoint()

    def isCheckpointed(self) -> bool:
        """Whether this RDD has been checkpointed (written and its lineage cut).

        An RDD read back from a checkpoint directory is checkpointed too.
        """
        return self._node.checkpointed is not None or isinstance(self._node, CheckpointedNode)

    def isLocallyCheckpointed(self) -> bool:
        return self.isCheckpointed()

    def getCheckpointFile(self) -> str | None:
        """The directory this RDD was checkpointed to, or ``None``."""
        if isinstance(self._node, CheckpointedNode):
            return self._node.directory
        return self._node.checkpoint_dir if self._node.checkpointed is not None else None

    # -- the narrow funnel ---------------------------------------------------------
    def mapPartitionsWithIndex(self, f: Callable[[int, Iterator[T_co]], Iterable[U]],
                               preservesPartitioning: bool = False) -> RDD[U]:
        """Apply ``f(partition_index, iterator)`` to each partition.

        Examples
        --------
        >>> sc.parallelize([1, 2, 3, 4], 4).mapPartitionsWithIndex(lambda i, it: [i]).sum()
        6
        """
        return self._wrap(MapPartitionsNode(self._node, f, preservesPartitioning))

    def mapPartitions(self, f: Callable[[Iterator[T_co]], Iterable[U]], preservesPartitioning: bool = False) -> RDD[U]:
        """Apply ``f(iterator)`` to each partition."""
        return self.mapPartitionsWithIndex(_PartitionFunction(f), preservesPartitioning)

    def mapPartitionsWithSplit(self, f: Callable[[int, Iterator[T_co]], Iterable[U]],
                               preservesPartitioning: bool = False) -> RDD[U]:
        """Deprecated alias of :meth:`mapPartitionsWithIndex` (kept by PySpark)."""
        return self.mapPartitionsWithIndex(f, preservesPartitioning)

    def map(self, f: Callable[[T_co], U], preservesPartitioning: bool = False) -> RDD[U]:
        """Apply ``f`` to each element.

        Examples
        --------
        >>> sorted(sc.parallelize(["b", "a", "c"]).map(lambda x: (x, 1)).collect())
        [('a', 1), ('b', 1), ('c', 1)]
        """
        mapped = self.mapPartitionsWithIndex(_MapFunction(f), preservesPartitioning)
        mapped._node.element_fn = f  # lets the shuffle planner recognise map(lambda x: (x, c))
        return mapped

    def flatMap(self, f: Callable[[T_co], Iterable[U]], preservesPartitioning: bool = False) -> RDD[U]:
        """Apply ``f`` to each element and flatten the results.

        Examples
        --------
        >>> sorted(sc.parallelize([2, 3, 4]).flatMap(lambda x: range(1, x)).collect())
        [1, 1, 1, 2, 2, 3]
        """
        return self.mapPartitionsWithIndex(_FlatMapFunction(f),
                                           preservesPartitioning)

    def filter(self, f: Callable[[T_co], bool]) -> RDD[T_co]:
        """Keep the elements for which ``f`` is true.

        Examples
        --------
        >>> sc.parallelize([1, 2, 3, 4, 5]).filter(lambda x: x % 2 == 0).collect()
        [2, 4]
        """
        return self.mapPartitionsWithIndex(_FilterFunction(f), True)

    def glom(self) -> RDD[list[T_co]]:
        """Coalesce the elements of each partition into a list.

        Examples
        --------
        >>> sorted(sc.parallelize([1, 2, 3, 4], 2).glom().collect())
        [[1, 2], [3, 4]]
        """
        return self.mapPartitionsWithIndex(lambda _, it: [list(it)])

    # -- narrow multi-parent operations ------------------------------------------
    def union(self, other: RDD[U]) -> RDD[T_co | U]:
        """Elements of this RDD followed by those of ``other`` (duplicates kept).

        When both have the same partitioner and partition count, so does the result.
        """
        a, b = self._node, other._node
        if a.partitioner is not None and a.partitioner == b.partitioner and a.num_partitions == b.num_partitions:
            return self._wrap(PartitionerAwareUnionNode([a, b]))
        return self._wrap(UnionNode([a, b]))

    def __add__(self, other: RDD[U]) -> RDD[T_co | U]:
        if not isinstance(other, RDD):
            raise TypeError(f"can only add an RDD to an RDD, not {type(other).__name__}")
        return self.union(other)

    def zip(self, other: RDD[U]) -> RDD[tuple[T_co, U]]:
        """Pair the i-th element of each partition with the i-th of ``other``'s.

        Both RDDs must have the same number of partitions and of elements per partition.
        """
        return self._wrap(ZippedNode(self._node, other._node))

    def zipPartitions(self, *others: RDD[Any], f: Callable[..., Iterable[U]] | None = None,
                      preservesPartitioning: bool = False) -> RDD[U]:
        """Combine partition i of this RDD and of each of ``others`` with ``f(it, *its)``.

        All RDDs must have the same number of partitions. (Spark's Scala
        ``zipPartitions``; not in PySpark.)
        """
        if f is None:
            raise TypeError("zipPartitions needs the combining function as f=...")
        fn = f
        return self._wrap(ZipPartitionsNode([self._node] + [o._node for o in others],
                                            lambda _, its: fn(*its), preservesPartitioning))

    def cartesian(self, other: RDD[U]) -> RDD[tuple[T_co, U]]:
        """Every pair ``(a, b)`` with ``a`` in this RDD and ``b`` in ``other``."""
        return self._wrap(CartesianNode(self._node, other._node))

    def coalesce(self, numPartitions: int, shuffle: bool = False) -> RDD[T_co]:
        """Reduce the number of partitions; without ``shuffle`` no data moves between workers."""
        if not isinstance(numPartitions, int) or numPartitions < 1:
            raise ValueError(f"numPartitions must be a positive integer, got {numPartitions!r}")
        if shuffle:
            return self._round_robin(numPartitions)
        return self._wrap(CoalescedNode(self._node, numPartitions))

    def repartition(self, numPartitions: int) -> RDD[T_co]:
        """Return an RDD with exactly ``numPartitions`` partitions (always shuffles)."""
        return self.coalesce(numPartitions, shuffle=True)

    def _round_robin(self, count: int) -> RDD[T_co]:
        def key_by_position(index: int, it: Iterator[Any]) -> Iterator[tuple[int, Any]]:
            return zip(itertools.count(index), it)
        keyed = self.mapPartitionsWithIndex(key_by_position)
        moved = keyed._shuffle(Partitioner(count, _int_key), None, False)
        return moved.mapPartitionsWithIndex(lambda _, it: (v for _, v in it))

    # -- the wide funnel -------------------------------------------------------------
    def _shuffle(self, partitioner: Partitioner, aggregator: Aggregator | None = None,
                 map_side_combine: bool = True) -> RDD[Any]:
        """Move ``(key, value)`` records to ``partitioner``'s partitions (see docs/internals.md)."""
        dep = ShuffleDependency(self._node, self.ctx._new_shuffle_id(), partitioner, aggregator,
                                map_side_combine and aggregator is not None, self._node.num_partitions)
        dep.count_constant = fusion.plan_count(self._node, aggregator, dep.map_side_combine)
        self.ctx._env.cleaner.register_shuffle(dep, dep.shuffle_id)
        return self._wrap(ShuffledNode(dep))


def _int_key(key: int) -> int:
    return key


def _label(node: LineageNode) -> str:
    name = f"{node.name} " if node.name else ""
    storage = f" [{node.storage_level}]" if node.storage_level.is_valid else " []"
    return f"{name}{node.describe()}[{node.id}]{storage}"


def _debug_lines(root: LineageNode) -> list[str]:
    """Depth first, without recursion (a lineage can be thousands of steps deep): a
    narrow parent is drawn at its child's indentation, a shuffle's parent 4 further."""
    lines = [f"({root.num_partitions}) {_label(root)}"]
    stack = [(dep, "") for dep in reversed(root.dependencies)]
    while stack:
        dep, indent = stack.pop()
        parent = dep.parent
        if isinstance(dep, ShuffleDependency):
            lines.append(f"{indent} +-({parent.num_partitions}) {_label(parent)}")
            indent += "    "
        else:
            lines.append(f"{indent} |  {_label(parent)}")
        stack.extend((d, indent) for d in reversed(parent.dependencies))
    return lines

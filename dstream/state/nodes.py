"""Stream nodes for updateStateByKey and mapWithState, and the state RDD node.

What this module owns
---------------------
* ``UpdateStateNode`` (``updateStateByKey``): state at t = the previous state
  partition zipped with the batch partitioned the same way, the update function
  called for every key with state or new values. Spark's ``StateDStream.compute``
  cases: no batch RDD -> the previous state; no previous state -> the initial RDD (or
  nothing). Each batch costs O(state), as in Spark. The state RDDs are persisted at
  ``MEMORY_ONLY_SHARING_IMMUTABLE``: a partition whose states are immutable (counts,
  sums, tuples of them) stays in the worker as the objects, read back by the next batch
  with no decode; any other is serialized, so an update function that changes its old
  state in place (appends to a list) never changes the cached partition.
* ``MapWithStateNode`` (the internal stream of ``mapWithState``): one
  ``StateRecord`` per partition (the partition's ``StateTable`` and this batch's
  mapped values). The table is updated in place in the worker that holds it, so a
  batch costs O(keys with data + keys timing out); the previous record is then stale
  and ``MapWithStateRDDNode.block_is_valid`` refuses it, so any later reader
  recomputes it from the last checkpoint instead of seeing the newer table.
* Both keep their state partitions where they are: the batch is shuffled to the
  state's partitioner and zipped partition by partition (no shuffle of the state),
  and the state RDD node asks for strict locality.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rdd import Partitioner, StorageLevel
from rdd.engine_api import (
    MEMORY_ONLY_SHARING_IMMUTABLE,
    ZipPartitionsNode,
    append_to_list,
    constant_pair_value,
    extend_list,
    lineage_of,
    rdd_of,
    singleton_list,
)

from dstream.nodes.base import StreamNode
from dstream.nodes.stateful import StatefulNode
from dstream.state.spec import StateSpec
from dstream.state.table import StateRecord
from dstream.state.update import InitialStateFunction, MapWithStateFunction, UpdateStateFunction

if TYPE_CHECKING:
    from dstream.graph import DStreamGraph

__all__ = ["MapWithStateNode", "MapWithStateRDDNode", "UpdateStateNode", "STATE_STORAGE"]

#: mapWithState keeps each partition's table as a live object (deserialized memory).
STATE_STORAGE = StorageLevel(False, True, False, True, 1)


class MapWithStateRDDNode(ZipPartitionsNode):
    """Partition i = the state record of partition i after this batch."""

    strict_locality = True

    def block_is_valid(self, values: list) -> bool:
        return all(isinstance(r, StateRecord) and r.is_current for r in values)

    def describe(self) -> str:
        return "MapWithStateRDD"


class _InitialState:
    """Initial ``(key, state)`` pairs, picklable into a checkpointed graph.

    Given an RDD, its records are collected once when the graph is first pickled
    (only a checkpointed graph is pickled); given an iterable, it is kept as a list.
    """

    def __init__(self, initial: Any) -> None:
        from rdd import RDD
        if initial is None:
            self.rdd, self.pairs = None, None
        elif isinstance(initial, RDD):
            self.rdd, self.pairs = initial, None
        else:
            self.rdd, self.pairs = None, [tuple(p) for p in initial]

    def as_rdd(self, sc: Any, partitioner: Partitioner) -> Any:
        if self.rdd is None and self.pairs is None:
            return None
        source = self.rdd if self.rdd is not None else sc.parallelize(self.pairs, partitioner.numPartitions)
        return source.partitionBy(partitioner.numPartitions, partitioner.partitionFunc)

    def __getstate__(self) -> Any:
        pairs = self.pairs if self.rdd is None else self.rdd.collect()
        return {"rdd": None, "pairs": pairs}


def _counted_constant(batch: Any) -> int | None:
    """``c`` when ``batch`` is ``map(lambda x: (x, c))`` with a non-zero int ``c``, not cached."""
    node = lineage_of(batch)
    fn = getattr(node, "element_fn", None)
    if fn is None or node.storage_level.is_valid or node.checkpointed is not None:
        return None
    c = constant_pair_value(fn)
    return c if c else None


class UpdateStateNode(StatefulNode):
    def __init__(self, graph: DStreamGraph, parent: StreamNode, update: Callable[[list[Any], Any], Any],
                 partitioner: Partitioner, initial: Any) -> None:
        super().__init__(graph, [parent], parent.slide_ms, "updateStateByKey")
        self.update = update
        self.partitioner = partitioner
        self.initial = _InitialState(initial)
        self.storage_level = MEMORY_ONLY_SHARING_IMMUTABLE

    def compute(self, time_ms: int) -> Any:
        previous = self.previous(time_ms)
        batch = self.dependencies[0].get_or_compute(time_ms)
        if batch is None:
            return previous
        sc = self.graph.sc
        p = self.partitioner
        if previous is None:
            previous = self.initial.as_rdd(sc, p)
        if previous is None:
            previous = sc.parallelize([], p.numPartitions)
        c = _counted_constant(batch)
        if c is not None:
            # map(lambda x: (x, c)): count on the map side (exact), expand to [c] * n.
            data = batch.reduceByKey(operator.add, p.numPartitions, p.partitionFunc)
        else:
            data = batch.combineByKey(singleton_list, append_to_list, extend_list, p.numPartitions, p.partitionFunc)
        nodes = [lineage_of(previous), lineage_of(data)]
        state = rdd_of(sc, ZipPartitionsNode(nodes, UpdateStateFunction(self.update, c)))
        lineage_of(state).partitioner = p
        return state


class MapWithStateNode(StatefulNode):
    """The internal stream of state records (one per partition per batch)."""

    def __init__(self, graph: DStreamGraph, parent: StreamNode, spec: StateSpec, default_partitions: int) -> None:
        super().__init__(graph, [parent], parent.slide_ms, "mapWithState")
        self.spec_function = spec._function
        self.with_time = spec._with_time
        self.timeout_ms = spec._timeout_ms
        self.partitioner = spec._partitioner or Partitioner(spec._num_partitions or default_partitions)
        self.initial = _InitialState(spec._initial)
        self.storage_level = STATE_STORAGE

    def default_checkpoint_ms(self) -> int:
        return 10 * self.slide_ms  # SPARK-11814: 10 batches, not 10 s

    def _first_records(self, time_ms: int) -> Any:
        sc = self.graph.sc
        p = self.partitioner
        pairs = self.initial.as_rdd(sc, p)
        source = pairs if pairs is not None else sc.parallelize([], p.numPartitions)
        return source.mapPartitionsWithIndex(InitialStateFunction(self.timeout_ms is not None, time_ms), True)

    def compute(self, time_ms: int) -> Any:
        sc = self.graph.sc
        p = self.partitioner
        previous = self.previous(time_ms)
        if previous is None:
            previous = self._first_records(time_ms)
        batch = self.dependencies[0].get_or_compute(time_ms)
        if batch is None:
            batch = sc.emptyRDD()
        data = batch.partitionBy(p.numPartitions, p.partitionFunc)
        function = MapWithStateFunction(self.spec_function, self.with_time, self.timeout_ms, time_ms)
        state = rdd_of(sc, MapWithStateRDDNode([lineage_of(previous), lineage_of(data)], function))
        lineage_of(state).partitioner = p
        return state

"""ParallelCollectionNode: a driver-side sequence sliced into partitions.

The data travels inside each task's partition (``_SlicePartition.data``), never with
the node, so a stage's pickled functions stay small however large the collection is.
``range`` objects are sliced lazily (a slice of a range is a range), so
``sc.range(10**9)`` costs nothing until computed.

When tasks run in worker processes, ``parallelize`` serializes each slice at once
(``dumps_records``), as PySpark does when it hands the collection to the JVM: the RDD
is a snapshot of the collection at that moment, the driver keeps compact bytes instead
of the objects (the caller may drop its list), and a task sends those bytes as they
are however often it runs. Inline (``local``), slices stay as lists: nothing crosses
a process.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, SupportsIndex

from ..serialization.serializer import loads_records, out_of_band
from .base import LineageNode, Partition

if TYPE_CHECKING:
    from ..runtime.task_context import TaskContext


class _SlicePartition(Partition):
    __slots__ = ("data",)

    def __init__(self, index: int, data: Sequence[Any] | bytes) -> None:
        super().__init__(index)
        self.data = data


class _SerializedSlice:
    """One slice serialized when the RDD was made; read back where the task runs.

    A large payload pickles out of band (``out_of_band``): a task sends it beside its
    pickle, never copied into it, and the worker's slice keeps the buffer it received.
    """

    __slots__ = ("payload",)

    def __init__(self, payload: bytes | bytearray | memoryview) -> None:
        self.payload = payload

    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple[Any, ...]:
        if operator.index(protocol) >= 5:
            return _restore_slice, (out_of_band(self.payload),)
        return _SerializedSlice, (self.payload,)


def _restore_slice(payload: Any) -> _SerializedSlice:
    # Read in band: bytes. Out of band: the buffer as the receiver handed it to pickle
    # (bytes, bytearray, memoryview, Ray's buffer, or the PickleBuffer itself where nothing
    # crossed a process); a memoryview reads any of them without a copy.
    if not isinstance(payload, (bytes, bytearray, memoryview)):
        payload = memoryview(payload)
    return _SerializedSlice(payload)


def slice_sequence(data: Sequence[Any], num_slices: int) -> list[Sequence[Any]]:
    """Split ``data`` into ``num_slices`` contiguous slices: slice i is ``[i*n//p, (i+1)*n//p)``."""
    n = len(data)
    return [data[i * n // num_slices:(i + 1) * n // num_slices] for i in range(num_slices)]


def serialize_slices(data: Sequence[Any], num_slices: int, dumps: Callable[[Any], bytes]) -> list[Any]:
    """:func:`slice_sequence`, each slice serialized with ``dumps`` (ranges stay lazy)."""
    slices = slice_sequence(data, num_slices)
    return slices if isinstance(data, range) else [_SerializedSlice(dumps(s)) for s in slices]


class ParallelCollectionNode(LineageNode):
    def __init__(self, slices: list[Sequence[Any]]) -> None:
        super().__init__([])
        self._slices = slices

    def _make_partitions(self) -> list[Partition]:
        return [_SlicePartition(i, s) for i, s in enumerate(self._slices)]

    def compute(self, split: _SlicePartition, tctx: TaskContext) -> Iterator[Any]:
        data = split.data
        if type(data) is _SerializedSlice:
            return iter(loads_records(data.payload))
        return iter(data)

    def __getstate__(self) -> Any:
        state = super().__getstate__()
        state["_slices"] = None
        return state

    def describe(self) -> str:
        return "ParallelCollectionRDD"

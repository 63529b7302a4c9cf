"""Key placement: the stable hash and the Partitioner.

Invariant: ``portable_hash(x)`` is the same in every process and in every interpreter
run, whatever ``PYTHONHASHSEED`` is, for ``str``, ``bytes``, numbers, ``None`` and
tuples/frozensets of those. Python's own ``hash()`` of ``str`` is randomised per
process, which would scatter a key over several partitions and break state recovery.
"""

from __future__ import annotations

from typing import Any, Callable
from zlib import crc32

_TUPLE_MULT = 1000003
_MASK = 0xFFFFFFFFFFFFFFFF


def portable_hash(x: Any) -> int:
    """Hash ``x`` identically in every process and run.

    Strings and bytes use CRC-32 of their UTF-8 bytes; integers, floats and booleans
    use Python's (deterministic) numeric hash; tuples combine their items' hashes in
    order, frozensets without order. Other objects fall back to ``hash(x)``, which is
    only stable if their ``__hash__`` is.

    Examples
    --------
    >>> portable_hash("spark") == portable_hash("spark")
    True
    >>> portable_hash(None)
    0
    """
    kind = type(x)
    if kind is str:
        return crc32(x.encode("utf-8", "surrogatepass"))
    if kind is int:
        return hash(x)
    if x is None:
        return 0
    if kind is tuple:
        h = 0x345678
        for item in x:
            h ^= portable_hash(item)
            h = (h * _TUPLE_MULT) & _MASK
        h ^= len(x)
        return h - (1 << 64) if h >= (1 << 63) else h
    if kind is bytes or kind is bytearray:
        return crc32(x)
    if kind is frozenset:
        h = len(x)
        for item in x:
            h ^= (portable_hash(item) * 0x9E3779B1) & 0xFFFFFFFF
        return h
    if isinstance(x, str):
        return crc32(str(x).encode("utf-8", "surrogatepass"))
    if isinstance(x, tuple):
        return portable_hash(tuple(x))
    return hash(x)


class Partitioner:
    """Places keys in ``numPartitions`` partitions with ``partitionFunc(key) % n``.

    Two partitioners are equal when both the count and the function are equal; an
    RDD already partitioned by an equal partitioner is not shuffled again.
    """

    __slots__ = ("numPartitions", "partitionFunc")

    def __init__(self, numPartitions: int, partitionFunc: Callable[[Any], int] = portable_hash) -> None:
        if not isinstance(numPartitions, int) or isinstance(numPartitions, bool) or numPartitions < 1:
            raise ValueError(f"numPartitions must be a positive integer, got {numPartitions!r}")
        self.numPartitions = numPartitions
        self.partitionFunc = partitionFunc

    def __call__(self, key: Any) -> int:
        return self.partitionFunc(key) % self.numPartitions

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Partitioner) and other.numPartitions == self.numPartitions
                and other.partitionFunc == self.partitionFunc)

    def __hash__(self) -> int:
        return hash((self.numPartitions, id(self.partitionFunc)))

    def __getstate__(self):
        return (self.numPartitions, self.partitionFunc)

    def __setstate__(self, state) -> None:
        self.numPartitions, self.partitionFunc = state

    def __repr__(self) -> str:
        name = getattr(self.partitionFunc, "__name__", repr(self.partitionFunc))
        return f"Partitioner({self.numPartitions}, {name})"

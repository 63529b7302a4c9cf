"""The small functions and classes that tasks run, kept apart from the driver's facade.

A stage's closure pickles these by reference (module and name), so a worker that
unpickles one imports the module that defines it. Here, that is this module alone, with
no import beyond the standard library: a worker's first task does not import the RDD
facade (``rdd.rdd`` and its mixins, a few thousand lines), which a fresh worker process
would otherwise compile or load before it could run anything.

Invariant: this module imports nothing from the engine, so importing it stays cheap.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Iterable, Iterator
from typing import Any

__all__ = ["count_partition"]


#: Iterators over a built-in container, whose ``__length_hint__`` is exactly the number of
#: elements left (CPython's list, tuple, range, str, bytes, set and dict iterators).
_CONTAINERS: tuple[Iterable[Any], ...] = ([], (), range(0), "", "\u00e9", b"", set(), {}, {}.values(), {}.items())
_SIZED_ITERATORS = frozenset(type(iter(container)) for container in _CONTAINERS)


def count_partition(iterator: Iterable[Any]) -> int:
    """The number of elements of one partition (``count``, ``zipWithIndex``).

    A partition that is a built-in container under its iterator (a parallelized slice,
    a reduced partition's dict, a cached block) is counted without stepping through it.
    """
    if type(iterator) in _SIZED_ITERATORS:
        return operator.length_hint(iterator)
    return sum(1 for _ in iterator)


# The per-partition adapters of mapPartitions/map/flatMap/filter are classes, not lambdas:
# a job's closure is pickled once per job, and a module-level class pickles by reference
# where a lambda's code would be pickled by value every time.


class _PartitionFunction:
    def __init__(self, f: Callable[..., Any]) -> None:
        self.f = f

    def __call__(self, split: int, iterator: Iterator[Any]) -> Iterable[Any]:
        return self.f(iterator)


class _MapFunction(_PartitionFunction):
    def __call__(self, split: int, iterator: Iterator[Any]) -> Iterable[Any]:
        return map(self.f, iterator)


class _FlatMapFunction(_PartitionFunction):
    def __call__(self, split: int, iterator: Iterator[Any]) -> Iterable[Any]:
        return itertools.chain.from_iterable(map(self.f, iterator))


class _FilterFunction(_PartitionFunction):
    def __call__(self, split: int, iterator: Iterator[Any]) -> Iterable[Any]:
        return filter(self.f, iterator)

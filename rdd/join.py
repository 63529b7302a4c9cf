"""Joins and cogroup built from tagged values, one union and one groupByKey.

Every join-like method of :class:`rdd.pair.PairRDDFunctions` works the same way:

::

    left   (k, v)  --mapValues-->  (k, (0, v)) --+
                                                  +--union--> groupByKey --> dispatch
    right  (k, w)  --mapValues-->  (k, (1, w)) --+

Tagging records with the index of the input they came from lets one shuffle bring
all sides of a key together; the ``dispatch_*`` functions then split the group
back into per-side buffers and emit the join's rows. When both inputs are already
partitioned by the target partitioner (and ``mapValues`` preserves it), the union
keeps that partitioner and ``groupByKey`` needs no shuffle at all.

The ``dispatch_*`` helpers and ``tag`` are pure functions of plain Python values, so
they are tested without an engine. They are module-level (not closures) so that
cloudpickle sends them to workers by reference.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from rdd.resultiterable import ResultIterable

if TYPE_CHECKING:
    from rdd.rdd import RDD

__all__ = [
    "cogroup_buffers",
    "dispatch_full_outer",
    "dispatch_join",
    "dispatch_left_outer",
    "dispatch_right_outer",
    "python_cogroup",
    "python_join",
    "tag",
]

V = TypeVar("V")
W = TypeVar("W")

# Tags of the two sides of a two-way join.
_LEFT = 0
_RIGHT = 1


def tag(index: int, value: V) -> tuple[int, V]:
    """Return ``(index, value)``: the value marked with the input it came from."""
    return (index, value)


def _split_two(tagged: Iterable[tuple[int, Any]]) -> tuple[list[Any], list[Any]]:
    left: list[Any] = []
    right: list[Any] = []
    for side, value in tagged:
        (left if side == _LEFT else right).append(value)
    return left, right


def _pairs(left: Sequence[V], right: Sequence[W]) -> list[tuple[V, W]]:
    # Left-major order, as PySpark emits: all matches of the first left value first.
    return [(v, w) for v in left for w in right]


def dispatch_join(tagged: Iterable[tuple[int, Any]]) -> list[tuple[Any, Any]]:
    """Inner join of one key's tagged values: every ``(left, right)`` pair.

    Examples
    --------
    >>> dispatch_join([(0, 1), (1, "a"), (1, "b")])
    [(1, 'a'), (1, 'b')]
    """
    left, right = _split_two(tagged)
    return _pairs(left, right)


def dispatch_left_outer(tagged: Iterable[tuple[int, Any]]) -> list[tuple[Any, Any]]:
    """Left outer join of one key's tagged values; a missing right side is ``None``.

    Examples
    --------
    >>> dispatch_left_outer([(0, 1)])
    [(1, None)]
    """
    left, right = _split_two(tagged)
    return _pairs(left, right or [None])


def dispatch_right_outer(tagged: Iterable[tuple[int, Any]]) -> list[tuple[Any, Any]]:
    """Right outer join of one key's tagged values; a missing left side is ``None``.

    Examples
    --------
    >>> dispatch_right_outer([(1, "a")])
    [(None, 'a')]
    """
    left, right = _split_two(tagged)
    return _pairs(left or [None], right)


def dispatch_full_outer(tagged: Iterable[tuple[int, Any]]) -> list[tuple[Any, Any]]:
    """Full outer join of one key's tagged values; a missing side is ``None``.

    Examples
    --------
    >>> dispatch_full_outer([(0, 1)]), dispatch_full_outer([(1, "a")])
    ([(1, None)], [(None, 'a')])
    """
    left, right = _split_two(tagged)
    return _pairs(left or [None], right or [None])


def cogroup_buffers(
    num_inputs: int, tagged: Iterable[tuple[int, Any]]
) -> tuple[ResultIterable[Any], ...]:
    """Split one key's tagged values into one ``ResultIterable`` per input.

    Examples
    --------
    >>> [list(g) for g in cogroup_buffers(3, [(2, "x"), (0, 1), (0, 2)])]
    [[1, 2], [], ['x']]
    """
    buffers: list[list[Any]] = [[] for _ in range(num_inputs)]
    for index, value in tagged:
        buffers[index].append(value)
    return tuple(ResultIterable(b) for b in buffers)


def _tagged_union(rdds: Sequence[RDD[Any]]) -> RDD[Any]:
    tagged = [r.mapValues(functools.partial(tag, i)) for i, r in enumerate(rdds)]
    return functools.reduce(lambda a, b: a.union(b), tagged)


def python_join(
    rdd: RDD[Any],
    other: RDD[Any],
    numPartitions: int | None,
    dispatch: Callable[[Iterable[tuple[int, Any]]], Iterable[tuple[Any, Any]]],
) -> RDD[Any]:
    """Join ``rdd`` with ``other`` by key; ``dispatch`` turns each group into rows.

    Parameters
    ----------
    rdd, other : RDD
        Pair RDDs, the left and the right side.
    numPartitions : int or None
        Partitions of the result; ``None`` uses the union's default (PySpark's rule).
    dispatch : callable
        One of the ``dispatch_*`` functions of this module.

    Returns
    -------
    RDD
        ``(key, row)`` pairs, one per row ``dispatch`` yields.
    """
    grouped = _tagged_union([rdd, other]).groupByKey(numPartitions)
    return grouped.flatMapValues(dispatch)


def python_cogroup(rdds: Sequence[RDD[Any]], numPartitions: int | None) -> RDD[Any]:
    """Group several pair RDDs by key: ``(key, (values_0, values_1, ...))``.

    Parameters
    ----------
    rdds : sequence of RDD
        Pair RDDs; the result's tuple has one ``ResultIterable`` per RDD, in order.
    numPartitions : int or None
        Partitions of the result; ``None`` uses the union's default (PySpark's rule).

    Returns
    -------
    RDD
        One record per key found in any input.
    """
    grouped = _tagged_union(rdds).groupByKey(numPartitions)
    return grouped.mapValues(functools.partial(cogroup_buffers, len(rdds)))


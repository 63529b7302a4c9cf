"""Joins and cogroup built from tagged values, one union and one groupByKey.

Every join-like method of ``RDD`` (:class:`JoinRDDFunctions`, mixed into the facade)
works the same way:

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
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from rdd.resultiterable import ResultIterable

if TYPE_CHECKING:
    from rdd.rdd import RDD

__all__ = [
    "JoinRDDFunctions",
    "cogroup_buffers",
    "dispatch_full_outer",
    "dispatch_join",
    "dispatch_left_outer",
    "dispatch_right_outer",
    "python_cogroup",
    "python_join",
    "tag",
]

K = TypeVar("K", bound=Hashable)
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


def _only_in_first(record: tuple[Any, tuple[ResultIterable[Any], ResultIterable[Any]]]) -> bool:
    mine, theirs = record[1]
    return len(mine) > 0 and len(theirs) == 0


def _first_group(groups: tuple[ResultIterable[V], ResultIterable[Any]]) -> ResultIterable[V]:
    return groups[0]


class JoinRDDFunctions:
    """The joins and cogroups of ``RDD`` (RDDs of ``(key, value)`` pairs).

    Mixed into :class:`rdd.rdd.RDD`; not meant to be used on its own.
    """

    def join(
        self: RDD[tuple[K, V]], other: RDD[tuple[K, W]], numPartitions: int | None = None
    ) -> RDD[tuple[K, tuple[V, W]]]:
        """Inner join by key: ``(k, (v, w))`` for every ``v`` and ``w`` sharing ``k``.

        Parameters
        ----------
        other : RDD
            The right side, a pair RDD.
        numPartitions : int, optional
            Number of result partitions; by default both sides' partitions combined.

        Returns
        -------
        RDD
            One pair per matching ``(v, w)``.

        Examples
        --------
        >>> x = sc.parallelize([("a", 1), ("b", 4)])
        >>> y = sc.parallelize([("a", 2), ("a", 3)])
        >>> sorted(x.join(y).collect())
        [('a', (1, 2)), ('a', (1, 3))]
        """
        return python_join(self, other, numPartitions, dispatch_join)

    def leftOuterJoin(
        self: RDD[tuple[K, V]], other: RDD[tuple[K, W]], numPartitions: int | None = None
    ) -> RDD[tuple[K, tuple[V, W | None]]]:
        """Left outer join by key; keys missing on the right get ``None``.

        Parameters
        ----------
        other : RDD
            The right side, a pair RDD.
        numPartitions : int, optional
            Number of result partitions.

        Returns
        -------
        RDD
            ``(k, (v, w))`` for matches and ``(k, (v, None))`` for left-only keys.

        Examples
        --------
        >>> x = sc.parallelize([("a", 1), ("b", 4)])
        >>> y = sc.parallelize([("a", 2)])
        >>> sorted(x.leftOuterJoin(y).collect())
        [('a', (1, 2)), ('b', (4, None))]
        """
        return python_join(self, other, numPartitions, dispatch_left_outer)

    def rightOuterJoin(
        self: RDD[tuple[K, V]], other: RDD[tuple[K, W]], numPartitions: int | None = None
    ) -> RDD[tuple[K, tuple[V | None, W]]]:
        """Right outer join by key; keys missing on the left get ``None``.

        Parameters
        ----------
        other : RDD
            The right side, a pair RDD.
        numPartitions : int, optional
            Number of result partitions.

        Returns
        -------
        RDD
            ``(k, (v, w))`` for matches and ``(k, (None, w))`` for right-only keys.

        Examples
        --------
        >>> x = sc.parallelize([("a", 1), ("b", 4)])
        >>> y = sc.parallelize([("a", 2)])
        >>> sorted(y.rightOuterJoin(x).collect())
        [('a', (2, 1)), ('b', (None, 4))]
        """
        return python_join(self, other, numPartitions, dispatch_right_outer)

    def fullOuterJoin(
        self: RDD[tuple[K, V]], other: RDD[tuple[K, W]], numPartitions: int | None = None
    ) -> RDD[tuple[K, tuple[V | None, W | None]]]:
        """Full outer join by key; a side missing a key gets ``None``.

        Parameters
        ----------
        other : RDD
            The right side, a pair RDD.
        numPartitions : int, optional
            Number of result partitions.

        Returns
        -------
        RDD
            ``(k, (v, w))`` for matches, ``(k, (v, None))`` and ``(k, (None, w))``
            for one-sided keys.

        Examples
        --------
        >>> x = sc.parallelize([("a", 1), ("b", 4)])
        >>> y = sc.parallelize([("a", 2), ("c", 8)])
        >>> sorted(x.fullOuterJoin(y).collect())
        [('a', (1, 2)), ('b', (4, None)), ('c', (None, 8))]
        """
        return python_join(self, other, numPartitions, dispatch_full_outer)

    def cogroup(
        self: RDD[tuple[K, V]], other: RDD[tuple[K, W]], numPartitions: int | None = None
    ) -> RDD[tuple[K, tuple[ResultIterable[V], ResultIterable[W]]]]:
        """Group both RDDs by key: ``(k, (values in self, values in other))``.

        Parameters
        ----------
        other : RDD
            Another pair RDD.
        numPartitions : int, optional
            Number of result partitions.

        Returns
        -------
        RDD
            One record per key present in either RDD; a side without the key has an
            empty ``ResultIterable``.

        Examples
        --------
        >>> x = sc.parallelize([("a", 1), ("b", 4)])
        >>> y = sc.parallelize([("a", 2)])
        >>> [(k, tuple(map(list, v))) for k, v in sorted(x.cogroup(y).collect())]
        [('a', ([1], [2])), ('b', ([4], []))]
        """
        return python_cogroup([self, other], numPartitions)

    def groupWith(
        self: RDD[tuple[K, V]], other: RDD[tuple[K, Any]], *others: RDD[tuple[K, Any]]
    ) -> RDD[tuple[K, tuple[ResultIterable[Any], ...]]]:
        """Cogroup this RDD with one or more others (``cogroup`` for many inputs).

        Parameters
        ----------
        other : RDD
            A pair RDD.
        *others : RDD
            More pair RDDs.

        Returns
        -------
        RDD
            ``(k, (values in self, values in other, values in others[0], ...))``.

        Examples
        --------
        >>> w = sc.parallelize([("a", 5), ("b", 6)])
        >>> x = sc.parallelize([("a", 1), ("b", 4)])
        >>> y = sc.parallelize([("a", 2)])
        >>> [(k, tuple(map(list, v))) for k, v in sorted(w.groupWith(x, y).collect())]
        [('a', ([5], [1], [2])), ('b', ([6], [4], []))]
        """
        return python_cogroup([self, other, *others], None)

    def subtractByKey(
        self: RDD[tuple[K, V]], other: RDD[tuple[K, Any]], numPartitions: int | None = None
    ) -> RDD[tuple[K, V]]:
        """Return the pairs of this RDD whose key does not occur in ``other``.

        Parameters
        ----------
        other : RDD
            A pair RDD; only its keys matter.
        numPartitions : int, optional
            Number of result partitions.

        Returns
        -------
        RDD
            The remaining pairs, duplicates included.

        Examples
        --------
        >>> x = sc.parallelize([("a", 1), ("b", 4), ("b", 5), ("a", 2)])
        >>> y = sc.parallelize([("a", 3), ("c", None)])
        >>> sorted(x.subtractByKey(y).collect())
        [('b', 4), ('b', 5)]
        """
        grouped = self.cogroup(other, numPartitions).filter(_only_in_first)
        return grouped.flatMapValues(_first_group)

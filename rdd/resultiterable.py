"""ResultIterable: the grouped values that groupByKey and cogroup hand back.

PySpark returns ``pyspark.resultiterable.ResultIterable`` rather than a plain list so
that the engine may later back it with something lazier than a list; users iterate
it, take ``len()`` of it, or call ``list(v)``. We keep the same name and shape: a
read-only wrapper over ``data``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sized
from typing import Any, Generic, TypeVar

__all__ = ["ResultIterable"]

T = TypeVar("T")


class ResultIterable(Iterable[T], Sized, Generic[T]):
    """The values grouped under one key by ``groupByKey``, ``groupBy`` or ``cogroup``.

    Iterate it, take its ``len()``, or turn it into a list with ``list(v)``.

    Parameters
    ----------
    data : sequence
        The grouped values; kept as the ``data`` attribute.

    Examples
    --------
    >>> v = ResultIterable([1, 2])
    >>> list(v), len(v)
    ([1, 2], 2)
    """

    def __init__(self, data: Any) -> None:
        self.data = data
        self.index = 0
        self.maxindex = len(data)

    def __iter__(self) -> Iterator[T]:
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)

    def __contains__(self, item: object) -> bool:
        return item in self.data

    def __eq__(self, other: object) -> bool:
        # Two groups are equal when they hold the same values in the same order;
        # comparing with a plain list stays False, so tests write list(v) == [...].
        if isinstance(other, ResultIterable):
            return list(self.data) == list(other.data)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable container semantics

    def __repr__(self) -> str:
        return f"ResultIterable({self.data!r})"

"""``array_sort(a, (l, r) -> cmp)``: arrays sorted by a comparator lambda.

What this module owns
---------------------
:class:`ArraySortWith`. The comparator is evaluated once per batch for every ordered
pair of elements of each array (a lambda runs over many values at once, never per
call), and each array is then sorted with that table of results; rows are taken in
chunks so that the pairs of one evaluation stay below :data:`MAX_PAIRS`.

Invariants
----------
* The comparator returns an integer: negative when ``l`` sorts first, 0 when equal,
  positive when ``r`` does; the sort is stable (equal elements keep their order).
* A null comparator result raises ``COMPARATOR_RETURNS_NULL``, as Spark does; the
  elements handed to it may be null (the comparator decides where nulls go).
* A null array gives null.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import AnalysisException, SparkRuntimeException
from ..types import DataType, IntegralType
from .base import EvalContext, Expression
from .higher_order import HigherOrderFunction, _element_batch, _evaluate, _lengths, _lists

__all__ = ["ArraySortWith", "MAX_PAIRS"]

#: Element pairs compared in one evaluation of the comparator (bounds its memory).
MAX_PAIRS = 1_000_000


class ArraySortWith(HigherOrderFunction):
    """``array_sort(a, (l, r) -> ...)``."""

    name = "array_sort"

    def bind_lambdas(self) -> list[Expression]:
        element = self._element(0)
        return [self.functions[0].bind([(element[0], True), (element[0], True)])]

    def check_input_types(self) -> None:
        function = self.functions[0] if self.functions else None
        if function is not None and function.resolved and not isinstance(function.data_type(), IntegralType):
            raise AnalysisException(
                f'Cannot resolve "{self.sql()}" due to data type mismatch: the comparator must return an integer '
                f'(negative, 0 or positive), not "{function.data_type().simpleString()}".',
                "DATATYPE_MISMATCH.UNEXPECTED_RETURN_TYPE", {"sqlExpr": self.sql()})

    def data_type(self) -> DataType:
        return self.inputs[0].data_type()

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        lists = _lists(self.inputs[0].eval(batch, ctx), batch.num_rows)
        lengths = _lengths(lists)
        flat = pc.list_flatten(lists)
        starts = np.concatenate([[0], np.cumsum(lengths)])
        order: list[np.ndarray] = []
        row = 0
        while row < len(lists):
            end, pairs = row, 0
            while end < len(lists) and (end == row or pairs + lengths[end] ** 2 <= MAX_PAIRS):
                pairs += int(lengths[end]) ** 2
                end += 1
            order.extend(self._sorted(batch, flat, starts, lengths, row, end, ctx))
            row = end
        index = pa.array(np.concatenate(order) if order else np.zeros(0, np.int64), pa.int64())
        offsets = pa.array(starts, pa.int32())
        return pa.ListArray.from_arrays(offsets, flat.take(index), mask=lists.is_null())

    def _sorted(self, batch: pa.RecordBatch, flat: pa.Array, starts: np.ndarray, lengths: np.ndarray,
                first: int, end: int, ctx: EvalContext) -> list[np.ndarray]:
        """Each row's element positions (into ``flat``) in comparator order, rows ``first`` to ``end``."""
        function = self.functions[0]
        rows = np.arange(first, end)
        sizes = lengths[first:end]
        squared = sizes * sizes
        parents = np.repeat(rows, squared)
        # For each row, every (i, j) of its elements, i-major.
        within = np.arange(int(squared.sum())) - np.repeat(np.cumsum(squared) - squared, squared)
        n = np.repeat(sizes, squared)
        left = starts[parents] + within // np.maximum(n, 1)
        right = starts[parents] + within % np.maximum(n, 1)
        l_id, r_id = (v.expr_id for v in function.variables[:2])
        variables = {l_id: flat.take(pa.array(left, pa.int64())), r_id: flat.take(pa.array(right, pa.int64()))}
        results = _evaluate(function.body, _element_batch(batch, function.body, parents, variables), ctx)
        if results.null_count:
            raise SparkRuntimeException(
                "The comparator has returned a NULL for a comparison between elements. Return a non-null integer "
                "(handle null elements with coalesce or when).", "COMPARATOR_RETURNS_NULL",
                {"firstValue": "", "secondValue": ""})
        table = results.to_numpy(zero_copy_only=False).astype(np.int64)
        out: list[np.ndarray] = []
        at = 0
        for size in sizes.tolist():
            block = table[at:at + size * size].reshape(size, size) if size else table[:0].reshape(0, 0)
            at += size * size
            ranked = sorted(range(size), key=functools.cmp_to_key(_by_table(block)))
            out.append(np.asarray(ranked, dtype=np.int64) + starts[first + len(out)])
        return out

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return ArraySortWith(*children)


def _by_table(block: np.ndarray) -> Any:
    """A ``cmp(i, j)`` reading the comparator's results for one array."""
    def compare(i: int, j: int) -> int:
        return int(block[i, j])
    return compare

"""``histogram_numeric(v, nb)``: a histogram of at most ``nb`` bins of a group's numbers.

What this module owns
---------------------
:class:`HistogramNumeric`, Spark's (and Hive's) streaming histogram of Ben-Haim and
Tom-Tov: values are added one by one into bins ``(x, y)`` sorted by ``x`` (an equal ``x``
counts ``y`` up, a new one is a bin of 1); whenever there are more than ``nb`` bins, the
two closest adjacent bins merge into one at their weighted mean. A tie between equally
close pairs is broken as Spark breaks it, with ``java.util.Random(31183)`` (:mod:`.java_random`),
so one group's values in one order give Spark's bins.

Invariants
----------
* The result is an array of ``struct<x, y: double>`` sorted by ``x``, ``x`` of the input's
  type (Spark 3.3+; a merged center of integers truncated); nulls are skipped; a group
  without values gives null.
* ``nb`` is a constant integer of at least 2, else the analysis fails naming it.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from ..errors import AnalysisException
from ..types import ArrayType, DataType, DoubleType, StructField, StructType
from .aggregates import _ListBased
from .base import EvalContext, Expression
from .java_random import JavaRandom

__all__ = ["HistogramNumeric"]


def histogram(values: list[float], nb: int) -> list[list[float]]:
    """The bins ``[x, y]`` of ``values`` added in order (see the module doc)."""
    prng = JavaRandom(31183)
    bins: list[list[float]] = []
    for v in values:
        lo, hi, at = 0, len(bins), 0
        while lo < hi:  # Hive's binary search: stops at an equal x
            at = (lo + hi) // 2
            if bins[at][0] > v:
                hi = at
            elif bins[at][0] < v:
                at += 1
                lo = at
            else:
                break
        if at < len(bins) and bins[at][0] == v:
            bins[at][1] += 1
            continue
        bins.insert(at, [v, 1.0])
        while len(bins) > nb:
            smallest, where, ties = bins[1][0] - bins[0][0], 0, 1
            for i in range(1, len(bins) - 1):
                diff = bins[i + 1][0] - bins[i][0]
                if diff < smallest:
                    smallest, where, ties = diff, i, 1
                elif diff == smallest:
                    ties += 1
                    if prng.next_double() <= 1.0 / ties:
                        where = i
            left, right = bins[where], bins[where + 1]
            total = left[1] + right[1]
            left[0] = left[0] * (left[1] / total) + right[0] / total * right[1]
            left[1] = total
            del bins[where + 1]
    return bins


class HistogramNumeric(_ListBased):
    """``histogram_numeric(v, nb)`` (see the module doc)."""

    name = "histogram_numeric"
    partial_fn = "list"

    def __init__(self, child: Expression, nb: Any, distinct: bool = False) -> None:
        super().__init__(child, distinct)
        if isinstance(nb, bool) or not isinstance(nb, int) or nb < 2:
            raise AnalysisException(
                f"[DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE] histogram_numeric's second argument (the number of bins) "
                f"must be an integer of at least 2, got {nb!r}.", "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE",
                {"exprName": "nb", "valueRange": "[2, 2147483647]", "currentValue": repr(nb)})
        self.nb = nb

    def with_children(self, children: Any) -> Expression:
        return HistogramNumeric(children[0], self.nb, self.distinct)

    def sql(self) -> str:
        return f"histogram_numeric({self.children[0].sql()}, {self.nb})"

    def _options(self) -> Any:
        return (self.name, self.nb)

    def data_type(self) -> DataType:
        return ArrayType(StructType([StructField("x", self.children[0].data_type(), True),
                                     StructField("y", DoubleType(), True)]), True)

    def finish(self, buffers: list[pa.Array], ctx: EvalContext) -> pa.Array:
        from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - light import at run time only

        lists = buffers[0].combine_chunks() if isinstance(buffers[0], pa.ChunkedArray) else buffers[0]
        element = self.children[0].data_type()
        out: list[Any] = []
        for values in lists.to_pylist():
            present = [float(v) for v in (values or []) if v is not None]
            out.append(None if not present else [{"x": x, "y": y} for x, y in histogram(present, self.nb)])
        doubles = pa.array(out, pa.list_(pa.struct([("x", pa.float64()), ("y", pa.float64())])))
        if element == DoubleType():
            return doubles
        return doubles.cast(to_arrow_type(self.data_type()), safe=False)  # a center of integers truncates

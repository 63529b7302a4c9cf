"""Statistical aggregate functions: ``var_pop``, ``stddev_pop``, ``skewness``, ``kurtosis``,
``corr``, ``covar_pop``, ``covar_samp``, ``median``, ``percentile``, ``percentile_approx``,
``mode``, ``max_by`` and ``min_by``.

What this module owns
---------------------
Their types, generated names and :meth:`finish`. Like the variances of
:mod:`.aggregates` they keep every value of a group (partial ``list``, merged by
concatenation) and compute in :meth:`finish`, with numpy over all groups at once.
Functions of two inputs (``corr(x, y)``, ``max_by(x, ord)``) take one struct child of the
two and keep one list per field, in the same row order, so the pairs line up.

Invariants
----------
* Spark's null rules: rows with a null input are skipped (for ``corr``/``covar_*`` a null
  in either input; for ``max_by``/``min_by`` a null ordering); a group without values
  gives null; since Spark 3.1 a division by zero inside ``corr``, ``skewness`` or
  ``kurtosis`` (no variance) gives null, not NaN.
* ``percentile`` and ``median`` interpolate between the two closest ranks (a double);
  ``percentile_approx`` returns a value of the group (of the input's type): the smallest
  one with at least ``p`` of the values at or below it, which is exact within any
  ``accuracy``. A list of percentages gives an array, in the list's order.
* ``mode`` returns the most frequent value, the smallest of equally frequent ones.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..kernels.conditions import divide_by_zero
from ..types import AnsiIntervalType, ArrayType, DataType, DoubleType
from .aggregate_base import ArrowAgg
from .aggregates import LIST_CONCAT, VarianceSamp, _flatten_groups, _ListBased
from .base import EvalContext, Expression, Literal
from .cast import cast_to
from .collection_functions import CreateStruct

__all__ = ["Corr", "Covariance", "ExtremeBy", "Mode", "Moment", "Percentile", "PercentileApprox",
           "VariancePop", "StddevPop"]


class VariancePop(VarianceSamp):
    """``var_pop(v)``: population variance (0 for one value)."""

    name = "var_pop"
    ddof = 0
    min_count = 1


class StddevPop(VariancePop):
    """``stddev_pop(v)``."""

    name = "stddev_pop"

    def _post(self, variance: pa.Array) -> pa.Array:
        return pc.sqrt(variance.cast(pa.float64()))


def _group_arrays(groups: pa.Array, values: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    return (groups.to_numpy(zero_copy_only=False).astype(np.int64),
            values.to_numpy(zero_copy_only=False).astype(np.float64))


def _doubles_or_null(values: np.ndarray, ok: np.ndarray) -> pa.Array:
    return pa.array(np.where(ok, values, 0.0), pa.float64(), mask=~ok)


class Moment(_ListBased):
    """``skewness(v)`` and ``kurtosis(v)`` (excess), Spark's population moments."""

    partial_fn = "list"

    def __init__(self, child: Expression, name: str) -> None:
        super().__init__(child)
        self.name = name

    def coerce(self) -> Expression:
        child = cast_to(self.children[0], DoubleType())
        return self if child is self.children[0] else self.with_children([child])

    def finish(self, buffers: list[pa.Array], ctx: EvalContext) -> pa.Array:
        groups, values, n_groups = self.groups_and_values(buffers)
        g, x = _group_arrays(groups, values)
        n = np.bincount(g, minlength=n_groups).astype(np.float64)
        with np.errstate(all="ignore"):
            mean = np.bincount(g, x, minlength=n_groups) / n
            d = x - mean[g]
            m2 = np.bincount(g, d * d, minlength=n_groups)
            if self.name == "skewness":
                out = np.sqrt(n) * np.bincount(g, d ** 3, minlength=n_groups) / np.sqrt(m2 ** 3)
            else:
                out = n * np.bincount(g, d ** 4, minlength=n_groups) / (m2 * m2) - 3.0
        return _doubles_or_null(out, (n > 0) & (m2 != 0))

    def data_type(self) -> DataType:
        return DoubleType()

    def _options(self) -> Any:
        return (self.name, self.distinct)


class _Pairwise(_ListBased):
    """An aggregate of two inputs, given as one ``struct(x, y)`` child; one list per field."""

    partial_fn = "list"
    first_type: DataType | None = DoubleType()
    second_type: DataType | None = DoubleType()

    def __init__(self, x: Expression, y: Expression, name: str) -> None:
        super().__init__(CreateStruct([x, y], ["x", "y"]))
        self.name = name

    @property
    def pair(self) -> tuple[Expression, Expression]:
        struct = self.children[0]
        if isinstance(struct, Literal):
            # Constant folding turned struct(x, y) of two constants into one struct literal.
            fields = struct.data_type().fields  # type: ignore[attr-defined]
            value = struct.value or {}
            return Literal(value.get("x"), fields[0].dataType), Literal(value.get("y"), fields[1].dataType)
        return struct.children[0], struct.children[1]

    def coerce(self) -> Expression:
        x, y = self.pair
        cx = x if self.first_type is None else cast_to(x, self.first_type)
        cy = y if self.second_type is None else cast_to(y, self.second_type)
        if cx is x and cy is y:
            return self
        return self.with_children([CreateStruct([cx, cy], ["x", "y"])])

    def sql(self) -> str:
        x, y = self.pair
        return f"{self.name}({x.sql()}, {y.sql()})"

    def partial_aggs(self) -> list[ArrowAgg]:
        return [("list", None), ("list", None)]

    def partial_input(self, j: int, values: pa.Array) -> pa.Array:
        struct = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
        return struct.field(j)

    def merge_aggs(self) -> list[ArrowAgg]:
        return [(LIST_CONCAT, None), (LIST_CONCAT, None)]

    def pairs(self, buffers: list[pa.Array]) -> tuple[pa.Array, pa.Array, pa.Array, int]:
        """(group, x, y) of every row, nulls kept, and the number of groups."""
        groups, xs = _flatten_groups(buffers[0])
        _, ys = _flatten_groups(buffers[1])
        return groups, xs, ys, len(buffers[0])

    def _options(self) -> Any:
        return (self.name, self.distinct)


class Corr(_Pairwise):
    """``corr(x, y)``: Pearson's correlation coefficient; null over fewer than two rows, and where
    either input is constant (``DIVIDE_BY_ZERO`` there under ANSI, as Spark)."""

    def finish(self, buffers: list[pa.Array], ctx: EvalContext) -> pa.Array:
        n, cxy, m2x, m2y = _co_moments(*self.pairs(buffers))
        spread = m2x * m2y
        if ctx.ansi and bool(np.any((n > 1) & (spread == 0))):
            # Spark divides by the spread's root, and under ANSI a division by zero raises:
            # a group of two or more rows where either input is constant fails the query.
            raise divide_by_zero()
        with np.errstate(all="ignore"):
            out = cxy / np.sqrt(spread)
        return _doubles_or_null(out, (n > 1) & (spread != 0))

    def data_type(self) -> DataType:
        return DoubleType()


class Covariance(_Pairwise):
    """``covar_pop(x, y)`` and ``covar_samp(x, y)``."""

    def finish(self, buffers: list[pa.Array], ctx: EvalContext) -> pa.Array:
        n, cxy, _, _ = _co_moments(*self.pairs(buffers))
        ddof = 1 if self.name == "covar_samp" else 0
        with np.errstate(all="ignore"):
            out = cxy / (n - ddof)
        return _doubles_or_null(out, n > ddof)

    def data_type(self) -> DataType:
        return DoubleType()


def _co_moments(groups: pa.Array, xs: pa.Array, ys: pa.Array,
                n_groups: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per group: the count of rows with both values, and the centred sums of xy, x² and y²."""
    keep = pc.and_(pc.is_valid(xs), pc.is_valid(ys))
    g = groups.filter(keep).to_numpy(zero_copy_only=False).astype(np.int64)
    x = xs.filter(keep).to_numpy(zero_copy_only=False).astype(np.float64)
    y = ys.filter(keep).to_numpy(zero_copy_only=False).astype(np.float64)
    n = np.bincount(g, minlength=n_groups).astype(np.float64)
    with np.errstate(all="ignore"):
        dx = x - (np.bincount(g, x, minlength=n_groups) / n)[g]
        dy = y - (np.bincount(g, y, minlength=n_groups) / n)[g]
    return (n, np.bincount(g, dx * dy, minlength=n_groups), np.bincount(g, dx * dx, minlength=n_groups),
            np.bincount(g, dy * dy, minlength=n_groups))


def _first_per_group(ranked: pa.Table, column: str, n_groups: int) -> pa.Array:
    """``column`` of each group's first row in ``ranked`` (sorted by group ``g`` first); null for a group
    without rows."""
    g = ranked.column("g").to_numpy()
    first = np.ones(len(g), dtype=bool)
    first[1:] = g[1:] != g[:-1]
    winners = ranked.filter(pa.array(first))
    index = pc.index_in(pa.array(range(n_groups), pa.int64()), value_set=winners.column("g").combine_chunks())
    return winners.column(column).combine_chunks().take(index)


class ExtremeBy(_Pairwise):
    """``max_by(x, ord)`` and ``min_by(x, ord)``: the ``x`` of the row with the largest/smallest ``ord``."""

    first_type = None
    second_type = None

    def finish(self, buffers: list[pa.Array], ctx: EvalContext) -> pa.Array:
        groups, xs, ords, n_groups = self.pairs(buffers)
        keep = pc.is_valid(ords)
        table = pa.table({"g": groups.filter(keep), "x": xs.filter(keep), "o": ords.filter(keep),
                          "i": pa.array(np.arange(len(xs))[keep.to_numpy(zero_copy_only=False)], pa.int64())})
        # Sorted by group then ordering (first row first among equals): each group's last or first row wins.
        order = "descending" if self.name == "max_by" else "ascending"
        return _first_per_group(table.sort_by([("g", "ascending"), ("o", order), ("i", "ascending")]), "x",
                                n_groups)

    def data_type(self) -> DataType:
        return self.pair[0].data_type()


def _percentages(value: Any) -> tuple[list[float], bool]:
    """``(percentages, as_array)`` of a percentage argument, checked."""
    many = isinstance(value, (list, tuple))
    items = list(value) if many else [value]
    for p in items:
        if isinstance(p, bool) or not isinstance(p, (int, float, Decimal)) or not 0.0 <= float(p) <= 1.0:
            raise ValueError(f"The percentage must be a number between 0.0 and 1.0 (or a list of them), got {value!r}")
    return [float(p) for p in items], many


class Percentile(_ListBased):
    """``percentile(v, p)`` and ``median(v)``: exact, interpolated between ranks (double)."""

    partial_fn = "list"

    def __init__(self, child: Expression, percentage: Any, name: str = "percentile", discrete: bool = False,
                 descending: bool = False) -> None:
        super().__init__(child)
        self.percentages, self.many = _percentages(percentage)
        self.name = name
        self.percentage = percentage
        #: SQL's percentile_disc (a value at rank floor((n - 1) * p), not interpolated) and an
        #: ordering WITHIN GROUP (ORDER BY v DESC) (ranks counted from the largest).
        self.discrete = discrete
        self.descending = descending

    def sql(self) -> str:
        if self.name == "median":
            return f"median({self.children[0].sql()})"
        if self.name in ("percentile_cont", "percentile_disc"):
            order = f"{self.children[0].sql()}{' DESC' if self.descending else ''}"
            return f"{self.name}({self.shown_percentage()}) WITHIN GROUP (ORDER BY {order})"
        return f"percentile({self.children[0].sql()}, {self.shown_percentage()}, 1)"

    def shown_percentage(self) -> str:
        """The percentage argument as Spark prints it (``0.5``, ``array(0.25, 0.75)``)."""
        return f"array({', '.join(repr(p) for p in self.percentages)})" if self.many else repr(self.percentages[0])

    def _options(self) -> Any:
        return (self.name, tuple(self.percentages), self.many, self.discrete, self.descending)

    def coerce(self) -> Expression:
        if isinstance(self.children[0].data_type(), AnsiIntervalType):
            return self  # an interval's percentile is one of its kind, computed on its stored units
        child = cast_to(self.children[0], DoubleType())
        return self if child is self.children[0] else self.with_children([child])

    def _sorted_groups(self, buffers: list[pa.Array]) -> tuple[np.ndarray, pa.Array]:
        """Each group's values sorted, one after the other, and where each group starts (plus the end)."""
        groups, values, n_groups = self.groups_and_values(buffers)
        table = pa.table({"g": groups, "v": values}).sort_by([("g", "ascending"), ("v", "ascending")])
        bounds = np.searchsorted(table.column("g").to_numpy(), np.arange(n_groups + 1))
        return bounds, table.column("v").combine_chunks()

    def finish(self, buffers: list[pa.Array], ctx: EvalContext) -> pa.Array:
        bounds, v = self._sorted_groups(buffers)
        interval = self._interval_type()
        x = (v.cast(pa.int64()) if interval is not None else v).to_numpy(zero_copy_only=False).astype(np.float64)
        rows: list[list[float] | float | None] = []
        for start, end in zip(bounds[:-1], bounds[1:]):
            n = end - start
            if n == 0:
                rows.append(None)
                continue
            values = []
            for p in self.percentages:
                position = (1 - p if self.descending else p) * (n - 1)
                lower = int(np.floor(position))
                upper = int(np.ceil(position))
                low, high = x[start + lower], x[start + upper]
                if self.discrete:  # the rank floor((n - 1) * p) from the ordering's start
                    values.append(float(high if self.descending else low))
                else:
                    values.append(float(low + (position - lower) * (high - low)))
            rows.append(values if self.many else values[0])
        if interval is not None:  # Spark truncates the interpolated units toward zero
            return _interval_rows(rows, self.many, interval)
        return pa.array(rows, pa.list_(pa.float64()) if self.many else pa.float64())

    def _interval_type(self) -> DataType | None:
        dt = self.children[0].data_type()
        return type(dt)() if isinstance(dt, AnsiIntervalType) else None

    def data_type(self) -> DataType:
        element = self._interval_type() or DoubleType()
        return ArrayType(element, False) if self.many else element


def _interval_rows(rows: list[Any], many: bool, dt: DataType) -> pa.Array:
    from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - light import at run time only

    def whole(v: float | None) -> int | None:
        return None if v is None else int(v)
    target = to_arrow_type(dt)
    if many:
        return pa.array([None if r is None else [whole(v) for v in r] for r in rows], pa.list_(pa.int64())) \
            .cast(pa.list_(target))
    return pa.array([whole(v) for v in rows], pa.int64()).cast(target)


class PercentileApprox(Percentile):
    """``percentile_approx(v, p, accuracy)``: a value of the group, of the input's type."""

    def __init__(self, child: Expression, percentage: Any, accuracy: int = 10000) -> None:
        super().__init__(child, percentage, "percentile_approx")
        if isinstance(accuracy, bool) or not isinstance(accuracy, int) or accuracy <= 0:
            raise ValueError(f"The accuracy of percentile_approx must be a positive int, got {accuracy!r}")
        self.accuracy = accuracy

    def sql(self) -> str:
        return f"percentile_approx({self.children[0].sql()}, {self.shown_percentage()}, {self.accuracy})"

    def _options(self) -> Any:
        return (*super()._options(), self.accuracy)

    def coerce(self) -> Expression:
        return self

    def finish(self, buffers: list[pa.Array], ctx: EvalContext) -> pa.Array:
        bounds, v = self._sorted_groups(buffers)
        picks: list[int | None] = []
        for start, end in zip(bounds[:-1], bounds[1:]):
            n = int(end - start)
            for p in self.percentages:
                picks.append(int(start) + max(int(np.ceil(p * n)), 1) - 1 if n else None)
        taken = v.take(pa.array(picks, pa.int64()))
        if not self.many:
            return taken
        width = len(self.percentages)
        offsets = pa.array(range(0, len(picks) + 1, width), pa.int32())
        lists = pa.ListArray.from_arrays(offsets, taken)
        empty = pa.array([bounds[i + 1] == bounds[i] for i in range(len(bounds) - 1)], pa.bool_())
        return pc.if_else(empty, pa.nulls(len(lists), lists.type), lists)

    def data_type(self) -> DataType:
        child = self.children[0].data_type()
        return ArrayType(child, False) if self.many else child


class Mode(_ListBased):
    """``mode(v)``: the most frequent non-null value (the smallest of a tie)."""

    name = "mode"
    partial_fn = "list"
    #: Built from SQL's mode() WITHIN GROUP (ORDER BY v [DESC]) (named so); with DESC a tie
    #: goes to the largest value.
    within_group = False
    descending = False

    def finish(self, buffers: list[pa.Array], ctx: EvalContext) -> pa.Array:
        groups, values, n_groups = self.groups_and_values(buffers)
        counts = pa.table({"g": groups, "v": values}).group_by(["g", "v"], use_threads=False).aggregate(
            [([], "count_all")])
        tie = "descending" if self.descending else "ascending"
        return _first_per_group(counts.sort_by([("g", "ascending"), ("count_all", "descending"), ("v", tie)]),
                                "v", n_groups)

    def sql(self) -> str:
        if self.within_group:
            return f"mode() WITHIN GROUP (ORDER BY {self.children[0].sql()}{' DESC' if self.descending else ''})"
        return super().sql()

    def _options(self) -> Any:
        return (self.name, self.distinct, self.descending)

    def data_type(self) -> DataType:
        return self.children[0].data_type()

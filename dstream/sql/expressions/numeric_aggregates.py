"""Aggregates Spark 3.5 and 4.0 added: ``try_sum``, ``try_avg``, ``bit_and``, ``bit_or``,
``bit_xor``, the linear regression family ``regr_count`` ... ``regr_r2``, and ``listagg``
(``string_agg``).

What this module owns
---------------------
Their :class:`AggregateFunction` s: ``try_sum``/``try_avg`` are ``sum``/``avg`` with
Spark's ``try_`` rule; the bitwise ones keep a group's values (partial ``list``) and fold
them with numpy in :meth:`finish`; the ``regr_*`` functions are pairwise aggregates over
``(y, x)`` (the dependent variable first, as in Spark) computed from the same centred
sums as ``corr`` and ``covar_pop``.

Invariants
----------
* ``try_sum`` of integers is null for a group whose true sum leaves bigint's range
  (``sum`` wraps there, or raises under ANSI); otherwise both agree, as do ``try_avg``
  and ``avg``.
* ``bit_*`` take integral input, keep its type, skip nulls and are null over no value.
* ``regr_*`` skip the rows where either input is null; ``regr_count`` counts the others
  (never null), and the rest are null over no such row. ``regr_slope`` and
  ``regr_intercept`` are null when ``x`` does not vary; ``regr_r2`` is null when ``y``
  does not vary, else 1 when ``x`` does not (Spark's rules, checked against PySpark 4.0.1).
* ``listagg`` joins a group's non-null values in the order the rows came (Spark leaves
  the order unspecified without ``WITHIN GROUP``), or with ``WITHIN GROUP (ORDER BY k)``
  in ``k``'s order; its delimiter is a literal.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..types import BinaryType, DataType, DoubleType, LongType, NullType, StringType
from .aggregate_base import AggregateFunction, ArrowAgg
from .aggregates import LIST_CONCAT, Avg, Sum, _counted, _fit, _flatten_groups, _ListBased
from .base import EvalContext, Expression, Literal
from .checks import mismatch, quoted_type
from .coercion import is_integral
from .collection_functions import CreateStruct
from .long_sums import long_overflows, long_sums
from .statistical_aggregates import _doubles_or_null, _Pairwise

__all__ = ["BitAggregate", "ListAgg", "OrderedListAgg", "Regression", "TryAvg", "TrySum", "REGRESSIONS"]



class TrySum(Sum):
    """``try_sum(v)``: ``sum``, but null for a group whose integral sum overflows bigint."""

    name = "try_sum"

    def _exact(self) -> bool:
        return not self.distinct and _counted(self.child.data_type())

    def finish(self, buffers: list[pa.Array], ctx: EvalContext) -> pa.Array:
        if not self._exact() or not is_integral(self.child.data_type()):
            return super().finish(buffers, ctx)  # an interval's overflow is null there (by the name try_sum)
        sums = long_sums(buffers[0], buffers[1], ansi=False)
        overflows = long_overflows(sums, buffers[1])
        return sums if overflows is None else pc.if_else(overflows, pa.scalar(None, pa.int64()), sums)


class TryAvg(Avg):
    """``try_avg(v)``: ``avg`` (whose integral sums are doubles, so they cannot overflow)."""

    name = "try_avg"


_BIT_UFUNCS = {"bit_and": np.bitwise_and, "bit_or": np.bitwise_or, "bit_xor": np.bitwise_xor}


class BitAggregate(_ListBased):
    """``bit_and(v)``, ``bit_or(v)``, ``bit_xor(v)``: the bitwise fold of a group's non-null values."""

    partial_fn = "list"

    def __init__(self, child: Expression, name: str) -> None:
        super().__init__(child)
        self.name = name

    def check_input_types(self) -> None:
        dt = self.children[0].data_type()
        if not is_integral(dt):
            raise mismatch(self, "UNEXPECTED_INPUT_TYPE",
                           f'the first parameter requires the "INTEGRAL" type, however '
                           f'"{self.children[0].sql()}" has the type {quoted_type(dt)}')

    def finish(self, buffers: list[pa.Array], ctx: EvalContext) -> pa.Array:
        groups, values, n_groups = self.groups_and_values(buffers)
        g = groups.to_numpy(zero_copy_only=False).astype(np.int64)
        v = values.cast(pa.int64()).to_numpy(zero_copy_only=False)
        order = np.argsort(g, kind="stable")
        g, v = g[order], v[order]
        result = np.zeros(n_groups, dtype=np.int64)
        present = np.zeros(n_groups, dtype=bool)
        if len(g):
            starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
            result[g[starts]] = _BIT_UFUNCS[self.name].reduceat(v, starts)
            present[g[starts]] = True
        # A fold of values of the input's type fits that type: the cast back cannot fail.
        return _fit(pa.array(result, pa.int64(), mask=~present), self.data_type())

    def data_type(self) -> DataType:
        return self.children[0].data_type()

    def _options(self) -> Any:
        return (self.name, self.distinct)


#: The ``regr_*`` functions and whether their result is a count (bigint, never null).
REGRESSIONS = ("regr_count", "regr_avgx", "regr_avgy", "regr_sxx", "regr_syy", "regr_sxy", "regr_slope",
               "regr_intercept", "regr_r2")


class Regression(_Pairwise):
    """``regr_*(y, x)``: the least-squares statistics of ``y`` on ``x`` (see the module doc)."""

    def finish(self, buffers: list[pa.Array], ctx: EvalContext) -> pa.Array:
        groups, ys, xs, n_groups = self.pairs(buffers)
        keep = pc.and_(pc.is_valid(xs), pc.is_valid(ys))
        g = groups.filter(keep).to_numpy(zero_copy_only=False).astype(np.int64)
        y = ys.filter(keep).to_numpy(zero_copy_only=False).astype(np.float64)
        x = xs.filter(keep).to_numpy(zero_copy_only=False).astype(np.float64)
        n = np.bincount(g, minlength=n_groups).astype(np.float64)
        if self.name == "regr_count":
            return pa.array(n.astype(np.int64), pa.int64())
        with np.errstate(all="ignore"):
            mean_x = np.bincount(g, x, minlength=n_groups) / n
            mean_y = np.bincount(g, y, minlength=n_groups) / n
            dx, dy = x - mean_x[g], y - mean_y[g]
            sxx = np.bincount(g, dx * dx, minlength=n_groups)
            syy = np.bincount(g, dy * dy, minlength=n_groups)
            sxy = np.bincount(g, dx * dy, minlength=n_groups)
            slope = sxy / sxx
            values = {"regr_avgx": mean_x, "regr_avgy": mean_y, "regr_sxx": sxx, "regr_syy": syy,
                      "regr_sxy": sxy, "regr_slope": slope, "regr_intercept": mean_y - slope * mean_x,
                      "regr_r2": np.where(sxx == 0, 1.0, sxy * sxy / (sxx * syy))}[self.name]
        ok = n > 0
        if self.name in ("regr_slope", "regr_intercept"):
            ok &= sxx != 0
        elif self.name == "regr_r2":
            ok &= syy != 0
        return _doubles_or_null(values, ok)

    def data_type(self) -> DataType:
        return LongType() if self.name == "regr_count" else DoubleType()

    @property
    def nullable(self) -> bool:
        return self.name != "regr_count"


class ListAgg(_ListBased):
    """``listagg(v[, delimiter])`` (also ``string_agg``): a group's non-null strings (or binaries)
    joined by ``delimiter`` (nothing when it is null), in input order; null over none."""

    partial_fn = "list"

    def __init__(self, child: Expression, delimiter: Expression, name: str = "listagg",
                 distinct: bool = False) -> None:
        AggregateFunction.__init__(self, [child, delimiter], distinct)
        self.name = name
        if distinct:
            self.partial_fn = "distinct"

    def check_input_types(self) -> None:
        dt, sep = self.children[0].data_type(), self.children[1]
        if not isinstance(dt, (StringType, BinaryType, NullType)):
            raise mismatch(self, "UNEXPECTED_INPUT_TYPE",
                           f'the first parameter requires the ("STRING" or "BINARY") type, however '
                           f'"{self.children[0].sql()}" has the type {quoted_type(dt)}')
        if not isinstance(sep, Literal) or not isinstance(sep.data_type(), (StringType, BinaryType, NullType)):
            raise mismatch(self, "NON_FOLDABLE_INPUT",
                           f'the input `delimiter` should be a foldable "STRING" or "BINARY" expression; however, '
                           f'got "{sep.sql()}"')

    def finish(self, buffers: list[pa.Array], ctx: EvalContext) -> pa.Array:
        groups, values, n_groups = self.groups_and_values(buffers)
        binary = isinstance(self.data_type(), BinaryType)
        delimiter = self._delimiter(binary)
        parts: list[list[Any]] = [[] for _ in range(n_groups)]
        for g, v in zip(groups.to_pylist(), values.to_pylist()):
            parts[g].append(v)
        joined = [delimiter.join(p) if p else None for p in parts]
        return pa.array(joined, pa.binary() if binary else pa.string())

    def data_type(self) -> DataType:
        return BinaryType() if isinstance(self.children[0].data_type(), BinaryType) else StringType()

    def _delimiter(self, binary: bool) -> Any:
        """The literal delimiter as the joined values' type (nothing when it is null)."""
        delimiter = self.children[1].value  # type: ignore[attr-defined]
        if delimiter is None:
            return b"" if binary else ""
        return delimiter.encode("utf-8") if binary and isinstance(delimiter, str) else delimiter


class OrderedListAgg(ListAgg):
    """``listagg(v[, delimiter]) WITHIN GROUP (ORDER BY k [DESC])``: joined in the order of ``k``
    (nulls first ascending and last descending, Spark's defaults; ties in the order rows came)."""

    def __init__(self, value: Expression, delimiter: Expression, order: Expression, descending: bool,
                 name: str = "listagg") -> None:
        AggregateFunction.__init__(self, [CreateStruct([value, order], ["v", "k"]), delimiter], False)
        self.name = name
        self.descending = descending
        self.partial_fn = "list"

    @property
    def pair(self) -> tuple[Expression, Expression]:
        struct = self.children[0]
        return struct.children[0], struct.children[1]

    def check_input_types(self) -> None:
        value = self.pair[0]
        ListAgg(value, self.children[1], self.name).check_input_types()

    def partial_aggs(self) -> list[ArrowAgg]:
        return [("list", None), ("list", None)]

    def partial_input(self, j: int, values: pa.Array) -> pa.Array:
        struct = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
        return struct.field(j)

    def merge_aggs(self) -> list[ArrowAgg]:
        return [(LIST_CONCAT, None), (LIST_CONCAT, None)]

    def finish(self, buffers: list[pa.Array], ctx: EvalContext) -> pa.Array:
        groups, values = _flatten_groups(buffers[0])
        _, keys = _flatten_groups(buffers[1])
        pairs: list[list[tuple[Any, Any]]] = [[] for _ in range(len(buffers[0]))]
        for g, v, k in zip(groups.to_pylist(), values.to_pylist(), keys.to_pylist()):
            if v is not None:
                pairs[g].append((k, v))
        binary = isinstance(self.data_type(), BinaryType)
        delimiter = self._delimiter(binary)
        joined = []
        for group in pairs:
            group.sort(key=lambda kv: (kv[0] is not None, kv[0]), reverse=self.descending)  # stable both ways
            joined.append(delimiter.join(v for _, v in group) if group else None)
        return pa.array(joined, pa.binary() if binary else pa.string())

    def data_type(self) -> DataType:
        return BinaryType() if isinstance(self.pair[0].data_type(), BinaryType) else StringType()

    def sql(self) -> str:
        value, order = self.pair
        direction = " DESC" if self.descending else ""
        return f"{self.name}({value.sql()}, {self.children[1].sql()}) WITHIN GROUP (ORDER BY {order.sql()}{direction})"

    def _options(self) -> Any:
        return (self.name, self.descending)

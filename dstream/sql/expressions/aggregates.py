"""Aggregate functions: ``count``, ``sum``, ``avg``,
``collect_list``, ``collect_set``, ``count(DISTINCT)``, ``approx_count_distinct``, ``stddev_samp``,
``var_samp``.

What this module owns
---------------------
Each function's types, generated name and its three phases under the
:class:`AggregateFunction` contract (Arrow hash aggregations for *partial* and *merge*,
then :meth:`finish`). Functions that need every value of a group (distinct counts,
sets, variances) keep lists: partial ``list``/``distinct`` buffers are merged with
:data:`LIST_CONCAT` (the lists of a group concatenated, by :func:`group_aggregate`,
since Arrow's hash aggregations take no nested input) and :meth:`finish` works on
each group's values.

Invariants
----------
* The partial aggregations read the function's first child only; ``count(*)`` is
  ``count(1)``.
* Over no rows: ``count`` is 0, ``collect_*`` an empty array, everything else null.
* ``collect_list`` (and ``first``/``last`` of :mod:`.value_aggregates`) depend on row order: the operator must run
  Arrow's grouping with ``use_threads=False``.
* Integral sums are ``bigint`` (Arrow's sum wraps on overflow: not checked), ``avg``
  is ``double`` (or a wider decimal).
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..types import AnsiIntervalType, ArrayType, DataType, DecimalType, DoubleType, LongType, NullType, StringType
from ..variant.arrow import as_storage, has_variant, storage_type
from .aggregate_base import AggregateFunction, ArrowAgg
from .base import EvalContext, Expression
from .cast import cast_to
from .checks import mismatch, quoted_type
from .coercion import bounded_decimal, is_integral, is_numeric
from .interval_aggregates import interval_avgs, interval_sums
from .long_sums import long_sums
from .nested_values import as_binary, from_binary, is_nested

__all__ = [
    "LIST_CONCAT",
    "ApproxCountDistinct",
    "Avg",
    "CollectList",
    "CollectSet",
    "Count",
    "CountDistinct",
    "StddevSamp",
    "Sum",
    "VarianceSamp",
    "aggregate_functions",
    "group_aggregate",
]

_VALID = pc.CountOptions(mode="only_valid")
_SUM = pc.ScalarAggregateOptions(skip_nulls=True, min_count=1)


def _arrow(dt: DataType) -> pa.DataType:
    from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - light import at run time only

    return to_arrow_type(dt)


def _fit(values: pa.Array, dt: DataType) -> pa.Array:
    target = _arrow(dt)
    if values.type == target:
        return values
    if has_variant(target):  # buffers of variants are kept as their storage structs
        return values.cast(storage_type(target)).view(target)
    return values.cast(target)


#: The merge step of list buffers: the lists of a group concatenated (in row order). Arrow's
#: hash aggregations take no nested input, so :func:`group_aggregate` implements it.
LIST_CONCAT = "list_concat"


def group_aggregate(table: pa.Table, key_cols: list[str], aggs: list[tuple[str, str, Any]],
                    use_threads: bool = False) -> pa.Table:
    """``table.group_by(key_cols).aggregate(aggs)``, also for :data:`LIST_CONCAT` over list columns.

    The result has the key columns and one ``<column>_<fn>`` column per aggregation, as
    Arrow names them; a ``list_concat`` column holds each group's lists concatenated in
    row order (a group whose lists are all null gets an empty list).
    """
    for index, field in enumerate(table.schema):
        if has_variant(field.type):  # Arrow aggregates no extension type: variants as their storage
            table = table.set_column(index, field.name, as_storage(table.column(index)))
    plain = [(c, fn, o) for c, fn, o in aggs if fn != LIST_CONCAT]
    lists = [c for c, fn, _ in aggs if fn == LIST_CONCAT]
    # An empty column name is an aggregation of no column (``count_all``: the group's rows).
    spec = [([] if not c else c, fn, o) if o is not None else ([] if not c else c, fn) for c, fn, o in plain]
    nested = {c for c, _, _ in plain if c and c not in key_cols and is_nested(table.schema.field(c).type)}
    if nested:
        # Arrow's hash aggregations take no nested values: aggregate their bytes, decode after.
        encoded = table
        for name in nested:
            index = encoded.schema.get_field_index(name)
            encoded = encoded.set_column(index, name, as_binary(encoded.column(name)))
        result = group_aggregate(encoded, key_cols, aggs, use_threads)
        for column, fn, _ in plain:
            out = f"{column}_{fn}"
            index = result.schema.get_field_index(out) if column in nested else -1
            if index >= 0 and (fn in _VALUE_TYPED or fn in ("list", "distinct")):
                value_type = table.schema.field(column).type
                result = result.set_column(index, out, from_binary(result.column(index), value_type))
        return result
    durations = {c for c, _, _ in plain if c and c not in key_cols and pa.types.is_duration(table.schema.field(c).type)}
    if durations:
        # Arrow's hash aggregates have no duration kernels: intervals aggregate as their microseconds.
        return _durations_back(group_aggregate(_durations_as_int64(table, durations), key_cols, aggs, use_threads),
                               table, durations, plain)
    if not lists:
        return table.group_by(key_cols, use_threads=use_threads).aggregate(spec)
    rows = pa.array(range(table.num_rows), pa.int64())
    with_rows = table.append_column("__rows", rows)
    grouped = with_rows.group_by(key_cols, use_threads=False).aggregate(spec + [("__rows", "list")])
    row_lists = grouped.column("__rows_list").combine_chunks()
    flat_rows = pc.list_flatten(row_lists)
    row_offsets = pc.subtract(row_lists.offsets, row_lists.offsets[0]) if len(row_lists) else pa.array([0], pa.int32())
    for name in lists:
        column = table.column(name).combine_chunks().take(flat_rows)
        offsets = column.offsets.take(row_offsets) if len(column) else pa.array([0] * len(row_offsets), pa.int32())
        merged = pa.ListArray.from_arrays(offsets, column.values) if len(column) else pa.ListArray.from_arrays(
            offsets, pa.array([], column.type.value_type))
        grouped = grouped.append_column(f"{name}_{LIST_CONCAT}", merged)
    return grouped.drop_columns(["__rows_list"])


#: Arrow aggregates whose result is one of the input values (of the input's type).
_VALUE_TYPED = frozenset({"min", "max", "first", "last", "one"})


def _durations_as_int64(table: pa.Table, names: set[str]) -> pa.Table:
    for name in names:
        index = table.schema.get_field_index(name)
        table = table.set_column(index, name, table.column(name).cast(pa.int64()))
    return table


def _durations_back(result: pa.Table, source: pa.Table, names: set[str], plain: list[tuple[str, str, Any]]) -> pa.Table:
    """Cast back to its duration type each aggregate of a duration column that keeps the value type."""
    for column, fn, _ in plain:
        if column not in names:
            continue
        out = f"{column}_{fn}"
        index = result.schema.get_field_index(out)
        if index < 0:
            continue
        duration_type = source.schema.field(column).type
        got = result.schema.field(index).type
        if got == pa.int64() and fn in _VALUE_TYPED:
            result = result.set_column(index, out, result.column(index).cast(duration_type))
        elif pa.types.is_list(got) and got.value_type == pa.int64():
            result = result.set_column(index, out, result.column(index).cast(pa.list_(duration_type)))
    return result


def _flatten_groups(buffer: pa.Array) -> tuple[pa.Array, pa.Array]:
    """A merged ``list<T>`` buffer as (group index, value) pairs, null values kept."""
    values = pc.list_flatten(buffer)
    groups = pc.list_parent_indices(buffer)
    return (groups if len(values) else pa.array([], pa.int64())), values


def _per_group(groups: pa.Array, values: pa.Array, n: int, fn: str, opts: Any, out_type: pa.DataType) -> pa.Array:
    """``fn`` over the values of each of ``n`` groups (null for a group without values)."""
    if pa.types.is_duration(values.type):
        values = values.cast(pa.int64())  # no duration kernels: the microseconds, cast back below
    if is_nested(values.type):
        value_type = values.type
        encoded = _per_group(groups, as_binary(values), n, fn, opts,
                             pa.list_(pa.binary()) if pa.types.is_list(out_type) else pa.binary())
        decoded = from_binary(encoded, value_type)
        return decoded if decoded.type == out_type else decoded.cast(out_type)
    table = pa.table({"g": groups.cast(pa.int64()), "v": values})
    agg = table.group_by("g", use_threads=False).aggregate([("v", fn, opts) if opts is not None else ("v", fn)])
    result = pa.nulls(n, out_type)
    if agg.num_rows:
        idx = pc.index_in(pa.array(range(n), pa.int64()), value_set=agg.column("g").combine_chunks())
        result = agg.column(f"v_{fn}").combine_chunks().take(idx)
    return result if result.type == out_type else result.cast(out_type)


class _Simple(AggregateFunction):
    """An aggregate of one input whose buffer merges with the same Arrow function."""

    arrow_fn = ""
    options: Any = None

    def __init__(self, child: Expression, distinct: bool = False) -> None:
        super().__init__([child], distinct)

    @property
    def child(self) -> Expression:
        return self.children[0]

    def partial_aggs(self) -> list[ArrowAgg]:
        return [(self.arrow_fn, self.options)]

    def merge_aggs(self) -> list[ArrowAgg]:
        return [(self.arrow_fn, self.options)]

    def finish(self, buffers: list[pa.Array], ctx: EvalContext) -> pa.Array:
        return _fit(buffers[0], self.data_type())

    def data_type(self) -> DataType:
        return self.child.data_type()

    @property
    def nullable(self) -> bool:
        return True


class Count(AggregateFunction):
    """``count(v)`` (non-null values) and ``count(1)`` for ``count("*")``; never null."""

    name = "count"

    def partial_aggs(self) -> list[ArrowAgg]:
        return [("count", _VALID)]

    def merge_aggs(self) -> list[ArrowAgg]:
        return [("sum", None)]

    def finish(self, buffers: list[pa.Array], ctx: EvalContext) -> pa.Array:
        return pc.fill_null(buffers[0].cast(pa.int64()), 0)

    def data_type(self) -> DataType:
        return LongType()

    @property
    def nullable(self) -> bool:
        return False


class _ListBased(AggregateFunction):
    """Keeps every (distinct) value of a group: partial ``partial_fn``, merged as lists."""

    partial_fn = "distinct"

    def __init__(self, child: Expression, distinct: bool = False) -> None:
        super().__init__([child], distinct)

    def partial_aggs(self) -> list[ArrowAgg]:
        return [(self.partial_fn, _VALID if self.partial_fn == "distinct" else None)]

    def merge_aggs(self) -> list[ArrowAgg]:
        return [(LIST_CONCAT, None)]

    def partial_input(self, j: int, values: pa.Array) -> pa.Array:
        return as_storage(values)  # a variant as its storage struct: Arrow groups no extension type

    def groups_and_values(self, buffers: list[pa.Array]) -> tuple[pa.Array, pa.Array, int]:
        """(group index, value) of every non-null collected value, and the number of groups."""
        groups, values = _flatten_groups(buffers[0])
        keep = pc.is_valid(values)
        return groups.filter(keep), values.filter(keep), len(buffers[0])


class CountDistinct(_ListBased):
    """``count(DISTINCT v)``."""

    name = "count"

    def __init__(self, child: Expression, distinct: bool = True) -> None:
        super().__init__(child, True)

    def partial_input(self, j: int, values: pa.Array) -> pa.Array:
        if isinstance(values.type, pa.ExtensionType):
            # A variant: Arrow groups no extension type; its two parts' bytes stand for it.
            from ..variant.arrow import parts  # noqa: PLC0415 - variants are rare here

            return pa.array([None if p is None else len(p[0]).to_bytes(4, "little") + p[0] + p[1]
                             for p in parts(values)], pa.binary())
        return values

    def finish(self, buffers: list[pa.Array], ctx: EvalContext) -> pa.Array:
        groups, values, n = self.groups_and_values(buffers)
        counts = _per_group(groups, values, n, "count_distinct", pc.CountOptions(mode="only_valid"), pa.int64())
        return pc.fill_null(counts.cast(pa.int64()), 0)

    def data_type(self) -> DataType:
        return LongType()

    @property
    def nullable(self) -> bool:
        return False


class ApproxCountDistinct(CountDistinct):
    """``approx_count_distinct(v)``: computed exactly."""

    name = "approx_count_distinct"

    def sql(self) -> str:
        return f"approx_count_distinct({self.children[0].sql()})"


class CollectSet(_ListBased):
    """``collect_set(v)``: the distinct non-null values of a group."""

    name = "collect_set"

    def finish(self, buffers: list[pa.Array], ctx: EvalContext) -> pa.Array:
        groups, values, n = self.groups_and_values(buffers)
        return self._lists(groups, values, n, "distinct")

    def _lists(self, groups: pa.Array, values: pa.Array, n: int, fn: str) -> pa.Array:
        dt = self.data_type()
        out_type = storage_type(_arrow(dt))  # variants as their storage structs until _fit
        lists = _per_group(groups, values, n, fn, _VALID if fn == "distinct" else None, out_type)
        empty = pa.scalar([], out_type)
        return _fit(pc.if_else(pc.is_null(lists), empty, lists) if n else lists, dt)

    def data_type(self) -> DataType:
        return ArrayType(self.children[0].data_type(), False)

    @property
    def nullable(self) -> bool:
        return False


class CollectList(CollectSet):
    """``collect_list(v)``: the non-null values of a group, in input order."""

    name = "collect_list"
    partial_fn = "list"

    def finish(self, buffers: list[pa.Array], ctx: EvalContext) -> pa.Array:
        groups, values, n = self.groups_and_values(buffers)
        return self._lists(groups, values, n, "list")


class VarianceSamp(_ListBased):
    """``var_samp(v)``: sample variance (null for fewer than two values)."""

    name = "var_samp"
    partial_fn = "list"
    ddof = 1
    min_count = 2  # a sample variance needs two values; a population one (subclass) one

    def __init__(self, child: Expression, distinct: bool = False, name: str | None = None) -> None:
        super().__init__(child, distinct)
        if name is not None:
            self.name = name

    def coerce(self) -> Expression:
        child = cast_to(self.children[0], DoubleType())
        return self if child is self.children[0] else self.with_children([child])

    def finish(self, buffers: list[pa.Array], ctx: EvalContext) -> pa.Array:
        groups, values, n = self.groups_and_values(buffers)
        options = pc.VarianceOptions(ddof=self.ddof, min_count=self.min_count)
        return self._post(_per_group(groups, values, n, "variance", options, pa.float64()))

    def _post(self, variance: pa.Array) -> pa.Array:
        return variance.cast(pa.float64())

    def data_type(self) -> DataType:
        return DoubleType()

    def _options(self) -> Any:
        return (self.name, self.distinct)


class StddevSamp(VarianceSamp):
    """``stddev_samp(v)`` (also ``stddev``)."""

    name = "stddev_samp"

    def _post(self, variance: pa.Array) -> pa.Array:
        return pc.sqrt(variance.cast(pa.float64()))


class Sum(_Simple):
    """``sum(v)``: integral -> bigint, decimal(p, s) -> decimal(p + 10, s), else double; null over no values."""

    name = "sum"
    arrow_fn = "sum"
    options = _SUM

    def coerce(self) -> Expression:
        dt = self.child.data_type()
        if isinstance(dt, (StringType, NullType)):
            return self.with_children([cast_to(self.child, DoubleType())])
        if is_integral(dt) and not isinstance(dt, LongType):
            return self.with_children([cast_to(self.child, LongType())])
        return self

    def check_input_types(self) -> None:
        dt = self.child.data_type()
        if not is_numeric(dt) and not isinstance(dt, AnsiIntervalType):
            raise mismatch(self, "UNEXPECTED_INPUT_TYPE",
                           f'the first parameter requires the "NUMERIC" type, however "{self.child.sql()}" has the '
                           f"type {quoted_type(dt)}")

    def data_type(self) -> DataType:
        dt = self.child.data_type()
        if is_integral(dt):
            return LongType()
        if isinstance(dt, AnsiIntervalType):
            return dt
        if isinstance(dt, DecimalType):
            return bounded_decimal(dt.precision + 10, dt.scale)
        return DoubleType()

    def partial_aggs(self) -> list[ArrowAgg]:
        if self.distinct:
            return [("distinct", _VALID)]
        return [("sum", _SUM), ("sum", _SUM)] if self._exact() else [("sum", _SUM)]

    def merge_aggs(self) -> list[ArrowAgg]:
        if self.distinct:
            return [(LIST_CONCAT, None)]
        return [("sum", _SUM), ("sum", _SUM)] if self._exact() else [("sum", _SUM)]

    @property
    def checks_running_sum(self) -> bool:  # type: ignore[override]
        return self._exact() and self.name == "sum" and not isinstance(self.child.data_type(), AnsiIntervalType)

    def _exact(self) -> bool:
        """Integral sums are checked: Arrow's int64 sum wraps, Spark's overflow is an error.

        Two buffers: the int64 sum (exact modulo 2**64) and a float64 sum beside it, which
        tells whether the true sum left bigint's range (see :func:`.long_sums.long_sums`).
        """
        return not self.distinct and type(self) is Sum and _counted(self.child.data_type())

    def partial_input(self, j: int, values: pa.Array) -> pa.Array:
        if isinstance(self.child.data_type(), AnsiIntervalType):
            values = values.cast(pa.int64())  # an interval sums its months or microseconds
        return values.cast(pa.float64(), safe=False) if j == 1 and self._exact() else values

    def finish(self, buffers: list[pa.Array], ctx: EvalContext) -> pa.Array:
        if self._exact() and isinstance(self.data_type(), AnsiIntervalType):
            return interval_sums(buffers[0], buffers[1], self.data_type(), self.name == "try_sum")
        if self._exact():
            return long_sums(buffers[0], buffers[1], ctx.ansi)
        if self.distinct:
            groups, values = _distinct_values(buffers[0])
            sums = _per_group(groups, values, len(buffers[0]), "sum", _SUM, _arrow(self.data_type()))
            return _fit(sums, self.data_type())
        return _fit(buffers[0], self.data_type())


def _distinct_values(lists: pa.Array) -> tuple[pa.Array, pa.Array]:
    """``(group, value)`` of each distinct non-null value of each group's list buffer."""
    groups, values = _flatten_groups(lists)
    keep = pc.is_valid(values)
    pairs = pa.table({"g": groups.filter(keep), "v": values.filter(keep)}).group_by(["g", "v"]).aggregate([])
    return pairs.column("g").combine_chunks(), pairs.column("v").combine_chunks()




class Avg(Sum):
    """``avg(v)`` (also ``mean``): double, or decimal(p + 4, s + 4) for decimals."""

    name = "avg"

    def coerce(self) -> Expression:
        dt = self.child.data_type()
        if isinstance(dt, DecimalType | DoubleType | AnsiIntervalType):
            return self
        if is_numeric(dt) or isinstance(dt, (StringType, NullType)):
            return self.with_children([cast_to(self.child, DoubleType())])
        return self

    def data_type(self) -> DataType:
        dt = self.child.data_type()
        if isinstance(dt, DecimalType):
            return bounded_decimal(dt.precision + 4, dt.scale + 4)
        if isinstance(dt, AnsiIntervalType):
            return type(dt)()
        return DoubleType()

    def partial_aggs(self) -> list[ArrowAgg]:
        if self.distinct:
            return [("distinct", _VALID)]
        return [("sum", _SUM), ("count", _VALID)]

    def merge_aggs(self) -> list[ArrowAgg]:
        if self.distinct:
            return [(LIST_CONCAT, None)]
        return [("sum", _SUM), ("sum", None)]

    def finish(self, buffers: list[pa.Array], ctx: EvalContext) -> pa.Array:
        if self.distinct:  # avg(DISTINCT v): the sum and count of each group's distinct values
            groups, values = _distinct_values(buffers[0])
            n = len(buffers[0])
            sum_type = pa.decimal128(38, values.type.scale) if pa.types.is_decimal(values.type) else values.type
            buffers = [_per_group(groups, values, n, "sum", _SUM, sum_type),
                       _per_group(groups, values, n, "count", _VALID, pa.int64())]
        total, count = buffers
        count = pc.fill_null(count.cast(pa.int64()), 0)
        nonzero = pc.greater(count, 0)
        dt = self.data_type()
        if isinstance(dt, AnsiIntervalType):
            return interval_avgs(total, count, dt)
        if isinstance(dt, DecimalType):
            from decimal import Decimal, localcontext  # noqa: PLC0415 - only decimals need it

            out: list[Decimal | None] = []
            with localcontext() as dc:
                dc.prec = 80
                for s, c in zip(total.to_pylist(), count.to_pylist()):
                    out.append(None if s is None or not c else (Decimal(s) / c).quantize(
                        Decimal(1).scaleb(-dt.scale), rounding="ROUND_HALF_UP"))
            return pa.array(out, _arrow(dt))
        safe = pc.if_else(nonzero, count, 1).cast(pa.float64())
        return pc.if_else(nonzero, pc.divide(total.cast(pa.float64()), safe), pa.scalar(None, pa.float64()))


def _counted(dt: DataType) -> bool:
    """Whether a sum of ``dt`` is exact integer arithmetic (integral numbers, intervals' stored units)."""
    return is_integral(dt) or isinstance(dt, AnsiIntervalType)


def aggregate_functions(expr: Expression) -> list[AggregateFunction]:
    """The aggregate functions inside ``expr`` (not looking inside an aggregate), first seen first."""
    found: list[AggregateFunction] = []
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, AggregateFunction):
            found.append(node)
            continue
        stack.extend(reversed(node.children))
    return found


def with_distinct(fn: AggregateFunction) -> AggregateFunction:
    """The same aggregate over distinct values (``sum_distinct``...)."""
    if isinstance(fn, Count):
        return CountDistinct(fn.children[0])
    clone = fn.with_children(fn.children)
    assert isinstance(clone, AggregateFunction)
    clone.distinct = True
    return clone



"""Hash aggregation and deduplication.

What this module owns
---------------------
:class:`PartialAggregateExec` and :class:`FinalAggregateExec`, the two halves of
Spark's ``HashAggregateExec`` around a hash exchange on the grouping keys (map-side
partial aggregation, so only one row per group and map task crosses the shuffle), and
:class:`DeduplicateExec` (``distinct``/``dropDuplicates``, in the same two phases).
Both group with Arrow's hash grouping (``pyarrow.Table.group_by``) over each
partition's rows concatenated into one table.

Invariants
----------
* Aggregate functions are driven only through their contract: ``partial_aggs`` over
  the evaluated input columns, ``merge_aggs`` over the partial buffers, ``finish``
  over the merged buffers.
* Null keys form one group; ``-0.0`` and ``0.0``, and all NaNs, are one key each
  (floats are normalized before grouping); struct keys are grouped by their fields.
* Without grouping keys the result has exactly one row, even for no input: the
  functions finish over buffers of nulls (Spark's value over no rows).
* Deduplication keeps, for each key, the first row in partition and batch order.
"""

from __future__ import annotations

import functools
import math
import pickle
from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..expressions.aggregate_base import AggregateFunction
from ..expressions.aggregates import group_aggregate
from ..expressions.base import Alias, AttributeReference, EvalContext, Expression, Literal, column_key, new_expr_id
from ..expressions.long_sums import check_running_sums
from .arrays import arange, concat_batches, constant, table_as_batch
from .context import QueryContext
from .partitioning import normalize_floats
from .physical import PhysicalPlan, as_array, expr_text, key_names

__all__ = ["AggregateSpec", "DeduplicateExec", "FinalAggregateExec", "PartialAggregateExec", "collect_aggregates",
           "first_per_key"]

_GLOBAL_KEY = "__global"


def collect_aggregates(exprs: Sequence[Expression]) -> list[AggregateFunction]:
    """The distinct aggregate functions inside ``exprs`` (not looking inside an aggregate)."""
    found: dict[Any, AggregateFunction] = {}

    def visit(e: Expression) -> None:
        if isinstance(e, AggregateFunction):
            found.setdefault(e.semantic_key(), e)
            return
        for c in e.children:
            visit(c)
    for e in exprs:
        visit(e)
    return list(found.values())


# -- key encoding: what Arrow's hash grouping can group on ------------------------------

def encode_key(name: str, arr: pa.Array, out: dict[str, pa.Array], compact: bool = False) -> None:
    """Add the groupable columns standing for key ``arr`` to ``out`` (floats normalized, structs flattened).

    With ``compact`` a struct without nulls gets no validity column (one grouping column
    less: a window key is grouped on its start and end only); :func:`decode_key` of the
    same table reads its absence as "every struct valid". Callers that compare the
    encodings of two tables (joins) keep ``compact`` off so both have the same columns.
    """
    t = arr.type
    if pa.types.is_struct(t):
        if not (compact and arr.null_count == 0):
            out[name + ".valid"] = arr.is_valid()
        for i in range(t.num_fields):
            child = arr.field(i)
            encode_key(f"{name}.{i}", child if not arr.null_count else pc.if_else(arr.is_valid(), child, None),
                       out, compact)
    elif _nested(t):
        out[name] = _nested_keys(arr)
    elif pa.types.is_null(t):
        out[name] = pa.nulls(len(arr), pa.int8())
    elif pa.types.is_dictionary(t):
        out[name] = normalize_floats(arr.cast(t.value_type))
    else:
        out[name] = normalize_floats(arr)


def _nested(t: pa.DataType) -> bool:
    return pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_map(t)


def _canonical(value: Any) -> Any:
    # Equal keys, equal bytes: -0.0 is 0.0 and every NaN one NaN, as Spark groups them.
    if isinstance(value, float):
        return math.nan if value != value else value + 0.0
    if isinstance(value, list | tuple):
        return type(value)(_canonical(v) for v in value)
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items()}
    return value


def _nested_keys(arr: pa.Array) -> pa.Array:
    """Array and map keys as bytes Arrow can group and join on (its hash kernels take no lists)."""
    return pa.array([None if v is None else pickle.dumps(_canonical(v), protocol=5) for v in arr.to_pylist()],
                    pa.binary())


def _nested_values(keys: pa.Array, arrow_type: pa.DataType) -> pa.Array:
    return pa.array([None if b is None else pickle.loads(b) for b in keys.to_pylist()], arrow_type)


def decode_key(name: str, arrow_type: pa.DataType, grouped: pa.Table) -> pa.Array:
    """The key column ``name`` of type ``arrow_type`` rebuilt from its encoded columns in ``grouped``."""
    if _nested(arrow_type):
        return _nested_values(grouped.column(name).combine_chunks(), arrow_type)
    if pa.types.is_struct(arrow_type):
        fields = [decode_key(f"{name}.{i}", arrow_type.field(i).type, grouped) for i in range(arrow_type.num_fields)]
        if name + ".valid" not in grouped.column_names:  # encoded compactly: no null struct
            return pa.StructArray.from_arrays(fields, fields=list(arrow_type))
        valid = grouped.column(name + ".valid").combine_chunks()
        return pa.StructArray.from_arrays(fields, fields=list(arrow_type), mask=pc.invert(valid))
    col = grouped.column(name).combine_chunks()
    return col if col.type == arrow_type else col.cast(arrow_type)


def _counts_rows(f: AggregateFunction) -> bool:
    """Whether ``f`` is ``count(*)`` (a count of a non-null constant): every row counts."""
    return (type(f).__name__ == "Count" and not f.distinct and len(f.children) == 1
            and isinstance(f.children[0], Literal) and f.children[0].value is not None)

class AggregateSpec:
    """What both phases of one aggregation need, small enough to ship in every task.

    Parameters
    ----------
    grouping : sequence of Expression
        The grouping expressions over the input rows.
    functions : sequence of AggregateFunction
        The distinct aggregate functions over the input rows.
    input_schema : pyarrow.Schema
        The input batches' schema (to aggregate a partition without rows).
    """

    def __init__(self, grouping: Sequence[Expression], functions: Sequence[AggregateFunction],
                 input_schema: pa.Schema) -> None:
        self.grouping = list(grouping)
        self.functions = list(functions)
        self.input_schema = input_schema
        self.key_attrs = [AttributeReference(g.name if isinstance(g, AttributeReference) else g.sql(), g.data_type(),
                                             g.nullable, new_expr_id()) for g in self.grouping]
        self.agg_attrs = [AttributeReference(f.sql(), f.data_type(), True, new_expr_id()) for f in self.functions]

    def partial(self, table: pa.Table, ctx: EvalContext) -> pa.Table:
        """The partial buffers of ``table``'s rows: key columns (by key attribute), then ``b<f>_<j>``."""
        batch = table_as_batch(table)
        rows = batch.num_rows
        cols: dict[str, pa.Array] = {}
        key_types = []
        for i, g in enumerate(self.grouping):
            arr = as_array(g.eval(batch, ctx), rows)
            key_types.append(arr.type)
            encode_key(f"k{i}", arr, cols, compact=True)
        if not self.grouping:
            cols[_GLOBAL_KEY] = constant(rows, 0, pa.int8())
        key_cols = list(cols)
        aggs: list[tuple[str, str, Any]] = []
        counted: dict[str, str] = {}
        for fi, f in enumerate(self.functions):
            if _counts_rows(f):
                # count(*): Arrow counts each group's rows without a column of ones to count.
                counted[f"b{fi}_0"] = "count_all"
                continue
            first = as_array(f.children[0].eval(batch, ctx), rows) if f.children else constant(rows, 1, pa.int8())
            if f.distinct:
                # Spark normalizes distinct inputs as it does grouping keys: 0.0 and -0.0, and all NaNs, are one value.
                first = normalize_floats(first)
            for j, (fn, opts) in enumerate(f.partial_aggs()):
                cols[f"a{fi}_{j}"] = f.partial_input(j, first)
                aggs.append((f"a{fi}_{j}", fn, opts))
        if counted:
            aggs.append(("", "count_all", None))
        if ctx.ansi:
            self._check_running_sums(cols, key_cols, "a")
        # Without Arrow's thread pool (group_aggregate's default), here and in merge: a table
        # built from arrays is one chunk, which one thread groups either way, and starting the
        # others cost 0.03-0.1 ms (pyarrow 26, 100,000 to 1,000,000 rows).
        grouped = group_aggregate(pa.table(cols), key_cols, aggs)
        out: dict[str, pa.Array] = {}
        for i, arrow_type in enumerate(key_types):
            out[column_key(self.key_attrs[i].expr_id)] = decode_key(f"k{i}", arrow_type, grouped)
        buffers = {"b" + col[1:]: grouped.column(f"{col}_{fn}") for col, fn, _ in aggs if col}
        buffers.update({name: grouped.column("count_all") for name in counted})
        for fi, f in enumerate(self.functions):
            for j in range(len(f.partial_aggs())):
                out[f"b{fi}_{j}"] = f.partial_output(j, buffers[f"b{fi}_{j}"], ctx)
        return pa.table(out) if out else grouped.select([])

    def final(self, table: pa.Table | None, ctx: EvalContext) -> pa.Table | None:
        """Merged and finished results: key columns then one column per function (by attribute)."""
        if table is None:
            if self.grouping:
                return None
            table = self.partial(self.input_schema.empty_table(), ctx)
        if ctx.ansi and any(f.checks_running_sum for f in self.functions):
            # The partial sums added in the order they arrived, as Spark's final aggregate adds them.
            keys = {column_key(a.expr_id): table.column(column_key(a.expr_id)).combine_chunks() for a in self.key_attrs}
            sums = {f"b{fi}_0": table.column(f"b{fi}_0").combine_chunks() for fi, f in enumerate(self.functions)
                    if f.checks_running_sum}
            self._check_running_sums({**keys, **sums}, list(keys), "b")
        return self.finish(self.merge(table), ctx)

    def _check_running_sums(self, cols: dict[str, Any], key_cols: list[str], prefix: str) -> None:
        """ANSI ``sum``: the running sums of each group in row order must stay in bigint's range."""
        for fi, f in enumerate(self.functions):
            if f.checks_running_sum:
                check_running_sums(cols[f"{prefix}{fi}_0"], pa.table({k: cols[k] for k in key_cols}))

    def merge(self, table: pa.Table, extra: Sequence[tuple[str, str]] = (), ctx: EvalContext | None = None) -> pa.Table:
        """Partial buffers merged into one row per group, in the partial layout (keys, ``b<f>_<j>``).

        Merging is associative, so merged buffers can be merged again (a streaming
        aggregation merges each batch's buffers into the ones its state holds).
        ``extra`` names more columns of ``table`` and the Arrow aggregate (``"max"``...)
        that combines each of them per group; they come last, under their own names.
        """
        cols: dict[str, pa.Array] = {}
        key_types = []
        for i, a in enumerate(self.key_attrs):
            arr = table.column(column_key(a.expr_id)).combine_chunks()
            key_types.append(arr.type)
            encode_key(f"k{i}", arr, cols, compact=True)
        if not self.grouping:
            cols[_GLOBAL_KEY] = constant(table.num_rows, 0, pa.int8())
        key_cols = list(cols)
        aggs: list[tuple[str, str, Any]] = []
        for fi, f in enumerate(self.functions):
            for j, (fn, opts) in enumerate(f.merge_aggs()):
                cols[f"b{fi}_{j}"] = table.column(f"b{fi}_{j}").combine_chunks()
                aggs.append((f"b{fi}_{j}", fn, opts))
        for name, fn in extra:
            cols[name] = table.column(name).combine_chunks()
            aggs.append((name, fn, None))
        grouped = group_aggregate(pa.table(cols), key_cols, aggs)
        if not self.grouping and grouped.num_rows == 0:
            # An aggregate over no rows: every buffer null, one row.
            grouped = pa.table({c.name: pa.nulls(1, c.type) for c in grouped.schema})
        out: dict[str, pa.Array] = {}
        for i, arrow_type in enumerate(key_types):
            out[column_key(self.key_attrs[i].expr_id)] = decode_key(f"k{i}", arrow_type, grouped)
        context = ctx if ctx is not None else EvalContext()
        for fi, f in enumerate(self.functions):
            for j, (fn, _) in enumerate(f.merge_aggs()):
                out[f"b{fi}_{j}"] = f.merge_output(j, grouped.column(f"b{fi}_{j}_{fn}").combine_chunks(), context)
        for name, fn in extra:
            out[name] = grouped.column(f"{name}_{fn}").combine_chunks()
        return pa.table(out) if out else grouped.select([])

    def finish(self, merged: pa.Table, ctx: EvalContext) -> pa.Table:
        """Final values of merged buffers: key columns then one column per function (by attribute)."""
        out: dict[str, pa.Array] = {}
        for a in self.key_attrs:
            name = column_key(a.expr_id)
            out[name] = merged.column(name).combine_chunks()
        for fi, f in enumerate(self.functions):
            buffers = [merged.column(f"b{fi}_{j}").combine_chunks() for j in range(len(f.merge_aggs()))]
            out[column_key(self.agg_attrs[fi].expr_id)] = as_array(f.finish(buffers, ctx), merged.num_rows)
        return pa.table(out) if out else merged.select([])

    def rewrite(self, expr: Expression) -> Expression:
        """``expr`` (a result expression) reading the final columns instead of computing aggregates."""
        by_function = {f.semantic_key(): a for f, a in zip(self.functions, self.agg_attrs)}
        by_key = {g.semantic_key(): a for g, a in zip(self.grouping, self.key_attrs)}

        def rule(e: Expression) -> Expression | None:
            if isinstance(e, AggregateFunction):
                return by_function[e.semantic_key()]
            if not isinstance(e, Alias):
                return by_key.get(e.semantic_key())
            return None
        return expr.transform_down(rule)


class PartialAggregateExec(PhysicalPlan):
    """``HashAggregate(keys, functions=[partial_...])``: one row of buffers per group and partition."""

    def __init__(self, spec: AggregateSpec, child: PhysicalPlan) -> None:
        self.spec = spec
        self.children = (child,)
        self.output = list(spec.key_attrs)

    def execute(self, qctx: QueryContext) -> Any:
        return self.child.execute(qctx).mapPartitions(functools.partial(_partial_aggregate, self.spec, qctx.eval_ctx))

    def describe(self) -> str:
        keys = ", ".join(expr_text(g) for g in self.spec.grouping)
        funcs = ", ".join(f"partial_{f.sql()}" for f in self.spec.functions)
        return f"HashAggregate(keys=[{keys}], functions=[{funcs}])"


def _partial_aggregate(spec: AggregateSpec, ctx: EvalContext,
                       batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    table = concat_batches(batches)
    if table is None:
        if spec.grouping:
            return
        table = spec.input_schema.empty_table()
    yield from _batches(spec.partial(table, ctx))


def _batches(table: pa.Table) -> list[pa.RecordBatch]:
    if not table.num_columns:
        return [table_as_batch(table)] if table.num_rows else []
    return table.combine_chunks().to_batches() or [pa.RecordBatch.from_pylist([], schema=table.schema)]


class FinalAggregateExec(PhysicalPlan):
    """``HashAggregate(keys, functions)``: merge the partial buffers of each group, finish, project."""

    def __init__(self, spec: AggregateSpec, result: Sequence[Expression], output: Sequence[AttributeReference],
                 child: PhysicalPlan) -> None:
        self.spec = spec
        self.result = list(result)
        self.output = list(output)
        self.children = (child,)

    def execute(self, qctx: QueryContext) -> Any:
        spec, ctx = self.spec, qctx.eval_ctx
        exprs = [spec.rewrite(e) for e in self.result]
        names = key_names(self.output)
        return self.child.execute(qctx).mapPartitions(functools.partial(_final_aggregate, spec, ctx, exprs, names))

    def describe(self) -> str:
        keys = ", ".join(expr_text(g) for g in self.spec.grouping)
        funcs = ", ".join(f.sql() for f in self.spec.functions)
        return f"HashAggregate(keys=[{keys}], functions=[{funcs}])"


def _final_aggregate(spec: AggregateSpec, ctx: EvalContext, exprs: list[Expression], names: list[str],
                     batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    # A module function (bound with functools.partial), so task closures pickle by reference.
    final = spec.final(concat_batches(batches), ctx)
    if final is None or final.num_rows == 0:
        return
    batch = table_as_batch(final)
    arrays = [as_array(e.eval(batch, ctx), batch.num_rows) for e in exprs]
    yield pa.RecordBatch.from_arrays(arrays, names=names) if arrays else batch.select([])


def _deduplicate(keys: list[Expression], ctx: EvalContext,
                 batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    table = concat_batches(batches)
    if table is None or table.num_rows == 0:
        return
    yield from _batches(first_per_key(table, keys, ctx))


class DeduplicateExec(PhysicalPlan):
    """One row per distinct ``keys`` value (the first): run per partition before and after the exchange."""

    def __init__(self, keys: Sequence[Expression], child: PhysicalPlan, final: bool) -> None:
        self.keys = list(keys)
        self.final = final
        self.children = (child,)
        self.output = child.output

    def execute(self, qctx: QueryContext) -> Any:
        return self.child.execute(qctx).mapPartitions(functools.partial(_deduplicate, self.keys, qctx.eval_ctx))

    def describe(self) -> str:
        keys = ", ".join(expr_text(k) for k in self.keys)
        return f"HashAggregate(keys=[{keys}], functions=[])"


def first_per_key(table: pa.Table, keys: Sequence[Expression], ctx: EvalContext) -> pa.Table:
    """The first row of ``table`` for each distinct value of ``keys``, in table order."""
    if not keys:
        return table.slice(0, 1)
    batch = table_as_batch(table)
    cols: dict[str, pa.Array] = {}
    for i, k in enumerate(keys):
        encode_key(f"k{i}", as_array(k.eval(batch, ctx), batch.num_rows), cols)
    key_cols = list(cols)
    cols["__row"] = arange(batch.num_rows)
    firsts = pa.table(cols).group_by(key_cols).aggregate([("__row", "min")]).column("__row_min")
    picks = pc.sort_indices(firsts)
    return table.take(firsts.take(picks))

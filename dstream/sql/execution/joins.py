"""Joins: broadcast hash, shuffled hash and nested-loop joins of every join type.

What this module owns
---------------------
:func:`split_join_condition` (equi-keys and the residual of a join condition),
:class:`JoinSpec` with :meth:`JoinSpec.join` (the join of two in-memory tables),
and the operators :class:`BroadcastHashJoinExec` (one side collected and broadcast;
also the nested-loop join when there are no keys) and :class:`ShuffledHashJoinExec`
(both sides hash-exchanged on the keys, partitions zipped).

Invariants
----------
* A join is computed on row *indices*: Arrow's hash join matches only the key
  columns and two index columns; every output column is then a ``take`` of its
  side's column. So any column type can ride along, and outer, semi and anti joins
  all derive from the one list of matching pairs.
* Null keys never match (except for ``<=>`` keys); ``-0.0`` matches ``0.0`` and NaN
  matches NaN, as in Spark.
* A residual condition (the non-equi part) filters the matching pairs before the
  outer rows are added, so outer joins with a residual are exact.
* A broadcast build side is never the side an outer join preserves.
"""

from __future__ import annotations

import decimal
from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..expressions.base import AttributeReference, EvalContext, Expression, column_key
from .aggregate import encode_key
from .arrays import arange, concat_batches, row_count_table, table_as_batch
from .collect import fetch_ipc
from .context import QueryContext
from .physical import PhysicalPlan, arrow_schema, as_array, conform_batch, expr_text
from .shuffle import from_ipc, to_ipc

__all__ = ["BroadcastHashJoinExec", "JoinSpec", "ShuffledHashJoinExec", "split_join_condition"]

#: Join types whose left rows all appear in the output.
LEFT_PRESERVING = ("left_outer", "full_outer")
#: Join types whose right rows all appear in the output.
RIGHT_PRESERVING = ("right_outer", "full_outer")


def conjuncts(expr: Expression | None) -> list[Expression]:
    """The terms of an ``AND`` chain."""
    if expr is None:
        return []
    if type(expr).__name__ == "And":
        return [t for c in expr.children for t in conjuncts(c)]
    return [expr]


def split_join_condition(condition: Expression | None, left_ids: set[int], right_ids: set[int]
                         ) -> tuple[list[Expression], list[Expression], list[bool], Expression | None]:
    """Left keys, right keys, null-safety per key, and the rest of the condition (``AND`` ed).

    A term is a key when it is ``l = r`` or ``l <=> r`` with ``l`` reading only the left
    side's columns and ``r`` only the right's (either way round).
    """
    left_keys: list[Expression] = []
    right_keys: list[Expression] = []
    null_safe: list[bool] = []
    rest: list[Expression] = []
    for term in conjuncts(condition):
        kind = type(term).__name__
        if kind in ("EqualTo", "EqualNullSafe") and len(term.children) == 2:
            a, b = term.children
            ra, rb = a.references(), b.references()
            if ra and rb and ra <= left_ids and rb <= right_ids:
                left_keys.append(a)
                right_keys.append(b)
                null_safe.append(kind == "EqualNullSafe")
                continue
            if ra and rb and ra <= right_ids and rb <= left_ids:
                left_keys.append(b)
                right_keys.append(a)
                null_safe.append(kind == "EqualNullSafe")
                continue
        rest.append(term)
    residual = None
    for term in rest:
        residual = term if residual is None else _AndOf(residual, term)
    return left_keys, right_keys, null_safe, residual


class _AndOf(Expression):
    """``a AND b`` of two residual terms (Kleene logic, evaluated with Arrow's ``and_kleene``)."""

    def __init__(self, a: Expression, b: Expression) -> None:
        self.children = (a, b)

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return _AndOf(children[0], children[1])

    def sql(self) -> str:
        return f"({self.children[0].sql()} AND {self.children[1].sql()})"

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        return pc.and_kleene(self.children[0].eval(batch, ctx), self.children[1].eval(batch, ctx))


def _common_key_types(left: pa.Array, right: pa.Array) -> tuple[pa.Array, pa.Array]:
    if left.type == right.type:
        return left, right
    if pa.types.is_null(left.type):
        return left.cast(right.type), right
    if pa.types.is_null(right.type):
        return left, right.cast(left.type)
    if pa.types.is_integer(left.type) and pa.types.is_integer(right.type):
        return left.cast(pa.int64()), right.cast(pa.int64())
    if pa.types.is_floating(left.type) or pa.types.is_floating(right.type):
        return left.cast(pa.float64()), right.cast(pa.float64())
    return left, right.cast(left.type)


def _dense_lookup(probe: pa.Array, build: pa.Array) -> tuple[pa.Array, pa.Array] | None:
    """Matches against integer keys that are exactly ``lo..hi`` each once, by arithmetic.

    A surrogate key (a dimension table keyed ``0..n-1`` or ``1..n``) needs no hash table:
    a probe key ``k`` matches build row ``position[k - lo]`` when ``lo <= k <= hi`` (a
    "perfect hash" join). ``None`` when the build keys are not such a dense unique run.
    """
    if not pa.types.is_integer(build.type) or build.null_count or len(build) == 0:
        return None
    bounds = pc.min_max(build)
    lo, hi = bounds["min"].as_py(), bounds["max"].as_py()
    if hi - lo + 1 != len(build):
        return None
    increasing = len(build) == 1 or pc.all(pc.greater(pc.pairwise_diff(build).slice(1), 0)).as_py()
    if increasing:
        order = None
    else:
        # Dense bounds alone allow duplicates; sorted, the keys must be exactly lo..hi.
        order = pc.sort_indices(build)
        steps = pc.pairwise_diff(build.take(order)).slice(1)
        if not pc.all(pc.equal(steps, 1)).as_py():
            return None
    hit = pc.fill_null(pc.and_(pc.greater_equal(probe, lo), pc.less_equal(probe, hi)), False)
    probe_idx = pc.indices_nonzero(hit).cast(pa.int64())
    offsets = pc.subtract(probe.filter(hit).cast(pa.int64()), lo)
    build_idx = offsets if order is None else order.take(offsets).cast(pa.int64())
    return probe_idx, build_idx


def _null_filled(arr: pa.Array) -> pa.Array:
    """``arr`` with nulls replaced by a fixed value of its type (a ``<=>`` key's is_null flag keeps them apart)."""
    if not arr.null_count:
        return arr
    t = arr.type
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        fill = pa.scalar("", t)
    elif pa.types.is_binary(t) or pa.types.is_large_binary(t):
        fill = pa.scalar(b"", t)
    elif pa.types.is_boolean(t):
        fill = pa.scalar(False)
    elif pa.types.is_null(t):
        fill = None
    elif pa.types.is_temporal(t):  # the same zero on both sides (pyarrow 26 casts no int64 to date32)
        fill = pa.array([0], pa.int32() if t.bit_width == 32 else pa.int64()).view(t)[0]
    elif pa.types.is_decimal(t):  # an int64 zero does not fit a narrow decimal
        fill = pa.scalar(decimal.Decimal(0), t)
    else:
        fill = pa.scalar(0).cast(t)
    return arr if fill is None else arr.fill_null(fill)


class JoinSpec:
    """One join, small enough to ship to every task: keys, type, residual and output columns.

    ``sources`` lists, per output column, where it comes from: ``("L", name)``,
    ``("R", name)``, or ``("C", left_name, right_name)`` (a full outer USING key, the
    first non-null of both sides).
    """

    def __init__(self, how: str, left_keys: Sequence[Expression], right_keys: Sequence[Expression],
                 null_safe: Sequence[bool], residual: Expression | None, sources: Sequence[tuple[str, ...]],
                 output_names: Sequence[str]) -> None:
        self.how = how
        self.left_keys = list(left_keys)
        self.right_keys = list(right_keys)
        self.null_safe = list(null_safe)
        self.residual = residual
        self.sources = list(sources)
        self.output_names = list(output_names)

    def _key_arrays(self, left: pa.Table, right: pa.Table, ctx: EvalContext) -> list[tuple[pa.Array, pa.Array]]:
        """Each equi-key's values on both sides, cast to one type (evaluated once per join)."""
        lb, rb = table_as_batch(left), table_as_batch(right)
        return [_common_key_types(as_array(lk.eval(lb, ctx), lb.num_rows), as_array(rk.eval(rb, ctx), rb.num_rows))
                for lk, rk in zip(self.left_keys, self.right_keys)]

    def _key_tables(self, left: pa.Table, right: pa.Table,
                    keys: list[tuple[pa.Array, pa.Array]]) -> tuple[pa.Table, pa.Table]:
        lcols: dict[str, pa.Array] = {}
        rcols: dict[str, pa.Array] = {}
        for i, (la, ra) in enumerate(keys):
            lenc: dict[str, pa.Array] = {}
            renc: dict[str, pa.Array] = {}
            encode_key(f"k{i}", la, lenc)
            encode_key(f"k{i}", ra, renc)
            if self.null_safe[i]:
                lcols[f"l{i}.null"], rcols[f"r{i}.null"] = la.is_null(), ra.is_null()
                lenc = {n: _null_filled(a) for n, a in lenc.items()}
                renc = {n: _null_filled(a) for n, a in renc.items()}
            lcols.update({"l" + n[1:]: a for n, a in lenc.items()})
            rcols.update({"r" + n[1:]: a for n, a in renc.items()})
        lcols["__li"] = arange(left.num_rows)
        rcols["__ri"] = arange(right.num_rows)
        return pa.table(lcols), pa.table(rcols)

    def _unique_key_pairs(self, keys: list[tuple[pa.Array, pa.Array]]) -> tuple[pa.Array, pa.Array] | None:
        """The matching pairs by a hash lookup, when one key column of one side is unique.

        A dimension table joined on its primary key is the common case: looking each row's
        key up in the unique side's keys (``index_in``) finds its one partner without a
        general hash join. Floating keys are left to the join (NaN and -0.0 need their
        normalised encoding); ``None`` means this shortcut does not apply.
        """
        if len(keys) != 1 or self.null_safe[0]:
            return None
        la, ra = keys[0]
        t = la.type
        if not (pa.types.is_integer(t) or pa.types.is_string(t) or pa.types.is_large_string(t)
                or pa.types.is_date(t) or pa.types.is_timestamp(t) or pa.types.is_boolean(t)):
            return None
        for probe, build, build_is_right in ((la, ra, True), (ra, la, False)):
            dense = _dense_lookup(probe, build)
            if dense is not None:
                probe_idx, build_idx = dense
                return (probe_idx, build_idx) if build_is_right else (build_idx, probe_idx)
            valid = len(build) - build.null_count
            if pc.count_distinct(build, mode="only_valid").as_py() != valid:
                continue
            found = pc.index_in(probe, value_set=build, skip_nulls=True)
            hit = found.is_valid()
            probe_idx = pc.indices_nonzero(hit).cast(pa.int64())
            build_idx = found.filter(hit).cast(pa.int64())
            return (probe_idx, build_idx) if build_is_right else (build_idx, probe_idx)
        return None

    def matching_pairs(self, left: pa.Table, right: pa.Table, ctx: EvalContext) -> tuple[pa.Array, pa.Array]:
        """The (left index, right index) of every pair satisfying the whole condition."""
        keys = self._key_arrays(left, right, ctx) if self.left_keys else []
        fast = self._unique_key_pairs(keys) if keys else None
        if fast is not None:
            li, ri = fast
        elif keys:
            lt, rt = self._key_tables(left, right, keys)
            lnames = [n for n in lt.column_names if n != "__li"]
            rnames = ["r" + n[1:] for n in lnames]
            joined = lt.join(rt, keys=lnames, right_keys=rnames, join_type="inner", coalesce_keys=False)
            li = joined.column("__li").combine_chunks()
            ri = joined.column("__ri").combine_chunks()
        else:
            nl, nr = left.num_rows, right.num_rows
            positions = arange(nl * nr)
            li = pc.divide(positions, nr) if nr else positions
            ri = pc.subtract(positions, pc.multiply(li, nr)) if nr else positions
        if self.residual is not None and len(li):
            cols = {n: left.column(n).take(li) for n in left.column_names}
            cols.update({n: right.column(n).take(ri) for n in right.column_names})
            combined = table_as_batch(pa.table(cols)) if cols else pa.record_batch({"_": pa.nulls(len(li))})
            mask = as_array(self.residual.eval(combined, ctx), len(li))
            keep = pc.fill_null(mask.cast(pa.bool_()), False)
            li, ri = li.filter(keep), ri.filter(keep)
        return li, ri

    def join(self, left: pa.Table, right: pa.Table, ctx: EvalContext) -> pa.Table:
        """The joined rows of two tables, columns named by :attr:`output_names`."""
        li, ri = self.matching_pairs(left, right, ctx)
        how = self.how
        if how in ("left_semi", "left_anti"):
            everyone = arange(left.num_rows)
            matched = pc.is_in(everyone, value_set=li)
            li = everyone.filter(matched if how == "left_semi" else pc.invert(matched))
            ri = pa.nulls(len(li), pa.int64())
        else:
            extra_l, extra_r = [li], [ri]
            if how in LEFT_PRESERVING:
                lonely = arange(left.num_rows).filter(pc.invert(pc.is_in(arange(left.num_rows), value_set=li)))
                extra_l.append(lonely)
                extra_r.append(pa.nulls(len(lonely), pa.int64()))
            if how in RIGHT_PRESERVING:
                lonely = arange(right.num_rows).filter(pc.invert(pc.is_in(arange(right.num_rows), value_set=ri)))
                extra_l.append(pa.nulls(len(lonely), pa.int64()))
                extra_r.append(lonely)
            li = pa.concat_arrays([a.cast(pa.int64()) for a in extra_l])
            ri = pa.concat_arrays([a.cast(pa.int64()) for a in extra_r])
        cols: dict[str, pa.Array] = {}
        for name, source in zip(self.output_names, self.sources):
            if source[0] == "L":
                cols[name] = left.column(source[1]).take(li)
            elif source[0] == "R":
                cols[name] = right.column(source[1]).take(ri)
            else:
                cols[name] = pc.coalesce(left.column(source[1]).take(li), right.column(source[2]).take(ri))
        return pa.table(cols) if cols else row_count_table(len(li))


def join_sources(output: Sequence[AttributeReference], left: Sequence[AttributeReference],
                 right: Sequence[AttributeReference],
                 using: Sequence[tuple[AttributeReference, AttributeReference]]) -> list[tuple[str, ...]]:
    """Where each output column of a join comes from (see :class:`JoinSpec`)."""
    left_ids = {a.expr_id for a in left}
    right_ids = {a.expr_id for a in right}
    pair_of = {}
    for pos, (l_attr, r_attr) in enumerate(using):
        pair_of[pos] = (column_key(l_attr.expr_id), column_key(r_attr.expr_id))
    sources: list[tuple[str, ...]] = []
    for i, a in enumerate(output):
        if a.expr_id in left_ids:
            sources.append(("L", column_key(a.expr_id)))
        elif a.expr_id in right_ids:
            sources.append(("R", column_key(a.expr_id)))
        elif i in pair_of:
            sources.append(("C",) + pair_of[i])
        else:
            raise ValueError(f"join output column {a!r} comes from neither side")
    return sources


def _describe(name: str, spec: JoinSpec, extra: str) -> str:
    keys_l = ", ".join(expr_text(k) for k in spec.left_keys)
    keys_r = ", ".join(expr_text(k) for k in spec.right_keys)
    how = {"inner": "Inner", "left_outer": "LeftOuter", "right_outer": "RightOuter", "full_outer": "FullOuter",
           "left_semi": "LeftSemi", "left_anti": "LeftAnti", "cross": "Cross"}[spec.how]
    cond = "" if spec.residual is None else f", {expr_text(spec.residual)}"
    if not spec.left_keys:
        return f"BroadcastNestedLoopJoin {extra}, {how}{cond}"
    return f"{name} [{keys_l}], [{keys_r}], {how}, {extra}{cond}"


class BroadcastHashJoinExec(PhysicalPlan):
    """``BroadcastHashJoin``: the ``build`` side (``"left"``/``"right"``) collected, broadcast, joined per partition."""

    def __init__(self, spec: JoinSpec, build: str, left: PhysicalPlan, right: PhysicalPlan,
                 output: Sequence[AttributeReference]) -> None:
        self.spec = spec
        self.build = build
        self.children = (left, right)
        self.output = list(output)

    def execute(self, qctx: QueryContext) -> Any:
        left, right = self.children
        build_plan, stream_plan = (right, left) if self.build == "right" else (left, right)
        schema = arrow_schema(build_plan.output)
        batches = [conform_batch(b, schema) if len(schema) else b
                   for data in fetch_ipc(build_plan.execute(qctx)) for b in from_ipc(data)]
        shared = qctx.sc.broadcast(to_ipc(batches, schema))
        spec, ctx, build_right = self.spec, qctx.eval_ctx, self.build == "right"
        stream_schema = arrow_schema(stream_plan.output)

        def run(items: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            stream = concat_batches(items)
            if stream is None or stream.num_rows == 0:
                return
            stream = stream.cast(stream_schema) if stream.schema != stream_schema and len(stream_schema) else stream
            built = pa.ipc.open_stream(pa.py_buffer(shared.value)).read_all().combine_chunks()
            out = spec.join(stream, built, ctx) if build_right else spec.join(built, stream, ctx)
            yield from _nonempty_batches(out)
        return stream_plan.execute(qctx).mapPartitions(run)

    def estimated_size(self) -> int:
        return min(1 << 62, sum(c.estimated_size() for c in self.children))

    def describe(self) -> str:
        return _describe("BroadcastHashJoin", self.spec, "BuildRight" if self.build == "right" else "BuildLeft")


def _nonempty_batches(table: pa.Table) -> list[pa.RecordBatch]:
    if not table.num_columns:
        return [table_as_batch(table)] if table.num_rows else []
    return [b for b in table.combine_chunks().to_batches() if b.num_rows]


class ShuffledHashJoinExec(PhysicalPlan):
    """``ShuffledHashJoin``: children already partitioned alike on the keys; partition ``i`` joins ``i``."""

    def __init__(self, spec: JoinSpec, left: PhysicalPlan, right: PhysicalPlan,
                 output: Sequence[AttributeReference]) -> None:
        self.spec = spec
        self.children = (left, right)
        self.output = list(output)

    def execute(self, qctx: QueryContext) -> Any:
        left, right = self.children
        lschema, rschema = arrow_schema(left.output), arrow_schema(right.output)
        spec, ctx = self.spec, qctx.eval_ctx

        def run(lit: Iterator[pa.RecordBatch], rit: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            lt = concat_batches(lit)
            rt = concat_batches(rit)
            if lt is None and rt is None:
                return
            lt = lschema.empty_table() if lt is None else lt
            rt = rschema.empty_table() if rt is None else rt
            yield from _nonempty_batches(spec.join(lt, rt, ctx))
        return left.execute(qctx).zipPartitions(right.execute(qctx), f=run)

    def estimated_size(self) -> int:
        return min(1 << 62, sum(c.estimated_size() for c in self.children))

    def describe(self) -> str:
        return _describe("ShuffledHashJoin", self.spec, "BuildRight")

"""Physical operators: the base class and the narrow (per-partition) operators.

What this module owns
---------------------
:class:`PhysicalPlan` (what every operator is: its output attributes, ``execute``
into an RDD of Arrow record batches, its ``explain`` line) and the operators that
work partition by partition without moving data: :class:`ProjectExec`,
:class:`FilterExec`, :class:`LocalLimitExec`, :class:`GlobalLimitExec`,
:class:`UnionExec`, :class:`SampleExec`, :class:`CoalesceExec` and
:class:`GenerateExec`.

Invariants
----------
* ``execute(qctx)`` returns an RDD whose records are ``pyarrow.RecordBatch`` es with
  one column per output attribute, named :func:`column_key` of its id, in order. A
  partition may hold any number of batches (none too); batches are never empty of
  columns unless the operator has no output columns, and then they keep their rows.
* Narrow operators are ``mapPartitions`` steps, so the engine runs a chain of them in
  one task. The functions shipped to tasks close over expressions and the
  :class:`EvalContext` only, never over the SparkContext or the plan.
* A filter keeps a row only where its condition is true: null counts as false.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..arrow_convert import to_arrow_type
from ..expressions.base import AttributeReference, EvalContext, Expression, column_key
from ..kernels.xorshift import XORShiftRandom
from ..plan.logical import named_output
from .arrays import arange, constant
from .context import QueryContext

__all__ = [
    "CoalesceExec",
    "ExpandExec",
    "FilterExec",
    "GenerateExec",
    "GlobalLimitExec",
    "LocalLimitExec",
    "PhysicalPlan",
    "ProjectExec",
    "SampleExec",
    "UnionExec",
    "arrow_schema",
    "as_array",
    "key_names",
]

#: Size estimate of a plan whose size is unknown (never broadcast).
UNKNOWN_SIZE = 1 << 62


def key_names(attrs: Sequence[AttributeReference]) -> list[str]:
    """The record-batch column names of ``attrs``."""
    return [column_key(a.expr_id) for a in attrs]


def arrow_schema(attrs: Sequence[AttributeReference]) -> pa.Schema:
    """The Arrow schema of batches holding ``attrs``."""
    return pa.schema([pa.field(column_key(a.expr_id), to_arrow_type(a.dtype)) for a in attrs])


def as_array(value: Any, length: int) -> pa.Array:
    """An evaluation result as one contiguous array of ``length`` values."""
    if isinstance(value, pa.ChunkedArray):
        return value.combine_chunks()
    if isinstance(value, pa.Scalar):
        return pa.repeat(value, length) if hasattr(pa, "repeat") else constant(length, value.as_py(), value.type)
    return value


def _attrs_text(attrs: Sequence[AttributeReference]) -> str:
    return ", ".join(repr(a) for a in attrs)


def expr_text(expr: Expression) -> str:
    """An expression as ``explain`` shows it (attributes with their ids)."""
    if isinstance(expr, AttributeReference):
        return repr(expr)
    name = getattr(expr, "name", None)
    if hasattr(expr, "to_attribute") and name is not None and expr.children:
        return f"{expr_text(expr.children[0])} AS {name}#{getattr(expr, 'expr_id', '')}"
    return repr(expr)


class PhysicalPlan:
    """An operator of a physical plan.

    Subclasses set :attr:`children` and :attr:`output` and implement :meth:`execute`
    and :meth:`describe`.
    """

    children: tuple[PhysicalPlan, ...] = ()
    output: list[AttributeReference]

    def execute(self, qctx: QueryContext) -> Any:
        """The RDD of record batches this operator produces."""
        raise NotImplementedError(f"{type(self).__name__}.execute")

    def describe(self) -> str:
        """The operator's line in ``explain()``."""
        return type(self).__name__

    def estimated_size(self) -> int:
        """Estimated bytes of the output (for the broadcast decision); :data:`UNKNOWN_SIZE` if unknown."""
        sizes = [c.estimated_size() for c in self.children]
        return max(sizes) if sizes else UNKNOWN_SIZE

    def tree_string(self) -> str:
        """The plan as Spark's ``explain`` prints it: one operator a line, children under ``+-``."""
        lines: list[str] = []
        self._tree_lines(lines, "", "")
        return "\n".join(lines)

    def _tree_lines(self, lines: list[str], first: str, rest: str) -> None:
        lines.append(first + self.describe())
        for i, child in enumerate(self.children):
            last = i == len(self.children) - 1
            child._tree_lines(lines, rest + ("+- " if last else ":- "), rest + ("   " if last else ":  "))

    @property
    def child(self) -> PhysicalPlan:
        return self.children[0]

    def __repr__(self) -> str:
        return self.tree_string()


def _each_batch(fn: Callable[[pa.RecordBatch], pa.RecordBatch | None],
                batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    for batch in batches:
        out = fn(batch)
        if out is not None:
            yield out


def map_batches(rdd: Any, fn: Callable[[pa.RecordBatch], pa.RecordBatch | None]) -> Any:
    """``rdd`` with ``fn`` applied to every batch (``None`` results dropped)."""
    # Partials of module-level functions, not closures: a task's functions are pickled for
    # every job, and a module-level function pickles by reference.
    return rdd.mapPartitions(functools.partial(_each_batch, fn))


def project_batch(batch: pa.RecordBatch, exprs: Sequence[Expression], names: Sequence[str],
                  ctx: EvalContext) -> pa.RecordBatch:
    """``exprs`` evaluated over ``batch`` as a batch with columns ``names``."""
    if not exprs:
        return batch.select([])
    arrays = [as_array(e.eval(batch, ctx), batch.num_rows) for e in exprs]
    return pa.RecordBatch.from_arrays(arrays, names=list(names))


def _project(exprs: Sequence[Expression], names: Sequence[str], ctx: EvalContext,
             batch: pa.RecordBatch) -> pa.RecordBatch:
    return project_batch(batch, exprs, names, ctx)


def _filter(condition: Expression, ctx: EvalContext, batch: pa.RecordBatch) -> pa.RecordBatch | None:
    out = filter_batch(batch, condition, ctx)
    return out if out.num_rows else None


def filter_batch(batch: pa.RecordBatch, condition: Expression, ctx: EvalContext) -> pa.RecordBatch:
    """The rows of ``batch`` where ``condition`` is true (null is false)."""
    mask = as_array(condition.eval(batch, ctx), batch.num_rows)
    if not pa.types.is_boolean(mask.type):
        mask = mask.cast(pa.bool_())
    if mask.null_count == 0 and mask.true_count == len(mask):
        return batch  # every row passes (``t IS NOT NULL`` over a column without nulls): no copy
    return batch.filter(mask, null_selection_behavior="drop")


class ProjectExec(PhysicalPlan):
    """``Project [exprs]``: one output column per named expression."""

    def __init__(self, exprs: Sequence[Expression], child: PhysicalPlan) -> None:
        self.exprs = list(exprs)
        self.children = (child,)
        self.output = [named_output(e) for e in self.exprs]

    def execute(self, qctx: QueryContext) -> Any:
        exprs, names, ctx = self.exprs, key_names(self.output), qctx.eval_ctx
        return map_batches(self.child.execute(qctx), functools.partial(_project, exprs, names, ctx))

    def describe(self) -> str:
        return f"Project [{', '.join(expr_text(e) for e in self.exprs)}]"


class FilterExec(PhysicalPlan):
    """``Filter cond``: rows whose condition is true."""

    def __init__(self, condition: Expression, child: PhysicalPlan) -> None:
        self.condition = condition
        self.children = (child,)
        self.output = child.output

    def execute(self, qctx: QueryContext) -> Any:
        return map_batches(self.child.execute(qctx), functools.partial(_filter, self.condition, qctx.eval_ctx))

    def describe(self) -> str:
        return f"Filter {expr_text(self.condition)}"


def take_rows(batches: Iterator[pa.RecordBatch], n: int, skip: int = 0) -> Iterator[pa.RecordBatch]:
    """The rows ``skip`` to ``skip + n`` of a stream of batches (stops reading after them);
    ``n`` negative: every row after ``skip`` (``offset`` without ``limit``)."""
    for batch in batches:
        if n == 0:
            return
        if skip >= batch.num_rows:
            skip -= batch.num_rows
            continue
        part = batch.slice(skip) if n < 0 else batch.slice(skip, n)
        skip = 0
        if n > 0:
            n -= part.num_rows
        yield part


class LocalLimitExec(PhysicalPlan):
    """``LocalLimit n``: at most ``n`` rows of each partition."""

    def __init__(self, n: int, child: PhysicalPlan) -> None:
        self.n = n
        self.children = (child,)
        self.output = child.output

    def execute(self, qctx: QueryContext) -> Any:
        n = self.n
        return self.child.execute(qctx).mapPartitions(lambda it: take_rows(it, n))

    def describe(self) -> str:
        return f"LocalLimit {self.n}"


class GlobalLimitExec(PhysicalPlan):
    """``GlobalLimit n``: the first ``n`` rows after ``offset`` of a single-partition child."""

    def __init__(self, n: int, child: PhysicalPlan, offset: int = 0) -> None:
        self.n = n
        self.offset = offset
        self.children = (child,)
        self.output = child.output

    def execute(self, qctx: QueryContext) -> Any:
        n, offset = self.n, self.offset
        return self.child.execute(qctx).mapPartitions(lambda it: take_rows(it, n, offset))

    def estimated_size(self) -> int:
        return min(self.child.estimated_size(), max(1, self.n) * 8 * max(1, len(self.output)))

    def describe(self) -> str:
        return f"GlobalLimit {self.n}" + (f", {self.offset}" if self.offset else "")


def conform_batch(batch: pa.RecordBatch, schema: pa.Schema) -> pa.RecordBatch:
    """``batch``'s columns renamed (by position) and cast to ``schema``."""
    if not len(schema):
        return batch.select([])
    arrays = [c if c.type == f.type else c.cast(f.type) for c, f in zip(batch.columns, schema)]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


class UnionExec(PhysicalPlan):
    """``Union``: the partitions of every child, columns renamed to the first child's ids."""

    def __init__(self, children: Sequence[PhysicalPlan], output: Sequence[AttributeReference]) -> None:
        self.children = tuple(children)
        self.output = list(output)

    def execute(self, qctx: QueryContext) -> Any:
        schema = arrow_schema(self.output)
        rdds = [map_batches(c.execute(qctx), lambda b: conform_batch(b, schema)) for c in self.children]
        return qctx.sc.union(rdds) if len(rdds) > 1 else rdds[0]

    def estimated_size(self) -> int:
        return min(UNKNOWN_SIZE, sum(c.estimated_size() for c in self.children))

    def describe(self) -> str:
        return "Union"


class CoalesceExec(PhysicalPlan):
    """``Coalesce n``: fewer partitions without a shuffle."""

    def __init__(self, n: int, child: PhysicalPlan) -> None:
        self.n = n
        self.children = (child,)
        self.output = child.output

    def execute(self, qctx: QueryContext) -> Any:
        return self.child.execute(qctx).coalesce(self.n)

    def describe(self) -> str:
        return f"Coalesce {self.n}"


class SampleExec(PhysicalPlan):
    """``Sample``: each row kept when its draw is in ``[lower, fraction)`` (or repeated, Poisson-distributed)."""

    def __init__(self, fraction: float, with_replacement: bool, seed: int, child: PhysicalPlan,
                 lower: float = 0.0) -> None:
        self.fraction = fraction
        self.with_replacement = with_replacement
        self.seed = seed
        self.lower = lower
        self.children = (child,)
        self.output = child.output

    def execute(self, qctx: QueryContext) -> Any:
        fraction, replace, seed, lower = self.fraction, self.with_replacement, self.seed, self.lower

        def run(index: int, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            rng = random.Random(seed * 1000003 + index)
            # Spark's BernoulliCellSampler: XORShiftRandom(seed + partition), one draw per row in order.
            cells = XORShiftRandom(seed + index)
            for batch in batches:
                if replace:
                    counts = [_poisson(rng, fraction) for _ in range(batch.num_rows)]
                    indices = [i for i, c in enumerate(counts) for _ in range(c)]
                    out = batch.take(pa.array(indices, pa.int64()))
                else:
                    draws = pa.array(cells.doubles(batch.num_rows), pa.float64())
                    keep = pc.less(draws, fraction)
                    out = batch.filter(pc.and_(pc.greater_equal(draws, lower), keep) if lower else keep)
                if out.num_rows:
                    yield out
        return self.child.execute(qctx).mapPartitionsWithIndex(run)

    def describe(self) -> str:
        return f"Sample {self.lower}, {self.fraction}, {str(self.with_replacement).lower()}, {self.seed}"


def _poisson(rng: random.Random, mean: float) -> int:
    """A Poisson draw by Knuth's method (means are sampling fractions, small)."""
    limit, k, p = pow(2.718281828459045, -mean), 0, 1.0
    while True:
        p *= rng.random()
        if p <= limit:
            return k
        k += 1


def _generate_batch(gen: Any, ctx: EvalContext, outer: bool, keep: list[str], names: list[str],
                    out_types: list[pa.DataType], batch: pa.RecordBatch) -> pa.RecordBatch | None:
    # A module function bound with functools.partial: task closures pickle by reference.
    parents, arrays = generate(gen, batch, ctx, outer)
    arrays = [a if a.type == t else a.cast(t) for a, t in zip(arrays, out_types)]
    kept = [batch.column(k).take(parents) for k in keep]
    out = pa.RecordBatch.from_arrays(kept + arrays, names=names) if names else batch.take(parents).select([])
    return out if out.num_rows else None


class GenerateExec(PhysicalPlan):
    """``Generate explode(...)``: each input row repeated once per generated value.

    The generator either implements ``generate(batch, ctx) -> (parent_indices,
    arrays)`` itself, or is an ``explode``/``posexplode`` of its first child (a list
    or map column), recognised by its ``name``.
    """

    def __init__(self, generator: Expression, outer: bool, generator_output: Sequence[AttributeReference],
                 child_output: Sequence[AttributeReference], child: PhysicalPlan) -> None:
        self.generator = generator
        self.outer = outer
        self.generator_output = list(generator_output)
        self.child_output = list(child_output)
        self.children = (child,)
        self.output = self.child_output + self.generator_output

    def execute(self, qctx: QueryContext) -> Any:
        gen, outer, ctx = self.generator, self.outer, qctx.eval_ctx
        keep = key_names(self.child_output)
        names = keep + key_names(self.generator_output)
        out_types = [to_arrow_type(a.dtype) for a in self.generator_output]

        per_partition = getattr(gen, "run_partition", None)
        if per_partition is not None:  # a Python UDTF: one instance over the partition, terminate at its end
            return self.child.execute(qctx).mapPartitions(functools.partial(per_partition, ctx, keep, names))
        run = functools.partial(_generate_batch, gen, ctx, outer, keep, names, out_types)
        return map_batches(self.child.execute(qctx), run)

    def describe(self) -> str:
        return (f"Generate {expr_text(self.generator)}, [{_attrs_text(self.child_output)}], "
                f"{str(self.outer).lower()}, [{_attrs_text(self.generator_output)}]")


def generate(gen: Expression, batch: pa.RecordBatch, ctx: EvalContext,
             outer: bool) -> tuple[pa.Array, list[pa.Array]]:
    """The parent row index of every generated row, and the generated columns."""
    custom = getattr(gen, "generate", None)
    if custom is not None:
        parents, arrays = custom(batch, ctx)
        return parents, list(arrays)
    values = as_array(gen.children[0].eval(batch, ctx), batch.num_rows)
    position = "pos" in str(getattr(gen, "name", type(gen).__name__)).lower()
    flat = pc.list_flatten(values)
    parents = pc.list_parent_indices(values).cast(pa.int64())
    generated = [flat.field(0), flat.field(1)] if pa.types.is_map(values.type) else [flat]
    if position:
        generated = [_positions(values, parents)] + generated
    if outer:
        # A null or empty collection still yields one row, of nulls, in its place.
        empty = pc.equal(pc.fill_null(pc.list_value_length(values), 0), 0)
        extra = arange(len(values)).filter(empty)
        if len(extra):
            parents = pa.concat_arrays([parents, extra])
            generated = [pa.concat_arrays([g, pa.nulls(len(extra), g.type)]) for g in generated]
            order = pc.sort_indices(parents)
            parents = parents.take(order)
            generated = [g.take(order) for g in generated]
    return parents, generated


def _positions(lists: pa.Array, parents: pa.Array) -> pa.Array:
    """The index of each flattened element within its own list."""
    if not len(parents):
        return pa.array([], pa.int32())
    offsets = lists.offsets
    starts = pc.take(pc.subtract(offsets[:-1], offsets[0]).cast(pa.int64()), parents)
    return pc.subtract(arange(len(parents)), starts).cast(pa.int32())


def _expand_batches(batches: Iterator[pa.RecordBatch], projections: list[list[Expression]], names: list[str],
                    types: list[pa.DataType], ctx: EvalContext) -> Iterator[pa.RecordBatch]:
    for batch in batches:
        rows = batch.num_rows
        for projection in projections:
            arrays = []
            for expr, arrow_type in zip(projection, types):
                values = as_array(expr.eval(batch, ctx), rows)
                arrays.append(values if values.type == arrow_type else values.cast(arrow_type))
            yield pa.RecordBatch.from_arrays(arrays, names=names)


class ExpandExec(PhysicalPlan):
    """``Expand``: each row once per projection (``cube``/``rollup``'s grouping sets)."""

    def __init__(self, projections: Sequence[Sequence[Expression]], output: Sequence[AttributeReference],
                 child: PhysicalPlan) -> None:
        self.projections = [list(p) for p in projections]
        self.children = (child,)
        self.output = list(output)

    def execute(self, qctx: QueryContext) -> Any:
        expand = functools.partial(_expand_batches, projections=self.projections, names=key_names(self.output),
                                   types=[to_arrow_type(a.dtype) for a in self.output], ctx=qctx.eval_ctx)
        return self.child.execute(qctx).mapPartitions(expand)

    def describe(self) -> str:
        sets = ", ".join("[" + ", ".join(expr_text(e) for e in p) + "]" for p in self.projections)
        return f"Expand [{sets}], [{', '.join(repr(a) for a in self.output)}]"

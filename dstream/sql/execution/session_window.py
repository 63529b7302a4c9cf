"""Session windows: each row's merged session, computed per partition with Arrow kernels.

What this module owns
---------------------
:class:`SessionWindowExec` (Spark's ``UpdatingSessionsExec``), the physical operator of
:class:`~dstream.sql.plan.windowing.SessionWindowAssign`, and :func:`assign_sessions`,
its per-partition kernel: rows ordered by (keys, time); a row opens a new session when
its keys differ from the previous row's or its time is ``gap`` or more after the
previous row's; session ids are the running count of openings; a session is
``[its first time, its last time + gap)``.

Invariants
----------
* The operator's child is exchanged on the keys (the planner puts a hash exchange, or a
  single-partition one without keys, below it), so every row of a key is in one
  partition and the sessions it computes are final.
* Keys compare as the aggregation groups them: null equals null, all NaNs are one
  value, ``-0.0`` equals ``0.0``, structs field by field.
* Rows whose time is null are dropped; the output rows come out ordered by keys and
  time (the order within equal times is the input order).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..expressions.base import AttributeReference, EvalContext, Expression, column_key
from .aggregate import encode_key
from .arrays import concat_batches, table_as_batch
from .context import QueryContext
from .partitioning import same_as_previous
from .physical import PhysicalPlan, as_array, expr_text, key_names

__all__ = ["SessionWindowExec", "assign_sessions"]


def assign_sessions(table: pa.Table, time_expr: Expression, gap_us: int, keys: Sequence[Expression],
                    names: Sequence[str], ctx: EvalContext) -> pa.RecordBatch | None:
    """The rows of ``table`` with a time, ordered by keys and time, plus their session struct.

    Parameters
    ----------
    table : pyarrow.Table
        One partition's rows (every row of each key).
    time_expr : Expression
        The event time over ``table``'s columns.
    gap_us : int
        The gap, in microseconds, closing a session.
    keys : sequence of Expression
        The keys sessions are built separately for.
    names : sequence of str
        The output column names: ``table``'s, then the session column's.
    ctx : EvalContext

    Returns
    -------
    pyarrow.RecordBatch or None
        ``None`` when no row has a time.
    """
    batch = table_as_batch(table)
    times = as_array(time_expr.eval(batch, ctx), batch.num_rows)
    if times.null_count:
        valid = times.is_valid()
        batch, times = batch.filter(valid), times.filter(valid)
    rows = batch.num_rows
    if rows == 0:
        return None
    columns: dict[str, pa.Array] = {}
    for i, key in enumerate(keys):
        encode_key(f"k{i}", as_array(key.eval(batch, ctx), rows), columns)
    micros = times.cast(pa.int64())
    columns["__time"] = micros
    order = pc.sort_indices(pa.table(columns), sort_keys=[(name, "ascending") for name in columns])
    micros = micros.take(order)
    opens = pc.greater_equal(pc.subtract(micros.slice(1), micros.slice(0, rows - 1)), gap_us)
    for name, values in columns.items():
        if name != "__time":
            opens = pc.or_(opens, pc.invert(same_as_previous(values.take(order))))
    first = pa.array([True])
    is_open = pa.concat_arrays([first, opens])
    is_last = pa.concat_arrays([opens, first])
    session = pc.subtract(pc.cumulative_sum(is_open.cast(pa.int64())), 1)
    starts = micros.filter(is_open).take(session)
    ends = pc.add(micros.filter(is_last), gap_us).take(session)
    struct = pa.StructArray.from_arrays([starts.cast(times.type), ends.cast(times.type)], names=["start", "end"])
    return pa.RecordBatch.from_arrays(batch.take(order).columns + [struct], names=list(names))


class SessionWindowExec(PhysicalPlan):
    """``UpdatingSessions``: each row of a key-partitioned child with its merged session appended."""

    def __init__(self, time_expr: Expression, gap_us: int, keys: Sequence[Expression],
                 output_attr: AttributeReference, child: PhysicalPlan) -> None:
        self.time_expr = time_expr
        self.gap_us = gap_us
        self.keys = list(keys)
        self.output_attr = output_attr
        self.children = (child,)
        self.output = list(child.output) + [output_attr]

    def execute(self, qctx: QueryContext) -> Any:
        time_expr, gap_us, keys, ctx = self.time_expr, self.gap_us, self.keys, qctx.eval_ctx
        names = key_names(self.child.output) + [column_key(self.output_attr.expr_id)]

        def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            table = concat_batches(batches)
            if table is None or table.num_rows == 0:
                return
            out = assign_sessions(table, time_expr, gap_us, keys, names, ctx)
            if out is not None:
                yield out
        return self.child.execute(qctx).mapPartitions(run)

    def describe(self) -> str:
        keys = ", ".join(expr_text(k) for k in self.keys)
        return (f"UpdatingSessions [{keys}], session_window({expr_text(self.time_expr)}, {self.gap_us}) "
                f"AS {self.output_attr!r}")

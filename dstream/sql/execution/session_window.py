"""Session windows: each row's merged session, computed per partition with Arrow kernels.

What this module owns
---------------------
:class:`SessionWindowExec` (Spark's ``UpdatingSessionsExec``), the physical operator of
:class:`~dstream.sql.plan.windowing.SessionWindowAssign`, and :func:`assign_sessions`,
its per-partition kernel: each row's window is ``[time, time + gap)`` (one gap, or a
gap per row); rows ordered by (keys, time); a row opens a new session when its keys
differ from the previous row's or its time is after the end of every earlier window
of its key (windows that overlap or touch merge, as in Spark); session ids are the
running count of openings; a session is ``[its first time, its latest end)``.

Invariants
----------
* The operator's child is exchanged on the keys (the planner puts a hash exchange, or a
  single-partition one without keys, below it), so every row of a key is in one
  partition and the sessions it computes are final.
* Keys compare as the aggregation groups them: null equals null, all NaNs are one
  value, ``-0.0`` equals ``0.0``, structs field by field.
* Rows whose time or gap is null (or whose gap is unreadable or not positive) are
  dropped; the output rows come out ordered by keys and time (the order within equal
  times is the input order).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..expressions.base import AttributeReference, EvalContext, Expression, column_key
from ..expressions.windows import SessionWindow
from .aggregate import encode_key
from .arrays import concat_batches, table_as_batch
from .context import QueryContext
from .partitioning import same_as_previous
from .physical import PhysicalPlan, as_array, expr_text, key_names

__all__ = ["SessionWindowExec", "assign_sessions"]


def assign_sessions(table: pa.Table, window: SessionWindow, keys: Sequence[Expression],
                    names: Sequence[str], ctx: EvalContext) -> pa.RecordBatch | None:
    """The rows of ``table`` with a session, ordered by keys and time, plus their session struct.

    Parameters
    ----------
    table : pyarrow.Table
        One partition's rows (every row of each key).
    window : SessionWindow
        The event time and gap (one, or per row) over ``table``'s columns.
    keys : sequence of Expression
        The keys sessions are built separately for.
    names : sequence of str
        The output column names: ``table``'s, then the session column's.
    ctx : EvalContext

    Returns
    -------
    pyarrow.RecordBatch or None
        ``None`` when no row has a session.
    """
    batch = table_as_batch(table)
    times = as_array(window.children[0].eval(batch, ctx), batch.num_rows)
    micros = times.cast(pa.int64())
    ends = window.ends(micros, batch, ctx)
    if ends.null_count:
        valid = ends.is_valid()  # null where the time or the row's gap is
        batch, times, micros, ends = batch.filter(valid), times.filter(valid), micros.filter(valid), ends.filter(valid)
    rows = batch.num_rows
    if rows == 0:
        return None
    columns: dict[str, pa.Array] = {}
    for i, key in enumerate(keys):
        encode_key(f"k{i}", as_array(key.eval(batch, ctx), rows), columns)
    new_key = np.zeros(rows, dtype=bool)
    new_key[0] = True
    if columns:
        order = pc.sort_indices(pa.table({**columns, "__time": micros}),
                                sort_keys=[(name, "ascending") for name in [*columns, "__time"]])
        for values in columns.values():
            new_key[1:] |= ~same_as_previous(values.take(order)).to_numpy(zero_copy_only=False)
    else:
        order = pc.sort_indices(micros)
    starts = micros.take(order).to_numpy()
    stops = ends.take(order).to_numpy()
    is_open = new_key.copy()
    is_open[1:] |= starts[1:] > _latest_end_before(stops, new_key, window.gap is None)
    at = np.flatnonzero(is_open)
    session = np.cumsum(is_open) - 1
    session_starts = pa.array(starts[at][session]).cast(times.type)
    session_ends = pa.array(np.maximum.reduceat(stops, at)[session]).cast(times.type)
    struct = pa.StructArray.from_arrays([session_starts, session_ends], names=["start", "end"])
    return pa.RecordBatch.from_arrays(batch.take(order).columns + [struct], names=list(names))


def _latest_end_before(stops: np.ndarray, new_key: np.ndarray, one_gap: bool) -> np.ndarray:
    """For each row but the first: the latest end among the earlier rows of its key (any value
    where the row starts a key). A row whose time is after it starts a new session (Spark
    merges windows that touch)."""
    if one_gap:
        return stops[:-1]  # with one gap the ends grow with the times: the previous row's is the latest
    # A running maximum that restarts at each key: ranks of the ends, lifted by key number
    # times the row count, so an earlier key's values never exceed a later key's.
    values, rank = np.unique(stops, return_inverse=True)
    group = np.cumsum(new_key) - 1
    lifted = group * len(stops) + rank
    running = np.maximum.accumulate(lifted)[:-1] - group[1:] * len(stops)
    return values[np.clip(running, 0, len(values) - 1)]


class SessionWindowExec(PhysicalPlan):
    """``UpdatingSessions``: each row of a key-partitioned child with its merged session appended."""

    def __init__(self, window: SessionWindow, keys: Sequence[Expression], output_attr: AttributeReference,
                 child: PhysicalPlan) -> None:
        self.window = window
        self.keys = list(keys)
        self.output_attr = output_attr
        self.children = (child,)
        self.output = list(child.output) + [output_attr]

    def execute(self, qctx: QueryContext) -> Any:
        window, keys, ctx = self.window, self.keys, qctx.eval_ctx
        names = key_names(self.child.output) + [column_key(self.output_attr.expr_id)]

        def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            table = concat_batches(batches)
            if table is None or table.num_rows == 0:
                return
            out = assign_sessions(table, window, keys, names, ctx)
            if out is not None:
                yield out
        return self.child.execute(qctx).mapPartitions(run)

    def describe(self) -> str:
        keys = ", ".join(expr_text(k) for k in self.keys)
        return f"UpdatingSessions [{keys}], {expr_text(self.window)} AS {self.output_attr!r}"

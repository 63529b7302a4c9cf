"""The last step of a stateful aggregation's task: finish the emitted buffers, project the results.

What this module owns
---------------------
:class:`StateOperatorExec`, the physical node of the plain and the session-window
state operators, and :func:`run_and_finish`, its task: it runs one partition of the
operator (which returns the groups to emit, as merged aggregation buffers), turns the
buffers into final values and evaluates the aggregation's result expressions over them.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa

from ...execution.arrays import table_as_batch
from ...execution.context import QueryContext
from ...execution.physical import PhysicalPlan, as_array, expr_text, key_names
from ...expressions.base import AttributeReference, Expression

__all__ = ["StateOperatorExec", "run_and_finish"]


def run_and_finish(operator: Any, exprs: Sequence[Expression], names: Sequence[str], ctx: Any, split: int,
                   batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """One partition of a state operator, then the final projection of the groups it emits."""
    merged = operator.run(split, batches, ctx)
    if merged is None or merged.num_rows == 0:
        return
    spec = operator.spec
    batch = table_as_batch(spec.finish(merged, ctx))
    arrays = [as_array(e.eval(batch, ctx), batch.num_rows) for e in exprs]
    yield pa.RecordBatch.from_arrays(arrays, names=list(names)) if arrays else batch.select([])


class StateOperatorExec(PhysicalPlan):
    """A state operator of an aggregation (``label`` names it in ``explain``), with the final projection."""

    def __init__(self, operator: Any, result: Sequence[Expression], output: Sequence[AttributeReference],
                 child: PhysicalPlan, label: str) -> None:
        self.operator = operator
        self.result = list(result)
        self.output = list(output)
        self.children = (child,)
        self.label = label

    def execute(self, qctx: QueryContext) -> Any:
        exprs = [self.operator.spec.rewrite(e) for e in self.result]
        run = functools.partial(run_and_finish, self.operator, exprs, key_names(self.output), qctx.eval_ctx)
        return self.child.execute(qctx).mapPartitionsWithIndex(run)

    def describe(self) -> str:
        keys = ", ".join(expr_text(g) for g in self.operator.spec.grouping)
        return (f"{self.label} [{keys}], state info [ operatorId = {self.operator.operator_id} ], "
                f"{self.operator.mode.capitalize()}")

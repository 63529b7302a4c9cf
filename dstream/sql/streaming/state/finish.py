"""The last step of a stateful aggregation's task: finish the emitted buffers, project the results.

What this module owns
---------------------
:func:`run_and_finish`, shared by the plain and the session-window state operators:
it runs one partition of the operator (which returns the groups to emit, as merged
aggregation buffers), turns the buffers into final values and evaluates the
aggregation's result expressions over them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa

from ...execution.arrays import table_as_batch
from ...execution.physical import as_array
from ...expressions.base import Expression

__all__ = ["run_and_finish"]


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

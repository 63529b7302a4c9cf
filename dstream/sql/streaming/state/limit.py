"""Streaming ``limit(n)``: at most ``n`` rows over the whole life of an append-mode query.

What this module owns
---------------------
:class:`StreamingGlobalLimitExec` (Spark's operator of the same name): every batch's
rows meet in one partition, whose state holds how many rows the query has emitted so
far; a batch emits at most ``n`` minus that. In complete mode a limit applies to each
batch's whole result table, which the batch planner already does.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pyarrow as pa

from ...execution.context import QueryContext
from ...execution.exchange import ShuffleExchangeExec
from ...execution.physical import LocalLimitExec, PhysicalPlan
from ...execution.planner import plan_physical
from ...plan.logical import Limit, LogicalPlan
from ..incremental import MicroBatchPlanner, register_stateful
from ..relation import reads_stream
from .store import StateLocation

__all__ = ["StreamingGlobalLimitExec"]


class StreamingGlobalLimitExec(PhysicalPlan):
    """At most ``n`` rows in total across batches (one partition, its count in the state)."""

    def __init__(self, n: int, planner: MicroBatchPlanner, operator_id: int, accumulator: Any,
                 child: PhysicalPlan) -> None:
        info = planner.info
        self.n = n
        self.operator_id = operator_id
        self.location = StateLocation.of(info, operator_id)
        self.accumulator = accumulator
        self.children = (child,)
        self.output = child.output

    def execute(self, qctx: QueryContext) -> Any:
        n, location, acc = self.n, self.location, self.accumulator

        def run(split: int, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            store = location.open(split)
            emitted = int((store.get(()) or (0,))[0])
            out = []
            for batch in batches:
                room = n - emitted
                if room <= 0:
                    break
                part = batch.slice(0, room)
                emitted += part.num_rows
                out.append(part)
            store.put((), (emitted,))
            store.commit()
            acc.add({"numRowsTotal": 1, "numRowsUpdated": 1, "numStateStoreInstances": 1})
            yield from out
        return self.child.execute(qctx).mapPartitionsWithIndex(run)

    def describe(self) -> str:
        return f"StreamingGlobalLimit {self.n}"


def _plan_limit(plan: LogicalPlan, qctx: QueryContext, planner: MicroBatchPlanner) -> PhysicalPlan | None:
    assert isinstance(plan, Limit)
    if not reads_stream(plan.child) or planner.info.output_mode == "complete":
        return None
    operator_id = planner.next_operator_id()
    op = planner.info.operator(operator_id, "globalLimit", lambda watermark: False, 1)
    child = LocalLimitExec(plan.n, plan_physical(plan.child, qctx))
    return StreamingGlobalLimitExec(plan.n, planner, operator_id, op.accumulator,
                                    ShuffleExchangeExec("single", [], 1, child))


register_stateful(Limit, _plan_limit)

"""What the stateful-operator tests share: event times, a collecting query, one batch at a time."""

from __future__ import annotations

import datetime as dt
from typing import Any

from dstream.sql.streaming import MemoryStream

DEADLINE = 30.0
EPOCH = dt.datetime(1970, 1, 1)


def ts(seconds: float) -> dt.datetime:
    """An event time ``seconds`` after the epoch."""
    return EPOCH + dt.timedelta(seconds=seconds)


def collecting(df: Any, checkpoint: str | None = None) -> tuple[Any, list[list[tuple[Any, ...]]]]:
    """Start ``df`` in append mode into foreachBatch; the query and the rows of each batch (in order)."""
    out: list[list[tuple[Any, ...]]] = []
    writer = df.writeStream.foreachBatch(lambda batch, _: out.append([tuple(r) for r in batch.collect()]))
    if checkpoint is not None:
        writer = writer.option("checkpointLocation", checkpoint)
    return writer.start(), out


def run(query: Any, stream: MemoryStream, rows: list[Any]) -> None:
    """Add ``rows`` as one batch and process everything (no-data batches included)."""
    stream.addData(rows)
    query.processAllAvailable(timeout=DEADLINE)


def operator(progress: dict[str, Any]) -> dict[str, Any]:
    """The one state operator of a progress report."""
    (op,) = progress["stateOperators"]
    return op

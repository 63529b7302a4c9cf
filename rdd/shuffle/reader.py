"""The reduce side of a shuffle: read one bucket of every map output."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..runtime.task_context import TaskContext
from ..serialization.serializer import loads_records


def read_all(store: Any, shuffle_id: int, num_maps: int, reduce_id: int) -> Iterator[list[Any]]:
    """Each map output's bucket ``reduce_id`` as a list (``FetchFailedError`` if one is gone)."""
    tctx = TaskContext.get()
    for map_id in range(num_maps):
        payload = store.get(shuffle_id, map_id, reduce_id)
        records = loads_records(payload) if payload else []
        if tctx is not None:
            tctx.add_metric("shuffleReadBytes", len(payload) if payload else 0)
            tctx.add_metric("shuffleReadRecords", len(records))
            tctx.add_metric("shuffleReadBlocks", 1)
        yield records

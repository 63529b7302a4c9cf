"""The reduce side of a shuffle: read one bucket of every map output."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..runtime.task_context import TaskContext
from ..serialization.serializer import loads_pairs


def read_all(store: Any, shuffle_id: int, num_maps: int, reduce_id: int) -> Iterator[Iterable[Any]]:
    """Each map output's bucket ``reduce_id`` as an iterable to go through once
    (``FetchFailedError`` if one is gone). A map output written as key and value lists
    (``dumps_pairs``) makes its pairs as they are taken: a reader that folds them into a
    dict never holds them all."""
    tctx = TaskContext.get()
    for map_id in range(num_maps):
        payload = store.get(shuffle_id, map_id, reduce_id)
        records, count = loads_pairs(payload) if payload else ([], 0)
        if tctx is not None:
            tctx.add_metric("shuffleReadBytes", len(payload) if payload else 0)
            tctx.add_metric("shuffleReadRecords", count)
            tctx.add_metric("shuffleReadBlocks", 1)
        yield records

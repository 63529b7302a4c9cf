"""The reduce side of a shuffle: read one bucket of every map output and merge."""

from __future__ import annotations

import pickle
from array import array
from typing import Any, Iterator

from ..errors import FetchFailedError
from .writer import map_output_paths


def read_bucket(shuffle_dir: str, shuffle_id: int, map_id: int, reduce_id: int) -> list[Any]:
    data_path, index_path = map_output_paths(shuffle_dir, map_id)
    try:
        with open(index_path, "rb") as f:
            f.seek(reduce_id * 8)
            bounds = array("q")
            bounds.frombytes(f.read(16))
        if len(bounds) != 2:
            raise FetchFailedError(shuffle_id, map_id, f"index file {index_path} is truncated")
        start, end = bounds
        if start == end:
            return []
        with open(data_path, "rb") as f:
            f.seek(start)
            payload = f.read(end - start)
    except FileNotFoundError as exc:
        raise FetchFailedError(shuffle_id, map_id, f"missing shuffle file {exc.filename}") from None
    return pickle.loads(payload)


def read_all(shuffle_dir: str, shuffle_id: int, num_maps: int, reduce_id: int) -> Iterator[list[Any]]:
    for map_id in range(num_maps):
        yield read_bucket(shuffle_dir, shuffle_id, map_id, reduce_id)

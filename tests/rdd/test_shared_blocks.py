"""MEMORY_ONLY_SHARING_IMMUTABLE: immutable blocks kept as objects, the rest serialized.

The block manager is the real one of this process; the RDD tests run real workers.
"""

from __future__ import annotations

from typing import Any

import pytest

from rdd import StorageLevel
from rdd.engine_api import MEMORY_ONLY_SHARING_IMMUTABLE
from rdd.storage.block_manager import BlockManager
from rdd.storage.immutable import records_are_immutable


class Point:
    __slots__ = ("x",)

    def __init__(self, x: int) -> None:
        self.x = x

    def __hash__(self) -> int:
        return hash(self.x)


@pytest.mark.parametrize("records", [
    [],
    [("a", 1), ("b", 2)],
    [("a", (1, 2.5, None, b"x", True, 1j, ...)), ("b", frozenset({(1, "z")}))],
    [(("nested", ("deep", ("deeper", 3))), -1)],
    ["plain", 7, None],
])
def test_immutable_records(records: list[Any]) -> None:
    assert records_are_immutable(records)


class IntChild(int):
    pass


@pytest.mark.parametrize("records", [
    [("a", [1])],
    [("a", 1), ("b", {"k": 1})],
    [("a", {1, 2})],
    [(("deep", ("deeper", [3])), 1)],
    [("a", IntChild(1))],       # a subclass may carry mutable attributes
    [("a", Point(1))],
    [("a", bytearray(b"x"))],
    [[("a", 1)]],
])
def test_mutable_records(records: list[Any]) -> None:
    assert not records_are_immutable(records)


def test_level_equals_memory_only() -> None:
    assert MEMORY_ONLY_SHARING_IMMUTABLE == StorageLevel.MEMORY_ONLY
    assert repr(MEMORY_ONLY_SHARING_IMMUTABLE) == repr(StorageLevel.MEMORY_ONLY)
    assert MEMORY_ONLY_SHARING_IMMUTABLE.shares_immutable
    assert not StorageLevel.MEMORY_ONLY.shares_immutable


def test_immutable_block_is_kept_as_its_objects() -> None:
    manager = BlockManager("test", None)
    records = [("a", 1), ("b", (2, 3))]
    manager.put("rdd_1_0", records, MEMORY_ONLY_SHARING_IMMUTABLE)
    assert manager.get("rdd_1_0") is records


def test_mutable_block_is_serialized_so_a_reader_cannot_change_it() -> None:
    manager = BlockManager("test", None)
    manager.put("rdd_1_0", [("a", [1])], MEMORY_ONLY_SHARING_IMMUTABLE)
    first = manager.get("rdd_1_0")
    assert first == [("a", [1])]
    first[0][1].append(2)  # what a reduce function that extends its first argument does
    assert manager.get("rdd_1_0") == [("a", [1])]


def test_memory_only_stays_serialized() -> None:
    manager = BlockManager("test", None)
    records = [("a", 1)]
    manager.put("rdd_1_0", records, StorageLevel.MEMORY_ONLY)
    got = manager.get("rdd_1_0")
    assert got == records and got is not records


def test_rdd_persisted_at_the_sharing_level(sc: Any) -> None:
    pairs = sc.parallelize([("a", 1), ("b", 2), ("a", 3)], 2).reduceByKey(lambda x, y: x + y)
    pairs.persist(MEMORY_ONLY_SHARING_IMMUTABLE)
    pairs.persist(StorageLevel.MEMORY_ONLY)  # the same level: no error
    assert sorted(pairs.collect()) == [("a", 4), ("b", 2)]
    assert sorted(pairs.collect()) == [("a", 4), ("b", 2)]  # read back from the cache
    lists = sc.parallelize([("a", [1]), ("b", [2])], 2).persist(MEMORY_ONLY_SHARING_IMMUTABLE)
    assert sorted(lists.mapValues(lambda v: v.append(0) or v).collect()) == [("a", [1, 0]), ("b", [2, 0])]
    assert sorted(lists.collect()) == [("a", [1]), ("b", [2])]  # the cached lists are unchanged

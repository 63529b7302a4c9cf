"""Persistence: cache, persist, unpersist, getStorageLevel, is_cached, and where cached
partitions live.

Whether a partition was recomputed is observed by counting calls of the user function
with an accumulator (a real side channel back to the driver), so "not computed again"
is measured, not assumed. On ``local[2]`` each worker has its own block store: the
partition's data is computed and kept by one worker, and later tasks reading it must
run on that worker, which the tests observe through ``os.getpid()`` recorded in the
data itself.

``local`` tests use the per-test ``sc``. ``local[2]`` tests use a fresh context whose
``spark.locality.wait`` is 30 s instead of 3 s: a task waits that long for the worker
holding its cached input before another worker may take it (Spark's delay scheduling).
The tasks here take milliseconds, so with that margin the placement they check does
not depend on how loaded the machine is.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from rdd import SparkConf, StorageLevel

from tests.rdd.processes import worker_pids

LEVELS = [StorageLevel.MEMORY_ONLY, StorageLevel.MEMORY_AND_DISK, StorageLevel.DISK_ONLY]


def counted_square(sc: Any, data: Any, num: int) -> tuple[Any, Any]:
    """An RDD of squares whose function counts its calls in an accumulator."""
    calls = sc.accumulator(0)

    def square(x: int) -> int:
        calls.add(1)
        return x * x

    return sc.parallelize(data, num).map(square), calls


# ------------------------------------------------------------------ storage levels (local)


def test_cache_marks_memory_only(sc: Any) -> None:
    rdd = sc.parallelize(range(4), 2)
    assert not rdd.is_cached
    assert rdd.getStorageLevel() == StorageLevel.NONE
    assert rdd.cache() is rdd, "cache returns the RDD itself"
    assert rdd.is_cached
    assert rdd.getStorageLevel() == StorageLevel.MEMORY_ONLY


def test_storage_level_constants_match_pyspark() -> None:
    memory = StorageLevel.MEMORY_ONLY
    assert (memory.useDisk, memory.useMemory, memory.useOffHeap, memory.deserialized, memory.replication) == (
        False, True, False, False, 1)
    disk = StorageLevel.DISK_ONLY
    assert (disk.useDisk, disk.useMemory) == (True, False)
    both = StorageLevel.MEMORY_AND_DISK
    assert (both.useDisk, both.useMemory) == (True, True)


@pytest.mark.parametrize("level", LEVELS, ids=str)
def test_persist_with_a_level(sc: Any, level: Any) -> None:
    rdd = sc.parallelize(range(4), 2)
    assert rdd.persist(level) is rdd
    assert rdd.is_cached
    assert rdd.getStorageLevel() == level
    assert rdd.collect() == [0, 1, 2, 3]


def test_persist_defaults_to_memory_only(sc: Any) -> None:
    assert sc.parallelize([1]).persist().getStorageLevel() == StorageLevel.MEMORY_ONLY


def test_unpersist_clears_the_level(sc: Any) -> None:
    rdd = sc.parallelize(range(4), 2).cache()
    rdd.count()
    assert rdd.unpersist() is rdd
    assert not rdd.is_cached
    assert rdd.getStorageLevel() == StorageLevel.NONE
    assert rdd.collect() == [0, 1, 2, 3]


# ------------------------------------------------------------------ recomputation (local)


def test_uncached_rdd_is_recomputed_by_each_action(sc: Any) -> None:
    """The control for the tests below: the call counter does see recomputation."""
    rdd, calls = counted_square(sc, range(10), 3)
    assert rdd.collect() == [x * x for x in range(10)]
    assert rdd.count() == 10
    assert calls.value == 20


@pytest.mark.parametrize("level", LEVELS, ids=str)
def test_cached_rdd_is_computed_once(sc: Any, level: Any) -> None:
    rdd, calls = counted_square(sc, range(10), 3)
    rdd.persist(level)
    assert rdd.collect() == [x * x for x in range(10)]
    assert calls.value == 10
    assert rdd.count() == 10
    assert rdd.map(lambda x: x + 1).sum() == sum(x * x + 1 for x in range(10))
    assert calls.value == 10, "the second and third actions read the cache"


def test_unpersisted_rdd_is_recomputed(sc: Any) -> None:
    rdd, calls = counted_square(sc, range(10), 3)
    rdd.cache().count()
    rdd.unpersist()
    assert rdd.count() == 10
    assert calls.value == 20


def test_cache_of_a_shuffled_rdd(sc: Any) -> None:
    calls = sc.accumulator(0)

    def tag(kv: tuple[int, int]) -> tuple[int, int]:
        calls.add(1)
        return kv

    rdd = sc.parallelize([(i % 3, i) for i in range(12)], 4).reduceByKey(lambda a, b: a + b, 2).map(tag).cache()
    first = sorted(rdd.collect())
    assert first == [(0, 18), (1, 22), (2, 26)]
    assert sorted(rdd.collect()) == first
    assert calls.value == 3


def test_only_computed_partitions_are_cached(sc: Any) -> None:
    """take(1) computes (and caches) only the partitions it needs."""
    rdd, calls = counted_square(sc, range(12), 4)
    rdd.cache()
    assert rdd.take(1) == [0]
    assert calls.value == 3, "one partition of three elements"
    assert rdd.count() == 12
    assert calls.value == 12, "the other three partitions are computed once, the first read from cache"


# ------------------------------------------------------------------ local[2]: where cached data lives


@pytest.fixture
def patient_sc2(make_sc: Any) -> Any:
    """A fresh ``local[2]`` context that waits 30 s for a task's preferred worker."""
    return make_sc("local[2]", SparkConf().set("spark.locality.wait", "30s"))


def test_cached_rdd_is_computed_once_on_workers(patient_sc2: Any) -> None:
    rdd, calls = counted_square(patient_sc2, range(20), 4)
    rdd.cache()
    try:
        assert rdd.collect() == [x * x for x in range(20)]
        assert rdd.count() == 20
        assert rdd.sum() == sum(x * x for x in range(20))
        assert calls.value == 20
    finally:
        rdd.unpersist()


def _record_pid(index: int, it: Iterator[int]) -> Iterator[tuple[int, int, int]]:
    pid = os.getpid()
    for x in it:
        yield (index, pid, x)


def _reader_pid(index: int, it: Iterator[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    return [(index, os.getpid(), sum(1 for _ in it))]


def test_tasks_reading_a_cached_partition_run_where_it_is_cached(patient_sc2: Any) -> None:
    cached = patient_sc2.parallelize(range(40), 4).mapPartitionsWithIndex(_record_pid).cache()
    try:
        computed_at = {index: pid for index, pid, _ in cached.collect()}
        assert sorted(computed_at) == [0, 1, 2, 3]
        workers = set(worker_pids(patient_sc2))
        assert set(computed_at.values()) <= workers, "computed in worker processes, not in the driver"
        for _ in range(3):
            readers = cached.mapPartitionsWithIndex(_reader_pid).collect()
            assert {index: pid for index, pid, _ in readers} == computed_at
            assert [size for _, _, size in readers] == [10, 10, 10, 10]
        # the cached values themselves are the ones computed the first time
        assert {index: pid for index, pid, _ in cached.collect()} == computed_at
    finally:
        cached.unpersist()


def test_unpersist_on_workers_forces_recomputation(patient_sc2: Any) -> None:
    rdd, calls = counted_square(patient_sc2, range(8), 2)
    rdd.cache().count()
    rdd.unpersist()
    assert rdd.count() == 8
    assert calls.value == 16

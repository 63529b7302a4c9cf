"""Stage closures do not pile up in processes: the closure cache is bounded and per job.

A worker unpickles each stage's functions once and caches them by digest. A closure may
capture a large object (a lookup list of a million ints), and a stream runs a job with
new closures every batch: kept, they grow each worker by the size of what they capture,
batch after batch. These tests watch real ``local[2]`` workers' resident memory over
many jobs, and check that binaries dropped by the byte budget or at the end of a job are
sent again when a later task needs them.
"""

from __future__ import annotations

import operator
import pickle
from collections.abc import Callable
from typing import Any

import pytest

from rdd import SparkConf, SparkContext
from rdd.executor.task_runner import CLOSURE_CACHE_KEY, DEFAULT_CLOSURE_CACHE_BYTES, BinaryCache

from tests.rdd.processes import worker_pids

BIG = 250_000  # ints a closure captures: ~9 MB once unpickled in a worker


def rss_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmRSS for pid {pid}")


def job_capturing_a_large_list(sc: SparkContext, i: int) -> None:
    big = list(range(i * BIG, (i + 1) * BIG))  # a new closure, with new contents, every job
    assert sc.parallelize(range(4), 4).map(lambda x: big[x]).collect() == big[:4]


def test_worker_memory_stays_flat_over_jobs_with_large_closures(
        make_sc: Callable[..., SparkContext]) -> None:
    sc = make_sc("local[2]")
    for i in range(3):  # warm up: interpreter, allocator arenas, one closure's worth
        job_capturing_a_large_list(sc, i)
    before = {pid: rss_bytes(pid) for pid in worker_pids(sc)}
    for i in range(3, 15):
        job_capturing_a_large_list(sc, i)
    growth = {pid: rss_bytes(pid) - rss for pid, rss in before.items()}
    # Kept, 12 closures of ~9 MB would add ~100 MB to a worker that ran their tasks.
    assert max(growth.values()) < 30 * 1024 * 1024, f"worker RSS growth in bytes: {growth}"


def test_binaries_evicted_by_the_budget_are_sent_again(
        make_sc: Callable[..., SparkContext]) -> None:
    sc = make_sc("local[2]", SparkConf().set("spark.executor.closureCacheBytes", "1"))
    big = list(range(1000))
    rdd = (sc.parallelize(range(200), 4).map(lambda x: (x % 7, big[x % 1000]))
           .reduceByKey(operator.add, 3).map(lambda kv: (kv[0], kv[1] + big[1])))
    expected = {k: sum(x for x in range(200) if x % 7 == k) + 1 for k in range(7)}
    for _ in range(3):  # the same stages again: released at each job's end, sent again
        assert dict(rdd.collect()) == expected


@pytest.mark.parametrize(("text", "size"), [("1", 1), ("512k", 512 * 1024), ("64m", 64 << 20),
                                            ("2g", 2 << 30), ("64MB", 64 << 20)])
def test_closure_cache_size_setting(text: str, size: int) -> None:
    conf = SparkConf().set(CLOSURE_CACHE_KEY, text)
    assert conf.getSizeAsBytes(CLOSURE_CACHE_KEY, DEFAULT_CLOSURE_CACHE_BYTES) == size


def test_a_bad_closure_cache_size_names_the_setting() -> None:
    with pytest.raises(ValueError, match=r"spark.executor.closureCacheBytes='lots': give a number"):
        SparkConf().set(CLOSURE_CACHE_KEY, "lots").getSizeAsBytes(CLOSURE_CACHE_KEY)


def test_the_inline_cache_keeps_within_its_byte_budget() -> None:
    cache = BinaryCache(max_bytes=100)
    blobs: dict[str, Any] = {f"d{i}": bytes(40 + i) for i in range(5)}
    for digest, blob in blobs.items():
        cache.put(digest, pickle.dumps(blob))
        assert cache.nbytes <= 100 or len(cache) == 1
        assert digest in cache, "the newest binary always stays: its task needs it"
    cache.drop(["d4"])
    assert cache.nbytes == 0 and len(cache) == 0


def test_small_binaries_are_dropped_with_the_next_task_large_ones_at_the_job_end(
        make_sc: Callable[..., SparkContext]) -> None:
    from rdd.executor.process_pool import EAGER_DROP_BYTES

    sc = make_sc("local[2]")
    pool = sc._env.backend
    factor = {"n": 2}
    doubled = sc.parallelize(range(8), 2).map(lambda x: x * factor["n"])
    assert doubled.collect() == [x * 2 for x in range(8)]
    stale = {w.executor_id: list(w.stale) for w in pool._workers.values()}
    assert all(stale.values()), f"small binaries are left to the next task: {stale}"
    # The same function object, its captured value changed: the binary's digest is of its
    # bytes, so the workers get the new value, not the binary they still hold.
    factor["n"] = 3
    assert doubled.collect() == [x * 3 for x in range(8)]
    for worker in pool._workers.values():
        assert not set(stale[worker.executor_id]) & set(worker.stale), "stale binaries were not sent to drop"
    big = list(range(EAGER_DROP_BYTES // 4))
    assert sc.parallelize(range(2), 2).map(lambda x: big[x]).collect() == [0, 1]
    assert [w.stale for w in pool._workers.values()] == [[], []]  # over the threshold: dropped at once

"""An ``exec`` worker keeps the memory a task freed for the next task (glibc's malloc).

A task that allocates and frees batch-sized arrays, over and over, must not page-fault
its memory in again every time: the worker starts with glibc's mmap and trim thresholds
pinned at their ceilings (``MALLOC_MMAP_THRESHOLD_``, ``MALLOC_TRIM_THRESHOLD_``) unless
the user set them. The tests run real ``local[2]`` workers and read their page-fault
counters (``getrusage``); they need glibc, whose variables these are.
"""

from __future__ import annotations

import platform
from collections.abc import Iterator

import pytest

from rdd import SparkConf, SparkContext

pytestmark = pytest.mark.skipif(platform.libc_ver()[0] != "glibc",
                                reason="the thresholds are glibc's malloc tunables")

#: Ten 1 MiB blocks live at once, then freed: more than glibc's default dynamic trim
#: threshold (twice the largest block freed, ~2 MiB) keeps, less than ours (64 MiB).
_BLOCKS = 10
_BLOCK = 1 << 20


def _faults_of_a_third_round(_: int) -> Iterator[tuple[int, str, str]]:
    import os
    import resource

    def one_round() -> None:
        blocks = [bytearray(_BLOCK) for _ in range(_BLOCKS)]  # zero-filled: every page touched
        del blocks

    one_round()
    one_round()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    one_round()
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    yield faults, os.environ.get("MALLOC_MMAP_THRESHOLD_", ""), os.environ.get("MALLOC_TRIM_THRESHOLD_", "")


def _run(conf: SparkConf) -> list[tuple[int, str, str]]:
    sc = SparkContext(conf=conf)
    try:
        return sc.parallelize(range(2), 2).mapPartitionsWithIndex(lambda i, _: _faults_of_a_third_round(i)).collect()
    finally:
        sc.stop()


def test_a_task_reuses_the_memory_it_freed_without_page_faults() -> None:
    results = _run(SparkConf().setMaster("local[2]").setAppName("worker-malloc"))
    pages = _BLOCKS * _BLOCK // 4096
    for faults, mmap_threshold, trim_threshold in results:
        assert (mmap_threshold, trim_threshold) == (str(32 << 20), str(64 << 20))
        # glibc's defaults fault every page in again (~2,560 here); a few stray faults remain.
        assert faults < pages // 10, f"{faults} page faults re-allocating {pages} pages the task had freed"


def test_the_users_thresholds_win() -> None:
    conf = (SparkConf().setMaster("local[2]").setAppName("worker-malloc")
            .setExecutorEnv("MALLOC_TRIM_THRESHOLD_", "131072"))
    results = _run(conf)
    pages = _BLOCKS * _BLOCK // 4096
    for faults, mmap_threshold, trim_threshold in results:
        assert (mmap_threshold, trim_threshold) == (str(32 << 20), "131072")
        # Blocks from the heap, but a 128 KiB trim threshold gives the freed top back: faults again.
        assert faults >= pages // 2, f"only {faults} page faults with a 128 KiB trim threshold"

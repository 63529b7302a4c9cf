"""Benchmarks of the batch engine (`rdd`) against plain Python.

This module owns three benchmarks, each timed against a plain-Python baseline in the same
process:

(a) word count from a file: ``textFile -> flatMap -> map -> reduceByKey -> collect`` on
    ``local[2]`` vs one process feeding each line's words to a ``collections.Counter``.
    Target: the engine at least 1.2x as fast (two workers should beat one interpreter).
(b) the same pipeline from driver memory (``sc.parallelize(lines, 2)``) vs a ``Counter``
    over the same in-memory lines. Target: at least 0.9x (the engine must ship the lines
    to the workers, the baseline need not).
(c) the latency of the smallest job, ``sc.parallelize([1], 1).count()``: median at most
    0.2 ms on ``local`` (inline) and at most 2 ms on ``local[2]`` (worker processes).
    Baselines: the least work each executor must do, in plain Python: a cloudpickle round
    trip of the task function plus the call (``local``), and a round trip to an idle
    ``concurrent.futures.ProcessPoolExecutor`` worker (``local[2]``).

Contexts are started before timing and warmed up with the same job, so worker start-up is
not billed to any figure. Each engine result is checked against its baseline's once,
untimed, before timing: a fast wrong answer is an error, not a figure.
"""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from operator import add
from pathlib import Path
from typing import TYPE_CHECKING

import cloudpickle

from bench.corpus import ensure_corpus, read_lines
from bench.harness import Benchmark, Options, Result, Target, Timing, time_call, time_calls

if TYPE_CHECKING:  # the engine is imported when the benchmark runs, not when listed
    from collections.abc import Iterable

    from rdd import RDD, SparkContext

TITLE = "the batch engine against plain Python"
WORKERS = 2


def count_file(path: Path) -> Counter[str]:
    """Baseline for (a): read a file line by line and count its words in one process."""
    counts: Counter[str] = Counter()
    with open(path, encoding="utf-8") as f:
        for line in f:
            counts.update(line.split())
    return counts


def count_lines(lines: list[str]) -> Counter[str]:
    """Baseline for (b): count the words of in-memory lines in one process."""
    counts: Counter[str] = Counter()
    for line in lines:
        counts.update(line.split())
    return counts


def word_count(lines: RDD[str]) -> list[tuple[str, int]]:
    """The engine pipeline shared by (a) and (b), as a PySpark user writes it."""
    return (lines.flatMap(lambda line: line.split())
            .map(lambda word: (word, 1))
            .reduceByKey(add)
            .collect())


def _check(case: str, got: list[tuple[str, int]], expected: Counter[str]) -> None:
    if dict(got) != expected or len(got) != len(expected):
        raise AssertionError(
            f"{case}: the engine's word count differs from the baseline's "
            f"({len(got)} pairs vs {len(expected)} distinct words)")


def _count_partition(iterator: Iterable[object]) -> int:
    return sum(1 for _ in iterator)


def _pickled_inline_task() -> int:
    """Baseline for (c) on ``local``: what an inline executor must do at the least."""
    task = cloudpickle.loads(cloudpickle.dumps(_count_partition))
    return task(iter([1]))


def throughput(sc: SparkContext, options: Options) -> list[Benchmark]:
    """Run benchmarks (a) and (b) on a started ``local[2]`` context."""
    path = ensure_corpus(options.lines)
    lines = read_lines(path)
    size = f"{options.lines:,} lines, {path.stat().st_size / 1e6:.1f} MB"

    def from_file() -> list[tuple[str, int]]:
        return word_count(sc.textFile(str(path), WORKERS))

    def from_memory() -> list[tuple[str, int]]:
        return word_count(sc.parallelize(lines, WORKERS))

    expected = count_file(path)
    _check("(a) textFile", from_file(), expected)
    _check("(b) parallelize", from_memory(), expected)
    del expected

    file_result = Result(
        case=f"textFile, {size}",
        engine=time_call(from_file, repeat=options.repeat),
        baseline=time_call(lambda: count_file(path), repeat=options.repeat),
        target=Target(min_ratio=1.2),
    )
    memory_result = Result(
        case=f"parallelize, {options.lines:,} lines",
        engine=time_call(from_memory, repeat=options.repeat),
        baseline=time_call(lambda: count_lines(lines), repeat=options.repeat),
        target=Target(min_ratio=0.9),
    )
    pipeline = "`flatMap(split) -> map((w, 1)) -> reduceByKey(add) -> collect()`"
    return [
        Benchmark(
            title="(a) word count from a text file",
            description=(f"`sc.textFile(path, 2)` then {pipeline} on `local[2]`, vs "
                         "`for line in open(path): counter.update(line.split())` in one "
                         "process."),
            engine_label="local[2]", baseline_label="Counter", results=(file_result,)),
        Benchmark(
            title="(b) word count from driver memory",
            description=(f"`sc.parallelize(lines, 2)` then {pipeline} on `local[2]`, vs "
                         "`counter.update(line.split())` over the same list in one "
                         "process."),
            engine_label="local[2]", baseline_label="Counter", results=(memory_result,)),
    ]


def latency(sc: SparkContext, options: Options) -> Timing:
    """Time the smallest job on a started context."""
    def job() -> int:
        return sc.parallelize([1], 1).count()

    if job() != 1:
        raise AssertionError("sc.parallelize([1], 1).count() did not return 1")
    return time_calls(job, samples=options.latency_samples, warmup=20)


def run(options: Options) -> list[Benchmark]:
    """Run every benchmark of this module and return one :class:`Benchmark` per table."""
    from rdd import SparkContext

    sc = SparkContext(master=f"local[{WORKERS}]", appName="bench-rdd")
    try:
        benchmarks = throughput(sc, options)
        pool_latency = latency(sc, options)
    finally:
        sc.stop()

    with ProcessPoolExecutor(max_workers=WORKERS) as pool:
        pool_baseline = time_calls(lambda: pool.submit(len, [1]).result(),
                                   samples=options.latency_samples, warmup=20)

    sc = SparkContext(master="local", appName="bench-rdd-inline")
    try:
        inline_latency = latency(sc, options)
    finally:
        sc.stop()
    inline_baseline = time_calls(_pickled_inline_task, samples=options.latency_samples,
                                 warmup=20)

    benchmarks.append(Benchmark(
        title="(c) latency of the smallest job",
        description=("`sc.parallelize([1], 1).count()`, after 20 warm-up calls. Baselines: "
                     "`local`: cloudpickle dumps+loads of the task function, then the call; "
                     "`local[2]`: `ProcessPoolExecutor(2).submit(len, [1]).result()` on a "
                     "warm pool."),
        engine_label="job", baseline_label="plain Python",
        results=(
            Result("local (inline)", inline_latency, inline_baseline,
                   Target(max_median=0.2e-3)),
            Result("local[2] (2 worker processes)", pool_latency, pool_baseline,
                   Target(max_median=2e-3)),
        ),
    ))
    return benchmarks

"""Master ``ray`` against ``local[2]`` on one machine: what the object store and actors cost.

This module owns one table. Each row runs the same program on ``ray[2]`` (a 2-CPU local
Ray cluster started by the context, engine column) and on ``local[2]`` (baseline
column), in the same run; ratio = ``local[2]`` time / Ray time, so 1.0 means Ray costs
nothing on one machine. Target for the streaming word count: >= 0.7.

- (a) the RDD word count of the bench corpus (``textFile``, 2 partitions);
- (b) the streaming word count of ``bench_dstream`` on the corpus (manual clock);
- (c) the cost of one task: ``parallelize(range(64), 64).count()`` per task;
- (d) one 2-stage job: the tiny per-batch ``reduceByKey`` job of ``bench_dstream``.

The scaling estimate in the report's notes is computed from (c) and (d).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bench import bench_dstream, bench_rdd
from bench.corpus import ensure_corpus
from bench.harness import Benchmark, Options, Result, Target, Timing

if TYPE_CHECKING:
    from rdd import SparkContext

TITLE = "Master ray against local[2] on one machine"
WORKERS = 2
RAY = f"ray[{WORKERS}]"
LOCAL = f"local[{WORKERS}]"
TASKS = 64


def _context(master: str) -> SparkContext:
    from rdd import SparkConf, SparkContext

    return SparkContext(master=master, appName="bench-ray", conf=SparkConf().set("spark.ui.enabled", "false"))


def _on_both(measure: Callable[[SparkContext], list[float]]) -> tuple[Timing, Timing]:
    out: dict[str, list[float]] = {}
    for master in (RAY, LOCAL):
        sc = _context(master)
        try:
            out[master] = measure(sc)
        finally:
            sc.stop()
    return Timing(tuple(out[RAY])), Timing(tuple(out[LOCAL]))


def _word_count(options: Options) -> Callable[[SparkContext], list[float]]:
    path = ensure_corpus(options.lines)
    expected = bench_rdd.count_file(path)

    def measure(sc: SparkContext) -> list[float]:
        def run() -> list[tuple[str, int]]:
            return bench_rdd.word_count(sc.textFile(str(path), WORKERS))
        bench_rdd._check(f"(a) {sc.master}", run(), expected)
        samples = []
        for _ in range(options.repeat):
            started = time.perf_counter()
            run()
            samples.append(time.perf_counter() - started)
        return samples
    return measure


def _streaming_word_count(options: Options) -> Callable[[SparkContext], list[float]]:
    path = ensure_corpus(options.lines)
    expected = bench_rdd.count_file(path)
    with open(path, encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f]

    def measure(sc: SparkContext) -> list[float]:
        samples = []
        for _ in range(max(1, options.repeat // 2)):
            started = time.perf_counter()
            output = bench_dstream.stream_word_count(sc, bench_dstream._chunks(lines))
            samples.append(time.perf_counter() - started)
            if output.total() != expected:
                raise AssertionError(f"(b) {sc.master}: wrong word counts")
        return samples
    return measure


def _per_task(samples: int) -> Callable[[SparkContext], list[float]]:
    def measure(sc: SparkContext) -> list[float]:
        rdd = sc.parallelize(range(TASKS), TASKS)
        for _ in range(3):
            rdd.count()
        out = []
        for _ in range(samples):
            started = time.perf_counter()
            if rdd.count() != TASKS:
                raise AssertionError("(c) wrong count")
            out.append((time.perf_counter() - started) / TASKS)
        return out
    return measure


def _tiny_job(samples: int) -> Callable[[SparkContext], list[float]]:
    from operator import add

    def measure(sc: SparkContext) -> list[float]:
        rdd = sc.parallelize(bench_dstream.TINY, 1)

        def job() -> Any:
            return rdd.map(lambda w: (w, 1)).reduceByKey(add, WORKERS).collect()
        for _ in range(10):
            job()
        out = []
        for _ in range(samples):
            started = time.perf_counter()
            job()
            out.append(time.perf_counter() - started)
        return out
    return measure


def run(options: Options) -> list[Benchmark]:
    """Run every row on Ray and on local[2] and return the module's one table."""
    samples = 20 if options.quick else 100
    rows: list[tuple[str, Callable[[SparkContext], list[float]], Target | None]] = [
        (f"(a) RDD word count, textFile, {options.lines:,} lines", _word_count(options), None),
        (f"(b) streaming word count, {options.lines:,} lines in {bench_dstream.BATCHES} batches",
         _streaming_word_count(options), Target(min_ratio=0.7)),
        ("(c) one task (per task of a 64-task job)", _per_task(samples // 4), None),
        ("(d) one 2-stage job (map, reduceByKey into 2 partitions, collect)", _tiny_job(samples), None),
    ]
    results = []
    for case, measure, target in rows:
        on_ray, on_local = _on_both(measure)
        results.append(Result(case=case, engine=on_ray, baseline=on_local, target=target or Target()))
        print(f"  {case}: ray {on_ray.median * 1e3:.2f} ms, local[2] {on_local.median * 1e3:.2f} ms", flush=True)
    return [Benchmark(
        title="The same programs on ray[2] and local[2]",
        description=("Engine column: master `ray[2]` on a 2-CPU local Ray cluster that the context starts "
                     "(127.0.0.1 only); baseline column: `local[2]`, in the same run. Ratio = local[2] / ray: "
                     "1.0 means Ray costs nothing on one machine."),
        engine_label="ray[2]", baseline_label="local[2]", results=tuple(results))]

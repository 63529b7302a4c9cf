"""What the web UI costs: the same workloads with ``spark.ui.enabled`` true and false, in one run.

This module owns one table. Every row runs one workload on a context with the UI (and the
status store, the listener events feeding it) and on one without, alternating contexts
(on, off, on, off: both sides see the same machine drift); the "engine" column is the UI
on, the "baseline" column the UI off, so the ratio (off / on) is 1.0 when the UI costs
nothing and 0.9 when it makes the workload 10% slower. Target: >= 0.95 for each row.

- (a) the RDD word count of the bench corpus, ``textFile`` on ``local[2]``;
- (b) the smallest job, ``sc.parallelize([1], 1).count()``, on ``local`` and ``local[2]``;
- (c) one DStream batch of the per-batch pipeline of ``bench_dstream`` on ``local[2]``
  (manual clock);
- (d) one Structured Streaming micro-batch: a 1-row ``MemoryStream`` batch through a
  ``select`` into the memory sink on ``local[2]``, ``addData`` + ``processAllAvailable``.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from bench import bench_dstream, bench_rdd
from bench.corpus import ensure_corpus
from bench.harness import Benchmark, Options, Result, Target, Timing, format_seconds

if TYPE_CHECKING:
    from rdd import SparkContext

TITLE = "The web UI's cost: workloads with the UI on and off"
WORKERS = 2
#: Contexts per side. A context's own latency differs from the next one's by up to 1.5x on
#: this kind of machine (worker placement, allocator state), more than the UI's share: with
#: four rounds a side, a smallest-job row swung between 0.76x and 1.16x from one run to the
#: next; twelve short rounds per side average that out, for the same number of samples.
ROUNDS = 12
#: Each row's goal: the UI slows a workload by at most 5%.
TARGET = Target(min_ratio=0.95)


def _settings(ui: bool) -> dict[str, str]:
    return {"spark.ui.enabled": "true" if ui else "false", "spark.ui.port": "0"}


def _alternate(measure: Callable[[bool], list[float]]) -> tuple[Timing, Timing]:
    """Samples of ``measure(True)`` and ``measure(False)``, ``ROUNDS`` times each, taking turns."""
    on: list[float] = []
    off: list[float] = []
    for _ in range(ROUNDS):
        on.extend(measure(True))
        off.extend(measure(False))
    return Timing(tuple(on)), Timing(tuple(off))


def _context(master: str, ui: bool) -> SparkContext:
    from rdd import SparkConf, SparkContext

    conf = SparkConf().setAll(list(_settings(ui).items()))
    sc = SparkContext(master=master, appName="bench-ui", conf=conf)
    if (sc.uiWebUrl is not None) != ui:
        sc.stop()
        raise AssertionError(f"spark.ui.enabled={ui} but uiWebUrl is {sc.uiWebUrl!r}")
    return sc


def _word_count(options: Options) -> Callable[[bool], list[float]]:
    path = ensure_corpus(options.lines)
    expected = bench_rdd.count_file(path)

    def measure(ui: bool) -> list[float]:
        sc = _context(f"local[{WORKERS}]", ui)
        try:
            def run() -> list[tuple[str, int]]:
                return bench_rdd.word_count(sc.textFile(str(path), WORKERS))
            bench_rdd._check("(a) with the UI " + ("on" if ui else "off"), run(), expected)
            samples = []
            for _ in range(max(1, options.repeat // ROUNDS + 1)):
                started = time.perf_counter()
                run()
                samples.append(time.perf_counter() - started)
            return samples
        finally:
            sc.stop()
    return measure


def _smallest_job(master: str, samples: int) -> Callable[[bool], list[float]]:
    def measure(ui: bool) -> list[float]:
        sc = _context(master, ui)
        try:
            rdd = sc.parallelize([1], 1)
            for _ in range(50):
                rdd.count()
            out = []
            for _ in range(samples):
                started = time.perf_counter()
                rdd.count()
                out.append(time.perf_counter() - started)
            return out
        finally:
            sc.stop()
    return measure


def _dstream_batch(samples: int) -> Callable[[bool], list[float]]:
    def measure(ui: bool) -> list[float]:
        streaming, _ = bench_dstream.per_batch(f"local[{WORKERS}]", samples, _settings(ui))
        return list(streaming.samples)
    return measure


def _micro_batch(samples: int) -> Callable[[bool], list[float]]:
    def measure(ui: bool) -> list[float]:
        from dstream.sql import SparkSession
        from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom
        from dstream.sql.streaming import MemoryStream

        builder = SparkSession.builder.master(f"local[{WORKERS}]").appName("bench-ui-structured")
        for key, value in _settings(ui).items():
            builder = builder.config(key, value)
        spark = builder.getOrCreate()
        try:
            stream = MemoryStream("value long", spark)
            query = (stream.toDF().select((F.col("value") * 2).alias("doubled")).writeStream.format("memory")
                     .queryName("bench_ui_tiny").start())
            try:
                out = []
                for i in range(samples + 20):
                    started = time.perf_counter()
                    stream.addData([i])
                    query.processAllAvailable(900.0)
                    if i >= 20:
                        out.append(time.perf_counter() - started)
                if len(spark.table("bench_ui_tiny").collect()) != samples + 20:
                    raise AssertionError("(d) the memory sink lost rows")
                return out
            finally:
                query.stop()
        finally:
            spark.stop()
    return measure


def run(options: Options) -> list[Benchmark]:
    """Run every row, UI on and off alternately, and return the module's one table."""
    samples = 20 if options.quick else 84  # per round: 1,008 per side in a full run
    rows: list[tuple[str, Callable[[bool], list[float]]]] = [
        (f"(a) RDD word count, textFile, {options.lines:,} lines, local[2]", _word_count(options)),
        ("(b) smallest job, local", _smallest_job("local", samples)),
        ("(b) smallest job, local[2]", _smallest_job(f"local[{WORKERS}]", samples)),
        ("(c) one DStream batch, local[2]", _dstream_batch(samples)),
        ("(d) one Structured Streaming micro-batch, local[2]", _micro_batch(samples)),
    ]
    results = []
    for case, measure in rows:
        on, off = _alternate(measure)
        if not case.startswith("(a)"):
            # The median is a sample on the engine's thread; the listener thread's share
            # lands on the few samples it interrupts. The mean counts it: say both.
            mean_on, mean_off = statistics.fmean(on.samples), statistics.fmean(off.samples)
            case += (f"; mean {format_seconds(mean_on)} on, {format_seconds(mean_off)} off "
                     f"(ratio of means {mean_off / mean_on:.2f}x)")
        results.append(Result(case=case, engine=on, baseline=off, target=TARGET))
        print(f"  {case}: UI on {on.median * 1e3:.2f} ms, off {off.median * 1e3:.2f} ms", flush=True)
    return [Benchmark(
        title="Workloads with the UI on and off",
        description=("Each row runs on a context with `spark.ui.enabled=true` (engine column: the UI server, "
                     "the status store and the listener events that feed it) and on one with it false "
                     f"(baseline column), alternating {ROUNDS} times; ratio = off / on, so 1.0 means the UI "
                     "costs nothing. No browser is connected. The engine's threads only queue the facts "
                     "of each job, stage and task; the events are built and the status store updated "
                     "on the listener thread, every 50 ms, so a median sample shows the engine "
                     "thread's share and the mean (given beside rows (b) to (d)) both."),
        engine_label="UI on", baseline_label="UI off", results=tuple(results))]

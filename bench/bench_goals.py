"""The performance goals of the streaming engine, measured the same way in one run.

This module owns one table: every goal of the performance issue as a row, each measured
on the same PySpark Streaming program and against the same plain-Python baseline, so
the rows can be read side by side and re-measured together after each optimisation.

The program: the bench corpus (``lines`` lines, 1,000,000 in a full run) cut into
``BATCHES`` equal batches, each one ``sc.parallelize(chunk, 2)`` of a ``queueStream`` on
``local[2]``, 1 s batches on the manual clock (batches are processed back to back, a
measurement never waits for a batch boundary), ``flatMap(split).map((w, 1))`` then one
of the operators below, and the output operation a PySpark user writes to force every
batch: ``foreachRDD(lambda rdd: rdd.count())``.

Rows (``GOALS``):

- throughput, timed from building the RDDs and the StreamingContext to the last batch's
  output, against one ``Counter`` over all the lines in this process (the cases take
  turns): stateless ``reduceByKey(add)``; ``reduceByKeyAndWindow(add, sub, 3, 1)`` and
  ``(add, sub, 5, 1)`` (checkpointing on, as the inverse form requires);
  ``updateStateByKey`` running count (checkpointing on). The windowed and stateful rows
  are compared with the same ``Counter`` of all the lines: the work a single process
  needs for the whole corpus, whatever the operator. Beside each row, the peak PSS of
  the process tree of one run in a fresh process that reads the batches from the corpus
  file (:mod:`bench.memory`), and the baseline's, measured the same way.
- reference, not a goal: the same batches counted by a hand-written
  ``multiprocessing.Pool(2)`` (each batch's two halves counted in the pool, merged in the
  parent), taking its turn with the streams: what two processes reach on this machine,
  the ceiling the throughput goals are set below. On a host that steals CPU time from
  its guests it is much lower than 2x, and the goals' figures should be read beside it.
- per-batch fixed cost: 10-line batches of the stateless program; one sample is the
  wall time of advancing the clock one batch until its output ran (the measure of
  ``bench_dstream`` (1)). The listener's ``processingDelay`` is stamped from the manual
  clock, in whole milliseconds, so it cannot measure a 1 ms goal.
- start to first job: in a fresh process per sample (imports excluded), from
  ``SparkContext(...)`` to the first 10-line batch's ``count()`` returning.

Every engine result is checked once, untimed, against the ``Counter``: all batches'
counts merged (stateless), the last window (windows) or the final state (running count).

Run one part by hand: ``python -m bench.bench_goals --child memory window3 100000`` or
``--child startup 100000 10`` prints the child's JSON result.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from operator import add, sub
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench.bench_dstream import peak_tree_memory_mb
from bench.corpus import ensure_corpus, read_lines
from bench.harness import Benchmark, Options, Result, Target, Timing, time_calls, time_interleaved

if TYPE_CHECKING:  # the engines are imported when the benchmark runs, not when listed
    from rdd import SparkContext

TITLE = "the performance goals, every one measured the same way in one run"
WORKERS = 2
MASTER = f"local[{WORKERS}]"
BATCHES = 10
BATCH_TIMEOUT = 600.0
SMALL_BATCH_LINES = 10
FIXED_COST_SAMPLES = 1_000
FIXED_COST_SAMPLES_QUICK = 200
FIXED_COST_WARMUP = 50
STARTUP_SAMPLES = 5
STARTUP_SAMPLES_QUICK = 2
#: Timed runs of each throughput case in a quick run: five cases take turns, so a third
#: round would add a quarter of the quick run's time to a smoke test.
REPEAT_QUICK = 2
REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Goal:
    """One throughput row: the operator after ``map((w, 1))`` and its goals."""

    kind: str
    label: str
    min_ratio: float
    max_pss_mb: float | None
    #: Batches whose words the last output holds: all of them, or the window's.
    window: int | None = None


GOALS: tuple[Goal, ...] = (
    Goal("stateless", "stateless `reduceByKey(add)`", 1.4, 200.0),
    Goal("window3", "3-batch `reduceByKeyAndWindow(add, sub, 3, 1)`", 1.0, None, window=3),
    Goal("window5", "5-batch `reduceByKeyAndWindow(add, sub, 5, 1)`", 1.0, 250.0, window=5),
    Goal("state", "`updateStateByKey` running count", 1.0, 250.0),
)
FIXED_COST_BUDGET = 1e-3
STARTUP_BUDGET = 0.15


def _load() -> str:
    """The 1-minute load average, for the case text of a row measured just now."""
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except OSError:
        return "n/a"


def count_lines(lines: Iterable[str]) -> Counter[str]:
    """The baseline: count the words of the lines in one process."""
    counts: Counter[str] = Counter()
    for line in lines:
        counts.update(line.split())
    return counts


def _chunks(lines: list[str], size: int) -> list[list[str]]:
    return [lines[i:i + size] for i in range(0, len(lines), size)]


def _file_batches(path: Path, size: int) -> Iterator[list[str]]:
    """The corpus file as lists of ``size`` lines, read one list at a time."""
    with open(path, encoding="utf-8") as f:
        while chunk := [line.rstrip("\n") for line in itertools.islice(f, size)]:
            yield chunk


def _check(case: str, got: dict[str, int], expected: dict[str, int]) -> None:
    if got != expected:
        wrong = sum(1 for k in expected.keys() | got.keys() if got.get(k) != expected.get(k))
        raise AssertionError(f"{case}: the stream's counts differ from the Counter's "
                             f"({len(got)} keys vs {len(expected)}, {wrong} differ)")


class _Output:
    """The output operation: ``rdd.count()`` per batch, or ``collect()`` when verifying."""

    def __init__(self, verify: bool) -> None:
        self.verify = verify
        self.counts: list[int] = []
        self.records: list[list[tuple[str, int]]] = []

    def __call__(self, rdd: Any) -> None:
        if self.verify:
            self.records.append(rdd.collect())
        else:
            self.counts.append(rdd.count())


# ------------------------------------------------------------------------- throughput


def stream(sc: SparkContext, kind: str, batches: Iterable[list[str]], verify: bool = False) -> _Output:
    """Run the program with operator ``kind`` over ``batches``; return what its output saw.

    Each list of ``batches`` is parallelized as it is taken, so a generator reading the
    corpus file never holds the whole corpus as ``str``.
    """
    from dstream import StreamingContext
    from dstream.testing import advance_batches, manual_clock

    # The queue holds RDDs, as PySpark's does, so a stateful stream's checkpoints cannot
    # recover it; the engine says so at every start, which is true and not news here.
    logging.getLogger("dstream.inputs.queue").setLevel(logging.ERROR)
    scratch = tempfile.mkdtemp(prefix="dstreams-bench-goals-") if kind != "stateless" else None
    try:
        ssc = StreamingContext(sc, 1)
        manual_clock(ssc)
        if scratch is not None:
            ssc.checkpoint(scratch)
        rdds = [sc.parallelize(chunk, WORKERS) for chunk in batches]
        count = len(rdds)
        pairs = ssc.queueStream(rdds).flatMap(lambda line: line.split()).map(lambda w: (w, 1))
        del rdds
        if kind == "stateless":
            counts = pairs.reduceByKey(add)
        elif kind in ("window3", "window5"):
            counts = pairs.reduceByKeyAndWindow(add, sub, int(kind[-1]), 1)
        elif kind == "state":
            counts = pairs.updateStateByKey(lambda values, total: sum(values) + (total or 0))
        else:
            raise ValueError(f"unknown kind {kind!r}; choose from {[g.kind for g in GOALS]}")
        output = _Output(verify)
        counts.foreachRDD(output)
        ssc.start()
        try:
            advance_batches(ssc, count, BATCH_TIMEOUT)
            ssc.awaitTerminationOrTimeout(0)  # raise a batch's error, if any
        finally:
            ssc.stop(stopSparkContext=False)
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    seen = len(output.records if verify else output.counts)
    if seen != count:
        raise AssertionError(f"{kind}: the output ran for {seen} batches, expected {count}")
    return output


def verify(sc: SparkContext, goal: Goal, chunks: list[list[str]]) -> None:
    """Check ``goal``'s stream once against the ``Counter`` of the lines its output covers."""
    output = stream(sc, goal.kind, chunks, verify=True)
    if goal.kind == "stateless":
        got: Counter[str] = Counter()
        for batch in output.records:
            got.update(dict(batch))
        expected = count_lines(itertools.chain.from_iterable(chunks))
    else:
        # an incremental window keeps the keys whose count went back to 0
        got = Counter({k: v for k, v in output.records[-1] if v})
        covered = chunks if goal.window is None else chunks[-goal.window:]
        expected = count_lines(itertools.chain.from_iterable(covered))
    _check(goal.label, dict(got), dict(expected))


def pool_word_count(pool: Any, chunks: list[list[str]]) -> Counter[str]:
    """The machine's ceiling for this work: each batch's two halves counted by a
    hand-written ``multiprocessing.Pool`` of two processes, merged in this one."""
    counts: Counter[str] = Counter()
    for chunk in chunks:  # each batch's counts, as the stateless stream's output
        half = len(chunk) // 2
        counts, second = pool.map(count_lines, [chunk[:half], chunk[half:]])
        counts.update(second)
    return counts


def throughput_results(options: Options) -> tuple[list[Result], str]:
    import multiprocessing

    from rdd import SparkContext

    path = ensure_corpus(options.lines)
    memory = {kind: _memory_mb(kind, options.lines) for kind in [g.kind for g in GOALS] + ["baseline"]}
    lines = read_lines(path)
    chunks = _chunks(lines, -(-len(lines) // BATCHES))
    words = sum(len(line.split()) for line in lines)
    # Forked before the context starts its threads; its workers import nothing more.
    pool = multiprocessing.get_context("fork").Pool(WORKERS)
    sc = SparkContext(master=MASTER, appName="bench-goals")
    try:
        for goal in GOALS:
            verify(sc, goal, chunks)
        _check("hand-written Pool", dict(pool_word_count(pool, chunks[-1:])), dict(count_lines(chunks[-1])))
        fns = [lambda kind=goal.kind: stream(sc, kind, chunks) for goal in GOALS]
        repeat = min(options.repeat, REPEAT_QUICK) if options.quick else options.repeat
        *engines, by_pool, baseline = time_interleaved(
            [*fns, lambda: pool_word_count(pool, chunks), lambda: count_lines(lines)], repeat=repeat)
    finally:
        sc.stop()
        pool.terminate()
        pool.join()
    load = _load()
    rows = []
    for goal, engine in zip(GOALS, engines):
        pss = memory[goal.kind]
        if goal.max_pss_mb is None:
            pss_text = f"peak PSS {pss:.0f} MB (no goal)"
        else:
            met = "met" if pss <= goal.max_pss_mb else "**not met**"
            pss_text = f"peak PSS {pss:.0f} MB (goal <= {goal.max_pss_mb:.0f} MB): {met}"
        rows.append(Result(
            f"{goal.label}: {words / engine.median / 1e6:.2f} M words/s; {pss_text}; "
            f"Counter {memory['baseline']:.0f} MB; load {load}",
            engine, baseline, Target(min_ratio=goal.min_ratio)))
    rows.append(Result(f"reference, not a goal: the machine's ceiling, a hand-written "
                       f"`multiprocessing.Pool({WORKERS})` counting each batch's two halves, merged in the parent: "
                       f"{words / by_pool.median / 1e6:.2f} M words/s; load {load}",
                       by_pool, baseline, Target()))
    size = len(chunks[0])
    text = (f"Throughput rows: {options.lines:,} lines ({words:,} words; Counter "
            f"{words / baseline.median / 1e6:.2f} M words/s) as {BATCHES} batches of {size:,} "
            "lines, timed from building the RDDs and the StreamingContext to the last batch's "
            "output, the four streams, the hand-written `Pool` and the `Counter` taking turns. The windowed and "
            "running-count rows are compared with the same `Counter` of all the lines (the "
            "work one process needs for the whole corpus), not with a plain-Python window. "
            "Peak PSS: driver + workers of one run in a fresh process that parallelizes the "
            "batches as it reads them from the corpus file (the `Counter`'s: one process "
            "counting the file's lines as it reads them).")
    return rows, text


def _memory_mb(kind: str, lines: int) -> float:
    argv = [sys.executable, "-m", "bench.bench_goals", "--child", "memory", kind, str(lines)]
    return peak_tree_memory_mb(argv)[0]


# ------------------------------------------------------------------ per-batch fixed cost


def fixed_cost_result(options: Options) -> Result:
    from rdd import SparkContext

    from dstream import StreamingContext
    from dstream.testing import advance_batches, manual_clock

    samples = FIXED_COST_SAMPLES_QUICK if options.quick else FIXED_COST_SAMPLES
    total = FIXED_COST_WARMUP + samples + 1
    path = ensure_corpus(options.lines)
    chunks = list(itertools.islice(_file_batches(path, SMALL_BATCH_LINES), total))
    if len(chunks) < total:
        raise ValueError(f"the corpus of {options.lines:,} lines has fewer than {total} "
                         f"batches of {SMALL_BATCH_LINES} lines; use --lines "
                         f"{total * SMALL_BATCH_LINES} or more")
    sc = SparkContext(master=MASTER, appName="bench-goals-fixed-cost")
    try:
        ssc = StreamingContext(sc, 1)
        manual_clock(ssc)
        rdds = [sc.parallelize(chunk, WORKERS) for chunk in chunks]
        pairs = ssc.queueStream(rdds).flatMap(lambda line: line.split()).map(lambda w: (w, 1))
        output = _Output(verify=True)
        pairs.reduceByKey(add).foreachRDD(output)
        ssc.start()
        times: list[float] = []
        try:
            advance_batches(ssc, 1, BATCH_TIMEOUT)
            _check("fixed cost", dict(output.records[0]), dict(count_lines(chunks[0])))
            output.verify = False
            for sample in range(total - 1):
                started = time.perf_counter()
                advance_batches(ssc, 1, BATCH_TIMEOUT)
                if sample >= FIXED_COST_WARMUP:
                    times.append(time.perf_counter() - started)
            ssc.awaitTerminationOrTimeout(0)
        finally:
            ssc.stop(stopSparkContext=False)
    finally:
        sc.stop()
    baseline = time_calls(lambda: count_lines(chunks[0]), samples=samples, warmup=FIXED_COST_WARMUP)
    return Result(f"per-batch fixed cost: {SMALL_BATCH_LINES}-line batches, stateless, one batch "
                  f"({samples:,} samples after {FIXED_COST_WARMUP} warm-up); load {_load()}",
                  Timing(tuple(times)), baseline, Target(max_median=FIXED_COST_BUDGET))


# ------------------------------------------------------------------ start to first job


def _startup_child(lines: list[str]) -> dict[str, Any]:
    from rdd import SparkConf, SparkContext

    from dstream import StreamingContext  # imports are not part of the figure
    from dstream.testing import advance_batches

    first: list[tuple[int, float]] = []
    started = time.perf_counter()
    conf = SparkConf().set("spark.streaming.clock", "manual")
    sc = SparkContext(master=MASTER, appName="bench-goals-startup", conf=conf)
    try:
        ssc = StreamingContext(sc, 1)
        pairs = ssc.queueStream([sc.parallelize(lines, WORKERS)]).flatMap(lambda line: line.split())
        counts = pairs.map(lambda w: (w, 1)).reduceByKey(add)
        counts.foreachRDD(lambda rdd: first.append((rdd.count(), time.perf_counter())))
        ssc.start()
        advance_batches(ssc, 1, BATCH_TIMEOUT)
        ssc.stop(stopSparkContext=False)
    finally:
        sc.stop()
    if not first:
        raise AssertionError("start to first job: the first batch produced no output")
    keys, ended = first[0]
    if keys != len(count_lines(lines)):
        raise AssertionError(f"start to first job: {keys} keys, expected {len(count_lines(lines))}")
    started_baseline = time.perf_counter()
    count_lines(lines)
    return {"seconds": ended - started, "baseline": time.perf_counter() - started_baseline}


def startup_result(options: Options) -> Result:
    samples = STARTUP_SAMPLES_QUICK if options.quick else STARTUP_SAMPLES
    found = [_run_child("startup", str(options.lines), str(SMALL_BATCH_LINES)) for _ in range(samples)]
    return Result(f"start to first job: `SparkContext(...)` to the first {SMALL_BATCH_LINES}-line "
                  f"batch's `count()`, fresh process per sample; load {_load()}",
                  Timing(tuple(f["seconds"] for f in found)),
                  Timing(tuple(f["baseline"] for f in found)), Target(max_median=STARTUP_BUDGET))


def _run_child(*args: str) -> dict[str, Any]:
    argv = [sys.executable, "-m", "bench.bench_goals", "--child", *args]
    out = subprocess.run(argv, cwd=REPO, check=True, capture_output=True, text=True, timeout=600).stdout
    return json.loads(out.strip().splitlines()[-1])


# ------------------------------------------------------------------------------- entry


def run(options: Options) -> list[Benchmark]:
    """Measure every goal and return them as one table."""
    ensure_corpus(options.lines)  # generate outside every timed or sampled region
    throughput, text = throughput_results(options)
    rows = (*throughput, fixed_cost_result(options), startup_result(options))
    return [Benchmark(
        title="the issue's goals on local[2]",
        description=(
            f"One PySpark Streaming program for every row: the bench corpus in `queueStream` "
            f"batches of `sc.parallelize(chunk, {WORKERS})` on `{MASTER}`, 1 s batches on the "
            "manual clock, `flatMap(split).map((w, 1))`, the row's operator, output "
            "`foreachRDD(lambda rdd: rdd.count())`; baseline: a `Counter` over the same "
            f"lines in this process. {text} Per-batch fixed cost: {SMALL_BATCH_LINES}-line "
            "batches of the stateless program, one sample = advance the manual clock one "
            "batch and wait until its output ran (the listener's `processingDelay` is in "
            "manual-clock milliseconds, too coarse for the goal); baseline: the `Counter` of "
            "one batch. Start to first job: in a fresh process per sample, imports done "
            "first, from `SparkContext(...)` to the first batch's `count()` returning; "
            "baseline: the `Counter` of that batch in the same process. Checked once, "
            "untimed: all batches' counts (stateless), the last window without zero counts, "
            "the final state, and the small batches' counts equal the `Counter`'s. Ratio = "
            "Counter median / engine median."),
        engine_label=MASTER, baseline_label="Counter", results=rows)]


def _child(kind: str, args: list[str]) -> dict[str, Any]:
    """What a fresh process measures: ``memory KIND LINES`` or ``startup LINES SIZE``."""
    if kind == "memory":
        which, lines = args[0], int(args[1])
        path = ensure_corpus(lines)
        batches = _file_batches(path, -(-lines // BATCHES))
        if which == "baseline":
            return {"words": sum(count_lines(itertools.chain.from_iterable(batches)).values())}
        from rdd import SparkContext

        sc = SparkContext(master=MASTER, appName="bench-goals-memory")
        try:
            return {"batches": len(stream(sc, which, batches).counts)}
        finally:
            sc.stop()
    if kind == "startup":
        lines, size = int(args[0]), int(args[1])
        return _startup_child(next(_file_batches(ensure_corpus(lines), size)))
    raise ValueError(f"unknown child kind {kind!r}; choose memory or startup")


def main(argv: list[str] | None = None) -> int:
    """Child-process entry: ``--child memory KIND LINES`` or ``--child startup LINES SIZE``."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m bench.bench_goals", description=main.__doc__)
    parser.add_argument("--child", nargs="+", metavar="ARG", required=True)
    args = parser.parse_args(argv)
    print(json.dumps(_child(args.child[0], args.child[1:])))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

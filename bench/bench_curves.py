"""Cost curves of the streaming engine against plain Python, with plots.

This module owns four measurements, each a table in ``RESULTS.md`` and (three of them) a
PNG plot drawn by :mod:`bench.curves_plot` into ``curves/`` beside the report
(``bench/curves/`` for a full run, ``bench/_data/curves/`` for ``--quick``), linked from
the section with relative image links. Every figure is beside a plain-Python baseline
timed in the same process, on the same input:

(a) throughput of the streaming word count vs batch size: ``queueStream([], default=rdd)``
    with ``rdd = sc.parallelize(lines, 2)``, ``flatMap(split) -> map((w, 1)) ->
    reduceByKey(add, 2)``, output ``count()`` per batch, ``local[2]``, manual clock; one
    sample = one batch; baseline ``Counter`` over the same lines, in turns with the batches.
(b) the same vs the number of partitions (of the queued RDD and of ``reduceByKey``), at
    ``PARTITION_LINES`` lines per batch.
(c) per-batch time vs state size for ``updateStateByKey`` and ``mapWithState`` (running
    count), each batch touching 1% of the keys, state loaded by ``initialRDD`` /
    ``initialState`` (untimed), plus the memory per key (PSS of driver + workers after the
    timed batches minus before the stream, over the keys). One fresh process per point
    (``--child state``), which also times the baseline: a dict updated with the same keys.
(d) recovery: ``StreamingContext.getOrCreate`` of a stream with ``RECOVERY_KEYS`` keys of
    ``updateStateByKey`` state, from the call to its first recovered batch's output, in a
    fresh process; the state is built and checkpointed first by another process. Baseline:
    ``pickle.load`` of a dict with the same keys, in the recovering process.

Every engine result is checked against its baseline once, untimed. Knees are found by
:func:`bench.curves_plot.describe_knee` from the measured figures, so the section's text
always matches its tables.

Run one part by hand: ``python -m bench.bench_curves --child state mapWithState 100000 3``.
"""

from __future__ import annotations

import gc
import json
import pickle
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from operator import add
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench.bench_state import StateKeys, add_batches_timed, running_count, update_count, zero_state
from bench.corpus import ensure_corpus, read_lines
from bench.curves_plot import Series, describe_knee, plot
from bench.harness import BENCH_DIR, QUICK_RESULTS_PATH, Benchmark, Options, Result, Target, Timing, format_seconds
from bench.memory import tree_pss_bytes

if TYPE_CHECKING:  # the engines are imported when the benchmark runs, not when listed
    from rdd import SparkContext

    from dstream import DStream, StreamingContext

TITLE = "cost curves (batch size, partitions, state size) and recovery time, with plots"
WORKERS = 2
MASTER = f"local[{WORKERS}]"
BATCH_TIMEOUT = 900.0
REPO = Path(__file__).resolve().parent.parent
#: Base of batch ``i``'s keys in (c): a prime step, so each batch touches a different 1%.
BASE_STEP = 104_729
#: A point of (c) whose predicted time (10x the previous point's) exceeds this is not run.
STATE_POINT_BUDGET = 180.0
#: Kill a point of (c) that runs longer than this (its row then says so).
STATE_POINT_TIMEOUT = 300.0
RECOVERY_TARGET = 3.0
#: State checkpoint interval of the recovery stream (batches): the built state is
#: checkpointed at batch 2 and 4, and the first recovered batch (5) writes none.
RECOVERY_CHECKPOINT = 2
RECOVERY_BUILD_BATCHES = 4


@dataclass(frozen=True)
class Sizes:
    """The sizes of one mode (full or quick)."""

    batch_lines: tuple[int, ...]
    partitions: tuple[int, ...]
    partition_lines: int
    state_keys: tuple[int, ...]
    state_samples: int
    recovery_keys: int
    recovery_samples: int


FULL = Sizes(batch_lines=(1_000, 10_000, 100_000, 1_000_000), partitions=(1, 2, 4, 8, 16),
             partition_lines=100_000, state_keys=(10_000, 100_000, 1_000_000, 10_000_000), state_samples=5,
             recovery_keys=1_000_000, recovery_samples=3)
QUICK = Sizes(batch_lines=(1_000, 10_000), partitions=(1, 2, 4), partition_lines=10_000,
              state_keys=(10_000, 100_000), state_samples=3, recovery_keys=100_000, recovery_samples=1)


def _samples(lines: int) -> int:
    """Batches timed at ``lines`` per batch: more for small batches (noisier, cheaper)."""
    return max(4, min(30, 3_000_000 // lines))


def _scratch() -> str:
    return tempfile.mkdtemp(prefix="dstreams-bench-curves-")


def _count(n: int) -> str:
    """``1k``, ``100k``, ``10M``: axis-style counts for the text."""
    for scale, suffix in ((1_000_000, "M"), (1_000, "k")):
        if n >= scale and n % scale == 0:
            return f"{n // scale}{suffix}"
    return f"{n:,}"


def curves_dir(options: Options) -> Path:
    """Where the PNGs go: ``curves/`` beside the report (full or quick)."""
    return (QUICK_RESULTS_PATH.parent if options.quick else BENCH_DIR) / "curves"


def split_line(line: str) -> list[str]:
    return line.split()


def one(word: str) -> tuple[str, int]:
    return (word, 1)


def count_lines(lines: list[str]) -> Counter[str]:
    """Baseline of (a) and (b): the words of ``lines`` in one ``Counter``."""
    counts: Counter[str] = Counter()
    for line in lines:
        counts.update(line.split())
    return counts


class _Output:
    """Output operation: ``count()`` each batch, ``collect()`` (filtered) when asked."""

    def __init__(self, keep: Any = None) -> None:
        self.collect = False
        self.keep = keep
        self.records: list[Any] | None = None
        self.count = -1

    def __call__(self, rdd: Any) -> None:
        if self.collect:
            self.records = (rdd.filter(self.keep) if self.keep else rdd).collect()
        else:
            self.count = rdd.count()


def _manual_context(sc: SparkContext, checkpoint_dir: str | None = None) -> StreamingContext:
    from dstream import StreamingContext
    from dstream.testing import manual_clock

    ssc = StreamingContext(sc, 1)
    manual_clock(ssc)
    if checkpoint_dir is not None:
        ssc.checkpoint(checkpoint_dir)
    return ssc


# ------------------------------------------------- (a), (b) word count: batch size, partitions


def word_count_point(sc: SparkContext, lines: list[str], partitions: int, samples: int) -> tuple[Timing, Timing]:
    """Per-batch times of the word count over ``lines``, and of ``Counter``, in turns."""
    from dstream.testing import advance_batches

    ssc = _manual_context(sc)
    rdd = sc.parallelize(lines, partitions)
    counts = ssc.queueStream([], default=rdd).flatMap(split_line).map(one).reduceByKey(add, partitions)
    output = _Output()
    counts.foreachRDD(output)
    engine: list[float] = []
    baseline: list[float] = []
    ssc.start()
    try:
        output.collect = True
        advance_batches(ssc, 1, BATCH_TIMEOUT)  # warm-up, and the check
        output.collect = False
        if dict(output.records or []) != dict(count_lines(lines)):
            raise AssertionError(f"word count of {len(lines):,} lines in {partitions} partitions differs "
                                 "from Counter's")
        for _ in range(samples):
            gc.collect()
            started = time.perf_counter()
            advance_batches(ssc, 1, BATCH_TIMEOUT)
            middle = time.perf_counter()
            count_lines(lines)
            baseline.append(time.perf_counter() - middle)
            engine.append(middle - started)
        ssc.awaitTerminationOrTimeout(0)  # raise a batch's error, if any
    finally:
        ssc.stop(stopSparkContext=False)
    return Timing(tuple(engine)), Timing(tuple(baseline))


def _rate(lines: int, timing: Timing) -> float:
    return lines / timing.median


def _throughput_plot(path: Path, title: str, xlabel: str, xs: list[int], points: list[tuple[Timing, Timing]],
                     lines: list[int]) -> None:
    plot(path, title, xlabel, "lines / s",
         [Series(f"dstream {MASTER}", tuple(xs), tuple(_rate(n, e) for n, (e, _) in zip(lines, points))),
          Series("Counter (same process)", tuple(xs), tuple(_rate(n, b) for n, (_, b) in zip(lines, points)))],
         secondary=[Series("ratio dstream / Counter", tuple(xs),
                           tuple(b.median / e.median for e, b in points))],
         secondary_label="ratio (dstream / Counter)")


PIPELINE = ("`queueStream([], default=sc.parallelize(lines, P))` `.flatMap(split).map((w, 1))"
            ".reduceByKey(add, P)`, output `count()` per batch, on `local[2]` with the manual clock "
            "(one sample = advance one batch and wait for its output; the first batch is an untimed "
            "warm-up whose collected counts are checked against `Counter`'s). Lines: the bench corpus "
            "(Zipf words, ~10 per line). Baseline: `Counter.update(line.split())` over the same lines "
            "in the same process, timed right after each batch (in turns). Ratio = dstream lines/s / "
            "Counter lines/s.")


def batch_size_benchmark(sc: SparkContext, corpus: list[str], sizes: Sizes, png: Path) -> Benchmark:
    points = [word_count_point(sc, corpus[:n], WORKERS, _samples(n)) for n in sizes.batch_lines]
    rows = tuple(Result(f"{n:,} lines per batch: **{_rate(n, e):,.0f} lines/s** (Counter {_rate(n, b):,.0f})", e, b)
                 for n, (e, b) in zip(sizes.batch_lines, points))
    _throughput_plot(png, "Streaming word count: throughput vs batch size", "lines per batch",
                     list(sizes.batch_lines), points, list(sizes.batch_lines))
    knee = describe_knee(sizes.batch_lines, [e.median / n for n, (e, _) in zip(sizes.batch_lines, points)],
                         lambda x: f"{_count(int(x))} lines", lambda c: f"{c * 1e6:.2f} us", "line")
    return Benchmark(
        title="(a) word count throughput vs batch size",
        description=(f"![throughput vs batch size](curves/{png.name})\n\n{PIPELINE} P = {WORKERS}. "
                     f"Batches timed per point: {', '.join(str(_samples(n)) for n in sizes.batch_lines)}.\n\n"
                     f"Where the per-batch time stops being linear in the batch size: {knee}"),
        engine_label=f"dstream per batch, {MASTER}", baseline_label="Counter per batch", results=rows)


def partitions_benchmark(sc: SparkContext, corpus: list[str], sizes: Sizes, png: Path) -> Benchmark:
    n = sizes.partition_lines
    lines = corpus[:n]
    samples = _samples(n) // 2
    points = [word_count_point(sc, lines, p, samples) for p in sizes.partitions]
    rows = tuple(Result(f"{p} partitions: **{_rate(n, e):,.0f} lines/s**", e, b)
                 for p, (e, b) in zip(sizes.partitions, points))
    _throughput_plot(png, f"Streaming word count: throughput vs partitions ({_count(n)} lines per batch)",
                     "partitions (queued RDD and reduceByKey)", list(sizes.partitions), points,
                     [n] * len(points))
    times = [e.median for e, _ in points]
    best = times.index(min(times))
    text = ("Per-batch time: " + ", ".join(f"P = {p}: {format_seconds(t)}" for p, t in zip(sizes.partitions, times))
            + f". Fastest at **P = {sizes.partitions[best]}** ({_rate(n, points[best][0]):,.0f} lines/s; "
            f"{WORKERS} worker processes).")
    if best < len(times) - 1:
        extra = (times[-1] - times[best]) / (sizes.partitions[-1] - sizes.partitions[best])
        text += (f" **Knee at P = {sizes.partitions[best]}**: above it the time grows again, to "
                 f"{times[-1] / times[best]:.2f}x at P = {sizes.partitions[-1]}, about "
                 f"{format_seconds(extra)} per extra partition (a map task and a reduce task each).")
    if best > 0:
        text += (f" Below it, P = {sizes.partitions[0]} is {times[0] / times[best]:.2f}x slower "
                 "(fewer tasks than worker processes).")
    return Benchmark(
        title=f"(b) word count throughput vs partitions ({n:,} lines per batch)",
        description=(f"![throughput vs partitions](curves/{png.name})\n\n{PIPELINE} P = "
                     f"{', '.join(str(p) for p in sizes.partitions)}; {samples} batches timed per point.\n\n"
                     f"{text}"),
        engine_label=f"dstream per batch, {MASTER}", baseline_label="Counter per batch", results=rows)


# ------------------------------------------------------------------------ (c) state size


def state_items(keys: int, batches: int) -> list[list[tuple[int, int, int]]]:
    """Queue of (c): batch ``i`` touches ``keys // 100`` keys, from base ``i * BASE_STEP``."""
    touched = keys // 100
    half = touched // 2
    return [[((i * BASE_STEP) % keys, 0, half), ((i * BASE_STEP) % keys, half, touched)] for i in range(batches)]


def nonzero(pair: tuple[Any, int]) -> bool:
    return pair[1] != 0


def _state_child(operator: str, keys: int, samples: int) -> dict[str, Any]:
    """One point of (c) in this (fresh) process: engine, then the dict baseline."""
    from rdd import SparkContext

    from dstream import StateSpec
    from dstream.testing import advance_batches

    warmup = 2  # the first loads the initial state
    items = state_items(keys, warmup + samples + 1)
    sc = SparkContext(master=MASTER, appName="bench-curves-state")
    scratch = _scratch()
    try:
        sc.parallelize(range(4), WORKERS).count()  # the workers are up and have imported
        gc.collect()
        before = tree_pss_bytes()
        ssc = _manual_context(sc, scratch)
        pairs = ssc.queueStream(items).flatMap(StateKeys(keys))
        stream: DStream[Any]
        initial = sc.range(keys, numSlices=WORKERS).map(zero_state)
        if operator == "mapWithState":
            stream = pairs.mapWithState(StateSpec.function(running_count).initialState(initial))
            output = _Output()
        elif operator == "updateStateByKey":
            stream = pairs.updateStateByKey(update_count, initialRDD=initial)
            output = _Output(nonzero)  # the keys touched so far, not the whole state
        else:
            raise ValueError(f"unknown state operator {operator!r}; use mapWithState or updateStateByKey")
        stream.foreachRDD(output)
        times: list[float] = []
        ssc.start()
        try:
            started = time.perf_counter()
            advance_batches(ssc, 1, BATCH_TIMEOUT)
            load = time.perf_counter() - started
            advance_batches(ssc, warmup - 1, BATCH_TIMEOUT)
            for _ in range(samples):
                started = time.perf_counter()
                advance_batches(ssc, 1, BATCH_TIMEOUT)
                times.append(time.perf_counter() - started)
            gc.collect()
            after = tree_pss_bytes()
            output.collect = True
            advance_batches(ssc, 1, BATCH_TIMEOUT)
            ssc.awaitTerminationOrTimeout(0)
        finally:
            ssc.stop(stopSparkContext=False)
        got = dict(output.records or [])
    finally:
        sc.stop()
        shutil.rmtree(scratch, ignore_errors=True)

    # The baseline, in this process once the engine's workers are gone.
    make = StateKeys(keys)
    batches = [[r for item in batch for r in make(item)] for batch in items]
    gc.collect()
    dict_before = tree_pss_bytes()
    counts: dict[int, int] = dict.fromkeys(range(keys), 0)
    gc.collect()
    dict_bytes = tree_pss_bytes() - dict_before
    baseline = add_batches_timed(counts, batches)[warmup:warmup + samples]
    if operator == "mapWithState":
        expected = {k: counts[k] for k, _ in batches[-1]}
    else:
        expected = {k: v for k, v in counts.items() if v}
    if got != expected:
        raise AssertionError(f"(c) {operator} with {keys:,} keys: the stream's counts differ from the dict's "
                             f"({len(got):,} keys vs {len(expected):,})")
    return {"engine": times, "baseline": baseline, "load": load, "engine_bytes": after - before,
            "dict_bytes": dict_bytes}


def _run_child(args: list[str], timeout: float) -> dict[str, Any]:
    argv = [sys.executable, "-m", "bench.bench_curves", "--child", *args]
    out = subprocess.run(argv, cwd=REPO, check=True, capture_output=True, text=True, timeout=timeout).stdout
    return json.loads(out.strip().splitlines()[-1])


OPERATORS = ("updateStateByKey", "mapWithState")
#: Plot colours: an operator's time and its bytes per key share one.
COLORS = {"updateStateByKey": "tab:blue", "mapWithState": "tab:orange", "dict": "tab:green"}


def state_benchmarks(sizes: Sizes, png: Path) -> list[Benchmark]:
    found: dict[str, list[tuple[int, dict[str, Any]]]] = {op: [] for op in OPERATORS}
    stopped: dict[str, str] = {}
    for operator in OPERATORS:
        previous: float | None = None
        for keys in sizes.state_keys:
            if previous is not None and 10 * previous > STATE_POINT_BUDGET:
                stopped[operator] = (f"{operator} stops at {_count(found[operator][-1][0])} keys: that point took "
                                     f"{previous:.0f} s, so {_count(keys)} keys would take about "
                                     f"{10 * previous:.0f} s (> {STATE_POINT_BUDGET:.0f} s budget per point)")
                break
            started = time.perf_counter()
            samples = sizes.state_samples if keys <= 1_000_000 else 3  # a 10M-key batch can take 20 s
            try:
                result = _run_child(["state", operator, str(keys), str(samples)], STATE_POINT_TIMEOUT)
            except subprocess.TimeoutExpired:
                stopped[operator] = (f"{operator} at {_count(keys)} keys was stopped after "
                                     f"{STATE_POINT_TIMEOUT:.0f} s (budget per point)")
                break
            previous = time.perf_counter() - started
            result["seconds"] = previous
            found[operator].append((keys, result))
    rows: list[Result] = []
    memory: list[Result] = []
    for operator in OPERATORS:
        for keys, r in found[operator]:
            engine, baseline = Timing(tuple(r["engine"])), Timing(tuple(r["baseline"]))
            rows.append(Result(f"{operator}, {keys:,} keys ({keys // 100:,} per batch; load {r['load']:.2f} s, "
                               f"point {r['seconds']:.0f} s): engine / dict = "
                               f"**{engine.median / baseline.median:,.0f}x**", engine, baseline))
            memory.append(Result(f"{operator}, {keys:,} keys", Timing((r["engine_bytes"] / keys,)),
                                 Timing((r["dict_bytes"] / keys,))))
    series = [Series(f"{op} (s/batch)", tuple(k for k, _ in found[op]),
                     tuple(Timing(tuple(r["engine"])).median for _, r in found[op]), COLORS[op]) for op in OPERATORS]
    longest = max(OPERATORS, key=lambda op: len(found[op]))
    series.append(Series("dict, same keys (s/batch)", tuple(k for k, _ in found[longest]),
                         tuple(Timing(tuple(r["baseline"])).median for _, r in found[longest]), COLORS["dict"]))
    plot(png, "Per-batch time vs state size (1% of the keys per batch)", "keys in state", "seconds per batch",
         series, secondary=[Series(f"{op} (bytes/key)", tuple(k for k, _ in found[op]),
                                   tuple(r["engine_bytes"] / k for k, r in found[op]), COLORS[op]) for op in OPERATORS],
         secondary_label="bytes per key (PSS, dashed)")
    knees = []
    memory_knees = []
    for operator in OPERATORS:
        xs = [k for k, _ in found[operator]]
        if xs:
            costs = [Timing(tuple(r["engine"])).median / k for k, r in found[operator]]
            knees.append(f"- `{operator}`: " + describe_knee(
                xs, costs, lambda x: f"{_count(int(x))} keys", lambda c: f"{c * 1e9:.0f} ns", "state key"))
            memory_knees.append(f"- `{operator}`: " + describe_knee(
                xs, [max(r["engine_bytes"] / k, 1.0) for k, r in found[operator]],
                lambda x: f"{_count(int(x))} keys", lambda c: f"{c:.0f} B", "key"))
    knees.extend(f"- {text}." for text in stopped.values())
    description = (
        f"![per-batch time vs state size](curves/{png.name})\n\n"
        f"A running count on `{MASTER}`, 1 s batches on the manual clock, checkpointing on (default "
        "interval: 10 batches, after the timed ones): `updateStateByKey(lambda vs, s: sum(vs) + (s or 0), "
        "initialRDD=rdd)` and `mapWithState(StateSpec.function(running_count).initialState(rdd))`, "
        "`rdd = sc.range(N, 2).map(lambda k: (k, 0))`; each batch brings `(key, 1)` for N/100 distinct "
        "keys spread over the key space (a new set each batch), made in the workers from a two-slice "
        "`queueStream`; output `count()` per batch. One fresh process per point: the first batch loads "
        f"the state (untimed; 'load' in the case column), one more warm-up batch, then "
        f"{sizes.state_samples} batches timed (3 above 1M keys); then one more collects the result, checked "
        "against the baseline's. Baseline, in the same process after the engine stopped: a dict of N keys "
        "updated with the same batches' records (`d[k] = d.get(k, 0) + v`). 'point' = wall time of the "
        "whole point (process start to end).\n\nWhere per-batch time stops being linear in the state "
        "size:\n\n" + "\n".join(knees))
    memory_description = (
        "Beside (c): PSS of the driver and its worker processes (`/proc/<pid>/smaps_rollup`, summed) "
        "after the timed batches minus before the stream was built (workers already started), divided "
        "by N. It is what the OS sees for the state, allocator slack, the state RDDs kept in the "
        "remember window and the shuffle blocks included. Baseline: this process's PSS growth when "
        "building `dict.fromkeys(range(N), 0)`. Ratio = dict bytes / engine bytes. Where the bytes per key "
        "stop being constant (small states: the fixed memory of a started stream, spread over few keys):"
        "\n\n" + "\n".join(memory_knees))
    return [
        Benchmark(title="(c) per-batch time vs state size", description=description,
                  engine_label="dstream per batch", baseline_label="dict per batch", results=tuple(rows)),
        Benchmark(title="(c) memory per key of the state", description=memory_description,
                  engine_label="bytes per key", baseline_label="dict bytes per key", results=tuple(memory),
                  unit="bytes"),
    ]


# --------------------------------------------------------------------------- (d) recovery


class FirstOutput:
    """Output of the recovery stream: when the first batch's ``count()`` was in the driver.

    Module-level, so that the checkpointed graph refers to it by name; the recovering
    process reads :attr:`seen` (one entry per batch of this process).
    """

    seen: list[tuple[float, int]] = []

    @staticmethod
    def record(rdd: Any) -> None:
        count = rdd.count()
        FirstOutput.seen.append((time.perf_counter(), count))


def recovery_graph(sc: SparkContext, directory: str, keys: int) -> StreamingContext:
    """The recovery stream: ``keys`` keys of updateStateByKey state, 1% touched per batch."""
    from dstream import StreamingContext

    ssc = StreamingContext(sc, 1)
    ssc.checkpoint(directory)
    initial = sc.range(keys, numSlices=WORKERS).map(zero_state)
    pairs = ssc.queueStream([], default=state_items(keys, 1)[0]).flatMap(StateKeys(keys))
    state = pairs.updateStateByKey(update_count, initialRDD=initial)
    state.checkpoint(RECOVERY_CHECKPOINT)
    state.foreachRDD(FirstOutput.record)
    return ssc


def not_called() -> StreamingContext:
    raise AssertionError("getOrCreate called setupFunc: the checkpoint was not usable")


def _recovery_build(directory: str, keys: int, pickle_path: str) -> dict[str, Any]:
    """Build and checkpoint the state (untimed), then write the baseline's pickle."""
    from rdd import SparkConf, SparkContext

    from dstream.testing import advance_batches

    sc = SparkContext(master=MASTER, appName="bench-curves-recovery",
                      conf=SparkConf().set("spark.streaming.clock", "manual"))
    try:
        ssc = recovery_graph(sc, directory, keys)
        ssc.start()
        try:
            advance_batches(ssc, RECOVERY_BUILD_BATCHES, BATCH_TIMEOUT)
            ssc.awaitTerminationOrTimeout(0)
        finally:
            ssc.stop(stopSparkContext=False)
    finally:
        sc.stop()
    if FirstOutput.seen[-1][1] != keys:
        raise AssertionError(f"(d) the built state has {FirstOutput.seen[-1][1]:,} keys, expected {keys:,}")
    counts = dict.fromkeys(range(keys), 0)
    make = StateKeys(keys)
    for _ in range(RECOVERY_BUILD_BATCHES):
        for item in state_items(keys, 1)[0]:
            for key, value in make(item):
                counts[key] += value
    with open(pickle_path, "wb") as f:
        pickle.dump(counts, f, protocol=pickle.HIGHEST_PROTOCOL)
    return {"keys": keys}


def _recovery(directory: str, keys: int, pickle_path: str) -> dict[str, Any]:
    """Time getOrCreate -> first recovered batch's output, then the pickle.load baseline."""
    from dstream import StreamingContext
    from dstream.testing import advance_batches

    gc.collect()
    started = time.perf_counter()
    ssc = StreamingContext.getOrCreate(directory, not_called)
    ssc.start()
    try:
        advance_batches(ssc, 1, BATCH_TIMEOUT)
        ssc.awaitTerminationOrTimeout(0)
    finally:
        ssc.stop(stopSparkContext=True)
    if not FirstOutput.seen:
        raise AssertionError("(d) the recovered stream produced no output")
    output_time, count = FirstOutput.seen[0]
    if count != keys:
        raise AssertionError(f"(d) the recovered state has {count:,} keys, expected {keys:,}")
    gc.collect()
    started_load = time.perf_counter()
    with open(pickle_path, "rb") as f:
        loaded = pickle.load(f)
    loaded_seconds = time.perf_counter() - started_load
    if len(loaded) != keys:
        raise AssertionError(f"(d) the pickled dict has {len(loaded):,} keys, expected {keys:,}")
    return {"seconds": output_time - started, "baseline": loaded_seconds}


def recovery_benchmark(sizes: Sizes) -> Benchmark:
    keys = sizes.recovery_keys
    scratch = Path(_scratch())
    try:
        directory, kept, pickled = scratch / "checkpoint", scratch / "kept", scratch / "state.pickle"
        _run_child(["recovery-build", str(directory), str(keys), str(pickled)], BATCH_TIMEOUT)
        shutil.copytree(directory, kept)
        engine: list[float] = []
        baseline: list[float] = []
        for _ in range(sizes.recovery_samples):
            # Each sample recovers from the same files: the previous one wrote new checkpoints.
            shutil.rmtree(directory)
            shutil.copytree(kept, directory)
            found = _run_child(["recovery", str(directory), str(keys), str(pickled)], BATCH_TIMEOUT)
            engine.append(found["seconds"])
            baseline.append(found["baseline"])
        size = sum(p.stat().st_size for p in kept.rglob("*") if p.is_file())
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    row = Result(f"getOrCreate -> first recovered batch's output, {keys:,} keys", Timing(tuple(engine)),
                 Timing(tuple(baseline)), Target(max_median=RECOVERY_TARGET))
    return Benchmark(
        title=f"(d) recovery: getOrCreate with {keys:,} keys of updateStateByKey state",
        description=(
            f"A first process builds the state on `{MASTER}` (manual clock): `updateStateByKey(lambda vs, s: "
            f"sum(vs) + (s or 0), initialRDD=sc.range({keys}, 2).map(lambda k: (k, 0)))` "
            f"`.checkpoint({RECOVERY_CHECKPOINT})` over a `queueStream` touching {keys // 100:,} keys per "
            f"batch, output `count()`; {RECOVERY_BUILD_BATCHES} batches, so the state is checkpointed "
            f"at batches {RECOVERY_CHECKPOINT} and {RECOVERY_BUILD_BATCHES}, then a graceful stop (checkpoint "
            f"directory: {size / 1e6:.1f} MB). Then, per sample, a fresh process (imports done, not timed) "
            "times `StreamingContext.getOrCreate(dir, setup)` (which starts the SparkContext and its "
            "workers from the checkpointed conf), `start()`, advance one batch, until the first "
            f"recovered batch's `count()` is in the driver (checked: {keys:,} keys). The directory is "
            "restored from a copy before each sample, so every sample recovers the same files. "
            "Baseline, in the same process afterwards: `pickle.load` of a dict with the same keys and "
            "counts from a file."),
        engine_label="recovery", baseline_label="pickle.load", results=(row,))


# ------------------------------------------------------------------------------- entry


def run(options: Options) -> list[Benchmark]:
    """Run every measurement of this module; draw the PNGs; one :class:`Benchmark` per table."""
    from rdd import SparkContext

    sizes = QUICK if options.quick else FULL
    pngs = curves_dir(options)
    corpus = read_lines(ensure_corpus(max(options.lines, max(sizes.batch_lines), sizes.partition_lines)))
    sc = SparkContext(master=MASTER, appName="bench-curves-wordcount")
    try:
        word_count = [batch_size_benchmark(sc, corpus, sizes, pngs / "batch_size.png"),
                      partitions_benchmark(sc, corpus, sizes, pngs / "partitions.png")]
    finally:
        sc.stop()
    del corpus
    return [*word_count, *state_benchmarks(sizes, pngs / "state_size.png"), recovery_benchmark(sizes)]


def main(argv: list[str] | None = None) -> int:
    """Child-process entry: ``--child state OPERATOR KEYS SAMPLES`` or ``--child recovery[-build] DIR KEYS PICKLE``."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m bench.bench_curves", description=main.__doc__)
    parser.add_argument("--child", nargs=4, metavar=("KIND", "A", "B", "C"), required=True)
    kind, a, b, c = parser.parse_args(argv).child
    if kind == "state":
        result = _state_child(a, int(b), int(c))
    elif kind == "recovery-build":
        result = _recovery_build(a, int(b), c)
    elif kind == "recovery":
        result = _recovery(a, int(b), c)
    else:
        parser.error(f"unknown child kind {kind!r}; use state, recovery-build or recovery")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    # Run as the imported module, not as __main__: the checkpointed graph must name
    # FirstOutput as bench.bench_curves.FirstOutput (cloudpickle copies __main__'s classes
    # by value, and a copy's ``seen`` is not the one the recovering process reads).
    from bench.bench_curves import main as imported_main

    raise SystemExit(imported_main())

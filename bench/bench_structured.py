"""Benchmarks of Structured Streaming (``dstream.sql.streaming``) against plain Python.

This module owns four benchmarks on ``local[2]`` (two worker processes), each timed against
a plain-Python baseline in the same invocation, with the peak memory (PSS of the process
tree: driver and workers; of the driver alone for the baselines) of both sides beside each
figure, measured in separate untimed runs:

(a) streaming word count: the bench corpus split into 10 text files read by
    ``readStream.option("maxFilesPerTrigger", 1).text(dir)`` (10 micro-batches) ->
    ``split -> explode -> groupBy(word).count()``, complete mode, memory sink,
    ``trigger(availableNow=True)``, timed from ``start()`` to the query's end, vs a
    ``collections.Counter`` fed the same files line by line. Target: 2x.
(b) windowed count with a watermark: 1M events ``(t, key)`` in 10 Parquet files of 100k
    rows with moving event time (1% stragglers, some behind the watermark), read one file per
    batch; ``withWatermark("t", "10 seconds").groupBy(window("t", "10 seconds")).count()`` in
    append mode, memory sink, ``availableNow``; vs a dict of windows updated batch by batch
    with the engine's rules (a row is late when its window ends at or before the previous
    batch's watermark; windows ending at or before the batch's watermark are emitted and
    dropped), reading the same files as (a)'s ``Counter`` does (each file's event times
    through pyarrow as int64 microseconds, the fastest way into Python ints). Target: 2x.
    A diagnostic row times the same dict loop over event times already in lists: the
    windowing alone, without the input.
(c) fixed cost of a micro-batch: a 1-row ``MemoryStream`` batch through a ``select`` into the
    memory sink, ``addData`` then ``processAllAvailable()`` back to back; also the progress'
    ``durationMs.triggerExecution``. Baseline: appending the transformed row to a list, so the
    ratio says how many times the row's own work the batch costs. Target: <= 5 ms per batch.
(d) restoring a state of 1M keys: ``groupBy(k).count()`` (update mode) run to a checkpoint
    over 1M distinct keys, then a new query on a copy of that checkpoint: the time from
    ``start()`` to the end of its first (1-row) batch minus the same on an empty checkpoint;
    also ``read_state_table`` (the Arrow state rebuilt from its files) timed directly in the driver.
    Baseline: ``pickle.load`` of the same 1M ``key -> count`` pairs into a dict. Target: <= 3 s.

Each engine result is checked against its baseline's once, untimed, before timing. The
input files are generated once (seeded) under ``bench/_data``; checkpoints go to a temporary
directory removed at the end.
"""

from __future__ import annotations

import os
import pickle
import random
import shutil
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench.corpus import ensure_corpus
from bench.harness import (
    BENCH_DIR,
    Benchmark,
    Options,
    Result,
    Target,
    Timing,
    format_seconds,
    time_calls,
    time_interleaved,
)
from bench.memory import PeakSampler

if TYPE_CHECKING:
    from dstream.sql import DataFrame, SparkSession

TITLE = "Structured Streaming (dstream.sql.streaming) against plain Python"
WORKERS = 2
FILES = 10
DATA_DIR = BENCH_DIR / "_data"
#: Every wait on a query has this deadline (seconds): a stuck query fails the run loudly.
DEADLINE = 900.0
WINDOW_US = 10_000_000
DELAY_US = 10_000_000
#: Event time of the first event batch: 2024-01-01 00:00:00 UTC, in microseconds.
T0_US = 1_704_067_200_000_000


def _sizes(options: Options) -> dict[str, int]:
    if options.quick:
        return {"events": 100_000, "keys": 100_000}
    return {"events": 1_000_000, "keys": 1_000_000}


def _peak(fn: Callable[[], object], tree: bool) -> int:
    """The peak PSS of one more run of ``fn`` (sampling /proc costs CPU: never while timing)."""
    with PeakSampler(tree=tree) as sampler:
        fn()
    return sampler.peak


def _mb(n: int) -> str:
    return f"{n / 1e6:.0f} MB"


def _timing(samples: list[float]) -> Timing:
    return Timing(tuple(samples))


def _files_in_order(directory: Path, write: Callable[[Path, int], None]) -> Path:
    """Make ``directory`` holding ``FILES`` files once, with increasing modification times.

    The file source reads files oldest first; distinct mtimes make the batch order (file i is
    batch i) certain, as the baselines assume.
    """
    if directory.exists():
        return directory
    tmp = directory.with_name(directory.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    now = time.time()
    for i in range(FILES):
        write(tmp, i)
    for i, path in enumerate(sorted(tmp.iterdir())):
        stamp = now - 60 * (FILES - i)
        os.utime(path, (stamp, stamp))
    tmp.rename(directory)
    return directory


def _wait(query: Any) -> None:
    """Wait for an ``availableNow`` query to finish; fail loudly past the deadline."""
    if not query.awaitTermination(DEADLINE):
        query.stop()
        raise TimeoutError(f"the query {query.name} did not finish within {DEADLINE} s")


def _trigger_ms(query: Any) -> list[int]:
    return [int(p["durationMs"]["triggerExecution"]) for p in query.recentProgress if p["numInputRows"]]


# -- (a) streaming word count -------------------------------------------------------------


def corpus_files(lines: int) -> Path:
    """The bench corpus of ``lines`` lines split into ``FILES`` text files of equal line counts."""
    corpus = ensure_corpus(lines)
    text: list[str] = []

    def write(directory: Path, i: int) -> None:
        if not text:
            with open(corpus, encoding="utf-8") as f:
                text.extend(f.read().splitlines())
        step = -(-len(text) // FILES)
        part = text[i * step:(i + 1) * step]
        (directory / f"part-{i:05d}.txt").write_text("".join(line + "\n" for line in part), encoding="utf-8")

    return _files_in_order(DATA_DIR / f"structured-wc-{lines}", write)


def count_files(directory: Path) -> Counter[str]:
    """Baseline of (a): a ``Counter`` over the files' lines, one line at a time."""
    counter: Counter[str] = Counter()
    for path in sorted(directory.iterdir()):
        with open(path, encoding="utf-8") as f:
            for line in f:
                counter.update(line.split())
    return counter


def word_count_query(spark: SparkSession, directory: Path, name: str) -> Any:
    """Start (a): the running word count of the files, 10 batches, complete mode, memory sink."""
    from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom

    lines = spark.readStream.option("maxFilesPerTrigger", 1).text(str(directory))
    words = lines.select(F.explode(F.split("value", " ")).alias("word")).where(F.col("word") != "")
    return (words.groupBy("word").count().writeStream.outputMode("complete").format("memory").queryName(name)
            .trigger(availableNow=True).start())


def _case_word_count(spark: SparkSession, options: Options) -> Benchmark:
    directory = corpus_files(options.lines)
    name = "bench_structured_wc"
    last: list[Any] = []

    def engine() -> None:
        query = word_count_query(spark, directory, name)
        _wait(query)
        last[:] = [query]

    def batch_query() -> dict[str, int]:
        from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom

        lines = spark.read.text(str(directory))
        words = lines.select(F.explode(F.split("value", " ")).alias("word")).where(F.col("word") != "")
        return dict(words.groupBy("word").count().collect())

    engine()
    got: dict[str, int] = dict(spark.table(name).collect())
    expected = count_files(directory)
    if got != expected or batch_query() != expected:
        raise AssertionError("(a) the streaming (or batch) word count's final table differs from the Counter's")
    batches = [p for p in last[0].recentProgress if p["numInputRows"]]
    if len(batches) != FILES:
        raise AssertionError(f"(a) expected {FILES} micro-batches with input, got {len(batches)}")
    del got, expected
    engine_t, batch_t, baseline_t = time_interleaved([engine, batch_query, lambda: count_files(directory)],
                                                     repeat=options.repeat)
    per_batch = _trigger_ms(last[0])
    engine_peak, baseline_peak = _peak(engine, tree=True), _peak(lambda: count_files(directory), tree=False)
    batch_peak = _peak(batch_query, tree=True)
    rows = sum(int(p["numInputRows"]) for p in batches)
    case = (f"{options.lines:,} lines in {FILES} files, {FILES} batches; triggerExecution per batch (last run): "
            f"median {statistics.median(per_batch):.0f} ms, max {max(per_batch)} ms; peak PSS: engine "
            f"{_mb(engine_peak)}, baseline {_mb(baseline_peak)}")
    batch_case = (f"diagnostic: the same count as one batch query, `spark.read.text(dir)` ... `collect()`; peak PSS "
                  f"{_mb(batch_peak)}")
    return Benchmark(
        title="(a) streaming word count over 10 files",
        description=(f"`readStream.option('maxFilesPerTrigger', 1).text(dir)` over the bench corpus split into "
                     f"{FILES} files ({rows:,} lines read by the stream), `split -> explode -> where(word != '') "
                     "-> groupBy(word).count()`, complete mode, memory sink, `trigger(availableNow=True)` on "
                     "`local[2]`, timed from `start()` to the query's end (a fresh temporary checkpoint each "
                     "run); vs `counter.update(line.split())` over the same files. Checked once: the final "
                     "table equals the `Counter`. The diagnostic row runs the same aggregation as a batch query "
                     "over the whole directory (no state, no micro-batches): the floor the stream's per-batch "
                     "state work adds to."),
        engine_label="local[2]", baseline_label="Counter",
        results=(Result(case=case, engine=engine_t, baseline=baseline_t, target=Target(min_ratio=2.0)),
                 Result(case=batch_case, engine=batch_t, baseline=baseline_t)))


# -- (b) windowed count with a watermark --------------------------------------------------


def event_batches(events: int) -> list[tuple[list[int], list[int]]]:
    """The events of (b), per batch: ``(times in microseconds, keys)``, seeded.

    Batch ``i`` covers the 100 s after ``T0 + 100 s * i`` (whole milliseconds); 1% of its
    events are stragglers up to 150 s before the batch's start: those whose window ended at
    or before the previous batch's watermark are dropped as late, the others still count.
    """
    rng = random.Random(13)
    per_batch = events // FILES
    span_ms = 100_000
    out = []
    for i in range(FILES):
        base_ms = i * span_ms
        times = []
        for _ in range(per_batch):
            if rng.random() < 0.01:
                ms = max(0, base_ms - rng.randrange(150_000))
            else:
                ms = base_ms + rng.randrange(span_ms)
            times.append(T0_US + ms * 1000)
        out.append((times, [rng.randrange(1000) for _ in range(per_batch)]))
    return out


def event_files(events: int, batches: list[tuple[list[int], list[int]]]) -> Path:
    """``batches`` as ``FILES`` Parquet files (``t timestamp, key long``), written once."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    def write(directory: Path, i: int) -> None:
        times, keys = batches[i]
        table = pa.table({"t": pa.array(times, pa.int64()).cast(pa.timestamp("us", tz="UTC")),
                          "key": pa.array(keys, pa.int64())})
        pq.write_table(table, directory / f"part-{i:05d}.parquet")

    return _files_in_order(DATA_DIR / f"structured-events-{events}", write)


def read_event_times(directory: Path) -> list[tuple[list[int], list[int]]]:
    """The baseline's input of (b): each file's event times as Python ints (microseconds), in file order.

    The cheapest way from Parquet into a Python loop: the one column the count needs, cast
    to int64 in Arrow, then ``to_pylist`` (as datetimes it would take ten times longer).
    The keys are not read, as the engine's scan does not read them either.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    return [(pq.read_table(path, columns=["t"]).column("t").cast(pa.int64()).to_pylist(), [])
            for path in sorted(directory.glob("*.parquet"))]


def windowed_counts(batches: list[tuple[list[int], list[int]]]) -> dict[int, int]:
    """Baseline of (b): per-window counts in a dict, emitted when final; window start (us) -> count.

    The engine's rules, batch by batch: a row is late (dropped) when its window ends at or
    before the watermark the previous batch ran with; after the batch's rows are added, the
    windows ending at or before this batch's watermark are emitted and removed; the watermark
    for the next batch is the newest event time seen minus the delay (it never moves back). A
    last batch without data emits what the final watermark makes final.
    """
    state: dict[int, int] = {}
    emitted: dict[int, int] = {}
    late_wm = batch_wm = 0
    newest = None
    for times, _ in batches:
        get = state.get
        for t in times:
            start = t - t % WINDOW_US
            if start + WINDOW_US > late_wm:
                state[start] = get(start, 0) + 1
        for start in [s for s in state if s + WINDOW_US <= batch_wm]:
            emitted[start] = state.pop(start)
        batch_max = max(times)
        newest = batch_max if newest is None else max(newest, batch_max)
        late_wm, batch_wm = batch_wm, max(batch_wm, newest - DELAY_US)
    for start in [s for s in state if s + WINDOW_US <= batch_wm]:
        emitted[start] = state.pop(start)
    return emitted


def windowed_query(spark: SparkSession, directory: Path, name: str) -> Any:
    """Start (b): the windowed count over the event files, append mode, memory sink, availableNow."""
    from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom

    events = spark.readStream.schema("t timestamp, key long").option("maxFilesPerTrigger", 1).parquet(str(directory))
    counts = events.withWatermark("t", "10 seconds").groupBy(F.window("t", "10 seconds")).count()
    return counts.writeStream.outputMode("append").format("memory").queryName(name).trigger(availableNow=True).start()


def _window_table(df: DataFrame) -> dict[int, int]:
    import pyarrow as pa

    table = df.toArrow()
    starts = table.column("window").combine_chunks().field("start").cast(pa.int64()).to_pylist()
    return dict(zip(starts, table.column("count").to_pylist()))


def _case_windowed(spark: SparkSession, options: Options) -> Benchmark:
    events = _sizes(options)["events"]
    batches = event_batches(events)
    directory = event_files(events, batches)
    name = "bench_structured_windows"
    last: list[Any] = []

    def engine() -> None:
        query = windowed_query(spark, directory, name)
        _wait(query)
        last[:] = [query]

    engine()
    expected = windowed_counts(batches)
    if windowed_counts(read_event_times(directory)) != expected:
        raise AssertionError("(b) the baseline's windows over the files differ from those over the generated events")
    got = _window_table(spark.table(name))
    if got != expected:
        missing = sorted(set(expected.items()) ^ set(got.items()))[:5]
        raise AssertionError(f"(b) the emitted windows differ from the baseline's (first differences: {missing})")
    progress = last[0].recentProgress
    dropped = sum(int(p["stateOperators"][0]["numRowsDroppedByWatermark"]) for p in progress)
    data_batches = sum(1 for p in progress if p["numInputRows"])
    if data_batches != FILES:
        raise AssertionError(f"(b) expected {FILES} micro-batches with input, got {data_batches}")
    engine_t, baseline_t, in_memory_t = time_interleaved(
        [engine, lambda: windowed_counts(read_event_times(directory)), lambda: windowed_counts(batches)],
        repeat=options.repeat)
    per_batch = _trigger_ms(last[0])
    engine_peak = _peak(engine, tree=True)
    baseline_peak = _peak(lambda: windowed_counts(read_event_times(directory)), tree=False)
    case = (f"{events:,} events, {FILES} batches + 1 without data, {len(expected):,} windows emitted, "
            f"{dropped:,} late rows dropped; triggerExecution per batch (last run): median "
            f"{statistics.median(per_batch):.0f} ms; peak PSS: engine {_mb(engine_peak)}, baseline "
            f"{_mb(baseline_peak)}")
    return Benchmark(
        title="(b) windowed count with a watermark",
        description=(f"{events:,} events `(t timestamp, key long)` in {FILES} Parquet files of {events // FILES:,} "
                     "rows, event time moving 100 s per file, 1% stragglers up to 150 s back; `readStream.schema(...)"
                     ".option('maxFilesPerTrigger', 1).parquet(dir).withWatermark('t', '10 seconds')"
                     ".groupBy(window('t', '10 seconds')).count()`, append mode, memory sink, "
                     "`trigger(availableNow=True)` on `local[2]`, timed from `start()` to the query's end; vs "
                     "a dict of window counts updated batch by batch with the same rules (late rows dropped, "
                     "final windows emitted and removed after each batch) over the same files, each read with "
                     "`pq.read_table(f, columns=['t'])`, cast to int64 and `to_pylist()` (as (a)'s `Counter` "
                     "reads its files). The diagnostic row gives the dict loop the event times already in "
                     "lists: the windowing alone, the input's cost left out of the baseline but not of the "
                     "engine. Checked once: the emitted windows and counts equal the baseline's, over the "
                     "files and over the lists."),
        engine_label="local[2]", baseline_label="dict of windows",
        results=(Result(case=case, engine=engine_t, baseline=baseline_t, target=Target(min_ratio=2.0)),
                 Result(case="diagnostic: the same dict loop over event times already in lists (no input read)",
                        engine=engine_t, baseline=in_memory_t)))


# -- (c) fixed cost of a micro-batch ------------------------------------------------------


def _case_batch_cost(spark: SparkSession, options: Options) -> Benchmark:
    from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom
    from dstream.sql.streaming import MemoryStream

    samples = options.latency_samples
    warmup = 20
    spark.conf.set("spark.sql.streaming.numRecentProgressUpdates", str(samples + warmup + 50))
    try:
        stream = MemoryStream("value long", spark)
        name = "bench_structured_tiny"
        query = (stream.toDF().select((F.col("value") * 2).alias("doubled")).writeStream.format("memory")
                 .queryName(name).start())
    finally:
        spark.conf.unset("spark.sql.streaming.numRecentProgressUpdates")
    counter = iter(range(1 << 62))

    def one_batch() -> None:
        stream.addData([next(counter)])
        query.processAllAvailable(DEADLINE)

    out: list[int] = []
    values = iter(range(1 << 62))

    def baseline() -> None:
        out.append(next(values) * 2)

    try:
        one_batch()
        if [tuple(r) for r in spark.table(name).collect()] != [(0,)]:
            raise AssertionError("(c) the memory sink does not hold the doubled row")
        engine_t = time_calls(one_batch, samples=samples, warmup=warmup)
        done = len(spark.table(name).collect())
        if done != 1 + warmup + samples:
            raise AssertionError(f"(c) expected {1 + warmup + samples} rows in the sink, got {done}")
        progress = [p for p in query.recentProgress if p["numInputRows"]][-samples:]
        trigger = _timing([p["durationMs"]["triggerExecution"] / 1000 for p in progress])
        add_batch = statistics.median(p["durationMs"]["addBatch"] for p in progress)
        with PeakSampler(tree=True) as sampler:
            for _ in range(min(samples, 50)):
                one_batch()
        engine_peak = sampler.peak
    finally:
        query.stop()
    baseline_t = time_calls(baseline, samples=samples, warmup=warmup)
    baseline_peak = _peak(baseline, tree=False)
    return Benchmark(
        title="(c) fixed cost of a micro-batch",
        description=("A `MemoryStream('value long')` -> `select((value * 2).alias('doubled'))` -> memory sink query "
                     "on `local[2]` (default trigger). One sample = `addData([i])` then `processAllAvailable()`: "
                     "the batch (offsets logged, the plan built, the job run in a worker, the commit logged, "
                     "progress reported) plus the idle trigger that tells `processAllAvailable` nothing is left; "
                     f"{samples} samples after {warmup} warm-up batches, driven back to back (a MemoryStream has no "
                     "read limit, so the batches cannot be queued first). The second row is the progress' "
                     f"`durationMs.triggerExecution` of the same batches (engine-side time of the batch alone; "
                     f"median `addBatch` {add_batch:.0f} ms). Baseline: `out.append(i * 2)`, the row's own work "
                     "in plain Python, so the ratio is the share of a batch's cost that is the row's work: the "
                     "target is the absolute time per batch."),
        engine_label="local[2]", baseline_label="list.append",
        results=(
            Result(case=f"1-row batch, addData + processAllAvailable; peak PSS: engine {_mb(engine_peak)}, "
                        f"baseline {_mb(baseline_peak)}",
                   engine=engine_t, baseline=baseline_t, target=Target(max_median=0.005)),
            Result(case="the same batches' durationMs.triggerExecution (progress, ms resolution)",
                   engine=trigger, baseline=baseline_t, target=Target(max_median=0.005)),
        ))


# -- (d) restoring a state of 1M keys -----------------------------------------------------


def _count_query(stream: Any, name: str, checkpoint: Path) -> Any:
    return (stream.toDF().groupBy("k").count().writeStream.outputMode("update").format("memory").queryName(name)
            .option("checkpointLocation", str(checkpoint)).start())


def _case_restore(spark: SparkSession, options: Options, work: Path) -> Benchmark:
    from dstream.sql.streaming import MemoryStream
    from dstream.sql.streaming.state.arrow_state import read_state_table
    from dstream.sql.streaming.state.store import StateStoreId

    keys = _sizes(options)["keys"]
    base = work / "restore-base"
    stream = MemoryStream("k long", spark)
    stream.addData(list(range(keys)))
    query = _count_query(stream, "bench_structured_fill", base)
    try:
        query.processAllAvailable(DEADLINE)
    finally:
        query.stop()
    ids = [StateStoreId(str(base / "state"), 0, p) for p in range(WORKERS)]
    state: dict[int, int] = {}
    for store_id in ids:
        part = read_state_table(store_id, 1)
        state.update(zip(part.column(0).to_pylist(), part.column(1).to_pylist()))
    if state != dict.fromkeys(range(keys), 1):
        raise AssertionError(f"(d) the checkpoint's state is not {keys:,} keys counted once")
    pickled = work / "state.pickle"
    with open(pickled, "wb") as f:
        pickle.dump(state, f, protocol=pickle.HIGHEST_PROTOCOL)
    del state

    def load_pickle() -> dict[int, int]:
        with open(pickled, "rb") as f:
            loaded: dict[int, int] = pickle.load(f)
        return loaded

    run_dir = work / "restore-run"

    trigger_ms: dict[bool, list[int]] = {True: [], False: []}

    def first_batch(with_state: bool) -> float:
        """Seconds from ``start()`` to the end of the first batch (1 new row) on a fresh copy."""
        shutil.rmtree(run_dir, ignore_errors=True)
        if with_state:
            shutil.copytree(base, run_dir)
        fresh = MemoryStream("k long", spark)
        fresh.addData([])  # offset 0: stands for the batch the checkpoint has committed
        fresh.addData([keys + 1])
        started = time.perf_counter()
        restarted = _count_query(fresh, "bench_structured_restore", run_dir)
        try:
            restarted.processAllAvailable(DEADLINE)
            elapsed = time.perf_counter() - started
            progress = [p for p in restarted.recentProgress if p["numInputRows"]]
        finally:
            restarted.stop()
        expected_total = keys + 1 if with_state else 1
        total = progress[0]["stateOperators"][0]["numRowsTotal"] if progress else None
        if total != expected_total:
            raise AssertionError(f"(d) the restarted query's state holds {total} keys, expected {expected_total}")
        trigger_ms[with_state].append(int(progress[0]["durationMs"]["triggerExecution"]))
        return elapsed

    def driver_read() -> None:
        for store_id in ids:
            read_state_table(store_id, 1)

    restarts: list[float] = []
    empties: list[float] = []
    pickles: list[float] = []
    reads: list[float] = []
    first_batch(True)  # warm-up: imports and the code paths of a restore
    trigger_ms[True].clear()
    for _ in range(options.repeat):
        restarts.append(first_batch(True))
        empties.append(first_batch(False))
        for fn, out in ((load_pickle, pickles), (driver_read, reads)):
            started = time.perf_counter()
            fn()
            out.append(time.perf_counter() - started)
    overhead = [r - e for r, e in zip(restarts, empties)]
    restart_trigger, empty_trigger = statistics.median(trigger_ms[True]), statistics.median(trigger_ms[False])
    restart_peak = _peak(lambda: first_batch(True), tree=True)
    empty_peak = _peak(lambda: first_batch(False), tree=True)
    read_peak = _peak(driver_read, tree=False)
    pickle_peak = _peak(load_pickle, tree=False)
    baseline = _timing(pickles)
    size = sum(f.stat().st_size for f in (base / "state").rglob("*") if f.is_file())
    return Benchmark(
        title="(d) restoring a state of 1M keys on restart",
        description=(f"`groupBy('k').count()` in update mode (memory sink) over a `MemoryStream` batch of {keys:,} "
                     f"distinct keys, run to a checkpoint ({WORKERS} state partitions, one delta file each, "
                     f"{size / 1e6:.1f} MB of state files), stopped. One sample: copy that checkpoint (untimed), "
                     "start a new query on it with one new row, and time `start()` until `processAllAvailable()` "
                     "returns (the batch that reloads the state in both workers, then the idle trigger); the same on "
                     "an empty checkpoint; the two take turns. The first row is the difference (the restore's "
                     "cost); the driver row times `read_state_table` (the Arrow state rebuilt from its files) of both "
                     "partitions "
                     "one after the other in one process. Baseline: `pickle.load` of a dict of the same "
                     f"{keys:,} `key -> count` pairs (plain ints; {pickled.stat().st_size / 1e6:.1f} MB file)."),
        engine_label="dstream", baseline_label="pickle.load",
        results=(
            Result(case=f"restore cost: start -> first batch with the state minus with an empty state "
                        f"({keys:,} keys); peak PSS: engine {_mb(restart_peak)}, baseline {_mb(pickle_peak)}",
                   engine=_timing(overhead), baseline=baseline, target=Target(max_median=3.0)),
            Result(case=f"start -> first batch, {keys:,}-key state (absolute; the batch's triggerExecution: "
                        f"median {restart_trigger:.0f} ms)",
                   engine=_timing(restarts), baseline=baseline),
            Result(case=f"start -> first batch, empty state (absolute; triggerExecution: median "
                        f"{empty_trigger:.0f} ms); peak PSS {_mb(empty_peak)}",
                   engine=_timing(empties), baseline=baseline),
            Result(case=f"`read_state_table` of both partitions in the driver; peak PSS (driver) {_mb(read_peak)}",
                   engine=_timing(reads), baseline=baseline),
        ))


def run_cases(spark: SparkSession, options: Options, work: Path) -> list[Benchmark]:
    """Run (a)-(d) on a started session; checkpoints and scratch files go under ``work``."""
    results = []
    for case in (_case_word_count, _case_windowed, _case_batch_cost):
        started = time.perf_counter()
        results.append(case(spark, options))
        print(f"  {case.__name__}: {format_seconds(time.perf_counter() - started)}", flush=True)
    started = time.perf_counter()
    results.append(_case_restore(spark, options, work))
    print(f"  _case_restore: {format_seconds(time.perf_counter() - started)}", flush=True)
    return results


def run(options: Options) -> list[Benchmark]:
    """Run every benchmark of this module and return one :class:`Benchmark` per table."""
    from dstream.sql import SparkSession

    spark = SparkSession.builder.master(f"local[{WORKERS}]").appName("bench-structured").getOrCreate()
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    work = Path(tempfile.mkdtemp(prefix="bench-structured-"))
    try:
        return run_cases(spark, options, work)
    finally:
        for query in spark.streams.active:
            query.stop()
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)


"""Benchmarks of DataFrames (``dstream.sql``) against plain Python.

This module owns four benchmarks on ``local[2]`` (two worker processes), each timed
against a plain-Python baseline in the same process, with the peak memory (PSS of the
process tree: driver and workers) of both sides beside each figure:

(a) word count from a text file: ``read.text -> split -> explode -> groupBy(word).count()
    -> collect`` vs a ``collections.Counter`` fed line by line. Target: 3x.
(b) an equi-join of a 1M-row table with a 100k-row table on an integer key, then
    ``count`` and ``sum`` over the joined rows, read from Parquet, vs a dict built from the
    small table and probed by each row of the big one (lists already in memory). Target: 3x.
(c) a group-by of 1M rows into 10k groups with ``sum``, ``avg`` and ``count``, read from
    Parquet, vs a Python loop filling a dict (lists already in memory). Target: 5x.

The big tables of (b) and (c) are directories of two part files, as a DataFrame writer
with two tasks leaves them (a single file with one row group would be read by one task).
(d) a Parquet scan with a selective filter (``id`` in a range of 0.5% of the rows, data
    sorted by ``id`` in row groups of 10k rows): the figure says how many row groups the
    reader opened; baseline: the same filter in a Python comprehension over the ids.

Each engine result is checked against its baseline's once, untimed, before timing.
The input files are generated once (seeded) under ``bench/_data``.
"""

from __future__ import annotations

import random
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench.bench_rdd import count_file
from bench.corpus import ensure_corpus
from bench.harness import BENCH_DIR, Benchmark, Options, Result, Target, time_interleaved
from bench.memory import PeakSampler

if TYPE_CHECKING:
    from dstream.sql import SparkSession

TITLE = "DataFrames (dstream.sql) against plain Python"
WORKERS = 2
DATA_DIR = BENCH_DIR / "_data"


def _sizes(options: Options) -> dict[str, int]:
    if options.quick:
        return {"fact": 100_000, "dim": 10_000, "rows": 100_000, "groups": 1_000, "scan": 100_000}
    return {"fact": 1_000_000, "dim": 100_000, "rows": 1_000_000, "groups": 10_000, "scan": 1_000_000}


def _write_parquet(path: Path, columns: dict[str, list[Any]], row_group_size: int | None = None,
                   parts: int = 1) -> Path:
    """Write ``columns`` as Parquet at ``path`` once: one file, or a directory of ``parts`` part
    files as a DataFrame writer with that many tasks leaves it."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if path.exists():
        return path
    table = pa.table(columns)
    tmp = path.with_name(path.name + ".tmp")
    if parts == 1:
        pq.write_table(table, tmp, row_group_size=row_group_size)
    else:
        tmp.mkdir()
        step = -(-table.num_rows // parts)
        for i in range(parts):
            pq.write_table(table.slice(i * step, step), tmp / f"part-{i:05d}.parquet", row_group_size=row_group_size)
    tmp.rename(path)
    return path


def _join_data(sizes: dict[str, int]) -> tuple[Path, Path, dict[str, list[Any]], dict[str, list[Any]]]:
    rng = random.Random(11)
    fact = {"id": list(range(sizes["fact"])),
            "key": [rng.randrange(sizes["dim"] * 2) for _ in range(sizes["fact"])],
            "amount": [round(rng.random() * 100, 2) for _ in range(sizes["fact"])]}
    dim = {"key": list(range(sizes["dim"])), "name": [f"n{i}" for i in range(sizes["dim"])]}
    fact_path = _write_parquet(DATA_DIR / f"sql-fact-{sizes['fact']}", fact, parts=WORKERS)
    dim_path = _write_parquet(DATA_DIR / f"sql-dim-{sizes['dim']}.parquet", dim)
    return fact_path, dim_path, fact, dim


def _group_data(sizes: dict[str, int]) -> tuple[Path, dict[str, list[Any]]]:
    rng = random.Random(12)
    data = {"g": [rng.randrange(sizes["groups"]) for _ in range(sizes["rows"])],
            "v": [rng.randrange(1000) for _ in range(sizes["rows"])]}
    return _write_parquet(DATA_DIR / f"sql-group-{sizes['rows']}-{sizes['groups']}", data, parts=WORKERS), data


def dict_join(fact: dict[str, list[Any]], dim: dict[str, list[Any]]) -> tuple[int, float]:
    """Baseline of (b): build a dict of the small side, probe it with each row of the big one."""
    names = dict(zip(dim["key"], dim["name"]))
    count, total = 0, 0.0
    for key, amount in zip(fact["key"], fact["amount"]):
        if key in names:
            count += 1
            total += amount
    return count, total


def loop_group(data: dict[str, list[Any]]) -> dict[int, tuple[int, float, int]]:
    """Baseline of (c): sum, average and count per group in one loop."""
    sums: dict[int, int] = defaultdict(int)
    counts: dict[int, int] = defaultdict(int)
    for g, v in zip(data["g"], data["v"]):
        sums[g] += v
        counts[g] += 1
    return {g: (sums[g], sums[g] / counts[g], counts[g]) for g in sums}


def _peak(fn: Any, tree: bool) -> int:
    """The peak PSS of one more run of ``fn`` (sampling /proc costs CPU: never while timing)."""
    with PeakSampler(tree=tree) as sampler:
        fn()
    return sampler.peak


def _mb(n: int) -> str:
    return f"{n / 1e6:.0f} MB"


def run_cases(spark: SparkSession, options: Options) -> list[Benchmark]:
    """Run (a)-(d) on a started session."""
    from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom
    from dstream.sql.io import get_format

    sizes = _sizes(options)
    corpus = ensure_corpus(options.lines)

    def word_count() -> dict[str, int]:
        lines = spark.read.text(str(corpus))
        words = lines.select(F.explode(F.split("value", " ")).alias("word")).where(F.col("word") != "")
        return dict(words.groupBy("word").count().collect())

    expected_words = count_file(corpus)
    if word_count() != expected_words:
        raise AssertionError("(a) the DataFrame word count differs from the Counter's")
    del expected_words

    fact_path, dim_path, fact, dim = _join_data(sizes)

    def join() -> tuple[int, float]:
        joined = spark.read.parquet(str(fact_path)).join(spark.read.parquet(str(dim_path)), "key")
        row = joined.agg(F.count("*"), F.sum("amount")).collect()[0]
        return int(row[0]), float(row[1])

    expected_join = dict_join(fact, dim)
    got_join = join()
    if got_join[0] != expected_join[0] or abs(got_join[1] - expected_join[1]) > 1e-6 * abs(expected_join[1]):
        raise AssertionError(f"(b) join: {got_join} != {expected_join}")

    group_path, group = _group_data(sizes)

    def group_by() -> dict[int, tuple[int, float, int]]:
        df = spark.read.parquet(str(group_path))
        rows = df.groupBy("g").agg(F.sum("v"), F.avg("v"), F.count("*")).collect()
        return {g: (s, a, c) for g, s, a, c in rows}

    if group_by() != loop_group(group):
        raise AssertionError("(c) the DataFrame group-by differs from the Python loop's")

    scan_path = _write_parquet(DATA_DIR / f"sql-scan-{sizes['scan']}.parquet",
                               {"id": list(range(sizes["scan"])),
                                "payload": [f"p{i % 977}" for i in range(sizes["scan"])]},
                               row_group_size=10_000)
    low = sizes["scan"] // 2
    high = low + sizes["scan"] // 200
    ids = list(range(sizes["scan"]))

    def scan() -> int:
        df = spark.read.parquet(str(scan_path))
        return df.where((F.col("id") >= low) & (F.col("id") < high)).count()

    def scan_baseline() -> int:
        return sum(1 for i in ids if low <= i < high)

    if scan() != scan_baseline():
        raise AssertionError("(d) the filtered scan's count differs from the comprehension's")
    fmt = get_format("parquet")
    read_groups = fmt.row_groups_to_read(str(scan_path), [(">=", "id", low), ("<", "id", high)])
    total_groups = -(-sizes["scan"] // 10_000)

    results = []
    for title, description, label, engine_fn, baseline_fn, target in (
        ("(a) word count from a text file",
         "`spark.read.text(path)` then `split -> explode -> where(word != '') -> groupBy(word).count() -> "
         "collect()` on `local[2]`, vs `counter.update(line.split())` over the file in one process.",
         f"{options.lines:,} lines", word_count, lambda: count_file(corpus), 3.0),
        ("(b) equi-join",
         f"`fact.join(dim, 'key').agg(count('*'), sum('amount'))` of {sizes['fact']:,} x {sizes['dim']:,} rows "
         "read from Parquet, on `local[2]`, vs a dict of the small side probed by each row of the big one "
         "(columns already in lists).",
         f"{sizes['fact']:,} x {sizes['dim']:,} rows", join, lambda: dict_join(fact, dim), 3.0),
        ("(c) group-by aggregate",
         f"`groupBy('g').agg(sum('v'), avg('v'), count('*'))` of {sizes['rows']:,} rows into {sizes['groups']:,} "
         "groups read from Parquet, on `local[2]`, vs a Python loop filling dicts (columns already in lists).",
         f"{sizes['rows']:,} rows, {sizes['groups']:,} groups", group_by, lambda: loop_group(group), 5.0),
        ("(d) Parquet scan with a selective filter",
         f"`read.parquet(path).where(id in [{low:,}, {high:,})).count()` over {sizes['scan']:,} rows in row groups "
         "of 10,000, vs a comprehension over the ids in a list. The reader opens only the row groups whose "
         "statistics can match.",
         f"{sizes['scan']:,} rows; row groups read: {len(read_groups)} of {total_groups}", scan, scan_baseline,
         None),
    ):
        # The cases of a few tens of milliseconds take more samples: their medians move with
        # every scheduling hiccup of a two-core machine.
        repeat = options.repeat if title.startswith("(a)") else max(options.repeat, 21)
        # Taking turns, so a drift of the shared machine's speed moves both sides alike.
        engine, baseline = time_interleaved([engine_fn, baseline_fn], repeat=repeat)
        engine_peak, baseline_peak = _peak(engine_fn, tree=True), _peak(baseline_fn, tree=False)
        case = f"{label}; peak PSS: engine {_mb(engine_peak)}, baseline {_mb(baseline_peak)}"
        result = Result(case=case, engine=engine, baseline=baseline,
                        target=Target(min_ratio=target) if target else Target())
        results.append(Benchmark(title=title, description=description, engine_label="local[2]",
                                 baseline_label="plain Python", results=(result,)))
    return results


def run(options: Options) -> list[Benchmark]:
    """Run every benchmark of this module and return one :class:`Benchmark` per table."""
    from dstream.sql import SparkSession

    spark = SparkSession.builder.master(f"local[{WORKERS}]").appName("bench-sql").getOrCreate()
    try:
        return run_cases(spark, options)
    finally:
        spark.stop()

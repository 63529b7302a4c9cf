"""Timing, result records and Markdown rendering for the benchmarks.

This module owns how a figure is measured and shown; the ``bench_*`` modules own what is
measured. Every figure in ``RESULTS.md`` is a comparison of the engine against a
plain-Python baseline timed in the same process, in the same invocation, on the same
input, so a slow or busy machine moves both sides and the ratio stays meaningful.

Data flow::

    bench_<name>.run(options) --> [Benchmark(title, [Result(engine Timing,
                                                           baseline Timing, Target)])]
    render_section(name, machine, benchmarks) --> Markdown, one table per Benchmark
    merge_report(old_text, {name: section}) --> RESULTS.md (other modules' sections kept)

Conventions
-----------
- Times are seconds (``time.perf_counter``) everywhere inside; rendering picks the unit.
- ``Result.ratio`` is ``baseline median / engine median``: higher is better, 1.0 means
  "as fast as plain Python", 2.0 "twice as fast".
- A ``Target`` is either a minimum ratio or a maximum engine median (a latency budget).
"""

from __future__ import annotations

import datetime as _dt
import gc
import math
import os
import platform
import re
import statistics
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
RESULTS_PATH = BENCH_DIR / "RESULTS.md"
QUICK_RESULTS_PATH = BENCH_DIR / "_data" / "RESULTS-quick.md"


@dataclass(frozen=True, slots=True)
class Options:
    """What a benchmark module is asked to run.

    Attributes
    ----------
    quick : bool
        Small inputs and few repetitions: a smoke run, not a measurement.
    lines : int
        Lines in the word-count corpus.
    repeat : int
        Timed runs of each throughput case.
    latency_samples : int
        Timed calls of each latency case (after warm-up).
    """

    quick: bool = False
    lines: int = 1_000_000
    repeat: int = 5
    latency_samples: int = 300


@dataclass(frozen=True, slots=True)
class Timing:
    """Wall-clock samples of one measured callable, in seconds."""

    samples: tuple[float, ...]

    @property
    def median(self) -> float:
        """Median sample."""
        return statistics.median(self.samples)

    @property
    def p99(self) -> float:
        """99th percentile (nearest rank): the maximum when there are < 100 samples."""
        ordered = sorted(self.samples)
        rank = math.ceil(0.99 * len(ordered))
        return ordered[max(rank, 1) - 1]

    @property
    def best(self) -> float:
        """Fastest sample."""
        return min(self.samples)


def time_call(fn: Callable[[], object], *, repeat: int, warmup: int = 0) -> Timing:
    """Call ``fn()`` ``warmup + repeat`` times and time the last ``repeat`` calls.

    Parameters
    ----------
    fn : callable
        Zero-argument function; its return value is discarded.
    repeat : int
        Number of timed calls (at least 1).
    warmup : int
        Untimed calls first (imports, worker start-up, caches).

    Returns
    -------
    Timing
        One sample per timed call. The garbage collector is collected before and disabled
        during each call, so a collection triggered by a previous call is not billed to
        the next one.
    """
    if repeat < 1:
        raise ValueError(f"repeat must be >= 1, got {repeat}")
    for _ in range(warmup):
        fn()
    return Timing(tuple(_timed_once(fn) for _ in range(repeat)))


def time_interleaved(fns: Sequence[Callable[[], object]], *, repeat: int) -> list[Timing]:
    """Time each of ``fns`` ``repeat`` times, taking turns: f0, f1, ..., f0, f1, ...

    For an engine and its baseline this is fairer than timing one after the other:
    on a machine whose speed drifts (a shared host), both sides see the same drift,
    so the ratio of medians moves less than either median. Each call is timed as in
    :func:`time_call` (collector run before, disabled during).
    """
    if repeat < 1:
        raise ValueError(f"repeat must be >= 1, got {repeat}")
    samples: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for fn, out in zip(fns, samples):
            out.append(_timed_once(fn))
    return [Timing(tuple(out)) for out in samples]


def _timed_once(fn: Callable[[], object]) -> float:
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        started = time.perf_counter()
        fn()
        return time.perf_counter() - started
    finally:
        if was_enabled:
            gc.enable()


def time_calls(fn: Callable[[], object], *, samples: int, warmup: int) -> Timing:
    """Time ``samples`` individual calls of a fast ``fn`` (latency), after ``warmup`` calls.

    Unlike :func:`time_call` the collector stays enabled: a latency figure should include
    the collections a real caller would see.
    """
    if samples < 1:
        raise ValueError(f"samples must be >= 1, got {samples}")
    for _ in range(warmup):
        fn()
    clock = time.perf_counter
    out: list[float] = []
    for _ in range(samples):
        started = clock()
        fn()
        out.append(clock() - started)
    return Timing(tuple(out))


@dataclass(frozen=True, slots=True)
class Target:
    """A goal for one result: a minimum ratio, a maximum engine median, or both.

    ``max_slowdown`` bounds *engine median / baseline median* instead: it is for rows
    whose baseline is another engine case (e.g. a 100-slide window against a 10-slide
    one, "at most 1.3x slower"), where the natural statement of the goal is a slowdown.
    """

    min_ratio: float | None = None
    max_median: float | None = None
    max_slowdown: float | None = None

    def met_by(self, result: Result) -> bool | None:
        """Return whether ``result`` meets every set bound (None when no bound is set)."""
        checks: list[bool] = []
        if self.min_ratio is not None:
            checks.append(result.ratio >= self.min_ratio)
        if self.max_median is not None:
            checks.append(result.engine.median <= self.max_median)
        if self.max_slowdown is not None:
            checks.append(result.engine.median <= self.max_slowdown * result.baseline.median)
        return all(checks) if checks else None

    def describe(self) -> str:
        """Return the target as table text, e.g. ``>= 1.2x`` or ``<= 0.2 ms``."""
        parts: list[str] = []
        if self.min_ratio is not None:
            parts.append(f">= {self.min_ratio:g}x")
        if self.max_median is not None:
            parts.append(f"<= {format_seconds(self.max_median)}")
        if self.max_slowdown is not None:
            parts.append(f"engine / baseline <= {self.max_slowdown:g}x")
        return ", ".join(parts) or "-"


@dataclass(frozen=True, slots=True)
class Result:
    """One engine measurement beside its plain-Python baseline."""

    case: str
    engine: Timing
    baseline: Timing
    target: Target = field(default_factory=Target)

    @property
    def ratio(self) -> float:
        """Baseline median / engine median: higher is better."""
        return self.baseline.median / self.engine.median

    @property
    def met(self) -> bool | None:
        """Whether the target is met (None when the result has no target)."""
        return self.target.met_by(self)


@dataclass(frozen=True, slots=True)
class Benchmark:
    """A titled group of results sharing one baseline description: one table."""

    title: str
    description: str
    engine_label: str
    baseline_label: str
    results: tuple[Result, ...]
    #: What the samples measure: ``"seconds"`` (durations), or ``"bytes"`` (sizes, e.g.
    #: memory per key; a ``Timing`` then holds byte counts and the p99 is not shown).
    unit: str = "seconds"


@dataclass(frozen=True, slots=True)
class Machine:
    """Where and when a run happened."""

    nproc: int
    usable_cpus: int
    cpu_model: str
    python: str
    system: str
    load_average: str
    date: str

    @classmethod
    def current(cls) -> Machine:
        """Describe this machine now."""
        try:
            usable = len(os.sched_getaffinity(0))
        except AttributeError:  # not on Linux
            usable = os.cpu_count() or 1
        try:
            load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        except OSError:
            load = "n/a"
        return cls(
            nproc=os.cpu_count() or 1,
            usable_cpus=usable,
            cpu_model=_cpu_model(),
            python=f"{platform.python_implementation()} {platform.python_version()}",
            system=f"{platform.system()} {platform.release()} {platform.machine()}",
            load_average=load,
            date=_dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        )


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def format_seconds(seconds: float) -> str:
    """Format a duration with a unit that keeps three significant figures."""
    if seconds >= 1:
        return f"{seconds:.3g} s" if seconds < 100 else f"{seconds:.0f} s"
    if seconds >= 1e-4:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds * 1e6:.3g} us"


def format_bytes(count: float) -> str:
    """Format a byte count: ``B`` below 10 kB, then ``kB``/``MB``/``GB`` (powers of 1000)."""
    if abs(count) < 10_000:
        return f"{count:.0f} B"
    for unit, scale in (("kB", 1e3), ("MB", 1e6), ("GB", 1e9)):
        if abs(count) < 1000 * scale or unit == "GB":
            return f"{count / scale:.3g} {unit}"
    raise AssertionError("unreachable")


def _markdown_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines.extend("| " + " | ".join(row) + " |" for row in rows)
    return "\n".join(lines)


def _met_text(met: bool | None) -> str:
    return {True: "yes", False: "**no**", None: "-"}[met]


def render_benchmark(bench: Benchmark) -> str:
    """Render one benchmark as a heading, its description and a Markdown table."""
    if bench.unit == "bytes":
        def cell(t: Timing) -> str:
            return format_bytes(t.median)
        stat = "median"
    else:
        def cell(t: Timing) -> str:
            return f"{format_seconds(t.median)} / {format_seconds(t.p99)}"
        stat = "median / p99"
    header = ["case", f"engine: {bench.engine_label} ({stat})",
              f"baseline: {bench.baseline_label} ({stat})",
              "ratio (baseline / engine)", "target", "met"]
    rows = [
        [r.case, cell(r.engine), cell(r.baseline),
         f"{r.ratio:.2f}x", r.target.describe(), _met_text(r.met)]
        for r in bench.results
    ]
    samples = sorted({len(r.engine.samples) for r in bench.results})
    count = ", ".join(str(n) for n in samples)
    return (f"### {bench.title}\n\n{bench.description}\n\n"
            f"{_markdown_table(header, rows)}\n\n_Samples per side: {count}._\n")


def render_section(name: str, title: str, machine: Machine, options: Options, command: str,
                   benchmarks: Sequence[Benchmark]) -> str:
    """Render one benchmark module's results, wrapped in markers that :func:`merge_report`
    uses to replace this section alone on a later run."""
    mode = "quick (smoke run, not a measurement)" if options.quick else "full"
    info = _markdown_table(
        ["run", "value"],
        [["command", f"`{command}`"], ["mode", mode], ["date", machine.date],
         ["nproc / usable CPUs", f"{machine.nproc} / {machine.usable_cpus}"],
         ["CPU", machine.cpu_model], ["Python", machine.python], ["OS", machine.system],
         ["load average at start", machine.load_average]],
    )
    body = "\n".join(render_benchmark(b) for b in benchmarks)
    return (f"<!-- bench:{name} -->\n## `{name}`: {title}\n\n{info}\n\n{body}"
            f"<!-- /bench:{name} -->\n")


REPORT_HEADER = """\
# Benchmark results

Written by `python -m bench` (`make bench`); do not edit by hand. Each module's section
is replaced when that module runs again, so one run may be older than another: check its
date. Every ratio is *baseline median / engine median* with the plain-Python baseline
timed in the same invocation on the same input: higher is better, 1.00x means "as fast
as plain Python". Absolute medians and p99s are given beside each ratio.
"""

_SECTION = re.compile(r"<!-- bench:(?P<name>[\w.-]+) -->\n.*?<!-- /bench:(?P=name) -->\n",
                      re.DOTALL)


def merge_report(previous: str, sections: Mapping[str, str]) -> str:
    """Return a full report: ``sections`` replace their namesakes in ``previous``.

    Sections of modules that did not run this time are kept as they were, so running one
    module never erases another's figures. Sections are ordered by module name.
    """
    merged = {m.group("name"): m.group(0) for m in _SECTION.finditer(previous)}
    merged.update(sections)
    return REPORT_HEADER + "".join("\n" + merged[name] for name in sorted(merged))


def write_report(path: Path, sections: Mapping[str, str]) -> None:
    """Merge ``sections`` into the report at ``path`` and write it atomically."""
    previous = path.read_text(encoding="utf-8") if path.exists() else ""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(merge_report(previous, sections), encoding="utf-8")
    os.replace(tmp, path)

"""Thousands of batches of a checkpointed stateful graph: memory and the cost of a batch stay flat.

The graph (on ``local``, manual clock, 0.1 s batches): running totals with
``updateStateByKey`` and a 5-slide incremental ``reduceByKeyAndWindow``, both
checkpointed every 10 batches, both evaluated every batch by an output operation.

"Flat" is measured without clocks:

* memory: ``tracemalloc``'s traced bytes and blocks grow by less than a bound per
  batch over 600 batches after a warm-up (the minimum of each half of a series of
  samples);
* the cost of a batch: the lineage of the latest state and window RDDs
  (``toDebugString`` lines) is never longer than during the first five checkpoint
  intervals, however many batches ran (RDD checkpoints cut it);
* the disk: the checkpoint directory never holds more files than early in the run
  (old metadata files and old RDD checkpoint directories are deleted), and a metadata
  checkpoint is no bigger late in the run than early (it holds positions, not history).
"""

from __future__ import annotations

import gc
import operator
import os
import statistics
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from rdd import SparkConf
from rdd.engine_api import listener_bus

from dstream import StreamingContext
from dstream.checkpoint.files import KEEP, checkpoint_path, list_checkpoints
from dstream.testing import advance_batches, manual_clock
from tests.conftest import LOCAL, SMALL_UI_RETENTION

KEYS = [f"k{i}" for i in range(8)]
#: The first batches (five checkpoint intervals): what "early" means for the lineage,
#: the checkpoint directory and the metadata checkpoint size.
START = 50
#: Batches before the first sample: the working set (remembered batches, cached and
#: checkpointed RDDs, the checkpoints kept) reaches its steady size.
WARM_UP = 300
#: Then traced memory is sampled every SAMPLE_EVERY batches; growth is the difference
#: of the medians of the two halves of the samples, per batch.
SAMPLE_EVERY = 50
SAMPLES = 12
TOTAL = 2000
#: Growth per batch allowed, in traced bytes and in traced memory blocks (allocations).
#: Traced memory is a sawtooth (shuffle outputs and cached blocks wait for the cleaner;
#: churning dicts reallocate their tables in steps of ~18 KB), so each half of the
#: samples is summarized by its median: steady growth moves it as it moves every sample,
#: while one deep trough or one high sample does not (the minimum, used before, read a
#: single trough 150 blocks below the rest of a flat run as 0.45 blocks per batch).
#: Measured with the minimum: a flat run -20..50 bytes and -0.3..0.1 blocks per batch;
#: keeping one int per batch 0.8 blocks; keeping the RDDs of every batch ~11 KB.
MAX_BYTES_PER_BATCH = 200
MAX_BLOCKS_PER_BATCH = 0.4
#: How much bigger the newest metadata checkpoint may get over the run: its batch times,
#: RDD ids and positions take a few more bytes as the numbers grow (~8% here); keeping
#: one record per batch would double it.
CHECKPOINT_GROWTH = 1.25


def running_total(values: list[int], total: int | None) -> int:
    return (total or 0) + sum(values)


class Probe:
    """Evaluates each batch's RDD and records the longest lineage seen in the current phase."""

    def __init__(self) -> None:
        self.phase = "start"
        self.longest: dict[tuple[str, str], int] = {}
        self.last: dict[str, Any] = {}

    def observer(self, name: str) -> Any:
        def observe(rdd: Any) -> None:
            values = dict(rdd.collect())
            lines = len(rdd.toDebugString().splitlines())
            key = (self.phase, name)
            if lines > self.longest.get(key, 0):
                self.longest[key] = lines
            self.last[name] = values

        return observe


def _files(directory: Path) -> int:
    return sum(len(names) + len(dirs) for _, dirs, names in os.walk(directory))


def _traced() -> tuple[int, int]:
    """Traced (bytes, blocks) right now."""
    stats = tracemalloc.take_snapshot().statistics("filename")
    return (sum(stat.size for stat in stats), sum(stat.count for stat in stats))


def _newest_checkpoint_size(directory: Path) -> int:
    return os.path.getsize(checkpoint_path(str(directory), list_checkpoints(str(directory))[-1]))


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_thousands_of_stateful_batches_stay_flat(make_sc: Any, tmp_path: Path) -> None:
    sc = make_sc(LOCAL, SparkConf().setAll(list(SMALL_UI_RETENTION.items())))
    ssc = StreamingContext(sc, 0.1)
    manual_clock(ssc)
    ssc.checkpoint(str(tmp_path))
    source = ssc.queueStream([], default=[(k, 1) for k in KEYS])
    state = source.updateStateByKey(running_total).checkpoint(1)
    window = source.reduceByKeyAndWindow(operator.add, operator.sub, 0.5, 0.1).checkpoint(1)
    probe = Probe()
    state.foreachRDD(probe.observer("state"))
    window.foreachRDD(probe.observer("window"))
    files: dict[str, int] = {}
    sizes: dict[str, int] = {}
    samples: list[tuple[int, int]] = []

    def check_lineage() -> None:
        for name in ("state", "window"):
            early = probe.longest[("start", name)]
            later = {phase: n for (phase, which), n in probe.longest.items() if which == name}
            assert max(later.values()) <= early, (
                f"the {name} RDD's lineage grows: at most {early} lines in the first {START} batches, "
                f"then {later} (longest per phase)")

    def run(phase: str, batches: int, count_files: bool = True) -> None:
        probe.phase = phase
        for _ in range(batches // 50):
            advance_batches(ssc, 50)
            if phase != "start":
                check_lineage()  # fail fast: an uncut lineage makes every batch slower
            if count_files:
                files[phase] = max(files.get(phase, 0), _files(tmp_path))
                sizes[phase] = max(sizes.get(phase, 0), _newest_checkpoint_size(tmp_path))
        advance_batches(ssc, batches % 50)

    ssc.start()
    try:
        gc.collect()
        tracemalloc.start()  # before the first batch: everything the run keeps is traced
        try:
            run("start", START)
            run("warm-up", WARM_UP - START)
            for _ in range(SAMPLES):
                run("traced", SAMPLE_EVERY, count_files=False)
                # Events still queued for the listener threads are in flight, not kept: under
                # tracemalloc those threads lag, and their queues would read as growth.
                assert ssc._engine.bus.wait_until_empty(60), "the streaming listener bus did not drain in 60 s"
                assert listener_bus(sc).wait_until_empty(60), "the context's listener bus did not drain in 60 s"
                gc.collect()
                samples.append(_traced())
        finally:
            tracemalloc.stop()
        run("late", TOTAL - WARM_UP - SAMPLES * SAMPLE_EVERY)
        error = ssc._engine.waiter.error
    finally:
        ssc.stop(stopSparkContext=False)
    assert error is None, error

    # The run computed what it should: every key once per batch.
    assert probe.last["state"] == {k: TOTAL for k in KEYS}
    assert probe.last["window"] == {k: 5 for k in KEYS}

    half = SAMPLES // 2
    for i, (unit, bound) in enumerate([("bytes", MAX_BYTES_PER_BATCH), ("blocks", MAX_BLOCKS_PER_BATCH)]):
        series = [sample[i] for sample in samples]
        growth = (statistics.median(series[half:]) - statistics.median(series[:half])) / (half * SAMPLE_EVERY)
        assert growth < bound, f"traced memory grows by {growth:.2f} {unit} per batch: {series}"

    check_lineage()
    assert {phase for phase, _ in probe.longest} == {"start", "warm-up", "traced", "late"}

    assert files["late"] <= files["start"], f"checkpoint directory grows: {files}"
    assert sizes["late"] <= sizes["start"] * CHECKPOINT_GROWTH, f"metadata checkpoints grow: {sizes}"
    assert len(list_checkpoints(str(tmp_path))) == KEEP

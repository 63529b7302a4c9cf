"""Stateful streams on 50 ms batches run indefinitely, on ``local[2]`` with real workers.

The default RDD checkpoint interval of a stateful stream used to be the smallest
multiple of its slide of at least 10 s: 200 batches at 50 ms, while pickling a stage
fails near 125 uncheckpointed batches (Python's recursion limit), after which every
batch failed, reported as an unpicklable object. On the manual clock, with only
``sc.setCheckpointDir`` (no metadata checkpoints) unless said otherwise:

* ``updateStateByKey`` runs 2,000 batches with its default interval: no batch fails,
  every batch computes what it should, the workers' memory stays flat (after a
  warm-up, the cached blocks the driver tracks never outnumber those of the warm-up's
  end, and the workers' summed resident memory, ``VmRSS``, grows by less than a bound)
  and the RDD checkpoint directory holds no more files late than early (the RDDs the
  streams forgot are deleted without metadata checkpoints too);
* an incremental ``reduceByKeyAndWindow``, ``mapWithState``, and ``updateStateByKey``
  with an explicit 100 s interval (2,000 batches) run well past the old failure point,
  and the lineage of their RDDs stays bounded (checkpointed by depth, not only by time).
"""

from __future__ import annotations

import operator
import os
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rdd import SparkContext
from rdd.checkpoint import lineage_depth

from dstream import StateSpec, StreamingContext
from dstream.nodes.stateful import MAX_LINEAGE_DEPTH
from dstream.testing import advance_batches, manual_clock
from tests.rdd.processes import worker_pids

KEYS = [f"k{i}" for i in range(40)]
TOTAL = 2000
WARM_UP = 300
SAMPLE_EVERY = 100
#: Allowed growth of the workers' summed VmRSS from the median of the first quarter of
#: the samples to that of the last quarter. Measured: flat runs grew 36..54 KB; keeping
#: every batch's state blocks (RDDs held by the output and spark.streaming.unpersist=false)
#: grew 1,664 KB, with the cached blocks going from 600 to 4,000.
MAX_RSS_GROWTH_KB = 512


def running_total(values: list[int], total: int | None) -> int:
    return (total or 0) + sum(values)


def counted(key: str, value: int, state: Any) -> tuple[str, int]:
    total = (state.getOption() or 0) + value
    state.update(total)
    return (key, total)






def _rss_kb(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/status") as f:
            total += next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    return total


def _files(directory: Path) -> int:
    return sum(len(names) + len(dirs) for _, dirs, names in os.walk(directory))


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_update_state_by_key_on_50_ms_batches_runs_2000_batches_with_flat_worker_memory(
    make_sc: Callable[..., SparkContext], tmp_path: Path
) -> None:
    sc = make_sc("local[2]")
    sc.setCheckpointDir(str(tmp_path))
    ssc = StreamingContext(sc, 0.05)
    manual_clock(ssc)
    source = ssc.queueStream([], default=[(k, 1) for k in KEYS])
    last: dict[str, int] = {}
    source.updateStateByKey(running_total).foreachRDD(lambda rdd: last.update(rdd.collect()))
    pids = worker_pids(sc)
    rss: list[int] = []
    blocks: list[int] = []
    files: dict[str, int] = {}
    ssc.start()
    try:
        for done in range(0, TOTAL, SAMPLE_EVERY):
            advance_batches(ssc, SAMPLE_EVERY)
            error = ssc._engine.waiter.error
            assert error is None, f"a batch failed after {done} batches: {error!r}"
            batches = done + SAMPLE_EVERY
            assert last == {k: batches for k in KEYS}, (batches, last)
            phase = "early" if batches <= WARM_UP else "late"
            files[phase] = max(files.get(phase, 0), _files(tmp_path))
            if batches >= WARM_UP:
                rss.append(_rss_kb(pids))
                blocks.append(len(sc._env.runner.locations._where))
    finally:
        ssc.stop(stopSparkContext=False)
    assert sorted(worker_pids(sc)) == sorted(pids), "a worker was replaced during the run"

    assert max(blocks) <= blocks[0], f"cached blocks accumulate: {blocks}"
    quarter = len(rss) // 4
    growth = statistics.median(rss[-quarter:]) - statistics.median(rss[:quarter])
    assert growth < MAX_RSS_GROWTH_KB, f"worker memory grows by {growth} KB: {rss}"
    assert files["late"] <= files["early"], f"the checkpoint directory grows: {files}"


#: Batches of the shorter runs: well past the ~125 where pickling used to fail.
SHORT = 300


def _window(source: Any) -> Any:
    return source.reduceByKeyAndWindow(operator.add, operator.sub, 0.5, 0.05)


def _map_with_state(source: Any) -> Any:
    return source.mapWithState(StateSpec.function(counted)).stateSnapshots()


def _long_interval(source: Any) -> Any:
    return source.updateStateByKey(running_total).checkpoint(100)


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.parametrize("operation, expected, metadata", [
    pytest.param(_window, lambda n: 10, False, id="reduceByKeyAndWindow-inverse"),
    pytest.param(_map_with_state, lambda n: n, False, id="mapWithState"),
    pytest.param(_long_interval, lambda n: n, True, id="updateStateByKey-100s-interval"),
])
def test_stateful_streams_on_50_ms_batches_keep_their_lineage_bounded(
    make_sc: Callable[..., SparkContext], tmp_path: Path, operation: Callable[[Any], Any],
    expected: Callable[[int], int], metadata: bool
) -> None:
    sc = make_sc("local[2]")
    ssc = StreamingContext(sc, 0.05)
    manual_clock(ssc)
    if metadata:
        ssc.checkpoint(str(tmp_path))
    else:
        sc.setCheckpointDir(str(tmp_path))
    source = ssc.queueStream([], default=[(k, 1) for k in KEYS])
    last: dict[str, int] = {}
    longest = [0]

    def observe(rdd: Any) -> None:
        last.update(rdd.collect())
        longest[0] = max(longest[0], lineage_depth(rdd._node))

    operation(source).foreachRDD(observe)
    ssc.start()
    try:
        for done in range(0, SHORT, 50):
            advance_batches(ssc, 50)
            error = ssc._engine.waiter.error
            assert error is None, f"a batch failed after {done} batches: {error!r}"
    finally:
        ssc.stop(stopSparkContext=False)
    assert last == {k: expected(SHORT) for k in KEYS}
    assert longest[0] <= MAX_LINEAGE_DEPTH, f"the lineage reached {longest[0]} RDDs"

"""The driver's accumulator registry holds accumulators weakly: a stream that makes some every
batch must not keep them all, and one still held keeps receiving its tasks' updates."""

from __future__ import annotations

import gc

from rdd import SparkContext, accumulators


def test_held_accumulators_merge_and_forgotten_ones_leave_the_registry(sc: SparkContext) -> None:
    held = sc.accumulator(0)
    sc.parallelize(range(10), 2).foreach(lambda x: held.add(x))
    assert held.value == 45
    for _ in range(100):  # as a stream's batches make them
        batch_counter = sc.accumulator(0)
        sc.parallelize(range(3), 1).foreach(lambda x, acc=batch_counter: acc.add(x))
    del batch_counter
    gc.collect()
    live = [a for a in accumulators._registry.values() if a is not held]
    assert len(live) < 100, f"{len(live)} dropped accumulators are still registered"
    sc.parallelize(range(5), 2).foreach(lambda x: held.add(1))
    assert held.value == 50

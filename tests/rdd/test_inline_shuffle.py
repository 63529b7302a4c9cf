"""Small map outputs travel through the driver instead of files (``local[N]``).

A map output of at most ``spark.shuffle.inlineMapOutputBytes`` comes back with its task's
result; the driver keeps it with the shuffle's other outputs and sends each reduce task
its buckets. These tests run real ``local[2]`` workers and look at the real shuffle
directory: small outputs leave no file, large ones still do, a stage mixing both reads
both, a later job over the same shuffle reads the held outputs again, and removing the
shuffle frees them.
"""

from __future__ import annotations

import gc
import os
from collections import Counter
from collections.abc import Callable
from operator import add

from rdd import SparkConf, SparkContext
from rdd.nodes.shuffled import ShuffledNode
from rdd.scheduler.tracking import MapOutputTracker
from rdd.shuffle.writer import InlineMapOutput


def _shuffle_files(sc: SparkContext) -> list[str]:
    root = os.path.join(sc._env.local_dir, "shuffle")
    return [name for _, _, names in os.walk(root) for name in names if name.endswith(".out")]


def _word_counts(sc: SparkContext, lines: list[str], slices: int = 2) -> dict[str, int]:
    return dict(sc.parallelize(lines, slices).flatMap(str.split).map(lambda w: (w, 1)).reduceByKey(add).collect())


def test_small_map_outputs_leave_no_shuffle_file(make_sc: Callable[..., SparkContext]) -> None:
    sc = make_sc("local[2]")
    lines = ["a b c", "b c d", "c d e"] * 3
    assert _word_counts(sc, lines) == dict(Counter(" ".join(lines).split()))
    assert _shuffle_files(sc) == []


def test_outputs_over_the_limit_go_to_files_and_zero_turns_inlining_off(
        make_sc: Callable[..., SparkContext]) -> None:
    lines = [f"w{i} x{i % 7}" for i in range(2000)]
    expected = dict(Counter(" ".join(lines).split()))
    for limit in ("1k", "0"):
        sc = make_sc("local[2]", SparkConf().set("spark.shuffle.inlineMapOutputBytes", limit))
        assert _word_counts(sc, lines) == expected
        assert len(_shuffle_files(sc)) == 2, limit  # one file per map output
        sc.stop()


def test_a_stage_reads_held_and_written_outputs_together(make_sc: Callable[..., SparkContext]) -> None:
    sc = make_sc("local[2]", SparkConf().set("spark.shuffle.inlineMapOutputBytes", "2k"))
    # Partition 0 is small (held by the driver), partition 1 large (a file).
    data = [("k0", 1), ("k1", 2)] + [(f"big{i}", i) for i in range(3000)]
    pairs = sc.parallelize([data[:2], data[2:]], 2).flatMap(lambda chunk: chunk)
    got = dict(pairs.reduceByKey(add, 3).collect())
    assert got == dict(data)
    assert len(_shuffle_files(sc)) == 1


def test_a_later_job_over_the_same_shuffle_reads_the_held_outputs(make_sc: Callable[..., SparkContext]) -> None:
    sc = make_sc("local[2]")
    counts = sc.parallelize(["x y", "y z", "z z"], 2).flatMap(str.split).map(lambda w: (w, 1)).reduceByKey(add, 3)
    assert sorted(counts.collect()) == [("x", 1), ("y", 2), ("z", 3)]
    # The map stage is skipped: its outputs are still held, and sent to the new tasks.
    assert counts.filter(lambda kv: kv[1] > 1).count() == 2
    assert counts.map(lambda kv: kv[1]).sum() == 6
    assert _shuffle_files(sc) == []


def test_a_removed_shuffle_frees_its_held_outputs(make_sc: Callable[..., SparkContext]) -> None:
    sc = make_sc("local[2]")
    tracker: MapOutputTracker = sc._env.runner.tracker
    counts = sc.parallelize(range(100), 2).map(lambda x: (x % 5, x)).reduceByKey(add)
    assert dict(counts.collect()) == {k: sum(range(k, 100, 5)) for k in range(5)}
    node = counts._node
    assert isinstance(node, ShuffledNode)
    shuffle_id = node.shuffle_id
    del node
    assert tracker.holds_inline(shuffle_id)
    del counts
    gc.collect()
    assert sc.parallelize([1]).count() == 1  # the cleaner runs at the next job's start
    assert not tracker.holds_inline(shuffle_id)


def test_tracker_serves_held_buckets_and_forgets_replaced_ones() -> None:
    from array import array

    tracker = MapOutputTracker()
    tracker.register_shuffle(7, 2)
    tracker.register_output(7, 0, InlineMapOutput([2, 1], b"abc", array("q", [0, 2, 3])))
    tracker.register_output(7, 1, [5, 5])  # written to a file
    assert tracker.is_available(7)
    assert tracker.inline_buckets([(7, 0), (7, 1)]) == {(7, 0, 0): b"ab", (7, 0, 1): b"c"}
    tracker.register_output(7, 0, [2, 1])  # a later attempt wrote a file instead
    assert tracker.inline_buckets([(7, 0)]) == {} and not tracker.holds_inline(7)
    tracker.register_output(7, 1, InlineMapOutput([0, 1], b"z", array("q", [0, 0, 1])))
    tracker.unregister_output(7, 1)
    assert not tracker.holds_inline(7) and tracker.missing(7) == [1]

"""``RDD.cleanShuffleDependencies``: the shuffle files of a lineage removed, the RDD still computable."""

from __future__ import annotations

import os
from collections.abc import Callable
from operator import add

from rdd import SparkConf, SparkContext, StorageLevel


def _shuffle_dirs(sc: SparkContext) -> set[str]:
    root = os.path.join(sc._env.local_dir, "shuffle")
    return {d for d in os.listdir(root) if d.isdigit()} if os.path.isdir(root) else set()


def test_the_lineage_s_shuffles_are_removed_up_to_a_persisted_ancestor(make_sc: Callable[..., SparkContext]) -> None:
    # Small map outputs travel inline with the tasks: none here, so that every shuffle has files.
    sc = make_sc("local[2]", SparkConf().set("spark.shuffle.inlineMapOutputBytes", "0"))
    words = sc.parallelize([f"w{i % 300}" for i in range(30_000)], 4)
    first = words.map(lambda w: (w, 1)).reduceByKey(add, 3)            # shuffle A
    kept = first.map(lambda kv: (kv[1], kv[0])).persist(StorageLevel.MEMORY_ONLY)
    second = kept.groupByKey(2).mapValues(len)                          # shuffle B, after the persisted RDD
    expected = sorted(second.collect())
    assert len(_shuffle_dirs(sc)) == 2, "both shuffles should have written files"
    second.cleanShuffleDependencies()
    assert len(_shuffle_dirs(sc)) == 1, "only the shuffle above the persisted ancestor goes"
    kept.cleanShuffleDependencies(blocking=True)
    assert _shuffle_dirs(sc) == set()
    assert sorted(second.collect()) == expected  # computed again from what is left

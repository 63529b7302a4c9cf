"""Algebraic laws of the RDD engine, checked on generated data.

- A job's result does not depend on how its input is partitioned (pipelines ending in
  a sort are compared exactly; others as multisets).
- ``reduceByKey(f)`` equals ``groupByKey()`` followed by a local ``reduce(f)``.
- ``join`` equals the naive nested-loop join, whatever the partition counts and
  ``numPartitions``, and also when one side was already hash-partitioned.
- A cached RDD gives the same answer on every action as on the first one.
"""

from __future__ import annotations

import functools
import operator
from collections import Counter
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from tests.strategies import int_lists, int_reducers, pairs, partitions, rdd_property, sortable_pairs


def word_count(rdd: Any) -> Any:
    return rdd.flatMap(lambda x: [x % 5, x % 3]).map(lambda w: (w, 1)).reduceByKey(operator.add).sortByKey()


def distinct_sorted(rdd: Any) -> Any:
    return rdd.map(lambda x: x // 2).distinct().sortBy(lambda x: x)


def grouped_sorted(rdd: Any) -> Any:
    return rdd.groupBy(lambda x: x % 4).mapValues(sorted).sortByKey(ascending=False)


def self_join_counts(rdd: Any) -> Any:
    keyed = rdd.keyBy(lambda x: x % 3)
    return keyed.join(keyed).map(lambda kv: (kv[0], kv[1][0] * kv[1][1])).reduceByKey(operator.add).sortByKey()


def repartitioned_sum_per_key(rdd: Any) -> Any:
    return rdd.repartition(3).map(lambda x: (x % 2, x)).foldByKey(0, operator.add).sortByKey()


def intersect_subtract(rdd: Any) -> Any:
    evens = rdd.filter(lambda x: x % 2 == 0)
    return rdd.subtract(evens).union(rdd.intersection(evens)).sortBy(lambda x: x)


PIPELINES: dict[str, Callable[[Any], Any]] = {
    f.__name__: f
    for f in (word_count, distinct_sorted, grouped_sorted, self_join_counts, repartitioned_sum_per_key,
              intersect_subtract)
}


@rdd_property(data=int_lists, pa=partitions, pb=partitions, pipeline=st.sampled_from(sorted(PIPELINES)))
def test_result_is_independent_of_partition_count(ctx: Any, data: list[int], pa: int, pb: int,
                                                   pipeline: str) -> None:
    build = PIPELINES[pipeline]
    assert build(ctx.parallelize(data, pa)).collect() == build(ctx.parallelize(data, pb)).collect()


@rdd_property(data=pairs, pa=partitions, pb=partitions, out=partitions)
def test_aggregations_are_independent_of_partition_count(ctx: Any, data: list[tuple[Any, int]], pa: int,
                                                         pb: int, out: int) -> None:
    def summarise(num: int, reduce_partitions: int | None) -> Any:
        rdd = ctx.parallelize(data, num)
        return (
            rdd.reduceByKey(operator.add, reduce_partitions).collectAsMap(),
            {k: sorted(v) for k, v in rdd.groupByKey(reduce_partitions).collect()},
            dict(rdd.countByKey()),
        )

    assert summarise(pa, None) == summarise(pb, out)


@rdd_property(data=pairs, num=partitions, func=int_reducers, out=st.none() | partitions)
def test_reduce_by_key_equals_group_by_key_then_reduce(ctx: Any, data: list[tuple[Any, int]], num: int,
                                                       func: Callable[[int, int], int], out: int | None) -> None:
    rdd = ctx.parallelize(data, num)
    reduced = rdd.reduceByKey(func, out).collectAsMap()
    grouped = rdd.groupByKey(out).mapValues(lambda vs: functools.reduce(func, vs)).collectAsMap()
    assert reduced == grouped


@rdd_property(a=sortable_pairs, b=sortable_pairs, pa=partitions, pb=partitions, out=st.none() | partitions,
              prepartition=st.booleans())
def test_join_equals_nested_loop_join(ctx: Any, a: list[tuple[Any, int]], b: list[tuple[Any, int]], pa: int,
                                      pb: int, out: int | None, prepartition: bool) -> None:
    left = ctx.parallelize(a, pa)
    if prepartition:
        left = left.partitionBy(pb)
    right = ctx.parallelize(b, pb)
    expected = Counter((k, (v, w)) for k, v in a for k2, w in b if k == k2)
    assert Counter(left.join(right, out).collect()) == expected


@rdd_property(data=int_lists, num=partitions)
def test_cached_rdd_gives_the_same_answer_twice(ctx: Any, data: list[int], num: int) -> None:
    rdd = word_count(ctx.parallelize(data, num)).cache()
    try:
        first = rdd.collect()
        assert rdd.collect() == first
        assert rdd.map(lambda kv: kv[1]).sum() == 2 * len(data)
    finally:
        rdd.unpersist()

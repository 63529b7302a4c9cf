"""Properties of RDD actions, broadcast variables and accumulators.

Covered: collect, collectAsMap, count, countByKey, countByValue, reduce, fold,
aggregate, sum, mean, max, min, stats (against the ``statistics`` module), take,
first, top, takeOrdered, isEmpty, foreach and foreachPartition (through
accumulators), broadcast values read inside tasks, and accumulators of ints, floats
and a custom ``AccumulatorParam``.
"""

from __future__ import annotations

import functools
import heapq
import math
import statistics
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import strategies as st

from rdd import AccumulatorParam

from tests.strategies import (
    add_to_sum_count,
    element_lists,
    finite_floats,
    int_key_funcs,
    int_lists,
    int_reducers,
    merge_sum_count,
    number_lists,
    pairs,
    partitions,
    rdd_property,
    small_ints,
)

non_empty_int_lists = st.lists(small_ints, min_size=1, max_size=30)


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)


# ------------------------------------------------------------------ collecting


@rdd_property(data=pairs, num=partitions)
def test_collect_as_map_keeps_the_last_value_per_key(ctx: Any, data: list[tuple[Any, int]], num: int) -> None:
    assert ctx.parallelize(data, num).collectAsMap() == dict(data)


@rdd_property(data=element_lists, num=partitions)
def test_count_and_is_empty(ctx: Any, data: list[Any], num: int) -> None:
    rdd = ctx.parallelize(data, num)
    assert rdd.count() == len(data)
    assert rdd.isEmpty() == (not data)
    assert rdd.filter(lambda x: False).isEmpty()


@rdd_property(data=pairs, num=partitions)
def test_count_by_key(ctx: Any, data: list[tuple[Any, int]], num: int) -> None:
    counts = ctx.parallelize(data, num).countByKey()
    assert dict(counts) == dict(Counter(k for k, _ in data))


@rdd_property(data=element_lists, num=partitions)
def test_count_by_value(ctx: Any, data: list[Any], num: int) -> None:
    assert dict(ctx.parallelize(data, num).countByValue()) == dict(Counter(data))


# ------------------------------------------------------------------ folding


@rdd_property(data=non_empty_int_lists, num=partitions, func=int_reducers)
def test_reduce(ctx: Any, data: list[int], num: int, func: Callable[[int, int], int]) -> None:
    assert ctx.parallelize(data, num).reduce(func) == functools.reduce(func, data)


@rdd_property(num=partitions)
def test_reduce_of_an_empty_rdd_raises_value_error(ctx: Any, num: int) -> None:
    with pytest.raises(ValueError):
        ctx.parallelize([], num).reduce(lambda a, b: a + b)


@rdd_property(data=int_lists, num=partitions)
def test_fold(ctx: Any, data: list[int], num: int) -> None:
    rdd = ctx.parallelize(data, num)
    assert rdd.fold(0, lambda a, b: a + b) == sum(data)
    # PySpark folds the zero value once per partition and once more on the driver.
    assert rdd.fold(1, lambda a, b: a + b) == sum(data) + num + 1


@rdd_property(data=int_lists, num=partitions)
def test_aggregate(ctx: Any, data: list[int], num: int) -> None:
    result = ctx.parallelize(data, num).aggregate((0, 0), add_to_sum_count, merge_sum_count)
    assert result == (sum(data), len(data))


@rdd_property(data=int_lists, num=partitions)
def test_aggregate_with_a_mutable_zero(ctx: Any, data: list[int], num: int) -> None:
    zero: list[int] = []

    def append(acc: list[int], x: int) -> list[int]:
        acc.append(x)
        return acc

    result = ctx.parallelize(data, num).aggregate(zero, append, lambda a, b: a + b)
    assert sorted(result) == sorted(data)


# ------------------------------------------------------------------ numbers


@rdd_property(data=number_lists, num=partitions)
def test_sum(ctx: Any, data: list[float], num: int) -> None:
    total = ctx.parallelize(data, num).sum()
    if all(isinstance(x, int) for x in data):
        assert total == sum(data)
    else:
        assert close(total, math.fsum(data))


@rdd_property(data=st.lists(finite_floats | small_ints, min_size=1, max_size=30), num=partitions)
def test_mean(ctx: Any, data: list[float], num: int) -> None:
    assert close(ctx.parallelize(data, num).mean(), statistics.fmean(data))


@rdd_property(data=non_empty_int_lists, num=partitions, key=st.none() | int_key_funcs)
def test_max_and_min(ctx: Any, data: list[int], num: int, key: Callable[[int], Any] | None) -> None:
    rdd = ctx.parallelize(data, num)
    if key is None:
        assert rdd.max() == max(data)
        assert rdd.min() == min(data)
    else:
        assert key(rdd.max(key)) == max(map(key, data))
        assert key(rdd.min(key)) == min(map(key, data))


@rdd_property(data=st.lists(finite_floats | small_ints, min_size=2, max_size=30), num=partitions)
def test_stats_matches_the_statistics_module(ctx: Any, data: list[float], num: int) -> None:
    stats = ctx.parallelize(data, num).stats()
    assert stats.count() == len(data)
    assert close(stats.sum(), math.fsum(data))
    assert close(stats.mean(), statistics.fmean(data))
    assert stats.max() == max(data)
    assert stats.min() == min(data)
    assert close(stats.variance(), statistics.pvariance(data))
    assert close(stats.stdev(), statistics.pstdev(data))
    assert close(stats.sampleVariance(), statistics.variance(data))
    assert close(stats.sampleStdev(), statistics.stdev(data))


@rdd_property(data=st.lists(finite_floats | small_ints, min_size=2, max_size=30), num=partitions)
def test_numeric_shortcuts_agree_with_stats(ctx: Any, data: list[float], num: int) -> None:
    rdd = ctx.parallelize(data, num)
    assert close(rdd.variance(), statistics.pvariance(data))
    assert close(rdd.stdev(), statistics.pstdev(data))
    assert close(rdd.sampleVariance(), statistics.variance(data))
    assert close(rdd.sampleStdev(), statistics.stdev(data))


# ------------------------------------------------------------------ taking


@rdd_property(data=element_lists, num=partitions, n=st.integers(0, 35))
def test_take(ctx: Any, data: list[Any], num: int, n: int) -> None:
    assert ctx.parallelize(data, num).take(n) == data[:n]


@rdd_property(data=element_lists, num=partitions, n=st.integers(0, 35))
def test_take_after_a_filter_leaving_empty_partitions(ctx: Any, data: list[Any], num: int, n: int) -> None:
    kept = data[len(data) // 2:]
    rdd = ctx.parallelize(list(enumerate(data)), num).filter(lambda p: p[0] >= len(data) // 2).values()
    assert rdd.take(n) == kept[:n]


@rdd_property(data=element_lists, num=partitions)
def test_first(ctx: Any, data: list[Any], num: int) -> None:
    rdd = ctx.parallelize(data, num)
    if data:
        assert rdd.first() == data[0]
    else:
        with pytest.raises(ValueError):
            rdd.first()


@rdd_property(data=int_lists, num=partitions, n=st.integers(0, 35))
def test_top_and_take_ordered(ctx: Any, data: list[int], num: int, n: int) -> None:
    rdd = ctx.parallelize(data, num)
    assert rdd.top(n) == sorted(data, reverse=True)[:n]
    assert rdd.takeOrdered(n) == sorted(data)[:n]


@rdd_property(data=int_lists, num=partitions, n=st.integers(0, 35), key=int_key_funcs)
def test_top_and_take_ordered_with_key(ctx: Any, data: list[int], num: int, n: int,
                                       key: Callable[[int], Any]) -> None:
    """With a key, ties may come in any order: compare the keys and the multiset drawn."""
    rdd = ctx.parallelize(data, num)
    top = rdd.top(n, key=key)
    assert [key(x) for x in top] == [key(x) for x in heapq.nlargest(n, data, key=key)]
    assert not Counter(top) - Counter(data)
    ordered = rdd.takeOrdered(n, key=key)
    assert [key(x) for x in ordered] == [key(x) for x in heapq.nsmallest(n, data, key=key)]
    assert not Counter(ordered) - Counter(data)


@rdd_property(data=st.lists(st.text("abé鍵", max_size=3), max_size=20), num=partitions, n=st.integers(0, 25))
def test_top_on_text(ctx: Any, data: list[str], num: int, n: int) -> None:
    assert ctx.parallelize(data, num).top(n) == sorted(data, reverse=True)[:n]


# ------------------------------------------------------------------ side effects


@rdd_property(data=int_lists, num=partitions)
def test_foreach_adds_to_an_accumulator(ctx: Any, data: list[int], num: int) -> None:
    total = ctx.accumulator(0)
    ctx.parallelize(data, num).foreach(lambda x: total.add(x))
    assert total.value == sum(data)


@rdd_property(data=int_lists, num=partitions)
def test_foreach_partition_sees_every_partition_once(ctx: Any, data: list[int], num: int) -> None:
    calls = ctx.accumulator(0)
    elements = ctx.accumulator(0)

    def visit(it: Any) -> None:
        calls.add(1)
        elements.add(sum(1 for _ in it))

    ctx.parallelize(data, num).foreachPartition(visit)
    assert calls.value == num
    assert elements.value == len(data)


@rdd_property(data=st.lists(finite_floats, max_size=30), num=partitions)
def test_float_accumulator(ctx: Any, data: list[float], num: int) -> None:
    total = ctx.accumulator(0.0)
    ctx.parallelize(data, num).foreach(lambda x: total.add(x))
    assert close(total.value, math.fsum(data))


class ListParam(AccumulatorParam):
    """Accumulates lists by concatenation."""

    def zero(self, value: list[Any]) -> list[Any]:
        return []

    def addInPlace(self, value1: list[Any], value2: list[Any]) -> list[Any]:
        value1.extend(value2)
        return value1


@rdd_property(data=int_lists, num=partitions)
def test_custom_accumulator_param(ctx: Any, data: list[int], num: int) -> None:
    seen = ctx.accumulator([], ListParam())
    ctx.parallelize(data, num).foreach(lambda x: seen.add([x]))
    assert sorted(seen.value) == sorted(data)


@rdd_property(data=int_lists, num=partitions)
def test_accumulators_add_up_over_several_jobs(ctx: Any, data: list[int], num: int) -> None:
    total = ctx.accumulator(5)
    rdd = ctx.parallelize(data, num)
    rdd.foreach(lambda x: total.add(x))
    rdd.foreach(lambda x: total.add(1))
    assert total.value == 5 + sum(data) + len(data)


@rdd_property(table=st.dictionaries(st.sampled_from(["a", "é", "鍵", "z"]) | st.integers(0, 5), small_ints,
                                    max_size=6),
              data=st.lists(st.sampled_from(["a", "é", "鍵", "z"]) | st.integers(0, 5), max_size=30),
              num=partitions)
def test_broadcast_value_is_read_in_tasks(ctx: Any, table: dict[Any, int], data: list[Any], num: int) -> None:
    lookup = ctx.broadcast(table)
    assert lookup.value == table
    result = ctx.parallelize(data, num).map(lambda k: lookup.value.get(k, "missing")).collect()
    assert result == [table.get(k, "missing") for k in data]

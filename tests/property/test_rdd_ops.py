"""Properties of RDD creation and of the element-wise, set and repartitioning operators.

Covered: parallelize (PySpark's slicing), range, emptyRDD, SparkContext.union, map,
flatMap, filter, mapPartitions, mapPartitionsWithIndex, glom, distinct, union,
intersection, subtract, cartesian, sample, keyBy, zip, zipWithIndex, coalesce,
repartition.

Each property compares the RDD to a few lines of plain Python over the same list.
Results whose order PySpark defines (anything on ``parallelize`` without a shuffle)
are compared exactly; the others as multisets (``Counter``). Every property runs on
``local`` and ``local[2]`` (see ``tests/strategies.py``).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from tests.strategies import (
    element_lists,
    index_and_size,
    int_flat_maps,
    int_key_funcs,
    int_lists,
    int_maps,
    int_partition_funcs,
    int_predicates,
    int_to_int_flat_maps,
    partitions,
    rdd_property,
    seeds,
    slices,
    tag_with_index,
    text_lists,
    text_maps,
)

# ------------------------------------------------------------------ creation


@rdd_property(data=element_lists, num=partitions)
def test_parallelize_slices_like_pyspark(ctx: Any, data: list[Any], num: int) -> None:
    """Partition i of parallelize(data, p) holds data[i*n//p:(i+1)*n//p]."""
    rdd = ctx.parallelize(data, num)
    assert rdd.getNumPartitions() == num
    assert rdd.glom().collect() == slices(data, num)
    assert rdd.collect() == data


@rdd_property(data=int_lists)
def test_parallelize_defaults_to_default_parallelism(ctx: Any, data: list[int]) -> None:
    rdd = ctx.parallelize(data)
    assert rdd.getNumPartitions() == ctx.defaultParallelism
    assert rdd.collect() == data


@rdd_property(
    start=st.integers(-30, 30),
    end=st.integers(-30, 30),
    step=st.integers(-7, 7).filter(lambda s: s != 0),
    num=partitions,
)
def test_range(ctx: Any, start: int, end: int, step: int, num: int) -> None:
    rdd = ctx.range(start, end, step, numSlices=num)
    expected = list(range(start, end, step))
    assert rdd.getNumPartitions() == num
    assert rdd.glom().collect() == slices(expected, num)


@rdd_property(end=st.integers(0, 40), num=partitions)
def test_range_with_one_argument_counts_from_zero(ctx: Any, end: int, num: int) -> None:
    assert ctx.range(end, numSlices=num).collect() == list(range(end))


@rdd_property(num=partitions)
def test_empty_rdd(ctx: Any, num: int) -> None:
    empty = ctx.emptyRDD()
    assert empty.collect() == []
    assert empty.count() == 0
    assert empty.isEmpty()
    assert empty.union(ctx.parallelize([1, 2], num)).collect() == [1, 2]


@rdd_property(datas=st.lists(st.tuples(int_lists, partitions), min_size=1, max_size=4))
def test_context_union_concatenates_partitions(ctx: Any, datas: list[tuple[list[int], int]]) -> None:
    rdds = [ctx.parallelize(data, num) for data, num in datas]
    union = ctx.union(rdds)
    assert union.getNumPartitions() == sum(num for _, num in datas)
    assert union.collect() == [x for data, _ in datas for x in data]
    assert union.glom().collect() == [part for data, num in datas for part in slices(data, num)]


# ------------------------------------------------------------------ element-wise


@rdd_property(data=int_lists, num=partitions, f=int_maps)
def test_map(ctx: Any, data: list[int], num: int, f: Callable[[int], Any]) -> None:
    rdd = ctx.parallelize(data, num).map(f)
    assert rdd.getNumPartitions() == num
    assert rdd.glom().collect() == [[f(x) for x in part] for part in slices(data, num)]


@rdd_property(data=text_lists, num=partitions, f=text_maps)
def test_map_on_text(ctx: Any, data: list[str], num: int, f: Callable[[str], Any]) -> None:
    assert ctx.parallelize(data, num).map(f).collect() == [f(s) for s in data]


@rdd_property(data=int_lists, num=partitions, f=int_flat_maps)
def test_flat_map(ctx: Any, data: list[int], num: int, f: Callable[[int], Any]) -> None:
    rdd = ctx.parallelize(data, num).flatMap(f)
    assert rdd.glom().collect() == [[y for x in part for y in f(x)] for part in slices(data, num)]


@rdd_property(data=int_lists, num=partitions, keep=int_predicates)
def test_filter(ctx: Any, data: list[int], num: int, keep: Callable[[int], bool]) -> None:
    rdd = ctx.parallelize(data, num).filter(keep)
    assert rdd.glom().collect() == [[x for x in part if keep(x)] for part in slices(data, num)]


@rdd_property(data=int_lists, num=partitions, f=int_partition_funcs)
def test_map_partitions(ctx: Any, data: list[int], num: int, f: Callable[[Any], Any]) -> None:
    rdd = ctx.parallelize(data, num).mapPartitions(f)
    assert rdd.getNumPartitions() == num
    assert rdd.glom().collect() == [list(f(iter(part))) for part in slices(data, num)]


@rdd_property(data=element_lists, num=partitions, f=st.sampled_from([tag_with_index, index_and_size]))
def test_map_partitions_with_index(ctx: Any, data: list[Any], num: int, f: Callable[..., Any]) -> None:
    rdd = ctx.parallelize(data, num).mapPartitionsWithIndex(f)
    assert rdd.glom().collect() == [list(f(i, iter(part))) for i, part in enumerate(slices(data, num))]


@rdd_property(data=int_lists, num=partitions, f=int_maps, keep=int_predicates, g=int_to_int_flat_maps)
def test_chained_narrow_operations(ctx: Any, data: list[int], num: int, f: Callable[[int], Any],
                                   keep: Callable[[int], bool], g: Callable[[int], Any]) -> None:
    """filter → flatMap → map runs fused in one task and keeps per-partition order."""
    rdd = ctx.parallelize(data, num).filter(keep).flatMap(g).map(f)
    expected = [[f(y) for x in part if keep(x) for y in g(x)] for part in slices(data, num)]
    assert rdd.glom().collect() == expected


@rdd_property(data=element_lists, num=partitions)
def test_glom(ctx: Any, data: list[Any], num: int) -> None:
    parts = ctx.parallelize(data, num).glom().collect()
    assert parts == slices(data, num)
    assert all(isinstance(part, list) for part in parts)


@rdd_property(data=int_lists, num=partitions, key=int_key_funcs)
def test_key_by(ctx: Any, data: list[int], num: int, key: Callable[[int], Any]) -> None:
    assert ctx.parallelize(data, num).keyBy(key).collect() == [(key(x), x) for x in data]


# ------------------------------------------------------------------ set operations


@rdd_property(data=element_lists, num=partitions, out=st.none() | partitions)
def test_distinct(ctx: Any, data: list[Any], num: int, out: int | None) -> None:
    rdd = ctx.parallelize(data, num).distinct(out)
    result = rdd.collect()
    assert Counter(result) == Counter(set(data))
    if out is not None:
        assert rdd.getNumPartitions() == out


@rdd_property(a=element_lists, b=element_lists, pa=partitions, pb=partitions)
def test_union(ctx: Any, a: list[Any], b: list[Any], pa: int, pb: int) -> None:
    rdd = ctx.parallelize(a, pa).union(ctx.parallelize(b, pb))
    assert rdd.getNumPartitions() == pa + pb
    assert rdd.collect() == a + b


@rdd_property(a=element_lists, b=element_lists, pa=partitions, pb=partitions)
def test_intersection(ctx: Any, a: list[Any], b: list[Any], pa: int, pb: int) -> None:
    """intersection has set semantics: no duplicates in the output."""
    result = ctx.parallelize(a, pa).intersection(ctx.parallelize(b, pb)).collect()
    assert Counter(result) == Counter(set(a) & set(b))


@rdd_property(a=element_lists, b=element_lists, pa=partitions, pb=partitions, out=st.none() | partitions)
def test_subtract(ctx: Any, a: list[Any], b: list[Any], pa: int, pb: int, out: int | None) -> None:
    """subtract keeps the duplicates of the left side that are absent from the right."""
    rdd = ctx.parallelize(a, pa).subtract(ctx.parallelize(b, pb), out)
    removed = set(b)
    assert Counter(rdd.collect()) == Counter(x for x in a if x not in removed)
    if out is not None:
        assert rdd.getNumPartitions() == out


@rdd_property(a=st.lists(st.integers(0, 5), max_size=12), b=text_lists.map(lambda xs: xs[:12]),
              pa=partitions, pb=partitions)
def test_cartesian(ctx: Any, a: list[int], b: list[str], pa: int, pb: int) -> None:
    rdd = ctx.parallelize(a, pa).cartesian(ctx.parallelize(b, pb))
    assert rdd.getNumPartitions() == pa * pb
    assert Counter(rdd.collect()) == Counter(itertools.product(a, b))


# ------------------------------------------------------------------ sample


@rdd_property(n=st.integers(0, 60), num=partitions, fraction=st.floats(0.0, 1.0), seed=seeds)
def test_sample_without_replacement_is_an_ordered_subset(ctx: Any, n: int, num: int, fraction: float,
                                                          seed: int) -> None:
    rdd = ctx.parallelize(list(range(n)), num)
    first = rdd.sample(False, fraction, seed).collect()
    assert first == sorted(set(first)), "a subsequence of the input, without repeats"
    assert set(first) <= set(range(n))
    assert rdd.sample(False, fraction, seed).collect() == first, "same seed, same sample"
    if fraction == 0.0:
        assert first == []
    if fraction == 1.0:
        assert first == list(range(n))


@rdd_property(n=st.integers(0, 60), num=partitions, fraction=st.floats(0.0, 3.0), seed=seeds)
def test_sample_with_replacement_draws_from_the_input(ctx: Any, n: int, num: int, fraction: float,
                                                      seed: int) -> None:
    rdd = ctx.parallelize(list(range(n)), num)
    first = rdd.sample(True, fraction, seed).collect()
    assert set(first) <= set(range(n))
    assert first == sorted(first), "each partition keeps its order; repeats are adjacent"
    assert rdd.sample(True, fraction, seed).collect() == first, "same seed, same sample"
    if fraction == 0.0:
        assert first == []


@rdd_property(fraction=st.floats(0.05, 0.95), seed=seeds, replacement=st.booleans())
def test_sample_size_follows_the_fraction(ctx: Any, fraction: float, seed: int, replacement: bool) -> None:
    """On 2000 elements the sample size is within 6 standard deviations of fraction*n.

    The seed is fixed by Hypothesis, so this is deterministic: it can only fail for a
    sampler that does not honour ``fraction``.
    """
    n = 2000
    size = ctx.parallelize(range(n), 4).sample(replacement, fraction, seed).count()
    variance = n * fraction if replacement else n * fraction * (1 - fraction)
    assert abs(size - n * fraction) <= 6 * math.sqrt(variance) + 1


# ------------------------------------------------------------------ zip


@rdd_property(data=st.lists(st.tuples(st.integers(), st.text(max_size=3)), max_size=30), num=partitions)
def test_zip_of_equally_sliced_rdds(ctx: Any, data: list[tuple[int, str]], num: int) -> None:
    left = ctx.parallelize([a for a, _ in data], num)
    right = ctx.parallelize([b for _, b in data], num)
    assert left.zip(right).collect() == data


@rdd_property(data=element_lists, num=partitions, keep=st.sampled_from([None, "odd"]))
def test_zip_with_index(ctx: Any, data: list[Any], num: int, keep: str | None) -> None:
    """Indices follow partition order, also when partitions have uneven sizes."""
    rdd = ctx.parallelize(list(enumerate(data)), num)
    if keep == "odd":  # uneven, possibly empty partitions
        rdd = rdd.filter(lambda pair: pair[0] % 2 == 1)
    kept = [pair for pair in enumerate(data) if keep is None or pair[0] % 2 == 1]
    assert rdd.zipWithIndex().collect() == [(pair, i) for i, pair in enumerate(kept)]


# ------------------------------------------------------------------ repartitioning


@rdd_property(data=element_lists, num=partitions, target=partitions)
def test_coalesce_without_shuffle_merges_neighbouring_partitions(ctx: Any, data: list[Any], num: int,
                                                                 target: int) -> None:
    """Like Spark without locality: new partition i = parents [i*p//t, (i+1)*p//t)."""
    rdd = ctx.parallelize(data, num).coalesce(target)
    expected_num = min(num, target)
    parents = slices(data, num)
    expected = [
        [x for parent in parents[i * num // expected_num:(i + 1) * num // expected_num] for x in parent]
        for i in range(expected_num)
    ]
    assert rdd.getNumPartitions() == expected_num
    assert rdd.glom().collect() == expected


@rdd_property(data=element_lists, num=partitions, target=partitions, shuffle=st.booleans())
def test_repartition_and_shuffling_coalesce(ctx: Any, data: list[Any], num: int, target: int,
                                            shuffle: bool) -> None:
    base = ctx.parallelize(data, num)
    rdd = base.repartition(target) if shuffle else base.coalesce(target, shuffle=True)
    assert rdd.getNumPartitions() == target
    assert Counter(rdd.collect()) == Counter(data)

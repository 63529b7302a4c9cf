"""Properties of randomSplit, sampleByKey, toLocalIterator and the approximate actions.

Each is compared with a few lines of plain Python that state what it means: a random
split partitions the input (every element in exactly one split, each split in input
order, the sizes near the weights); a stratified sample keeps each key's pairs with
its own fraction; ``toLocalIterator`` yields what ``collect`` returns; ``countApprox``,
``sumApprox`` and ``meanApprox`` are exact (``math.fsum``, ``len``); and
``countApproxDistinct`` counts distinct ``portable_hash`` values exactly up to its
sparse limit and within its error bound past it.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import pytest
from hypothesis import strategies as st

from rdd.approximate import precision_for, sparse_limit
from rdd.partitioner import portable_hash

from tests.strategies import element_lists, finite_floats, partitions, rdd_property, seeds, small_ints

weight_lists = st.lists(st.floats(0.0, 10.0), min_size=1, max_size=5).filter(lambda ws: sum(ws) > 0)


# ------------------------------------------------------------------ randomSplit


@rdd_property(n=st.integers(0, 80), num=partitions, weights=weight_lists, seed=seeds)
def test_random_split_partitions_the_input(ctx: Any, n: int, num: int, weights: list[float], seed: int) -> None:
    rdd = ctx.parallelize(list(range(n)), num)
    splits = [s.collect() for s in rdd.randomSplit(weights, seed)]
    assert len(splits) == len(weights)
    assert sorted(x for s in splits for x in s) == list(range(n)), "every element in exactly one split"
    assert all(s == sorted(s) for s in splits), "each split keeps the input's order"
    for split, weight in zip(splits, weights):
        if weight == 0:
            assert split == []
    assert [s.collect() for s in rdd.randomSplit(weights, seed)] == splits, "same seed, same splits"


@rdd_property(weights=weight_lists.filter(lambda ws: len(ws) > 1), seed=seeds)
def test_random_split_sizes_follow_the_weights(ctx: Any, weights: list[float], seed: int) -> None:
    """On 2000 elements each split's size is within 6 standard deviations of its share."""
    n = 2000
    total = sum(weights)
    sizes = [s.count() for s in ctx.parallelize(range(n), 4).randomSplit(weights, seed)]
    for size, weight in zip(sizes, weights):
        p = weight / total
        assert abs(size - n * p) <= 6 * math.sqrt(n * p * (1 - p)) + 1


@pytest.mark.parametrize("weights", [[], [-1.0, 2.0], [0.0, 0.0], [float("nan")], ["a"]])
def test_random_split_refuses_bad_weights(ctx: Any, weights: list[Any]) -> None:
    with pytest.raises(ValueError, match="[Ww]eights"):
        ctx.parallelize(range(3)).randomSplit(weights)


# ------------------------------------------------------------------ sampleByKey


@rdd_property(data=st.lists(st.tuples(st.integers(0, 3), small_ints), max_size=40), num=partitions,
              fractions=st.fixed_dictionaries({k: st.sampled_from([0.0, 0.3, 1.0]) for k in range(4)}),
              seed=seeds)
def test_sample_by_key_keeps_each_key_with_its_fraction(ctx: Any, data: list[tuple[int, int]], num: int,
                                                        fractions: dict[int, float], seed: int) -> None:
    rdd = ctx.parallelize(data, num)
    sample = rdd.sampleByKey(False, fractions, seed).collect()
    assert not Counter(sample) - Counter(data), "a sub-multiset of the input"
    for key, fraction in fractions.items():
        mine = [p for p in data if p[0] == key]
        kept = [p for p in sample if p[0] == key]
        if fraction == 0.0:
            assert kept == []
        if fraction == 1.0:
            assert sorted(kept) == sorted(mine)
    assert rdd.sampleByKey(False, fractions, seed).collect() == sample, "same seed, same sample"


def test_sample_by_key_names_a_key_without_a_fraction(ctx: Any) -> None:
    rdd = ctx.parallelize([("a", 1), ("b", 2)], 1)
    with pytest.raises(Exception, match="no fraction for key 'b'"):
        rdd.sampleByKey(False, {"a": 0.5}, 1).collect()
    with pytest.raises(ValueError, match="Negative fraction"):
        rdd.sampleByKey(False, {"a": -0.5, "b": 1.0})


# ------------------------------------------------------------------ toLocalIterator


@rdd_property(data=element_lists, num=partitions, prefetch=st.booleans())
def test_to_local_iterator_yields_what_collect_returns(ctx: Any, data: list[Any], num: int, prefetch: bool) -> None:
    rdd = ctx.parallelize(data, num).map(lambda x: (x, 1))
    assert list(rdd.toLocalIterator(prefetch)) == rdd.collect()


def test_to_local_iterator_runs_a_job_only_for_the_partitions_it_reaches(ctx: Any) -> None:
    counted = ctx.accumulator(0)

    def touch(x: int) -> int:
        counted.add(1)
        return x

    it = ctx.parallelize(range(40), 4).map(touch).toLocalIterator()
    assert counted.value == 0, "nothing runs before the first element is asked for"
    assert [next(it) for _ in range(3)] == [0, 1, 2]
    assert counted.value == 10, "only the first partition was computed"


# ------------------------------------------------------------------ approximate actions


@rdd_property(data=st.lists(finite_floats, max_size=30), num=partitions)
def test_sum_mean_and_count_approx_are_exact(ctx: Any, data: list[float], num: int) -> None:
    rdd = ctx.parallelize(data, num)
    total = rdd.sumApprox(1000)
    assert math.isclose(total, math.fsum(data), rel_tol=1e-12, abs_tol=1e-9)
    assert (total.low, total.high, total.confidence) == (float(total), float(total), 1.0)
    assert rdd.countApprox(1000, 0.5) == len(data)
    mean = rdd.meanApprox(1000)
    if data:
        assert math.isclose(mean, math.fsum(data) / len(data), rel_tol=1e-12, abs_tol=1e-9)
    else:
        assert math.isnan(mean)


@rdd_property(data=element_lists, num=partitions)
def test_count_approx_distinct_is_exact_for_small_sets(ctx: Any, data: list[Any], num: int) -> None:
    """PySpark counts distinct 32-bit ``portable_hash`` values; below the sparse limit exactly."""
    expected = len({portable_hash(x) & 0xFFFFFFFF for x in data})
    assert ctx.parallelize(data, num).countApproxDistinct() == expected


@pytest.mark.parametrize("relative_sd", [0.05, 0.01])
@pytest.mark.parametrize("n", [20_000, 200_000])
def test_count_approx_distinct_stays_within_its_error_past_the_sparse_limit(ctx: Any, n: int,
                                                                             relative_sd: float) -> None:
    """Deterministic data, so a deterministic estimate: 4 standard errors is a bound it can only miss if the
    sketch is wrong (a fixed input cannot be unlucky twice)."""
    assert n > sparse_limit(precision_for(relative_sd))
    estimate = ctx.parallelize(range(n), 4).map(lambda i: f"key-{i}").countApproxDistinct(relative_sd)
    assert abs(estimate - n) <= 4 * relative_sd * n


def test_count_approx_distinct_refuses_a_too_small_relative_sd(ctx: Any) -> None:
    with pytest.raises(ValueError, match="relativeSD should be greater than"):
        ctx.parallelize([1]).countApproxDistinct(0.00001)


def test_approx_actions_refuse_a_bad_timeout(ctx: Any) -> None:
    with pytest.raises(ValueError, match="timeout"):
        ctx.parallelize([1]).countApprox(-1)
    with pytest.raises(ValueError, match="confidence"):
        ctx.parallelize([1]).sumApprox(10, 1.5)

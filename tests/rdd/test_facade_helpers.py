"""Pure helpers of the RDD facade mixins, tested without an engine.

Join dispatchers (``rdd.join``), histogram bucket math (``rdd.numeric``), range
partitioning (``rdd.ordered``), the sampler (``rdd.derived``), take-style helpers
(``rdd.actions``) and pickle batching (``rdd.output``).
"""

from __future__ import annotations

import bisect
import itertools
import random
import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rdd import actions, derived, join, numeric, ordered, output
from rdd.resultiterable import ResultIterable

sides = st.lists(st.tuples(st.integers(0, 1), st.integers(-3, 3)), max_size=12)


def naive(tagged, left_default: bool, right_default: bool):
    left = [v for t, v in tagged if t == 0]
    right = [v for t, v in tagged if t == 1]
    if left_default and not left:
        left = [None]
    if right_default and not right:
        right = [None]
    return [(a, b) for a in left for b in right]


@given(sides)
def test_join_dispatchers_match_nested_loops(tagged) -> None:
    assert join.dispatch_join(tagged) == naive(tagged, False, False)
    assert join.dispatch_left_outer(tagged) == naive(tagged, False, True)
    assert join.dispatch_right_outer(tagged) == naive(tagged, True, False)
    assert join.dispatch_full_outer(tagged) == naive(tagged, True, True)


def test_left_outer_keeps_left_values_without_match() -> None:
    assert join.dispatch_left_outer([(0, 1), (0, 2)]) == [(1, None), (2, None)]
    assert join.dispatch_left_outer([(1, "x")]) == []


@given(st.lists(st.tuples(st.integers(0, 3), st.integers()), max_size=12))
def test_cogroup_buffers_split_by_tag_in_order(tagged) -> None:
    groups = join.cogroup_buffers(4, tagged)
    assert len(groups) == 4
    assert all(isinstance(g, ResultIterable) for g in groups)
    for i, g in enumerate(groups):
        assert list(g) == [v for t, v in tagged if t == i]


def test_result_iterable_surface() -> None:
    v = ResultIterable([3, 1])
    assert list(v) == [3, 1] and len(v) == 2 and v.data == [3, 1] and 1 in v
    assert v == ResultIterable([3, 1]) and v != [3, 1]
    assert bool(ResultIterable([])) is False


# --- histogram ----------------------------------------------------------------------


def test_even_buckets_int_and_float() -> None:
    assert numeric._even_buckets(0, 50, 2) == [0, 25, 50]
    assert numeric._even_buckets(0, 5, 2) == [0.0, 2.5, 5]
    assert numeric._even_buckets(1, 2, 3)[-1] == 2  # last boundary is exact


def test_even_buckets_infinite_step() -> None:
    with pytest.raises(ValueError, match="infinite"):
        numeric._even_buckets(float("-inf"), 0.0, 2)


@pytest.mark.parametrize(
    "buckets, message",
    [
        ([1], "more than one"),
        ([1, None], "None or NaN"),
        ([2, 1], "sorted"),
        ([1, 1, 2], "duplicated"),
    ],
)
def test_check_buckets_errors(buckets, message) -> None:
    with pytest.raises(ValueError, match=message):
        numeric._check_buckets(buckets)


@given(
    st.lists(st.integers(-100, 100), min_size=2, max_size=6, unique=True).map(sorted),
    st.lists(st.floats(-150, 150, allow_nan=False), max_size=30),
)
def test_histogram_partition_matches_bisect(buckets, values) -> None:
    even, step = numeric._check_buckets(buckets)
    counts = numeric._histogram_partition(buckets, even, step, values)
    expected = [0] * (len(buckets) - 1)
    for v in values:
        if buckets[0] <= v <= buckets[-1]:
            expected[min(bisect.bisect_right(buckets, v) - 1, len(buckets) - 2)] += 1
    assert counts == expected


def test_histogram_skips_none_and_nan() -> None:
    even, step = numeric._check_buckets([0, 10])
    assert numeric._histogram_partition([0, 10], even, step, [None, float("nan"), 10, 0]) == [2]


# --- range partitioning ---------------------------------------------------------------


@given(st.lists(st.integers(-50, 50), min_size=1), st.integers(2, 6), st.booleans())
def test_range_partition_is_monotone(keys, n, ascending) -> None:
    bounds = ordered._range_bounds(sorted(keys), n)
    assert len(bounds) == n - 1
    parts = [ordered._range_partition(bounds, lambda k: k, ascending, n, k) for k in sorted(keys)]
    assert all(0 <= p < n for p in parts)
    assert parts == sorted(parts, reverse=not ascending)


def test_sort_partition_uses_keyfunc_and_order() -> None:
    pairs = [("b", 1), ("A", 2), ("c", 3)]
    assert ordered._sort_partition(str.lower, True, pairs) == [("A", 2), ("b", 1), ("c", 3)]
    assert ordered._sort_partition(str.lower, False, pairs) == [("c", 3), ("b", 1), ("A", 2)]


# --- sampling and the per-partition action helpers ------------------------------------


def test_sampler_is_deterministic_per_seed_and_split() -> None:
    data = list(range(1000))
    a = list(derived._sample_partition(False, 0.3, 7, 2, data))
    b = list(derived._sample_partition(False, 0.3, 7, 2, data))
    c = list(derived._sample_partition(False, 0.3, 7, 3, data))
    assert a == b and a != c
    assert 200 < len(a) < 400


def test_poisson_mean_and_variance() -> None:
    rng = random.Random(0)
    for mean in (0.5, 3.0, 700.0):
        draws = [derived._poisson(rng, mean) for _ in range(2000)]
        assert abs(statistics.fmean(draws) - mean) < 0.1 * mean + 0.1
        assert abs(statistics.pvariance(draws) - mean) < 0.25 * mean + 0.1
    assert derived._poisson(rng, 0.0) == 0


def test_sample_fraction_bounds() -> None:
    assert actions._sample_fraction(10, 100, False) > 0.1
    assert actions._sample_fraction(100, 100, False) == 1.0
    assert actions._sample_fraction(200, 100, True) > 2.0


def test_reduce_partition_distinguishes_empty_from_none() -> None:
    assert actions._reduce_partition(max, []) == []
    assert actions._reduce_partition(lambda a, b: None, [1, 2]) == [None]


def test_merge_present_treats_absent_as_neutral() -> None:
    add = lambda a, b: a + b  # noqa: E731
    merge = lambda a, b: actions._merge_present(add, a, b)  # noqa: E731
    values = [(None, False), (1, True), (None, False), (2, True)]
    for order in itertools.permutations(values):
        total = (None, False)
        for v in order:
            total = merge(total, v)
        assert total == (3, True)


def test_fold_partition_copies_zero() -> None:
    zero: list[int] = []
    out = actions._fold_partition(zero, lambda acc, x: (acc.append(x), acc)[1], [1, 2])
    assert out == [1, 2] and zero == []


def test_encode_pickle_batches_sizes() -> None:
    import pickle

    frames = list(output._encode_pickle_batches(3, iter(range(7))))
    assert [pickle.loads(f) for f in frames] == [[0, 1, 2], [3, 4, 5], [6]]
    auto = list(output._encode_pickle_batches(0, iter(range(100))))
    assert [x for f in auto for x in pickle.loads(f)] == list(range(100))

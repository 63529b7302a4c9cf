"""OrderedRDDFunctions and DoubleRDDFunctions on ``local`` and ``local[2]``."""

from __future__ import annotations

import math
import random
import statistics
from typing import Any

import pytest

from rdd.statcounter import StatCounter

TMP = [("a", 1), ("b", 2), ("1", 3), ("d", 4), ("2", 5)]


# --- ordering ------------------------------------------------------------------------------


@pytest.mark.parametrize("num_in, num_out", [(1, None), (3, None), (3, 1), (2, 4), (5, 3)])
@pytest.mark.parametrize("ascending", [True, False])
def test_sort_by_key_total_order(
    ctx: Any, num_in: int, num_out: int | None, ascending: bool
) -> None:
    rng = random.Random(num_in * 10 + (num_out or 0))
    data = [(rng.randint(0, 50), i) for i in range(200)]
    result = ctx.parallelize(data, num_in).sortByKey(ascending, num_out)
    expected_parts = num_out if num_out is not None else num_in
    assert result.getNumPartitions() == expected_parts
    keys = result.keys().collect()
    assert keys == sorted((k for k, _ in data), reverse=not ascending)
    assert sorted(result.collect()) == sorted(data)


def test_sort_by_key_like_pyspark(ctx: Any) -> None:
    assert ctx.parallelize(TMP).sortByKey().first() == ("1", 3)
    assert ctx.parallelize(TMP).sortByKey(True, 1).collect() == sorted(TMP)
    assert ctx.parallelize(TMP).sortByKey(True, 2).collect() == sorted(TMP)
    tmp2 = [("Mary", 1), ("had", 2), ("a", 3), ("little", 4), ("lamb", 5)]
    tmp2 += [("whose", 6), ("fleece", 7), ("was", 8), ("white", 9)]
    result = ctx.parallelize(tmp2, 3).sortByKey(True, 3, keyfunc=lambda k: k.lower()).collect()
    assert [k for k, _ in result] == sorted((k for k, _ in tmp2), key=str.lower)
    assert ctx.parallelize([], 3).sortByKey().collect() == []


def test_sort_by(ctx: Any) -> None:
    assert ctx.parallelize(TMP, 2).sortBy(lambda x: x[0]).collect() == sorted(TMP)
    assert ctx.parallelize(TMP, 2).sortBy(lambda x: x[1], False).collect() == sorted(
        TMP, key=lambda x: -x[1]
    )


def test_repartition_and_sort_within_partitions(ctx: Any) -> None:
    rdd = ctx.parallelize([(0, 5), (3, 8), (2, 6), (0, 8), (3, 8), (1, 3)], 2)
    parts = rdd.repartitionAndSortWithinPartitions(2, lambda x: x % 2, True).glom().collect()
    assert [[k for k, _ in p] for p in parts] == [[0, 0, 2], [1, 3, 3]]
    desc = rdd.repartitionAndSortWithinPartitions(3, ascending=False).glom().collect()
    assert len(desc) == 3
    for part in desc:
        keys = [k for k, _ in part]
        assert keys == sorted(keys, reverse=True)


# --- numbers -------------------------------------------------------------------------------


def test_stats_and_shortcuts(ctx: Any) -> None:
    data = [1.5, 2.0, -3.0, 10.0, 4.25, 0.0, 7.0]
    rdd = ctx.parallelize(data, 3)
    stats = rdd.stats()
    assert isinstance(stats, StatCounter) and stats.count() == len(data)
    assert rdd.sum() == pytest.approx(sum(data))
    assert rdd.mean() == pytest.approx(statistics.fmean(data))
    assert rdd.variance() == pytest.approx(statistics.pvariance(data))
    assert rdd.sampleVariance() == pytest.approx(statistics.variance(data))
    assert rdd.stdev() == pytest.approx(statistics.pstdev(data))
    assert rdd.sampleStdev() == pytest.approx(statistics.stdev(data))
    assert repr(ctx.parallelize([1, 2, 3], 2).stats()) == (
        "(count: 3, mean: 2.0, stdev: 0.816496580927726, max: 3.0, min: 1.0)"
    )
    assert ctx.parallelize([], 2).sum() == 0 and ctx.parallelize([], 2).stats().count() == 0


def test_histogram_int_buckets(ctx: Any) -> None:
    rdd = ctx.parallelize(range(51), 3)
    assert rdd.histogram(2) == ([0, 25, 50], [25, 26])
    assert rdd.histogram(1) == ([0, 50], [51])
    assert ctx.parallelize([1.0, 2.0], 2).histogram(3)[1] == [1, 0, 1]
    assert ctx.parallelize([5, 5, 5, None, float("nan")], 2).histogram(4) == ([5, 5], [3])
    with pytest.raises(ValueError, match="empty RDD"):
        ctx.parallelize([], 2).histogram(2)
    with pytest.raises(ValueError, match=">= 1"):
        rdd.histogram(0)


def test_histogram_list_buckets(ctx: Any) -> None:
    rdd = ctx.parallelize(range(51), 3)
    assert rdd.histogram([0, 5, 25, 50]) == ([0, 5, 25, 50], [5, 20, 26])
    assert rdd.histogram([0, 15, 30, 45, 60]) == ([0, 15, 30, 45, 60], [15, 15, 15, 6])
    strings = ctx.parallelize(["ab", "ac", "b", "bd", "ef"], 2)
    assert strings.histogram(("a", "b", "c")) == (("a", "b", "c"), [2, 2])
    with pytest.raises(ValueError, match="sorted"):
        rdd.histogram([3, 1])
    with pytest.raises(TypeError, match="list or tuple"):
        rdd.histogram("10")  # type: ignore[arg-type]
    assert ctx.parallelize([], 2).histogram([0, 1]) == ([0, 1], [0])


def test_histogram_infinite_range(ctx: Any) -> None:
    with pytest.raises(ValueError, match="infinite"):
        ctx.parallelize([float("-inf"), 1.0]).histogram(2)
    buckets, counts = ctx.parallelize([0.1, 0.2, 0.3]).histogram(3)
    assert sum(counts) == 3 and math.isclose(buckets[-1], 0.3)

"""StatCounter: values against the statistics module, merging, PySpark's surface."""

from __future__ import annotations

import math
import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rdd.statcounter import StatCounter

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)


@given(st.lists(finite, min_size=2))
def test_matches_statistics_module(values: list[float]) -> None:
    s = StatCounter(values)
    assert s.count() == len(values)
    assert close(s.mean(), statistics.fmean(values))
    assert close(s.sum(), math.fsum(values))
    assert close(s.variance(), statistics.pvariance(values))
    assert close(s.sampleVariance(), statistics.variance(values))
    assert close(s.stdev(), statistics.pstdev(values))
    assert close(s.sampleStdev(), statistics.stdev(values))
    assert s.max() == max(values) and s.min() == min(values)


@given(st.lists(finite), st.lists(finite))
def test_merge_stats_equals_merging_all_values(left: list[float], right: list[float]) -> None:
    merged = StatCounter(left).mergeStats(StatCounter(right))
    direct = StatCounter(left + right)
    assert merged.count() == direct.count()
    assert close(merged.mean(), direct.mean())
    assert merged.count() < 2 or close(merged.variance(), direct.variance())
    assert merged.max() == direct.max() and merged.min() == direct.min()


def test_merge_stats_with_itself_doubles() -> None:
    s = StatCounter([1.0, 2.0, 3.0])
    s.mergeStats(s)
    assert s.count() == 6
    assert s.mean() == 2.0
    assert close(s.variance(), StatCounter([1.0, 2.0, 3.0] * 2).variance())


def test_merge_stats_rejects_other_types() -> None:
    with pytest.raises(TypeError, match="StatCounter"):
        StatCounter().mergeStats([1, 2])  # type: ignore[arg-type]


def test_empty_counter() -> None:
    s = StatCounter()
    assert s.count() == 0 and s.mean() == 0.0 and s.sum() == 0.0
    assert s.max() == float("-inf") and s.min() == float("inf")
    assert math.isnan(s.variance()) and math.isnan(s.sampleVariance())
    assert math.isnan(StatCounter([1.0]).sampleStdev())


def test_copy_is_independent() -> None:
    s = StatCounter([1.0, 2.0])
    c = s.copy()
    c.merge(10.0)
    assert s.count() == 2 and c.count() == 3


def test_merge_returns_self_and_chains() -> None:
    s = StatCounter()
    assert s.merge(1).merge(2) is s


def test_repr_like_pyspark() -> None:
    assert repr(StatCounter([1, 2, 3])) == (
        "(count: 3, mean: 2.0, stdev: 0.816496580927726, max: 3.0, min: 1.0)"
    )


def test_as_dict() -> None:
    d = StatCounter([1.0, 2.0, 3.0]).asDict()
    assert set(d) == {"count", "mean", "sum", "min", "max", "stdev", "variance"}
    # PySpark's inverted flag: sample statistics by default, population ones with sample=True.
    assert d["count"] == 3 and d["sum"] == 6.0 and d["variance"] == 1.0
    assert StatCounter([1.0, 2.0, 3.0]).asDict(sample=True)["variance"] == pytest.approx(2 / 3)


def test_nan_propagates_to_min_and_max() -> None:
    s = StatCounter([1.0, float("nan"), 2.0])
    assert math.isnan(s.max()) and math.isnan(s.min())

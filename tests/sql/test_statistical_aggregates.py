"""The statistical aggregates against plain Python, per group, on ``local`` and across two workers.

Models: population moments written out from their definitions (Spark's ``skewness`` and
``kurtosis``), ``statistics`` for variances and covariances, sorted lists for the
percentiles (``percentile`` interpolates; ``percentile_approx`` returns the smallest value
with at least ``p`` of the group at or below it), ``Counter`` for ``mode``. Nulls are
dropped as Spark drops them; groups left without values give null.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rdd import SparkContext

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import ArithmeticException

PROPERTY = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
values = st.one_of(st.none(), st.integers(-50, 50).map(float), st.floats(-1e3, 1e3, allow_nan=False))
rows = st.lists(st.tuples(st.sampled_from("abc"), values, values, st.integers(0, 3)), max_size=30)


@pytest.fixture(params=["local", "local[2]"])
def spark(request: pytest.FixtureRequest, make_sc: Callable[..., SparkContext]) -> SparkSession:
    return SparkSession(make_sc(request.param), [("spark.sql.shuffle.partitions", "2")])


def _close(got: Any, want: Any) -> bool:
    if want is None or got is None:
        return got is want
    return math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-9)


def _moments(xs: list[float]) -> tuple[float | None, float | None]:
    n = len(xs)
    if not n:
        return None, None
    mean = sum(xs) / n
    m2 = sum((x - mean) ** 2 for x in xs)
    if m2 == 0 or m2 < 1e-12 * max(1.0, mean * mean) * n:  # no (meaningful) variance: Spark's null
        return None, None
    m3 = sum((x - mean) ** 3 for x in xs)
    m4 = sum((x - mean) ** 4 for x in xs)
    return math.sqrt(n) * m3 / m2 ** 1.5, n * m4 / (m2 * m2) - 3.0


def _covariances(pairs: list[tuple[float, float]]) -> tuple[float | None, float | None, float | None]:
    n = len(pairs)
    if not n:
        return None, None, None
    mx = sum(x for x, _ in pairs) / n
    my = sum(y for _, y in pairs) / n
    c = sum((x - mx) * (y - my) for x, y in pairs)
    vx = sum((x - mx) ** 2 for x, _ in pairs)
    vy = sum((y - my) ** 2 for _, y in pairs)
    corr = c / math.sqrt(vx * vy) if vx > 1e-9 and vy > 1e-9 else None
    return corr, c / n, (c / (n - 1) if n > 1 else None)


def _percentile(xs: list[float], p: float) -> float | None:
    if not xs:
        return None
    s = sorted(xs)
    position = p * (len(s) - 1)
    lower, upper = math.floor(position), math.ceil(position)
    return s[lower] + (position - lower) * (s[upper] - s[lower])


def _percentile_approx(xs: list[float], p: float) -> float | None:
    if not xs:
        return None
    s = sorted(xs)
    return s[max(math.ceil(p * len(s)), 1) - 1]


@given(data=rows)
@PROPERTY
def test_statistical_aggregates_match_plain_python(spark: SparkSession, data: list[tuple[Any, ...]]) -> None:
    df = spark.createDataFrame(data, "k string, x double, y double, n int")
    got = {r.k: r for r in df.groupBy("k").agg(
        F.var_pop("x").alias("var_pop"), F.stddev_pop("x").alias("stddev_pop"), F.skewness("x").alias("skew"),
        F.kurtosis("x").alias("kurt"), F.covar_pop("x", "y").alias("cpop"),
        F.covar_samp("x", "y").alias("csamp"), F.median("x").alias("median"),
        F.percentile("x", [0.1, 0.75]).alias("pct"), F.percentile_approx("x", 0.3).alias("approx"),
        F.mode("n").alias("mode"), F.max_by("n", "x").alias("max_by"), F.min_by("n", "x").alias("min_by"),
    ).collect()}
    # corr apart, without ANSI: under it a group of equal values fails the query (tested below).
    spark.conf.set("spark.sql.ansi.enabled", "false")
    try:
        correlations = {r.k: r.corr for r in df.groupBy("k").agg(F.corr("x", "y").alias("corr")).collect()}
    finally:
        spark.conf.unset("spark.sql.ansi.enabled")
    groups: dict[str, list[tuple[Any, ...]]] = defaultdict(list)
    for row in data:
        groups[row[0]].append(row)
    assert set(got) == set(groups)
    for key, members in groups.items():
        r = got[key]
        xs = [x for _, x, _, _ in members if x is not None]
        pairs = [(x, y) for _, x, y, _ in members if x is not None and y is not None]
        assert _close(r.var_pop, statistics.pvariance(xs) if xs else None)
        assert _close(r.stddev_pop, statistics.pstdev(xs) if xs else None)
        skew, kurt = _moments(xs)
        if skew is not None:  # Spark's null-for-no-variance only; near-constant groups are rounding noise
            assert _close(r.skew, skew) and _close(r.kurt, kurt), (xs, r.skew, r.kurt)
        corr, cpop, csamp = _covariances(pairs)
        assert _close(r.cpop, cpop) and _close(r.csamp, csamp)
        if corr is not None:
            assert _close(correlations[key], corr)
        assert _close(r.median, _percentile(xs, 0.5))
        assert r.pct == (None if not xs else pytest.approx([_percentile(xs, 0.1), _percentile(xs, 0.75)]))
        assert r.approx == _percentile_approx(xs, 0.3)
        counts = Counter(n for _, _, _, n in members)
        assert r.mode == min(n for n, c in counts.items() if c == max(counts.values()))
        ordered = [(x, n) for _, x, _, n in members if x is not None]
        if ordered:
            assert r.max_by in {n for x, n in ordered if x == max(x for x, _ in ordered)}
            assert r.min_by in {n for x, n in ordered if x == min(x for x, _ in ordered)}
        else:
            assert r.max_by is None and r.min_by is None


def test_names_types_and_sql(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, 2.0), (2, 4.0), (3, 7.0)], "n int, x double")
    out = df.agg(F.corr("n", "x"), F.percentile_approx("n", 0.5), F.percentile_approx("n", [0.5, 1.0], 100),
                 F.median("n"), F.percentile("n", 0.5), F.mode("n"), F.max_by("x", "n"), F.kurtosis("x"))
    assert out.columns == ["corr(n, x)", "percentile_approx(n, 0.5, 10000)",
                           "percentile_approx(n, array(0.5, 1.0), 100)", "median(n)", "percentile(n, 0.5, 1)",
                           "mode(n)", "max_by(x, n)", "kurtosis(x)"]
    assert [t for _, t in out.dtypes] == ["double", "int", "array<int>", "double", "double", "int", "double", "double"]
    assert tuple(out.first())[1:7] == (2, [2, 3], 2.0, 2.0, 1, 7.0)
    df.createOrReplaceTempView("t")
    row = spark.sql("SELECT median(x) AS m, percentile_approx(n, 0.9) AS p, covar_samp(n, x) AS c, "
                    "var_pop(n) AS v FROM t").first()
    assert (row.m, row.p, row.c, row.v) == (4.0, 3, 2.5, pytest.approx(2 / 3))
    with pytest.raises(ValueError, match="between 0.0 and 1.0"):
        F.percentile_approx("n", 1.5)


def test_corr_of_a_constant_input_is_null_or_divide_by_zero_under_ansi(spark: SparkSession) -> None:
    # PySpark 4.0.1: corr divides by the spread's root; ANSI's division by zero raises for a
    # group of two or more rows, a single row is null either way.
    df = spark.createDataFrame([("a", 1.0, 2.0), ("a", 1.0, 3.0), ("b", 5.0, 1.0)], "k string, x double, y double")
    with pytest.raises(ArithmeticException, match="DIVIDE_BY_ZERO"):
        df.groupBy("k").agg(F.corr("x", "y")).collect()
    assert df.where("k = 'b'").agg(F.corr("x", "y")).first()[0] is None
    spark.conf.set("spark.sql.ansi.enabled", "false")
    try:
        assert dict(df.groupBy("k").agg(F.corr("x", "y")).collect()) == {"a": None, "b": None}
    finally:
        spark.conf.unset("spark.sql.ansi.enabled")
